// Test support: starts one Discord account against a FakeDiscord with a recording start
// context (what the gateway would give it), so tests drive the real discord.js end to end.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ChannelAccount,
  type ChannelAccountStatus,
  type IgnoredMessageReport,
  type InboundMessage,
  type Logger,
  type ReceiveOutcome,
  resolveChannelAccounts,
} from '@switchboard/hooks';
import type { FakeDiscord } from '@switchboard/testkit/discord';
import { createDiscordChannel, type DiscordChannelOptions } from '../src/channel.ts';

interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>> | undefined;
}

export interface StartedAccount {
  readonly account: ChannelAccount;
  readonly received: InboundMessage[];
  /** What the channel reported with `context.reportIgnored`, in order. */
  readonly ignored: IgnoredMessageReport[];
  readonly statuses: ChannelAccountStatus[];
  readonly logs: LogLine[];
  readonly dataDirectory: string;
  /** Resolves once `count` messages were received. */
  waitForReceived(count: number, timeoutMs?: number): Promise<InboundMessage[]>;
  /** Resolves once the latest status satisfies `predicate`. */
  waitForStatus(
    predicate: (status: ChannelAccountStatus) => boolean,
    timeoutMs?: number,
  ): Promise<ChannelAccountStatus>;
  stop(): Promise<void>;
}

export interface StartAccountOptions {
  /** Extra `channels.discord` fields (access fields, guilds, ...). */
  readonly config?: Readonly<Record<string, unknown>>;
  readonly accountId?: string;
  readonly channel?: ReturnType<typeof createDiscordChannel>;
  readonly channelOptions?: DiscordChannelOptions;
  /** Answers each `receive`; default: journaled. */
  readonly receive?: (message: InboundMessage) => Promise<ReceiveOutcome>;
}

function recordingLogger(logs: LogLine[]): Logger {
  const write =
    (level: LogLine['level']) =>
    (message: string, fields?: Readonly<Record<string, unknown>>): void => {
      logs.push({ level, message, fields });
    };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

async function until<T>(read: () => T | undefined, what: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Starts a Discord account against `fake`. */
export async function startAccount(
  fake: FakeDiscord,
  options: StartAccountOptions = {},
): Promise<StartedAccount> {
  const channel =
    options.channel ?? createDiscordChannel({ receiveRetryDelaysMs: [5, 5], ...options.channelOptions });
  const accountId = options.accountId ?? 'default';
  const resolved = resolveChannelAccounts(channel, {
    token: fake.token,
    restApi: fake.restApi,
    ...options.config,
  });
  const config = resolved.accounts[0]!.config;
  const received: InboundMessage[] = [];
  const ignored: IgnoredMessageReport[] = [];
  const statuses: ChannelAccountStatus[] = [];
  const logs: LogLine[] = [];
  const controller = new AbortController();
  const dataDirectory = mkdtempSync(join(tmpdir(), 'switchboard-discord-'));
  const account = await channel.start({
    channelId: 'discord',
    accountId,
    account: config,
    signal: controller.signal,
    logger: recordingLogger(logs),
    async receive(message) {
      const outcome =
        options.receive === undefined ? { status: 'journaled' as const } : await options.receive(message);
      received.push(message);
      return outcome;
    },
    setStatus: (status) => statuses.push(status),
    dataDirectory,
    registerHttpRoute() {
      throw new Error('the Discord channel mounts no HTTP routes');
    },
    reportIgnored: (report) => ignored.push(report),
  });
  let stopped = false;
  return {
    account,
    received,
    ignored,
    statuses,
    logs,
    dataDirectory,
    waitForReceived: (count, timeoutMs = 5000) =>
      until(
        () => (received.length >= count ? received : undefined),
        `${count} received message(s)`,
        timeoutMs,
      ),
    waitForStatus: (predicate, timeoutMs = 5000) =>
      until(
        () => {
          const latest = statuses.at(-1);
          return latest !== undefined && predicate(latest) ? latest : undefined;
        },
        'a status',
        timeoutMs,
      ),
    async stop() {
      if (stopped) return;
      stopped = true;
      controller.abort();
      await account.stop();
    },
  };
}
