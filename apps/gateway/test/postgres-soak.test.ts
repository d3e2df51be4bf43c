// The three-replica soak of issue 27 (decision 0021): three gateway processes on one throwaway
// PostgreSQL take 500 messages over 50 sessions — Telegram long polling (one account, one
// consumer at a time under its lease), Telegram webhooks (a second account, accepted by every
// replica behind a round-robin proxy) and the WebSocket protocol (`chat.send` to any replica) —
// while one replica is SIGKILLed, the polling account's holder is paused with SIGSTOP past its
// lease and resumed, and another replica's database connections are cut
// (`pg_terminate_backend`); a supervisor's restarts bring each back. Asserted: 0 lost, 0
// answered twice, per-session order kept. Printed: the channel-lease takeover times.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createPostgresSessionStore, type PostgresSessionStore } from '@switchboard/store-postgres';
import { createFakeAnthropic, type FakeAnthropic } from '@switchboard/testkit/anthropic';
import {
  findPostgresBinaries,
  type PostgresCluster,
  startPostgresCluster,
} from '@switchboard/testkit/postgres';
import { createFakeTelegram, type FakeTelegram } from '@switchboard/testkit/telegram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpcAccountId, rpcChannel } from '../src/runtime/turn-input.ts';
import { type ChildGateway, startChildGateway } from './child-gateway.ts';
import { pollUntil } from './poll.ts';

const run = promisify(execFile);
const token = 'postgres-soak-token-0123456789';
const tokenPattern = /s\d+m\d+/g;
const livenessTimeoutMs = 4000;
const perSession = 10;
/** Sessions by way in: Telegram polling users, Telegram webhook users, WebSocket sessions. */
const pollingUsers = Array.from({ length: 20 }, (_, index) => 5000 + index);
const webhookUsers = Array.from({ length: 10 }, (_, index) => 6000 + index);
const socketSessions = Array.from({ length: 20 }, (_, index) => `soak-ws-${index}`);
const total = (pollingUsers.length + webhookUsers.length + socketSessions.length) * perSession;

let cluster: PostgresCluster;
let url: string;
let model: FakeAnthropic;
let polling: FakeTelegram;
let hooked: FakeTelegram;
let proxy: Server;
let observer: PostgresSessionStore;
const gateways: ChildGateway[] = [];
/** Replicas a load balancer would route to (a paused one is taken out by its health check). */
const healthy = new Set<number>();
/** Protocol requests in flight per replica. */
const inflight = [0, 0, 0];
const directories: string[] = [];
/** While true, a replica that exits on its own is restarted (see the test); afterAll ends it. */
let supervising = false;

/** The text of the user messages after the last assistant message of a model request. */
function newUserText(messages: readonly { role: string; content: unknown }[]): string {
  const last = messages.map((message) => message.role).lastIndexOf('assistant');
  return messages
    .slice(last + 1)
    .filter((message) => message.role === 'user')
    .map((message) => JSON.stringify(message.content))
    .join(' ');
}

/** Runs one SQL statement on the soak database (psql from the cluster's binaries); returns its rows. */
async function sql(statement: string): Promise<string[]> {
  const address = new URL(url);
  const { stdout } = await run(join(findPostgresBinaries(), 'psql'), [
    '-h',
    '127.0.0.1',
    '-p',
    address.port,
    '-U',
    'postgres',
    '-d',
    address.pathname.slice(1),
    '-At',
    '-c',
    statement,
  ]);
  return stdout.split('\n').filter((line) => line !== '');
}

/** Polls `condition` until it holds (see poll.ts); fails naming `what` after `timeoutMs`. */
function waitFor<T>(what: string, condition: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  return pollUntil(what, condition, { timeoutMs, errorsMeanNotYet: true });
}

function timeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** The owner id (`status.replicas`) of a replica, for its backends' application_name. */
async function ownerOf(index: number): Promise<string> {
  const response = await timeout((await gateways[index]!.client()).request('status', {}), 20_000, 'status');
  const replicas = (response.payload as { replicas: { replicas: { self: boolean; ownerId: string }[] } })
    .replicas;
  return replicas.replicas.find((replica) => replica.self)!.ownerId;
}

/** Which replica holds the polling account's lease now (undefined while nobody alive does). */
async function pollingHolder(owners: readonly (string | undefined)[]): Promise<number | undefined> {
  const leases = await observer.listChannelLeases();
  const lease = leases.find((entry) => entry.accountId === 'polling');
  if (lease === undefined) return undefined;
  const index = owners.indexOf(lease.ownerId);
  return index === -1 ? undefined : index;
}

/** A load balancer in front of the webhook: round robin over healthy replicas, next one on failure. */
function startProxy(): Promise<Server> {
  let next = 0;
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    for (let attempt = 0; attempt < gateways.length * 2; attempt += 1) {
      const index = next++ % gateways.length;
      if (!healthy.has(index)) continue;
      try {
        const answer = await fetch(`${gateways[index]!.httpUrl}${request.url}`, {
          method: request.method ?? 'POST',
          headers: {
            'content-type': String(request.headers['content-type'] ?? 'application/json'),
            'x-telegram-bot-api-secret-token': String(
              request.headers['x-telegram-bot-api-secret-token'] ?? '',
            ),
          },
          body,
          signal: AbortSignal.timeout(10_000),
        });
        const text = await answer.text();
        if (answer.status >= 500) continue;
        response.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
        return;
      } catch {
        // Refused (killed) or too slow: the next replica.
      }
    }
    response.writeHead(502).end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  cluster = await startPostgresCluster({ settings: ['max_connections = 200'] });
  url = await cluster.createDatabase('soak');
  polling = await createFakeTelegram({ token: '111111:SOAK-polling-token' }).start();
  hooked = await createFakeTelegram({ token: '222222:SOAK-webhook-token' }).start();
  for (const id of pollingUsers) polling.user(id, { firstName: `P${id}` });
  for (const id of webhookUsers) hooked.user(id, { firstName: `W${id}` });
  model = await createFakeAnthropic({
    // Acknowledges every token of the turn's new user messages (a recovered or collected turn
    // can carry several), so a token answered by two turns shows up twice.
    fallback: (request) => ({
      text: `ack ${[...new Set(newUserText(request.messages).match(tokenPattern) ?? [])].join(' ')}`,
    }),
    latency: { firstByteMs: 30 },
  }).start();
  proxy = await startProxy();
  const proxyPort = (proxy.address() as { port: number }).port;
  for (let index = 0; index < 3; index += 1) {
    const stateDirectory = mkdtempSync(join(tmpdir(), `switchboard-soak-${index}-`));
    directories.push(stateDirectory);
    writeFileSync(
      join(stateDirectory, 'switchboard.json'),
      JSON.stringify({
        gateway: { port: 0, auth: { mode: 'token', token } },
        models: { providers: { anthropic: { baseUrl: model.baseURL, apiKey: 'test-key' } } },
        agents: { defaults: { model: 'anthropic/claude-sonnet-4-6', maxConcurrent: 8 } },
        storage: { kind: 'postgres', url, livenessTimeoutMs, poolSize: 6 },
        logging: process.env.SHOW_REPLICA_LOGS === undefined ? undefined : { level: 'debug' },
        channels: {
          telegram: {
            dmPolicy: 'allowlist',
            accounts: {
              polling: {
                botToken: polling.token,
                apiRoot: polling.apiRoot,
                pollingTimeoutSeconds: 1,
                allowFrom: pollingUsers.map(String),
              },
              hooked: {
                botToken: hooked.token,
                apiRoot: hooked.apiRoot,
                allowFrom: webhookUsers.map(String),
                webhook: {
                  url: `http://127.0.0.1:${proxyPort}/telegram/hooked/webhook`,
                  secretToken: 'soak-webhook-secret',
                },
              },
            },
          },
        },
      }),
    );
  }
  await Promise.all(
    directories.map(async (stateDirectory, index) => {
      gateways[index] = await startChildGateway({ stateDirectory, token });
      healthy.add(index);
    }),
  );
  observer = await createPostgresSessionStore({ url, poolSize: 2 });
}, 180_000);

afterAll(async () => {
  supervising = false;
  for (const [index, gateway] of gateways.entries()) {
    gateway?.signal('SIGCONT');
    if (process.env.SHOW_REPLICA_LOGS !== undefined)
      writeFileSync(join(process.env.SHOW_REPLICA_LOGS, `soak-${index}.log`), gateway?.output.join('') ?? '');
  }
  await Promise.all(gateways.map((gateway) => gateway?.stop()));
  await observer?.close();
  await new Promise((resolve) => proxy?.close(resolve));
  await model?.close();
  await polling?.close();
  await hooked?.close();
  await cluster?.stop();
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
}, 120_000);

/** Every token a chat's replies acknowledged, in the order the user saw them. */
function acknowledgedIn(fake: FakeTelegram, chat: number): string[] {
  return fake.messagesIn(chat).flatMap((message) => message.text.match(tokenPattern) ?? []);
}

/**
 * Replies sent again whole: a reply whose tokens repeat an earlier reply's in the same chat.
 * One reply may answer several messages (a collected batch), so one repeated send can make
 * several messages look answered twice.
 */
function repeatedSendsIn(fake: FakeTelegram, chat: number): { count: number; tokens: Set<string> } {
  const seen = new Set<string>();
  const tokens = new Set<string>();
  let count = 0;
  for (const message of fake.messagesIn(chat)) {
    const found = message.text.match(tokenPattern) ?? [];
    const key = found.join(' ');
    if (key === '') continue;
    if (seen.has(key)) {
      count += 1;
      for (const token of found) tokens.add(token);
    } else seen.add(key);
  }
  return { count, tokens };
}

/**
 * When the fake received each reply that was sent again, and its first copy (from the recorded
 * `sendMessage` requests), to tell which failure each repeat followed.
 */
function repeatedSendTimes(
  fake: FakeTelegram,
  chat: number,
): { key: string; first: number; again: number }[] {
  const firstAt = new Map<string, number>();
  const pairs: { key: string; first: number; again: number }[] = [];
  for (const request of fake.requestsFor('sendMessage')) {
    if (String(request.params.chat_id) !== String(chat)) continue;
    const key = (String(request.params.text ?? '').match(tokenPattern) ?? []).join(' ');
    if (key === '') continue;
    const first = firstAt.get(key);
    if (first === undefined) firstAt.set(key, request.receivedAt);
    else pairs.push({ key, first, again: request.receivedAt });
  }
  return pairs;
}

/** `at` against the chaos events around it: `+412 ms after the SIGSTOP (88 ms before the SIGCONT)`. */
function sinceEvent(at: number, events: readonly { name: string; at: number }[]): string {
  const before = events.filter((event) => event.at <= at).at(-1);
  const after = events.find((event) => event.at > at);
  const since =
    before === undefined ? 'before any failure' : `+${at - before.at} ms after the ${before.name}`;
  return after === undefined ? since : `${since} (${after.at - at} ms before the ${after.name})`;
}

/** Every token the assistant acknowledged in a protocol session's transcript, in order. */
async function acknowledgedInSession(sessionKey: string): Promise<string[]> {
  const session = await observer.getSession(`agent:main:${sessionKey}`);
  if (session === undefined) return [];
  const entries = await observer.readTranscript(session.sessionId);
  return entries.flatMap((entry) => {
    const message = (entry as { type?: string; message?: { role?: string; content?: unknown } }).message;
    if (message?.role !== 'assistant') return [];
    return JSON.stringify(message.content).match(tokenPattern) ?? [];
  });
}

// Runs in every test run. It was on demand for a while (a CI run left one message
// unanswered); decision 0021, "Explained", has the four causes its runs under load found
// and fixed. `SHOW_REPLICA_LOGS=<dir>` keeps the replicas' logs of a run.
describe('three replicas on one PostgreSQL under failures', () => {
  it('loses nothing, answers nothing twice and keeps each session in order through a kill, a pause and a network cut', async () => {
    const started = Date.now();
    const owners: (string | undefined)[] = await Promise.all([0, 1, 2].map((index) => ownerOf(index)));
    const firstHolder = await waitFor('the polling account on one replica', () => pollingHolder(owners));
    let sent = 0;
    const takeovers: string[] = [];

    /** Waits until another live replica holds the polling account; returns how long it took. */
    async function takeover(from: number, since: number, event: string): Promise<number> {
      const holder = await waitFor(
        `the polling account leaving replica ${from}`,
        async () => {
          const now = await pollingHolder(owners);
          return now !== undefined && now !== from ? now : undefined;
        },
        30_000,
      );
      const elapsed = Date.now() - since;
      takeovers.push(`${event}: replica ${holder} took the polling account over after ${elapsed} ms`);
      return elapsed;
    }

    /** A supervisor restarting a replica; its new owner id replaces the old one. */
    /** Restarts in flight, so the chaos and the supervisor never restart one replica twice at once. */
    const restarting = new Map<number, Promise<void>>();
    async function restart(index: number): Promise<void> {
      const running = restarting.get(index);
      if (running !== undefined) return running;
      const restarted = (async () => {
        healthy.delete(index);
        await gateways[index]!.restart();
        owners[index] = await ownerOf(index);
        healthy.add(index);
      })().finally(() => restarting.delete(index));
      restarting.set(index, restarted);
      return restarted;
    }
    // The supervisor (systemd's Restart=always): a replica that exits on its own — one that
    // lost its instance lock stops, exit code 1 — is started again. Replicas the chaos below
    // is acting on are left to it.
    supervising = true;
    const chaosOwned = new Set<number>();
    const supervisorRestarts: string[] = [];
    const supervisors = [0, 1, 2].map(async (index) => {
      while (supervising) {
        const exited = await gateways[index]!.waitForExit(500);
        if (exited === 'running' || !supervising) continue;
        if (restarting.has(index) || chaosOwned.has(index)) {
          // An exited process answers at once: wait, or this loop would starve the test.
          await new Promise((resolve) => setTimeout(resolve, 500));
          continue;
        }
        supervisorRestarts.push(`replica ${index} exited (${exited}) and was restarted`);
        await restart(index).catch(() => undefined);
      }
    });

    /** When each failure was made, to place the replies sent twice (printed below). */
    const chaosEvents: { name: string; at: number }[] = [];
    const chaos = (async () => {
      // 1. SIGKILL the replica polling the Telegram account, a quarter into the traffic.
      await waitFor('a quarter of the traffic', async () => (sent >= total / 4 ? true : undefined), 120_000);
      const killedAt = Date.now();
      chaosEvents.push({ name: `SIGKILL of replica ${firstHolder}`, at: killedAt });
      chaosOwned.add(firstHolder);
      healthy.delete(firstHolder);
      await gateways[firstHolder]!.kill('SIGKILL');
      const killTakeover = await takeover(firstHolder, killedAt, 'SIGKILL');
      const restarts = [restart(firstHolder).finally(() => chaosOwned.delete(firstHolder))];

      // 2. SIGSTOP the new holder past its lease, then SIGCONT: it must find its lease gone.
      await waitFor('half of the traffic', async () => (sent >= total * 0.45 ? true : undefined), 120_000);
      const paused = (await waitFor('a holder', () => pollingHolder(owners)))!;
      // Out of the load balancer first (its health check), its protocol requests drained.
      chaosOwned.add(paused);
      healthy.delete(paused);
      await waitFor('the paused replica drained', async () => (inflight[paused] === 0 ? true : undefined));
      const pausedAt = Date.now();
      chaosEvents.push({ name: `SIGSTOP of replica ${paused}`, at: pausedAt });
      gateways[paused]!.signal('SIGSTOP');
      let pauseTakeover: number;
      try {
        pauseTakeover = await takeover(paused, pausedAt, 'SIGSTOP');
      } finally {
        gateways[paused]!.signal('SIGCONT');
        chaosEvents.push({ name: `SIGCONT of replica ${paused}`, at: Date.now() });
      }
      // It stops its account (a fenced write refused), or stops altogether (its lock is gone).
      await waitFor(
        'the resumed replica stopping its account',
        async () =>
          /channel account stopped: this replica no longer holds its lease|lost its instance lock/.test(
            gateways[paused]!.output.join(''),
          )
            ? true
            : undefined,
        30_000,
      );
      restarts.push(restart(paused).finally(() => chaosOwned.delete(paused)));

      // 3. Cut another replica off the database (its backends terminated), a supervisor restarts it.
      await waitFor(
        'three quarters of the traffic',
        async () => (sent >= total * 0.65 ? true : undefined),
        120_000,
      );
      const holderNow = await waitFor('a holder', () => pollingHolder(owners));
      const cut = holderNow;
      const cutAt = Date.now();
      chaosEvents.push({ name: `network cut of replica ${cut}`, at: cutAt });
      chaosOwned.add(cut);
      await sql(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'switchboard:${owners[cut]}'`,
      );
      healthy.delete(cut);
      const cutTakeover = await takeover(cut, cutAt, 'network cut');
      restarts.push(restart(cut).finally(() => chaosOwned.delete(cut)));
      await Promise.all(restarts);
      return { killTakeover, pauseTakeover, cutTakeover };
    })();
    // A failure in the chaos task fails the test (not an unhandled rejection).
    const chaosOutcome = chaos.then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );

    /** The traffic spans the failures: each session sends about every 2.5 s (spread, not in step). */
    const pace = (session: number, index: number) =>
      new Promise((resolve) => setTimeout(resolve, 2000 + ((session * 137 + index * 71) % 1000)));
    /** One Telegram user: a message every ~2.5 s, as people type. */
    async function telegramUser(fake: FakeTelegram, chat: number, session: number): Promise<void> {
      for (let index = 0; index < perSession; index += 1) {
        fake.pushMessage({ chat: fake.privateChat(chat), text: `hello s${session}m${index}` });
        sent += 1;
        await pace(session, index);
      }
    }
    /** One protocol session: each `chat.send` answered before the next; retried elsewhere on failure. */
    async function socketSession(sessionKey: string, session: number): Promise<void> {
      let replica = session % 3;
      for (let index = 0; index < perSession; index += 1) {
        const params = {
          sessionKey,
          message: `hello s${session}m${index}`,
          idempotencyKey: `${sessionKey}-${index}`,
        };
        for (let attempt = 0; ; attempt += 1) {
          replica = (replica + 1) % 3;
          if (!healthy.has(replica)) {
            await new Promise((resolve) => setTimeout(resolve, 50));
            continue;
          }
          try {
            inflight[replica]! += 1;
            const client = await timeout(gateways[replica]!.client(), 10_000, 'connect');
            const response = await timeout(client.request('chat.send', params), 10_000, 'chat.send');
            if (response.ok) break;
          } catch {
            // The replica went away mid-request: the same idempotency key on another one.
          } finally {
            inflight[replica]! -= 1;
          }
          if (attempt > 200) throw new Error(`chat.send ${params.idempotencyKey} never accepted`);
        }
        sent += 1;
        await pace(session, index);
      }
    }

    await Promise.all([
      ...pollingUsers.map((chat, index) => telegramUser(polling, chat, index)),
      ...webhookUsers.map((chat, index) => telegramUser(hooked, chat, 100 + index)),
      ...socketSessions.map((sessionKey, index) => socketSession(sessionKey, 200 + index)),
    ]);
    const outcome = await chaosOutcome;
    if (!outcome.ok) throw outcome.error;

    // Everything answered (or the wait names what is missing).
    const expected = (session: number) =>
      Array.from({ length: perSession }, (_, index) => `s${session}m${index}`);
    /**
     * A chat's messages whose reply the model gave (the session's transcript has it) but whose
     * send failed for good: a network error that may have reached the platform is not retried,
     * since the platform may have posted it (decision 0023) — the same on one host. Each comes
     * with its failed receipt's error, checked below; anything else missing is lost.
     */
    async function unsentIn(account: string, fake: FakeTelegram, chat: number) {
      const failures = await sql(
        `SELECT error FROM delivery_receipts WHERE state = 'failed' AND idempotency_key LIKE 'telegram:${account}:${chat}:%'`,
      );
      if (failures.length === 0) return { tokens: [] as string[], failures };
      const inChat = new Set(acknowledgedIn(fake, chat));
      const answered = await acknowledgedInSession(`telegram:direct:${chat}`);
      return { tokens: answered.filter((token) => !inChat.has(token)), failures };
    }
    const views = async () => [
      ...(await Promise.all(
        pollingUsers.map(async (chat, index) => ({
          name: `polling ${chat}`,
          want: expected(index),
          got: acknowledgedIn(polling, chat),
          unsent: await unsentIn('polling', polling, chat),
        })),
      )),
      ...(await Promise.all(
        webhookUsers.map(async (chat, index) => ({
          name: `webhook ${chat}`,
          want: expected(100 + index),
          got: acknowledgedIn(hooked, chat),
          unsent: await unsentIn('hooked', hooked, chat),
        })),
      )),
      ...(await Promise.all(
        socketSessions.map(async (sessionKey, index) => ({
          name: sessionKey,
          want: expected(200 + index),
          got: await acknowledgedInSession(sessionKey),
          unsent: { tokens: [] as string[], failures: [] as string[] },
        })),
      )),
    ];
    await waitFor(
      'every message answered',
      async () =>
        (await views()).every((view) =>
          view.want.every((item) => view.got.includes(item) || view.unsent.tokens.includes(item)),
        )
          ? true
          : undefined,
      120_000,
    ).catch(async (error: unknown) => {
      const missing = (await views()).flatMap((view) =>
        view.want.filter((item) => !view.got.includes(item) && !view.unsent.tokens.includes(item)),
      );
      // What the journal knows of each missing message (state, owner, attempts, error), so a
      // failed run says whether a message was never journaled, stuck, or finished unanswered.
      for (const item of missing.slice(0, 5)) {
        const rows = await sql(
          `SELECT account_id, message_id, state, owner_id, attempts, error, session_key, received_at, updated_at FROM inbound_journal WHERE payload LIKE '%hello ${item}%'`,
        ).catch((failure: unknown) => [String(failure)]);
        console.log(`missing ${item}: journal ${rows.length === 0 ? 'has no record' : rows.join(' | ')}`);
        // Its replies' receipts, the model requests whose new user text carried it (when, and
        // what came back), and the session's answered-markers: which step lost it.
        const [account, messageId] = [rows[0]?.split('|')[0], rows[0]?.split('|')[1]];
        if (account !== undefined && messageId !== undefined) {
          const receipts = await sql(
            `SELECT idempotency_key, state, attempts, owner_id, platform_message_id, error, claimed_at, updated_at FROM delivery_receipts WHERE idempotency_key LIKE 'telegram:${account}:${messageId}:%'`,
          ).catch((failure: unknown) => [String(failure)]);
          console.log(`  receipts: ${receipts.length === 0 ? 'none' : receipts.join(' | ')}`);
        }
        const asked = model.requests.filter((request) =>
          newUserText(request.body?.messages ?? []).includes(item),
        );
        console.log(
          `  model requests carrying it: ${asked.map((request) => `#${request.sequence} at ${sinceEvent(request.receivedAt, chaosEvents)} (${request.response.status}, ${request.response.source})`).join('; ') || 'none'}`,
        );
        const markers = await sql(
          `SELECT e.sequence, e.type, left(e.body, 400) FROM transcript_entries e JOIN transcripts t ON t.transcript_id = e.transcript_id WHERE t.session_key = '${rows[0]?.split('|')[6] ?? ''}' AND (e.body LIKE '%inbound-answered%' OR e.body LIKE '%${item}%') ORDER BY e.sequence DESC LIMIT 6`,
        ).catch((failure: unknown) => [String(failure)]);
        console.log(
          `  transcript entries (answered-markers, or carrying it): ${markers.join(' | ') || 'none'}`,
        );
      }
      throw new Error(`${String(error)}; missing ${missing.length}: ${missing.slice(0, 20).join(', ')}`);
    });
    supervising = false;
    await Promise.all(supervisors);
    const socketStates = await Promise.all(
      socketSessions.flatMap((sessionKey) =>
        Array.from({ length: perSession }, (_, index) =>
          observer.getInbound({
            channel: rpcChannel,
            accountId: rpcAccountId,
            messageId: `${sessionKey}-${index}`,
          }),
        ),
      ),
    );

    let lost = 0;
    let twice = 0;
    /** Answered by the model, its send failed for good on a network error (see unsentIn). */
    const unsent: string[] = [];
    const unsentErrors: string[] = [];
    const outOfOrder: string[] = [];
    const repeated = new Map<string, { count: number; tokens: Set<string> }>([
      ...pollingUsers.map((chat) => [`polling ${chat}`, repeatedSendsIn(polling, chat)] as const),
      ...webhookUsers.map((chat) => [`webhook ${chat}`, repeatedSendsIn(hooked, chat)] as const),
    ]);
    /** Messages answered twice other than by a whole reply sent again. */
    const otherwiseTwice: string[] = [];
    for (const view of await views()) {
      if (view.unsent.tokens.length > 0) unsentErrors.push(...view.unsent.failures);
      for (const item of view.want) {
        const count = view.got.filter((seen) => seen === item).length;
        if (count === 0 && view.unsent.tokens.includes(item)) unsent.push(`${item} in ${view.name}`);
        else if (count === 0) lost += 1;
        if (count > 1) {
          twice += 1;
          console.log(`answered twice: ${item} in ${view.name}: ${view.got.join(' ')}`);
          if (repeated.get(view.name)?.tokens.has(item) !== true)
            otherwiseTwice.push(`${item} in ${view.name}`);
        }
      }
      const firsts = view.want.map((item) => view.got.indexOf(item));
      if (!firsts.every((position, index) => index === 0 || position >= firsts[index - 1]!))
        outOfOrder.push(`${view.name}: ${view.got.join(' ')}`);
    }
    const firstPolling = outOfOrder.find((entry) => entry.startsWith('polling'));
    if (firstPolling !== undefined) {
      const chat = Number(firstPolling.split(/[ :]/)[1]);
      console.log(
        JSON.stringify(
          polling.messagesIn(chat).map((m) => [m.messageId, m.date, m.edits.length, m.text.slice(0, 40)]),
        ),
      );
    }
    console.log(
      [
        `soak: ${total} messages over ${pollingUsers.length + webhookUsers.length + socketSessions.length} sessions on 3 replicas in ${Date.now() - started} ms; lost ${lost}, answered twice ${twice}, sessions out of order ${outOfOrder.length}, answered but their send failed for good ${unsent.length}`,
        ...unsent.map((item) => `send failed for good: ${item}`),
        ...unsentErrors.map((error) => `  its receipt: ${error}`),
        ...takeovers,
        ...supervisorRestarts,
        ...[
          ...pollingUsers.map((chat) => ({ chat, name: 'polling', fake: polling })),
          ...webhookUsers.map((chat) => ({ chat, name: 'webhook', fake: hooked })),
        ].flatMap(({ chat, name, fake }) =>
          repeatedSendTimes(fake, chat).map(
            (pair) =>
              `sent twice in ${name} ${chat}: "${pair.key}" first ${sinceEvent(pair.first, chaosEvents)}, again ${sinceEvent(pair.again, chaosEvents)}`,
          ),
        ),
      ].join('\n'),
    );
    // Sends claimed again after their replica died or was fenced (the claim may have reached the platform).
    // Each claim after the first may have sent once more (a send re-claimed twice, through a
    // kill and then a pause, counts twice).
    const [resent] = await sql(
      'SELECT COALESCE(SUM(attempts - 1), 0) FROM delivery_receipts WHERE attempts > 1',
    );
    console.log(`sends claimed again after a takeover: ${resent}`);
    // A send in flight when its replica was killed or paused may have reached the platform
    // before its receipt was recorded: the takeover claims it again (`recovered`) and sends it
    // once more (decision 0021, the one window a platform without idempotency keys leaves).
    // Every duplicate must be such a send; nothing else may be answered twice. (One reply can
    // answer a collected batch of messages, so sends are counted, not messages.)
    const repeatedSends = [...repeated.values()].reduce((sum, entry) => sum + entry.count, 0);
    console.log(`replies sent twice: ${repeatedSends} (messages they answered: ${twice})`);
    expect({ lost, outOfOrder, otherwiseTwice }).toEqual({ lost: 0, outOfOrder: [], otherwiseTwice: [] });
    // A send is given up only on a network failure that may have reached the platform.
    for (const error of unsentErrors) expect(error).toMatch(/ECONNRESET|ETIMEDOUT|socket hang up|timed out/i);
    expect(repeatedSends).toBeLessThanOrEqual(Number(resent));
    expect(socketStates.map((record) => record?.state)).toEqual(socketStates.map(() => 'replied'));
    expect(outcome.value.killTakeover).toBeLessThanOrEqual(10_000);
    expect(outcome.value.pauseTakeover).toBeLessThanOrEqual(livenessTimeoutMs + 10_000);
    expect(outcome.value.cutTakeover).toBeLessThanOrEqual(livenessTimeoutMs + 10_000);
  }, 300_000);
});
