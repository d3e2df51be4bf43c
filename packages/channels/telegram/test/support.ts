// Runs a Telegram account the way the gateway does (validated config, a start context with
// receive/setStatus/registerHttpRoute, a private data directory), against a FakeTelegram.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ChannelAccount,
  type ChannelAccountStatus,
  type HttpRoute,
  type InboundMessage,
  noopLogger,
  type OutboundMessage,
  type ReceiveOutcome,
  resolveChannelAccounts,
  type SendResult,
  sendWithRetry,
} from '@switchboard/hooks';
import type { FakeTelegram } from '@switchboard/testkit/telegram';
import { createTelegramChannel, type TelegramChannelOptions } from '../src/index.ts';

export interface TestAccount {
  readonly account: ChannelAccount;
  readonly received: InboundMessage[];
  readonly statuses: ChannelAccountStatus[];
  readonly routes: HttpRoute[];
  readonly dataDirectory: string;
  /** The waits the channel asked for, in milliseconds (the test sleep does not really wait). */
  readonly sleeps: number[];
  /**
   * Sends the way the gateway does: through `sendWithRetry` (the one retry layer) with the
   * account's classification and policy; its waits are recorded in `sleeps`.
   */
  sendRetried(message: OutboundMessage): Promise<SendResult>;
  /** Replaces how `receive` answers (default: journaled). */
  setReceive(receive: (message: InboundMessage) => Promise<ReceiveOutcome>): void;
  status(): ChannelAccountStatus | undefined;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Merged over `{ botToken, apiRoot, pollingTimeoutSeconds: 1 }`. */
  readonly config?: Readonly<Record<string, unknown>>;
  readonly accountId?: string;
  readonly channel?: ReturnType<typeof createTelegramChannel>;
  readonly channelOptions?: TelegramChannelOptions;
  /** Let the channel really wait (default: waits are recorded and skipped). */
  readonly realSleep?: boolean;
  /** How `receive` answers from the start (default: journaled). */
  readonly receive?: (message: InboundMessage) => Promise<ReceiveOutcome>;
  /** Collects statuses here (useful when start rejects). */
  readonly statuses?: ChannelAccountStatus[];
}

const cleanups: Array<() => Promise<void>> = [];

/** Stops every account started by {@link startTestAccount}; call from afterEach. */
export async function stopTestAccounts(): Promise<void> {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
}

/** A sleep that records the wait and yields (so loops progress) without spending the time. */
export function recordingSleep(
  sleeps: number[],
): (milliseconds: number, signal?: AbortSignal) => Promise<void> {
  return (milliseconds, signal) => {
    sleeps.push(milliseconds);
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      setTimeout(resolve, 5);
    });
  };
}

export async function startTestAccount(fake: FakeTelegram, options: StartOptions = {}): Promise<TestAccount> {
  const sleeps: number[] = [];
  const channel =
    options.channel ??
    createTelegramChannel({
      ...(options.realSleep === true ? {} : { sleep: recordingSleep(sleeps) }),
      ...options.channelOptions,
    });
  const accountId = options.accountId ?? 'default';
  const block = { botToken: fake.token, apiRoot: fake.apiRoot, pollingTimeoutSeconds: 1, ...options.config };
  const { accounts } = resolveChannelAccounts(
    channel,
    accountId === 'default' ? block : { accounts: { [accountId]: block } },
  );
  const resolved = accounts[0]!;
  const dataDirectory = await mkdtemp(join(tmpdir(), 'switchboard-telegram-test-'));
  const received: InboundMessage[] = [];
  const statuses: ChannelAccountStatus[] = options.statuses ?? [];
  const routes: HttpRoute[] = [];
  let receive =
    options.receive ??
    (async (_message: InboundMessage): Promise<ReceiveOutcome> => ({ status: 'journaled' }));
  const controller = new AbortController();
  const starting = channel.start({
    channelId: 'telegram',
    accountId,
    account: resolved.config,
    signal: controller.signal,
    logger: noopLogger,
    async receive(message) {
      const outcome = await receive(message);
      received.push(message);
      return outcome;
    },
    setStatus: (status) => {
      statuses.push(status);
    },
    dataDirectory,
    registerHttpRoute: (route) => {
      routes.push(route);
    },
    reportIgnored: () => {},
  });
  let started: ChannelAccount;
  try {
    started = await starting;
  } catch (error) {
    await rm(dataDirectory, { recursive: true, force: true });
    throw error;
  }
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    controller.abort();
    await started.stop();
    await rm(dataDirectory, { recursive: true, force: true });
  };
  cleanups.push(stop);
  return {
    account: started,
    sendRetried: (message) => sendWithRetry(started, message, { sleep: recordingSleep(sleeps) }),
    received,
    statuses,
    routes,
    dataDirectory,
    sleeps,
    setReceive(next) {
      receive = next;
    },
    status: () => statuses.at(-1),
    stop,
  };
}

/** Polls `check` every 10 ms until it holds (or fails after `timeoutMs`). */
export async function eventually(check: () => boolean, description: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
