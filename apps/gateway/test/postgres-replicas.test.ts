// Two gateway processes on one PostgreSQL (storage.kind "postgres", decision 0021): every
// message is sent to both replicas with the same idempotency key, as a client retrying
// through a load balancer would; each is accepted by exactly one replica, run once and
// answered once. Real processes, a real PostgreSQL cluster (testkit), the fake model API.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresSessionStore, type PostgresSessionStore } from '@switchboard/store-postgres';
import { createFakeAnthropic, type FakeAnthropic } from '@switchboard/testkit/anthropic';
import { type PostgresCluster, startPostgresCluster } from '@switchboard/testkit/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpcAccountId, rpcChannel } from '../src/runtime/turn-input.ts';
import { type ChildGateway, startChildGateway } from './child-gateway.ts';

const token = 'postgres-replicas-token-0123456789';
const tokenPattern = /t\d+/g;

let cluster: PostgresCluster;
let model: FakeAnthropic;
let observer: PostgresSessionStore;
const gateways: ChildGateway[] = [];
const directories: string[] = [];

beforeAll(async () => {
  cluster = await startPostgresCluster();
  const url = await cluster.createDatabase('replicas');
  model = await createFakeAnthropic({
    fallback: (request) => ({
      text: `ack ${(request.lastUserText ?? '').match(tokenPattern)?.join(' ') ?? ''}`,
    }),
    latency: { firstByteMs: 20 },
  }).start();
  for (let index = 0; index < 2; index += 1) {
    const stateDirectory = mkdtempSync(join(tmpdir(), `switchboard-replica-${index}-`));
    directories.push(stateDirectory);
    writeFileSync(
      join(stateDirectory, 'switchboard.json'),
      JSON.stringify({
        gateway: { port: 0, auth: { mode: 'token', token } },
        models: { providers: { anthropic: { baseUrl: model.baseURL, apiKey: 'test-key' } } },
        agents: { defaults: { model: 'anthropic/claude-sonnet-4-6' } },
        storage: { kind: 'postgres', url },
      }),
    );
  }
  // Both start together: the schema is migrated once, under the migration lock.
  // Each is kept as soon as it runs, so afterAll stops it even when the other fails to start
  // (a started child left running kept the test process alive: the hang seen under load).
  await Promise.all(
    directories.map(async (stateDirectory) => {
      gateways.push(await startChildGateway({ stateDirectory, token }));
    }),
  );
  observer = await createPostgresSessionStore({ url });
}, 180_000);

afterAll(async () => {
  // What each replica logged, for a failing run (the test's own assertions name the message).
  for (const [index, gateway] of gateways.entries()) {
    const log = gateway.output.join('');
    if (/error|LOCK_LOST/i.test(log)) console.error(`replica ${index} log (tail):\n${log.slice(-4000)}`);
  }
  for (const gateway of gateways) await gateway.stop();
  await observer?.close();
  await model?.close();
  await cluster?.stop();
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
}, 120_000);

describe('two gateway replicas on one PostgreSQL', () => {
  it('answers each message exactly once when both replicas receive it', async () => {
    const [first, second] = gateways as [ChildGateway, ChildGateway];
    expect(first.output.join('')).toMatch(/storage: PostgreSQL/);
    const instances = await observer.listInstances();
    expect(instances.filter((instance) => instance.alive).length).toBe(3);

    const clients = [await first.client(), await second.client()];
    const count = 30;
    const outcomes = await Promise.all(
      Array.from({ length: count }, async (_, index) => {
        const params = {
          sessionKey: `replica-test-${index}`,
          message: `please ack t${index}`,
          idempotencyKey: `key-${index}`,
        };
        const send = async (client: (typeof clients)[number]): Promise<string> => {
          const response = await Promise.race([
            client.request('chat.send', params),
            new Promise<never>((_, reject) =>
              setTimeout(
                () => reject(new Error(`chat.send ${params.idempotencyKey} got no answer in 60 s`)),
                60_000,
              ),
            ),
          ]);
          return (response.payload as { status?: string } | undefined)?.status ?? JSON.stringify(response);
        };
        // A third race both replicas at once; the others reach one replica first, then the other.
        if (index % 3 === 0) return Promise.all(clients.map(send));
        const [early, late] = index % 3 === 1 ? [0, 1] : [1, 0];
        const statuses = ['', ''];
        statuses[early] = await send(clients[early]!);
        statuses[late] = await send(clients[late]!);
        return statuses;
      }),
    );
    for (const [index, statuses] of outcomes.entries()) {
      expect(
        statuses.filter((status) => status === 'started'),
        `key-${index}: exactly one replica starts it (${statuses.join(', ')})`,
      ).toHaveLength(1);
    }

    // Wait (polling the shared journal) until every message is answered.
    const deadline = Date.now() + 90_000;
    let states: string[] = [];
    while (Date.now() < deadline) {
      const records = await Promise.all(
        Array.from({ length: count }, (_, index) =>
          observer.getInbound({ channel: rpcChannel, accountId: rpcAccountId, messageId: `key-${index}` }),
        ),
      );
      states = records.map((record) => record?.state ?? 'missing');
      if (states.every((state) => state === 'replied' || state === 'failed')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(states).toEqual(Array.from({ length: count }, () => 'replied'));

    // The model saw each message in exactly one turn: none lost, none run twice.
    const seen = new Map<string, number>();
    for (const request of model.messageRequests) {
      for (const seenToken of new Set(request.lastUserText?.match(tokenPattern) ?? [])) {
        seen.set(seenToken, (seen.get(seenToken) ?? 0) + 1);
      }
    }
    for (let index = 0; index < count; index += 1) {
      expect(seen.get(`t${index}`), `t${index} runs exactly once`).toBe(1);
    }
    // A message that reached one replica first was started there; the other saw the shared
    // journal's record and did not run it again.
    for (const [index, statuses] of outcomes.entries()) {
      if (index % 3 === 1) expect(statuses[0]).toBe('started');
      if (index % 3 === 2) expect(statuses[1]).toBe('started');
    }
  }, 180_000);
});
