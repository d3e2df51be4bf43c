// The channel-lease keeper with the real channel manager on a real PostgreSQL cluster
// (testkit): which accounts need a lease, one replica runs a polling account while the other
// stands by and names the holder, the standby takes over once the holder's store is gone, and
// the old holder's fenced journal write is refused and stops its account.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type ChannelPlugin, defineChannelConfig, type Logger, z } from '@switchboard/hooks';
import { createPostgresSessionStore, type PostgresSessionStore } from '@switchboard/store-postgres';
import {
  findPostgresBinaries,
  type PostgresCluster,
  startPostgresCluster,
} from '@switchboard/testkit/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChannelManager, createChannelManager } from '../runtime/channels.ts';
import { createNotAnsweredLog } from '../runtime/not-answered.ts';
import {
  type ChannelLeaseKeeper,
  createChannelLeaseKeeper,
  needsChannelLease,
} from './channel-lease-keeper.ts';

let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgresCluster();
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
}, 120_000);

async function waitFor<T>(what: string, condition: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = condition();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A Telegram-shaped channel that counts its running instances (polling without `webhook`). */
function countingChannel(running: { count: number }): ChannelPlugin {
  return {
    id: 'telegram',
    label: 'Telegram (test)',
    capabilities: {
      chatTypes: ['direct'],
      threads: false,
      media: false,
      edits: false,
      typing: false,
      reactions: false,
      textLimit: 1000,
      markup: 'plain',
    },
    config: defineChannelConfig(
      z.object({ webhook: z.object({ url: z.string() }).optional() }),
    ) as ChannelPlugin['config'],
    async start() {
      running.count += 1;
      return {
        async send() {
          return { messageIds: ['1'] };
        },
        async stop() {
          running.count -= 1;
        },
      };
    },
  };
}

interface Replica {
  readonly store: PostgresSessionStore;
  readonly keeper: ChannelLeaseKeeper;
  readonly manager: ChannelManager;
  readonly running: { count: number };
  readonly lines: string[];
}

async function replica(url: string): Promise<Replica> {
  const lines: string[] = [];
  const write = (message: string) => {
    lines.push(message);
  };
  const logger: Logger = { debug: write, info: write, warn: write, error: write };
  const store = await createPostgresSessionStore({ url, poolSize: 2, livenessTimeoutMs: 1500 });
  const keeper = createChannelLeaseKeeper({ store, logger, pollIntervalMs: 100 });
  const running = { count: 0 };
  const manager = createChannelManager({
    logger,
    dataRoot: mkdtempSync(join(tmpdir(), 'switchboard-lease-keeper-')),
    receive: async () => ({ status: 'journaled' }),
    notAnswered: createNotAnsweredLog({ now: Date.now }),
    leases: keeper,
  });
  await manager.start([{ plugin: 'telegram', channel: countingChannel(running) }], {
    telegram: { accounts: { polling: {}, hooked: { webhook: { url: 'https://example.com/hook' } } } },
  });
  return { store, keeper, manager, running, lines };
}

describe('channel-lease keeper', () => {
  it('tells polling accounts from webhook ones', () => {
    expect(needsChannelLease('telegram', {})).toBe(true);
    expect(needsChannelLease('telegram', { webhook: { url: 'https://example.com' } })).toBe(false);
    expect(needsChannelLease('slack', { mode: 'socket' })).toBe(true);
    expect(needsChannelLease('slack', { mode: 'http' })).toBe(false);
    expect(needsChannelLease('whatsapp', { transport: 'baileys' })).toBe(true);
    expect(needsChannelLease('whatsapp', { transport: 'cloud' })).toBe(false);
    expect(needsChannelLease('discord', {})).toBe(true);
    expect(needsChannelLease('some-plugin-channel', { webhook: {} })).toBe(true);
  });

  it('runs a polling account on one replica, hands it over, and fences the old holder', async () => {
    const url = await cluster.createDatabase('lease_keeper');
    const first = await replica(url);
    const second = await replica(url);
    try {
      const state = (each: Replica, accountId: string) => each.manager.account('telegram', accountId)!.status;
      // The webhook account runs on both; the polling one on the first only.
      expect(first.running.count).toBe(2);
      expect(second.running.count).toBe(1);
      expect(state(first, 'polling').state).toBe('connected');
      expect(state(second, 'polling')).toMatchObject({ state: 'stopped' });
      expect(state(second, 'polling').detail).toMatch(
        new RegExp(
          `standby: replica #${first.store.instanceId} \\(.* pid \\d+\\) holds this account's lease`,
        ),
      );
      expect(state(second, 'hooked').state).toBe('connected');

      // The first replica is cut off the database (its backends terminated, its instance lock
      // released): the second takes the account.
      const fenced = first.keeper.fence(first.store);
      const address = new URL(url);
      await promisify(execFile)(join(findPostgresBinaries(), 'psql'), [
        '-h',
        '127.0.0.1',
        '-p',
        address.port,
        '-U',
        'postgres',
        '-d',
        address.pathname.slice(1),
        '-c',
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'switchboard:${first.store.ownerId}'`,
      ]);
      await waitFor('the second replica running the polling account', () =>
        second.running.count === 2 ? true : undefined,
      );
      expect(
        (await second.store.listChannelLeases()).map((lease) => [lease.accountId, lease.fencingToken]),
      ).toEqual([['polling', 2]]);
      // The first one's consumption of the account is refused and stops its account.
      const refused = await fenced
        .journalInbound({ channel: 'telegram', accountId: 'polling', messageId: 'late-1' })
        .then(
          () => undefined,
          (error: unknown) => error as Error & { code?: string },
        );
      expect(refused?.code).toMatch(/SESSIONS_LOCK_LOST|STORE_POSTGRES_FENCED/);
      await waitFor('the first replica stopping the account', () =>
        first.running.count === 1 ? true : undefined,
      );
      expect(
        first.lines.some((line) =>
          line.startsWith('channel account stopped: this replica no longer holds its lease'),
        ),
      ).toBe(true);
      expect(
        await second.store.getInbound({ channel: 'telegram', accountId: 'polling', messageId: 'late-1' }),
      ).toBe(undefined);
    } finally {
      for (const each of [first, second]) {
        each.keeper.close();
        await each.manager.stop();
        await each.store.close();
      }
    }
  }, 60_000);
});
