// One consumer per polling channel account across replicas (decision 0021): two gateway
// processes on one PostgreSQL share one Telegram long-polling account. Exactly one polls it
// (the lease holder); the other waits on standby and takes the account over when the holder
// is SIGKILLed (measured, ≤ 10 s); a holder paused past its lease (SIGSTOP) and resumed finds
// its lease gone, stops the account, logs why, and its late work is refused — every message
// answered exactly once. Real processes, a real PostgreSQL cluster, the Telegram fake driven
// by the real grammY client, the fake model API; every wait is condition-based.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeAnthropic, type FakeAnthropic } from '@switchboard/testkit/anthropic';
import { type PostgresCluster, startPostgresCluster } from '@switchboard/testkit/postgres';
import { createFakeTelegram, type FakeTelegram } from '@switchboard/testkit/telegram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildGateway, startChildGateway } from './child-gateway.ts';
import { pollUntil } from './poll.ts';

const token = 'postgres-channel-leases-token-0123456789';
const tokenPattern = /t\d+/g;
const user = 3001;
/** A replica silent this long counts as gone (storage.livenessTimeoutMs). */
const livenessTimeoutMs = 4000;

let cluster: PostgresCluster;
let model: FakeAnthropic;
let telegram: FakeTelegram;
const gateways: ChildGateway[] = [];
const directories: string[] = [];
/** Messages whose first model request is slow (the pause test). */
const slowOnce = new Set<string>();

/** Polls `condition` until it holds (see poll.ts); fails naming `what` after `timeoutMs`. */
function waitFor<T>(what: string, condition: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  return pollUntil(what, condition, { timeoutMs, errorsMeanNotYet: true });
}

interface AccountView {
  channel: string;
  accountId: string;
  status: { state: string; detail?: string };
}
interface ReplicaView {
  instanceId: number;
  self: boolean;
  alive: boolean;
  channelLeases: { channel: string; accountId: string; fencingToken: number }[];
}

async function statusOf(gateway: ChildGateway): Promise<{
  telegram: AccountView;
  self: ReplicaView;
  replicas: ReplicaView[];
}> {
  const client = await gateway.client();
  const response = await Promise.race([
    client.request('status', {}),
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('status: no answer')), 20_000).unref(),
    ),
  ]);
  if (!response.ok) throw new Error(`status failed: ${JSON.stringify(response.error)}`);
  const payload = response.payload as {
    channels: AccountView[];
    replicas: { replicas: ReplicaView[] };
  };
  const account = payload.channels.find((entry) => entry.channel === 'telegram');
  const self = payload.replicas.replicas.find((replica) => replica.self);
  if (account === undefined || self === undefined)
    throw new Error('status lacks the account or this replica');
  return { telegram: account, self, replicas: payload.replicas.replicas };
}

/** The index of the replica whose Telegram account is connected (the other on standby). */
async function pollingReplica(candidates: readonly number[]): Promise<number> {
  return waitFor('exactly one replica polling the Telegram account', async () => {
    const states = await Promise.all(
      candidates.map(async (index) => (await statusOf(gateways[index]!)).telegram),
    );
    const connected = candidates.filter((_, position) => states[position]!.status.state === 'connected');
    const standby = states.filter(
      (state) => state.status.state === 'stopped' && /standby/.test(state.status.detail ?? ''),
    );
    return connected.length === 1 && standby.length === candidates.length - 1 ? connected[0] : undefined;
  });
}

/** How many replies acknowledged each token, in the user's chat. */
function acknowledgements(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const message of telegram.messagesIn(user)) {
    for (const seen of new Set(message.text.match(tokenPattern) ?? []))
      counts.set(seen, (counts.get(seen) ?? 0) + 1);
  }
  return counts;
}

function pushText(text: string): void {
  telegram.pushMessage({ chat: telegram.privateChat(user), text });
}

beforeAll(async () => {
  cluster = await startPostgresCluster();
  const url = await cluster.createDatabase('channel_leases');
  telegram = await createFakeTelegram().start();
  telegram.user(user, { firstName: 'Lease', username: 'lease_user' });
  model = await createFakeAnthropic({
    fallback: (request) => {
      const text = request.lastUserText ?? '';
      const reply = { text: `ack ${text.match(tokenPattern)?.join(' ') ?? ''}` };
      if (text.includes('slowly') && !slowOnce.has(text)) {
        slowOnce.add(text);
        // Still streaming when its replica is paused, and answered after it resumes.
        return { ...reply, latency: { firstByteMs: livenessTimeoutMs * 3 } };
      }
      return reply;
    },
    latency: { firstByteMs: 30 },
  }).start();
  for (let index = 0; index < 2; index += 1) {
    const stateDirectory = mkdtempSync(join(tmpdir(), `switchboard-channel-leases-${index}-`));
    directories.push(stateDirectory);
    writeFileSync(
      join(stateDirectory, 'switchboard.json'),
      JSON.stringify({
        gateway: { port: 0, auth: { mode: 'token', token } },
        models: { providers: { anthropic: { baseUrl: model.baseURL, apiKey: 'test-key' } } },
        agents: { defaults: { model: 'anthropic/claude-sonnet-4-6' } },
        storage: { kind: 'postgres', url, livenessTimeoutMs },
        channels: {
          telegram: {
            botToken: telegram.token,
            apiRoot: telegram.apiRoot,
            pollingTimeoutSeconds: 1,
            dmPolicy: 'allowlist',
            allowFrom: [String(user)],
          },
        },
      }),
    );
  }
  await Promise.all(
    directories.map(async (stateDirectory, index) => {
      gateways[index] = await startChildGateway({ stateDirectory, token });
    }),
  );
}, 180_000);

afterAll(async () => {
  for (const [index, gateway] of gateways.entries()) {
    gateway?.signal('SIGCONT');
    const log = gateway?.output.join('') ?? '';
    if (/error|LOCK_LOST|FENCED/i.test(log))
      console.error(`replica ${index} log (tail):\n${log.slice(-3000)}`);
  }
  for (const gateway of gateways) await gateway?.stop();
  await model?.close();
  await telegram?.close();
  await cluster?.stop();
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
}, 120_000);

describe('one consumer per channel account across two replicas', () => {
  let owner = 0;

  it('runs the polling account on exactly one replica, which status lists with its lease', async () => {
    owner = await pollingReplica([0, 1]);
    const view = await statusOf(gateways[owner]!);
    expect(view.self.channelLeases).toEqual([
      expect.objectContaining({ channel: 'telegram', accountId: 'default', fencingToken: 1 }),
    ]);
    const standby = await statusOf(gateways[1 - owner]!);
    expect(standby.self.channelLeases).toEqual([]);
    expect(standby.telegram.status.detail).toMatch(/standby: replica #\d+ .* holds this account's lease/);

    for (let index = 1; index <= 6; index += 1) pushText(`hello t${index}`);
    await waitFor('six answers', async () =>
      [1, 2, 3, 4, 5, 6].every((index) => acknowledgements().has(`t${index}`)) ? true : undefined,
    );
    for (let index = 1; index <= 6; index += 1) expect(acknowledgements().get(`t${index}`)).toBe(1);
    // One poller: the fake answers a second concurrent getUpdates with 409 Conflict; none was.
    expect(telegram.requestsFor('getUpdates').filter((request) => request.status === 409)).toEqual([]);
  }, 120_000);

  it('gives the account to the standby replica within 10 s of the holder being killed', async () => {
    const killed = owner;
    const survivor = 1 - owner;
    const killedAt = Date.now();
    await gateways[killed]!.kill('SIGKILL');
    pushText('after the kill t50');
    const connected = await waitFor(
      'the survivor polling',
      async () =>
        (await statusOf(gateways[survivor]!)).telegram.status.state === 'connected' ? Date.now() : undefined,
      30_000,
    );
    await waitFor(
      'the answer to t50',
      async () => (acknowledgements().has('t50') ? true : undefined),
      30_000,
    );
    const answered = Date.now();
    const takeoverMs = connected - killedAt;
    console.log(
      `channel lease takeover after SIGKILL: account polling again after ${takeoverMs} ms, the message sent meanwhile answered after ${answered - killedAt} ms`,
    );
    expect(takeoverMs).toBeLessThanOrEqual(10_000);
    expect(acknowledgements().get('t50')).toBe(1);
    expect((await statusOf(gateways[survivor]!)).self.channelLeases).toEqual([
      expect.objectContaining({ channel: 'telegram', fencingToken: 2 }),
    ]);

    // Restarted (a supervisor would): it comes back on standby behind the survivor.
    await gateways[killed]!.restart();
    expect(await pollingReplica([0, 1])).toBe(survivor);
    owner = survivor;
  }, 120_000);

  it('stops the account of a holder paused past its lease and refuses its late work', async () => {
    const paused = owner;
    const other = 1 - owner;
    pushText('answer slowly t60');
    await waitFor('the slow model request', async () =>
      model.messageRequests.some((request) => request.lastUserText?.includes('t60')) ? true : undefined,
    );
    gateways[paused]!.signal('SIGSTOP');
    try {
      // The other replica takes the account (and the paused one's unfinished message) over.
      await waitFor(
        'the other replica polling',
        async () =>
          (await statusOf(gateways[other]!)).telegram.status.state === 'connected' ? true : undefined,
        30_000,
      );
      await waitFor(
        'the answer to t60',
        async () => (acknowledgements().has('t60') ? true : undefined),
        30_000,
      );
    } finally {
      gateways[paused]!.signal('SIGCONT');
    }
    // Awake again: its lease is gone, so it stops the account and says why.
    await waitFor('the paused replica stopping its account', async () =>
      /channel account stopped: this replica no longer holds its lease/.test(
        gateways[paused]!.output.join(''),
      )
        ? true
        : undefined,
    );
    const log = gateways[paused]!.output.join('');
    expect(log).toMatch(/lost its instance lock|is no longer this replica's/);

    // Its own model answer for t60 arrives late (the slow stream): that turn fails on the store
    // (the lease and the instance lock are gone) instead of being answered a second time.
    await waitFor('the paused replica giving up its late turn', async () =>
      /turn not persisted|run failed|run crashed|send failed/.test(gateways[paused]!.output.join(''))
        ? true
        : undefined,
    );
    pushText('still answered t61');
    await waitFor(
      'the answer to t61',
      async () => (acknowledgements().has('t61') ? true : undefined),
      30_000,
    );
    expect(acknowledgements().get('t60')).toBe(1);
    expect(acknowledgements().get('t61')).toBe(1);
    const view = await statusOf(gateways[other]!);
    expect(view.telegram.status.state).toBe('connected');
    expect(view.self.channelLeases[0]?.fencingToken).toBe(3);
  }, 120_000);
});
