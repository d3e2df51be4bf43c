// A ChannelStartContext for tests: the account configuration validated by the real schema,
// a temp data directory, inbound messages and statuses recorded, and (for webhooks) a real
// HTTP server on 127.0.0.1 that dispatches to the routes the account registers.
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ChannelAccountStatus,
  type ChannelPlugin,
  type ChannelStartContext,
  type HttpRoute,
  type InboundMessage,
  noopLogger,
  type ReceiveOutcome,
  resolveChannelAccounts,
} from '@switchboard/hooks';
import type { WhatsAppAccountConfig } from '../src/config.ts';

export interface TestContext {
  readonly context: ChannelStartContext<WhatsAppAccountConfig>;
  readonly received: InboundMessage[];
  readonly statuses: ChannelAccountStatus[];
  readonly routes: HttpRoute[];
  readonly controller: AbortController;
  readonly dataDirectory: string;
  /** What `receive` answers; may throw to simulate a store failure. */
  outcome: (message: InboundMessage) => ReceiveOutcome | Promise<ReceiveOutcome>;
  waitForReceived(count: number, timeoutMs?: number): Promise<InboundMessage[]>;
  waitForStatus(
    check: (status: ChannelAccountStatus) => boolean,
    timeoutMs?: number,
  ): Promise<ChannelAccountStatus>;
  /** Serves the registered routes on 127.0.0.1; resolves the base URL. */
  serveRoutes(): Promise<string>;
  close(): Promise<void>;
}

export function createTestContext(
  channel: ChannelPlugin<WhatsAppAccountConfig>,
  config: Record<string, unknown>,
  accountId = 'default',
): TestContext {
  const resolved = resolveChannelAccounts(channel, config);
  const account = resolved.accounts.find((candidate) => candidate.accountId === accountId);
  if (account === undefined) throw new Error(`no account ${accountId} in the test config`);
  const dataDirectory = mkdtempSync(join(tmpdir(), 'switchboard-whatsapp-test-'));
  const received: InboundMessage[] = [];
  const statuses: ChannelAccountStatus[] = [];
  const routes: HttpRoute[] = [];
  const controller = new AbortController();
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  let server: Server | undefined;

  const waitUntil = <T>(check: () => T | undefined, timeoutMs: number, what: () => string): Promise<T> =>
    new Promise((resolve, reject) => {
      const done = check();
      if (done !== undefined) {
        resolve(done);
        return;
      }
      const listener = () => {
        const value = check();
        if (value === undefined) return;
        listeners.delete(listener);
        clearTimeout(timer);
        resolve(value);
      };
      const timer = setTimeout(() => {
        listeners.delete(listener);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`));
      }, timeoutMs);
      listeners.add(listener);
    });

  const test: TestContext = {
    received,
    statuses,
    routes,
    controller,
    dataDirectory,
    outcome: () => ({ status: 'journaled' }),
    context: {
      channelId: channel.id,
      accountId,
      account: account.config,
      signal: controller.signal,
      logger: noopLogger,
      async receive(message) {
        const outcome = await test.outcome(message);
        received.push(message);
        notify();
        return outcome;
      },
      setStatus(status) {
        statuses.push(status);
        notify();
      },
      dataDirectory,
      registerHttpRoute(route) {
        routes.push(route);
      },
      reportIgnored() {},
    },
    waitForReceived(count, timeoutMs = 5_000) {
      return waitUntil(
        () => (received.length >= count ? [...received] : undefined),
        timeoutMs,
        () => `${count} inbound message(s), got ${received.length}`,
      );
    },
    waitForStatus(check, timeoutMs = 5_000) {
      return waitUntil(
        () => {
          const last = statuses.at(-1);
          return last !== undefined && check(last) ? last : undefined;
        },
        timeoutMs,
        () => `a status; last was ${JSON.stringify(statuses.at(-1))}`,
      );
    },
    async serveRoutes() {
      server = createServer(async (request, response) => {
        const path = (request.url ?? '/').split('?')[0];
        const route = routes.find(
          (candidate) =>
            candidate.path === path &&
            (candidate.methods === undefined || candidate.methods.includes(request.method ?? 'GET')),
        );
        if (route === undefined) {
          response.writeHead(404).end();
          return;
        }
        await route.handler(request, response);
      });
      await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    async close() {
      controller.abort();
      if (server !== undefined) {
        const closing = server;
        await new Promise<void>((resolve) => {
          closing.close(() => resolve());
          closing.closeAllConnections();
        });
      }
    },
  };
  return test;
}

/** Timers a test advances by hand: nothing runs until `advance` (or `runAll`) is called. */
export interface ManualTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Moves the clock forward, running every timer due on the way. */
  advance(ms: number): void;
  /** The delays of the timers pending now, soonest first. */
  pending(): number[];
  readonly now: number;
}

export function createManualTimers(): ManualTimers {
  let now = 0;
  let nextId = 1;
  const timers = new Map<number, { at: number; callback: () => void }>();
  return {
    setTimeout(callback, ms) {
      const id = nextId++;
      timers.set(id, { at: now + Math.max(0, ms), callback });
      return id;
    },
    clearTimeout(handle) {
      if (typeof handle === 'number') timers.delete(handle);
    },
    advance(ms) {
      const target = now + ms;
      for (;;) {
        let dueId: number | undefined;
        let dueAt = Number.POSITIVE_INFINITY;
        for (const [id, timer] of timers) {
          if (timer.at <= target && timer.at < dueAt) {
            dueAt = timer.at;
            dueId = id;
          }
        }
        if (dueId === undefined) break;
        const timer = timers.get(dueId)!;
        timers.delete(dueId);
        now = timer.at;
        timer.callback();
      }
      now = target;
    },
    pending() {
      return [...timers.values()].map((timer) => timer.at - now).sort((a, b) => a - b);
    },
    get now() {
      return now;
    },
  };
}
