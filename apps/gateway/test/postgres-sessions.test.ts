// Two gateway processes on one PostgreSQL (decision 0021): `status` lists both replicas and
// their session leases, and one session's messages, sent alternately to both replicas, run
// on one replica at a time, in order, each answered exactly once. Real processes, a real
// PostgreSQL cluster (testkit), the fake model API; every wait is condition-based.
// SHOW_REPLICA_LOGS=<directory> runs the replicas at debug level and keeps their logs there.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresSessionStore, type PostgresSessionStore } from '@switchboard/store-postgres';
import { createFakeAnthropic, type FakeAnthropic } from '@switchboard/testkit/anthropic';
import { type PostgresCluster, startPostgresCluster } from '@switchboard/testkit/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatStatus } from '../src/cli/operator/status-command.ts';
import { rpcAccountId, rpcChannel } from '../src/runtime/turn-input.ts';
import { type ChildGateway, startChildGateway } from './child-gateway.ts';
import { pollUntil } from './poll.ts';
import type { ProtocolClient } from './protocol-client.ts';

const token = 'postgres-sessions-token-0123456789';
const tokenPattern = /t\d+/g;

let cluster: PostgresCluster;
let model: FakeAnthropic;
let observer: PostgresSessionStore;
const gateways: ChildGateway[] = [];
/** Messages whose first model request never answers (the failover test). */
const stalled = new Set<string>();
const directories: string[] = [];

/** Polls `condition` until it holds (see poll.ts); fails naming `what` after `timeoutMs`. */
function waitFor<T>(what: string, condition: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  return pollUntil(what, condition, { timeoutMs });
}

async function request(client: ProtocolClient, method: string, params: Record<string, unknown>) {
  const response = await Promise.race([
    client.request(method, params),
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${method} got no answer in 60 s`)), 60_000).unref(),
    ),
  ]);
  if (!response.ok) throw new Error(`${method} failed: ${JSON.stringify(response.error)}`);
  return response.payload ?? {};
}

interface ReplicaView {
  instanceId: number;
  pid: number;
  alive: boolean;
  self: boolean;
  hostname: string;
  startedAt: number;
  sessionLeases: { count: number; sessions: string[] };
}

async function replicasOf(client: ProtocolClient): Promise<{ self: number; replicas: ReplicaView[] }> {
  const status = await request(client, 'status', {});
  return status.replicas as { self: number; replicas: ReplicaView[] };
}

beforeAll(async () => {
  cluster = await startPostgresCluster();
  const url = await cluster.createDatabase('sessions');
  model = await createFakeAnthropic({
    fallback: (request) => {
      const text = request.lastUserText ?? '';
      // Never answered: `slow` until aborted, `stalls once` on its first attempt (failover).
      const stall = text.includes('slow') || (text.includes('stalls once') && !stalled.has(text));
      if (text.includes('stalls once')) stalled.add(text);
      if (stall) return { text: 'too late', latency: { firstByteMs: 600_000 } };
      // Busy long enough for messages sent meanwhile to queue behind it (the collect test).
      if (text.includes('busy for a while'))
        return { text: 'done being busy', latency: { firstByteMs: 5000 } };
      // Larger than one NOTIFY can carry (the relay truncates it).
      if (text.includes('long answer')) return { text: `long ${'0123456789'.repeat(1200)}` };
      return { text: `ack ${text.match(tokenPattern)?.join(' ') ?? ''}` };
    },
    // Long enough that two turns of one session would overlap if both replicas ran them.
    latency: { firstByteMs: 250 },
  }).start();
  for (let index = 0; index < 2; index += 1) {
    const stateDirectory = mkdtempSync(join(tmpdir(), `switchboard-sessions-${index}-`));
    directories.push(stateDirectory);
    writeFileSync(
      join(stateDirectory, 'switchboard.json'),
      JSON.stringify({
        gateway: { port: 0, auth: { mode: 'token', token } },
        models: { providers: { anthropic: { baseUrl: model.baseURL, apiKey: 'test-key' } } },
        agents: { defaults: { model: 'anthropic/claude-sonnet-4-6' } },
        storage: { kind: 'postgres', url },
        logging: process.env.SHOW_REPLICA_LOGS === undefined ? undefined : { level: 'debug' },
      }),
    );
  }
  // Each is kept as soon as it runs, so afterAll stops it even when the other fails to start
  // (a started child left running kept the test process alive: the hang seen under load).
  await Promise.all(
    directories.map(async (stateDirectory) => {
      gateways.push(await startChildGateway({ stateDirectory, token }));
    }),
  );
  observer = await createPostgresSessionStore({ url, poolSize: 2 });
}, 180_000);

afterAll(async () => {
  for (const [index, gateway] of gateways.entries()) {
    const log = gateway.output.join('');
    if (process.env.SHOW_REPLICA_LOGS !== undefined)
      writeFileSync(join(process.env.SHOW_REPLICA_LOGS, `replica-${index}.log`), log);
    if (/error|LOCK_LOST|failed/i.test(log))
      console.error(`replica ${index} log (tail):\n${log.slice(-4000)}`);
  }
  for (const gateway of gateways) await gateway.stop();
  await observer?.close();
  await model?.close();
  await cluster?.stop();
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
}, 120_000);

describe('two gateway replicas on one PostgreSQL: sessions', () => {
  it('status lists both replicas, each knowing which one it is', async () => {
    const [first, second] = gateways as [ChildGateway, ChildGateway];
    const views = [await replicasOf(await first.client()), await replicasOf(await second.client())];
    expect(views[0]!.self).not.toBe(views[1]!.self);
    for (const view of views) {
      const alive = view.replicas.filter((replica) => replica.alive);
      // Both gateways (and this test's observer store) are alive.
      for (const other of views) expect(alive.map((replica) => replica.instanceId)).toContain(other.self);
      const self = view.replicas.find((replica) => replica.self);
      expect(self?.instanceId).toBe(view.self);
      expect(self?.pid).toBeGreaterThan(0);
      expect(self?.hostname).not.toBe('');
      expect(self?.startedAt).toBeGreaterThan(Date.now() - 600_000);
    }
    const status = await request(await first.client(), 'status', {});
    const text = formatStatus(status);
    expect(text).toMatch(/Replicas \(PostgreSQL\): \d+ alive of \d+ registered/);
    expect(text).toMatch(/\(this gateway\)/);
  }, 60_000);

  it('runs one session on one replica at a time, in order, each message once', async () => {
    const clients = [await gateways[0]!.client(), await gateways[1]!.client()];
    const sessionKey = 'shared-across-replicas';
    const count = 8;
    // Alternately to each replica; each is accepted before the next is sent, none waits for its turn.
    const statuses: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const payload = await request(clients[index % 2]!, 'chat.send', {
        sessionKey,
        message: `in order t${index}`,
        idempotencyKey: `ordered-${index}`,
      });
      statuses.push(String(payload.status));
    }
    expect(
      statuses.every((status) => status === 'started' || status === 'queued' || status === 'accepted'),
    ).toBe(true);

    // While the turns run, one replica (and only one) holds the session's lease.
    const holders = await waitFor('a replica to show the session lease', async () => {
      const view = await replicasOf(clients[0]!);
      const holding = view.replicas.filter((replica) =>
        replica.sessionLeases.sessions.includes(`agent:main:${sessionKey}`),
      );
      return holding.length > 0 ? holding : undefined;
    });
    expect(holders).toHaveLength(1);

    const states = await waitFor('every message answered', async () => {
      const records = await Promise.all(
        Array.from({ length: count }, (_, index) =>
          observer.getInbound({
            channel: rpcChannel,
            accountId: rpcAccountId,
            messageId: `ordered-${index}`,
          }),
        ),
      );
      const current = records.map((record) => record?.state ?? 'missing');
      return current.every((state) => state === 'replied' || state === 'failed') ? current : undefined;
    });
    expect(states).toEqual(Array.from({ length: count }, () => 'replied'));

    // The model saw the session's turns one after the other: each request carries every
    // earlier turn's answer (a turn run at the same time as another would lack it), in order.
    const requests = model.messageRequests.filter((entry) => /in order t\d+/.test(entry.lastUserText ?? ''));
    const asked = requests.map((entry) => entry.lastUserText?.match(tokenPattern)?.[0]);
    expect(asked).toEqual(Array.from({ length: count }, (_, index) => `t${index}`));
    for (const [position, entry] of requests.entries()) {
      const answers = entry.messages
        .filter((message) => message.role === 'assistant')
        .map((message) =>
          typeof message.content === 'string'
            ? message.content
            : message.content.map((block) => ('text' in block ? String(block.text) : '')).join(''),
        )
        .filter((text) => text.startsWith('ack t'));
      expect(answers, `request for t${position} sees the answers before it`).toEqual(
        Array.from({ length: position }, (_, index) => `ack t${index}`),
      );
    }

    // Once idle, the lease is released.
    await waitFor('the session lease to be released', async () => {
      const view = await replicasOf(clients[1]!);
      return view.replicas.every(
        (replica) => !replica.sessionLeases.sessions.includes(`agent:main:${sessionKey}`),
      )
        ? true
        : undefined;
    });
  }, 240_000);

  it('shows a run on one replica to clients of the other, and agent.wait and chat.abort reach it', async () => {
    const [onA, onB] = [await gateways[0]!.client(), await gateways[1]!.client()];
    const runId = 'relayed-run';
    const sent = await request(onB, 'chat.send', {
      sessionKey: 'runs-on-b',
      message: 'relay me t100',
      idempotencyKey: runId,
    });
    expect(sent.status).toBe('started');
    // agent.wait on the replica that does not run it: answered from the relayed end of the
    // run (a record with stopReason), not after its timeout from the stored result.
    const waited = await request(onA, 'agent.wait', { runId, timeoutMs: 120_000 });
    expect(waited).toMatchObject({ runId, status: 'ok', stopReason: 'stop' });
    const eventsOf = (client: ProtocolClient, event: string, id: string) =>
      client.events.filter((frame) => frame.event === event && frame.payload?.runId === id);
    await waitFor('the final chat event of the run on B at a client of A', async () =>
      eventsOf(onA, 'chat', runId).some((frame) => frame.payload?.state === 'final') ? true : undefined,
    );
    expect(eventsOf(onA, 'agent', runId).length).toBeGreaterThan(0);
    // Relayed, not duplicated: A's client sees each chat event of the run once.
    const chatSeqs = eventsOf(onA, 'chat', runId).map((frame) => frame.payload?.seq);
    expect(new Set(chatSeqs).size).toBe(chatSeqs.length);

    // A final answer larger than NOTIFY's 8000 bytes reaches A truncated, with a note.
    const longId = 'relayed-long-run';
    await request(onB, 'chat.send', {
      sessionKey: 'long-on-b',
      message: 'long answer t102',
      idempotencyKey: longId,
    });
    expect(await request(onA, 'agent.wait', { runId: longId, timeoutMs: 120_000 })).toMatchObject({
      status: 'ok',
    });
    const longFinal = await waitFor('the final chat event of the long run at a client of A', async () =>
      eventsOf(onA, 'chat', longId).find((frame) => frame.payload?.state === 'final'),
    );
    expect(longFinal.payload).toMatchObject({ runId: longId, truncated: true });
    expect(String(longFinal.payload?.note)).toMatch(/chat\.history/);
    const onBFinal = await waitFor('the same event at a client of B, whole', async () =>
      eventsOf(onB, 'chat', longId).find((frame) => frame.payload?.state === 'final'),
    );
    expect(JSON.stringify(onBFinal.payload)).toContain('0123456789'.repeat(1200));

    // A run that only an abort ends, executing on B, aborted through A.
    const slowId = 'relayed-slow-run';
    await request(onB, 'chat.send', {
      sessionKey: 'aborted-on-b',
      message: 'slow t101',
      idempotencyKey: slowId,
    });
    await waitFor('the slow run to reach the model', async () =>
      model.messageRequests.some((entry) => entry.lastUserText?.includes('slow t101')) ? true : undefined,
    );
    const aborted = await request(onA, 'chat.abort', { sessionKey: 'aborted-on-b' });
    expect(aborted).toMatchObject({ ok: true, aborted: true, runIds: [slowId] });
    const ended = await request(onA, 'agent.wait', { runId: slowId, timeoutMs: 120_000 });
    expect(ended).toMatchObject({ runId: slowId, status: 'error', error: 'aborted' });
    await waitFor('the aborted chat event at a client of A', async () =>
      eventsOf(onA, 'chat', slowId).some((frame) => frame.payload?.state === 'aborted') ? true : undefined,
    );
    const record = await observer.getInbound({
      channel: rpcChannel,
      accountId: rpcAccountId,
      messageId: slowId,
    });
    expect(record?.state).toBe('failed');
  }, 240_000);

  it('keeps the queue mode across replicas: messages collected while the session is busy run as one turn', async () => {
    const [onA, onB] = [await gateways[0]!.client(), await gateways[1]!.client()];
    await request(onA, 'chat.send', {
      sessionKey: 'collected',
      message: 'busy for a while t300',
      idempotencyKey: 'collect-0',
    });
    await waitFor('the first turn to reach the model', async () =>
      model.messageRequests.some((entry) => entry.lastUserText?.includes('t300')) ? true : undefined,
    );
    // While it runs: one message through each replica, both in collect mode.
    await request(onB, 'chat.send', {
      sessionKey: 'collected',
      message: 'first t301',
      idempotencyKey: 'collect-1',
      queueMode: 'collect',
    });
    await request(onA, 'chat.send', {
      sessionKey: 'collected',
      message: 'second t302',
      idempotencyKey: 'collect-2',
      queueMode: 'collect',
    });
    await waitFor('all three answered', async () => {
      const records = await Promise.all(
        ['collect-0', 'collect-1', 'collect-2'].map((messageId) =>
          observer.getInbound({ channel: rpcChannel, accountId: rpcAccountId, messageId }),
        ),
      );
      return records.every((record) => record?.state === 'replied') ? true : undefined;
    });
    const later = model.messageRequests.filter((entry) => /t30[12]/.test(entry.lastUserText ?? ''));
    expect(later, 'the two collected messages go to the model in one turn').toHaveLength(1);
    expect(later[0]!.lastUserText).toMatch(/t301[\s\S]*t302/);
  }, 240_000);

  // Last: it SIGKILLs a replica.
  it('moves a session to the surviving replica when its owner is killed, in order, each message answered once', async () => {
    const [owner, survivor] = gateways as [ChildGateway, ChildGateway];
    const [toOwner, toSurvivor] = [await owner.client(), await survivor.client()];
    await request(toOwner, 'chat.send', {
      sessionKey: 'failover',
      message: 'stalls once t200',
      idempotencyKey: 'failover-1',
    });
    await waitFor('the first message to reach the model on its owner', async () =>
      model.messageRequests.some((entry) => entry.lastUserText?.includes('t200')) ? true : undefined,
    );
    // Sent to the other replica while the owner runs the session: handed to the owner.
    await request(toSurvivor, 'chat.send', {
      sessionKey: 'failover',
      message: 'then t201',
      idempotencyKey: 'failover-2',
    });
    const killedAt = Date.now();
    await owner.kill('SIGKILL');

    const states = await waitFor('both messages answered by the survivor', async () => {
      const records = await Promise.all(
        ['failover-1', 'failover-2'].map((messageId) =>
          observer.getInbound({ channel: rpcChannel, accountId: rpcAccountId, messageId }),
        ),
      );
      const current = records.map((record) => record?.state ?? 'missing');
      return current.every((state) => state === 'replied' || state === 'failed') ? current : undefined;
    });
    expect(states).toEqual(['replied', 'replied']);
    const requests = model.messageRequests.filter((entry) => /t20[01]/.test(entry.lastUserText ?? ''));
    // t200: the killed owner's unanswered attempt, then the survivor's; t201 once, after it.
    expect(requests.map((entry) => entry.lastUserText?.match(tokenPattern)?.[0])).toEqual([
      't200',
      't200',
      't201',
    ]);
    const resumedAt = requests[1]!.receivedAt;
    console.info(`failover: the survivor resumed the session ${resumedAt - killedAt} ms after the SIGKILL`);
    const lastAnswers = requests[2]!.messages
      .filter((message) => message.role === 'assistant')
      .map((message) =>
        typeof message.content === 'string'
          ? message.content
          : message.content.map((block) => ('text' in block ? String(block.text) : '')).join(''),
      );
    expect(lastAnswers).toContain('ack t200');
  }, 240_000);
});
