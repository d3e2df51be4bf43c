// A stand-in for the gateway around one Slack account: it validates the config with the
// channel's schema, serves registered HTTP routes on its own 127.0.0.1 server (as the
// gateway's HTTP server does), records what the channel hands to `receive`, and keeps the
// status snapshots.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ChannelAccount,
  type ChannelAccountStatus,
  type HttpRoute,
  type InboundMessage,
  type Logger,
  type ReceiveOutcome,
  resolveChannelAccounts,
} from '@switchboard/hooks';
import { createSlackChannel, type SlackChannelOptions } from '../src/index.ts';

export interface HarnessOptions {
  /** The `channels.slack` block. */
  readonly config: Record<string, unknown>;
  /** Which account of the block to start. Default the first. */
  readonly accountId?: string;
  readonly channel?: SlackChannelOptions;
  /** Serve routes on this stand-in server instead of a new one (several accounts on one gateway). */
  readonly routeServer?: RouteServer;
  /** Decides each `receive`; default: journaled, duplicates by message id. */
  readonly receive?: (message: InboundMessage) => Promise<ReceiveOutcome>;
}

export interface Harness {
  readonly account: ChannelAccount;
  readonly accountId: string;
  /** Every message handed to `receive` (duplicates included), in order. */
  readonly received: InboundMessage[];
  /** The messages that were journaled (first delivery of each id). */
  readonly journaled: InboundMessage[];
  readonly statuses: ChannelAccountStatus[];
  readonly routes: HttpRoute[];
  readonly logs: Array<{ level: string; message: string; fields?: unknown }>;
  /** `http://127.0.0.1:<port>`: the stand-in gateway server. */
  readonly httpUrl: string;
  readonly dataDirectory: string;
  readonly signal: AbortSignal;
  waitForJournaled(count: number, timeoutMs?: number): Promise<InboundMessage[]>;
  waitForStatus(
    check: (status: ChannelAccountStatus) => boolean,
    timeoutMs?: number,
  ): Promise<ChannelAccountStatus>;
  stop(): Promise<void>;
}

async function waitFor<T>(check: () => T | undefined, describe: () => string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface RouteServer {
  readonly server: Server;
  readonly url: string;
  readonly routes: HttpRoute[];
  close(): Promise<void>;
}

/** Starts a server that dispatches to routes registered later, as the gateway does. */
export async function startRouteServer(routes: HttpRoute[] = []): Promise<RouteServer> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const route = routes.find(
      (candidate) =>
        candidate.path === path &&
        (candidate.methods === undefined || candidate.methods.includes(request.method ?? '')),
    );
    if (route === undefined) {
      response.writeHead(404).end('no route');
      return;
    }
    void Promise.resolve(route.handler(request, response)).catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    routes,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const channel = createSlackChannel(options.channel);
  const { accounts } = resolveChannelAccounts(channel, options.config);
  const resolved =
    options.accountId === undefined
      ? accounts[0]
      : accounts.find((entry) => entry.accountId === options.accountId);
  if (resolved === undefined) throw new Error(`no account ${options.accountId ?? '(first)'} in the config`);
  const ownServer = options.routeServer === undefined;
  const routeServer = options.routeServer ?? (await startRouteServer());
  const { routes, url } = routeServer;
  const received: InboundMessage[] = [];
  const journaled: InboundMessage[] = [];
  const statuses: ChannelAccountStatus[] = [];
  const logs: Harness['logs'] = [];
  const seen = new Set<string>();
  const controller = new AbortController();
  const dataDirectory = mkdtempSync(join(tmpdir(), 'slack-channel-test-'));
  const logger: Logger = {
    debug: (message, fields) => logs.push({ level: 'debug', message, fields }),
    info: (message, fields) => logs.push({ level: 'info', message, fields }),
    warn: (message, fields) => logs.push({ level: 'warn', message, fields }),
    error: (message, fields) => logs.push({ level: 'error', message, fields }),
  };
  const defaultReceive = async (message: InboundMessage): Promise<ReceiveOutcome> => {
    if (seen.has(message.messageId)) return { status: 'duplicate' };
    seen.add(message.messageId);
    journaled.push(message);
    return { status: 'journaled' };
  };
  let account: ChannelAccount;
  try {
    account = await channel.start({
      channelId: 'slack',
      accountId: resolved.accountId,
      account: resolved.config,
      signal: controller.signal,
      logger,
      async receive(message) {
        received.push(message);
        if (options.receive === undefined) return defaultReceive(message);
        const outcome = await options.receive(message);
        if (outcome.status === 'journaled') journaled.push(message);
        return outcome;
      },
      setStatus: (status) => statuses.push(status),
      dataDirectory,
      registerHttpRoute: (route) => routes.push(route),
      reportIgnored: () => {},
    });
  } catch (error) {
    if (ownServer) await routeServer.close();
    rmSync(dataDirectory, { recursive: true, force: true });
    throw error;
  }
  let stopped = false;
  return {
    account,
    accountId: resolved.accountId,
    received,
    journaled,
    statuses,
    routes,
    logs,
    httpUrl: url,
    dataDirectory,
    signal: controller.signal,
    waitForJournaled: (count, timeoutMs = 10_000) =>
      waitFor(
        () => (journaled.length >= count ? journaled : undefined),
        () => `${count} journaled message(s), got ${journaled.length}`,
        timeoutMs,
      ),
    waitForStatus: (check, timeoutMs = 10_000) =>
      waitFor(
        () => {
          const last = statuses.at(-1);
          return last !== undefined && check(last) ? last : undefined;
        },
        () => `a status, last: ${JSON.stringify(statuses.at(-1))}`,
        timeoutMs,
      ),
    async stop() {
      if (stopped) return;
      stopped = true;
      controller.abort();
      await account.stop();
      if (ownServer) await routeServer.close();
      rmSync(dataDirectory, { recursive: true, force: true });
    },
  };
}
