// One outbound path (issue 19, decision 0023): the gateway's `createOutbound` composes the retry
// once around each real channel's `send`, against each platform's fake. A platform 429 costs
// exactly the configured number of attempts (counted by the fake), every wait honours the
// platform's retry-after, and the delivery receipt is written once however many attempts it took.
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDiscordChannel } from '@switchboard/channel-discord';
import { createSlackChannel } from '@switchboard/channel-slack';
import { createTelegramChannel } from '@switchboard/channel-telegram';
import { createWhatsAppChannel } from '@switchboard/channel-whatsapp';
import {
  type ChannelAccount,
  type ChannelAccountStatus,
  type ChannelPlugin,
  createHookBus,
  type HttpRoute,
  type InboundMessage,
  type Logger,
  type OutboundMessage,
  resolveChannelAccounts,
  SwitchboardError,
  sleep,
} from '@switchboard/hooks';
import { createSqliteSessionStore, type SessionStore } from '@switchboard/sessions';
import { type ChannelConformanceDriver, conformanceAccess } from '@switchboard/testkit/conformance';
import { createDiscordConformanceDriver } from '@switchboard/testkit/discord';
import { createSlackConformanceDriver } from '@switchboard/testkit/slack';
import { createTelegramConformanceDriver } from '@switchboard/testkit/telegram';
import {
  createWhatsAppBaileysConformanceDriver,
  createWhatsAppCloudConformanceDriver,
} from '@switchboard/testkit/whatsapp';
import { afterEach, describe, expect, it } from 'vitest';
import { createOutbound } from '../../src/runtime/outbound.ts';

interface Platform {
  readonly name: string;
  /** The platform's retry-after the fake answers with, in seconds (Telegram's is whole seconds). */
  readonly retryAfterSeconds: number;
  createDriver(): ChannelConformanceDriver;
  /** The channel, configured for `attempts` attempts per send where its retry setting lives. */
  createChannel(attempts: number, driver: ChannelConformanceDriver): ChannelPlugin;
  /** The channel's config block with `attempts` in the channel's own retry setting, if it is config. */
  config(attempts: number, block: Record<string, unknown>): Record<string, unknown>;
}

const platforms: readonly Platform[] = [
  {
    name: 'telegram',
    retryAfterSeconds: 1,
    createDriver: () => createTelegramConformanceDriver(),
    createChannel: () => createTelegramChannel(),
    config: (attempts, block) => ({ ...block, sendRetry: { attempts, maxWaitSeconds: 60 } }),
  },
  {
    name: 'slack',
    // Slack's Retry-After is whole seconds (the WebClient reads it as an integer).
    retryAfterSeconds: 1,
    createDriver: () => createSlackConformanceDriver({ mode: 'http' }),
    createChannel: (attempts) => createSlackChannel({ maxRateLimitRetries: attempts - 1 }),
    config: (_attempts, block) => block,
  },
  {
    name: 'discord',
    retryAfterSeconds: 0.2,
    createDriver: () => createDiscordConformanceDriver(),
    createChannel: () => createDiscordChannel(),
    config: (attempts, block) => ({ ...block, rateLimit: { maxRetries: attempts - 1, maxWaitSeconds: 60 } }),
  },
  {
    name: 'whatsapp (cloud)',
    retryAfterSeconds: 0.2,
    createDriver: () => createWhatsAppCloudConformanceDriver(),
    createChannel: (attempts) =>
      createWhatsAppChannel({
        rateLimitRetry: { maxAttempts: attempts, defaultWaitMs: 1_000, maxWaitMs: 30_000 },
      }),
    config: (_attempts, block) => block,
  },
  {
    name: 'whatsapp (baileys)',
    retryAfterSeconds: 0.2,
    createDriver: () => createWhatsAppBaileysConformanceDriver(),
    createChannel: (attempts, driver) =>
      createWhatsAppChannel({
        rateLimitRetry: { maxAttempts: attempts, defaultWaitMs: 1_000, maxWaitMs: 30_000 },
        environment: { ...process.env, ...driver.environment?.() },
      }),
    config: (_attempts, block) => block,
  },
];

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/** The gateway's HTTP routes, as the channel registers them (webhooks of Slack and WhatsApp Cloud). */
async function startRouteServer(routes: HttpRoute[]): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const route = routes.find((candidate) =>
      candidate.match === 'prefix' ? path.startsWith(candidate.path) : path === candidate.path,
    );
    if (route === undefined) {
      response.writeHead(404).end();
      return;
    }
    void Promise.resolve(route.handler(request, response)).catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function waitUntil(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/**
 * Starts one real channel account against the platform's fake, wires it into the gateway's
 * outbound path, and gets the peer of a DM from alice (so the reply address is the platform's own).
 */
async function setUp(
  platform: Platform,
  attempts: number,
  confirmSendAllowed?: (channel: string, accountId: string) => Promise<void>,
) {
  const driver = platform.createDriver();
  await driver.start();
  cleanups.push(() => driver.stop());
  const channel = platform.createChannel(attempts, driver);
  const block = platform.config(attempts, driver.channelConfig(conformanceAccess(driver)));
  const resolved = resolveChannelAccounts(channel, block).accounts[0]!;
  const received: InboundMessage[] = [];
  const routes: HttpRoute[] = [];
  const routeServer = await startRouteServer(routes);
  cleanups.push(() => new Promise<void>((resolve) => routeServer.server.close(() => resolve())));
  const controller = new AbortController();
  let status: ChannelAccountStatus = { state: 'starting' };
  const dataDirectory = mkdtempSync(join(tmpdir(), 'switchboard-outbound-retry-'));
  const running: ChannelAccount = await channel.start({
    channelId: channel.id,
    accountId: resolved.accountId,
    account: resolved.config,
    signal: controller.signal,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    async receive(message) {
      received.push(message);
      return { status: 'journaled' };
    },
    reportIgnored() {},
    setStatus(next) {
      status = next;
    },
    dataDirectory,
    registerHttpRoute(route) {
      routes.push(route);
    },
  });
  cleanups.push(async () => {
    controller.abort();
    await running.stop();
  });
  await driver.onGatewayStarted?.({ httpUrl: routeServer.url });

  const store: SessionStore = await createSqliteSessionStore({
    stateDirectory: mkdtempSync(join(tmpdir(), 'switchboard-outbound-retry-store-')),
  });
  cleanups.push(() => store.close());
  const logs: string[] = [];
  const logger: Logger = {
    debug() {},
    info() {},
    warn: (message) => void logs.push(message),
    error: (message) => void logs.push(message),
  };
  /** Every wait the retry asked for, really waited (on the real clock). */
  const waits: number[] = [];
  const send = createOutbound({
    hooks: createHookBus(),
    channels: { account: () => ({ running, status }) },
    store,
    confirmSendAllowed,
    logger,
    now: Date.now,
    sleep: (ms, signal) => {
      waits.push(ms);
      return sleep(ms, signal);
    },
  });

  const { conversation } = await driver.sendDirect('alice', 'hello');
  await waitUntil(() => received.length > 0, `${platform.name}: the inbound DM`);
  const inbound = received[0]!;
  const reply = (text: string): OutboundMessage => ({
    kind: 'text',
    channel: channel.id,
    accountId: resolved.accountId,
    peer: inbound.peer,
    text,
  });
  return { driver, conversation, send, reply, waits, logs, store, running };
}

describe.each(platforms)('one outbound path: $name', (platform) => {
  const attempts = 3;
  const retryAfterMs = platform.retryAfterSeconds * 1000;

  it('a 429 that does not stop costs exactly the configured attempts, each after the retry-after', async () => {
    const { driver, conversation, send, reply, waits, logs, running } = await setUp(platform, attempts);
    expect(running.sendRetry?.attempts).toBe(attempts);
    const before = driver.rateLimitedSends();
    driver.rateLimitNextSends(attempts + 5, platform.retryAfterSeconds);
    const started = performance.now();
    await expect(send(reply('never delivered'), { idempotencyKey: 'limited-1' })).rejects.toMatchObject({
      retryable: true,
    });
    const elapsed = performance.now() - started;
    // Exactly `attempts` requests reached the platform: no layer retried on its own.
    expect(driver.rateLimitedSends() - before).toBe(attempts);
    expect(waits).toHaveLength(attempts - 1);
    for (const wait of waits) expect(wait).toBeGreaterThanOrEqual(retryAfterMs);
    expect(elapsed).toBeGreaterThanOrEqual((attempts - 1) * retryAfterMs - 5);
    expect(
      driver.replies(conversation).filter((candidate) => /never delivered/.test(candidate.text)),
    ).toEqual([]);
    expect(logs.filter((line) => line === 'send failed, retrying')).toHaveLength(attempts - 1);
  }, 60_000);

  it('a 429 that stops in time is waited out and delivered once, with one receipt', async () => {
    const { driver, conversation, send, reply, waits, store } = await setUp(platform, attempts);
    const before = driver.rateLimitedSends();
    driver.rateLimitNextSends(attempts - 1, platform.retryAfterSeconds);
    const result = await send(reply('delivered after the limit'), { idempotencyKey: 'limited-2' });
    expect(result.status).toBe('sent');
    expect(driver.rateLimitedSends() - before).toBe(attempts - 1);
    expect(waits).toHaveLength(attempts - 1);
    for (const wait of waits) expect(wait).toBeGreaterThanOrEqual(retryAfterMs);
    await driver.waitForReplies(conversation, 1, 10_000);
    expect(
      driver.replies(conversation).filter((candidate) => /delivered after the limit/.test(candidate.text)),
    ).toHaveLength(1);
    // The receipt makes a replay a no-op: the same key is not sent again.
    const again = await send(reply('delivered after the limit'), { idempotencyKey: 'limited-2' });
    expect(again.status).toBe('already-sent');
    expect(driver.rateLimitedSends() - before).toBe(attempts - 1);
    expect(await store.claimDelivery('limited-2', { channel: 'x', accountId: 'x', to: 'x' })).toMatchObject({
      status: 'already-sent',
    });
  }, 60_000);
});

// Replicas (decision 0021) check before every attempt that they may still send: a replica
// resumed after a pause must not send what another replica has taken over and sent.
describe('the check before each send attempt', () => {
  const telegram = platforms[0]!;
  /** Even an error marked retryable: a refused check is never retried. */
  const refusal = () => new SwitchboardError('SESSIONS_LOCK_LOST', 'lock lost (test)', { retryable: true });

  it('a refused check fails the send before the channel is called', async () => {
    const asked: string[] = [];
    const { driver, conversation, send, reply, store } = await setUp(
      telegram,
      3,
      async (channel, accountId) => {
        asked.push(`${channel}/${accountId}`);
        throw refusal();
      },
    );
    await expect(send(reply('must not go out'), { idempotencyKey: 'guarded-1' })).rejects.toMatchObject({
      code: 'SESSIONS_LOCK_LOST',
    });
    expect(asked).toHaveLength(1);
    await sleep(200);
    expect(
      driver.replies(conversation).filter((candidate) => /must not go out/.test(candidate.text)),
    ).toEqual([]);
    // The receipt is marked failed, so a later claim (the replica that took over) may send it.
    expect(await store.claimDelivery('guarded-1', { channel: 'x', accountId: 'x', to: 'x' })).toMatchObject({
      status: 'claimed',
    });
  }, 60_000);

  it('runs before every attempt: a retry after a 429 is refused once the check fails', async () => {
    let calls = 0;
    const { driver, conversation, send, reply, waits } = await setUp(telegram, 3, async () => {
      calls += 1;
      if (calls > 1) throw refusal();
    });
    const before = driver.rateLimitedSends();
    driver.rateLimitNextSends(1, telegram.retryAfterSeconds);
    await expect(send(reply('refused on the retry'), { idempotencyKey: 'guarded-2' })).rejects.toMatchObject({
      code: 'SESSIONS_LOCK_LOST',
    });
    expect(calls).toBe(2);
    expect(waits).toHaveLength(1);
    expect(driver.rateLimitedSends() - before).toBe(1);
    expect(
      driver.replies(conversation).filter((candidate) => /refused on the retry/.test(candidate.text)),
    ).toEqual([]);
  }, 60_000);

  it('an allowed check changes nothing: sent once', async () => {
    let calls = 0;
    const { driver, conversation, send, reply } = await setUp(telegram, 3, async () => {
      calls += 1;
    });
    expect((await send(reply('allowed'), { idempotencyKey: 'guarded-3' })).status).toBe('sent');
    await driver.waitForReplies(conversation, 1, 10_000);
    expect(driver.replies(conversation).filter((candidate) => /allowed/.test(candidate.text))).toHaveLength(
      1,
    );
    expect(calls).toBe(1);
  }, 60_000);
});
