import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import {
  backoffDelay,
  type ChannelAccessConfig,
  type ChannelAccount,
  type ChannelAccountStatus,
  type ChannelPlugin,
  channelAccessKeys,
  type HttpRoute,
  type InboundMessage,
  type Logger,
  type ReceiveOutcome,
  resolveChannelAccounts,
  SwitchboardError,
  withLogFields,
} from '@switchboard/hooks';
import type { ChannelLeaseGate, ChannelLeaseHold } from './channel-lease-gate.ts';
import { reportIgnoredMessage } from './ignored-messages.ts';
import type { NotAnsweredLog } from './not-answered.ts';

/** One configured account of a channel, as the gateway runs it. */
export interface ManagedAccount {
  readonly channel: ChannelPlugin;
  readonly plugin: string;
  readonly accountId: string;
  /** Replaced in place by a config reload that changed only access fields (no restart). */
  access: ChannelAccessConfig;
  /** Set once `start` resolved. */
  running: ChannelAccount | undefined;
  status: ChannelAccountStatus;
  restarts: number;
}

export interface ChannelManagerOptions {
  readonly logger: Logger;
  /** Parent of every account's data directory (`<state>/channels`). */
  readonly dataRoot: string;
  /** Called for every inbound message; resolves once journaled or deliberately dropped. */
  receive(account: ManagedAccount, message: InboundMessage): Promise<ReceiveOutcome>;
  /** Where `context.reportIgnored` records a channel's own admission drops (reason `admission`). */
  readonly notAnswered: NotAnsweredLog;
  readonly now?: () => number;
  /** Delay before restarting an account whose start failed (doubles, capped). */
  readonly restartBaseMs?: number;
  readonly restartMaxMs?: number;
  /** Several replicas on one PostgreSQL: a polling account runs only where its lease is held. */
  readonly leases?: ChannelLeaseGate;
}

interface ChannelStatusSnapshot {
  readonly channel: string;
  readonly plugin: string;
  readonly accountId: string;
  readonly status: ChannelAccountStatus;
  readonly restarts: number;
}

/** A webhook route an account mounted, with the account that owns it. */
interface AccountRoute {
  readonly channel: string;
  readonly accountId: string;
  readonly route: HttpRoute;
}

export interface ChannelManager {
  /** Routes mounted by running accounts (webhooks), checked by the gateway's HTTP server. */
  routes(): readonly AccountRoute[];
  /** Validates `channels.<id>` for every registered channel and starts every enabled account. */
  start(
    channels: readonly { plugin: string; channel: ChannelPlugin }[],
    config: Readonly<Record<string, unknown>>,
  ): Promise<string[]>;
  account(channel: string, accountId: string): ManagedAccount | undefined;
  accounts(): readonly ManagedAccount[];
  status(): ChannelStatusSnapshot[];
  stop(): Promise<void>;
  /**
   * Applies a new `channels` section (config reload), one account at a time: an account whose
   * own settings changed is stopped and started again, a new or re-enabled one is started, a
   * removed or disabled one is stopped. When only its access fields changed (`dmPolicy`,
   * `allowFrom`, `groups`, ...) they apply to its next message without a restart. Accounts
   * whose config did not change are not touched. The section must be valid (checked first).
   */
  reload(config: Readonly<Record<string, unknown>>): Promise<ChannelReloadOutcome>;
}

/** What a config reload did to channel accounts, as `channel:accountId`. */
export interface ChannelReloadOutcome {
  readonly restarted: readonly string[];
  readonly started: readonly string[];
  readonly stopped: readonly string[];
  /** Only access fields changed: applied to the running account. */
  readonly accessUpdated: readonly string[];
}

/** An account's settings other than the access fields (`enabled` stays: it starts or stops it). */
function ownSettings(config: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const own: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config))
    if (key === 'enabled' || !channelAccessKeys.includes(key)) own[key] = value;
  return own;
}

/**
 * Runs channel accounts. A failed start is retried with backoff, except when the channel
 * reports a non-retryable error (an invalid token): that account stays in `error` with the
 * channel's message, and the gateway keeps running.
 */
export function createChannelManager(options: ChannelManagerOptions): ChannelManager {
  const accounts = new Map<string, ManagedAccount>();
  const accountRoutes: AccountRoute[] = [];
  const controllers = new Map<string, AbortController>();
  const timers = new Set<NodeJS.Timeout>();
  /** The config each account runs with; a retry after a failed start only runs while it is current. */
  const accountConfigs = new Map<string, Record<string, unknown>>();
  let registered: readonly { plugin: string; channel: ChannelPlugin }[] = [];
  const baseMs = options.restartBaseMs ?? 1000;
  const maxMs = options.restartMaxMs ?? 5 * 60_000;
  let stopping = false;
  /** Accounts under a lease gate, and whether this replica holds the lease now. */
  const holds = new Map<string, ChannelLeaseHold>();
  const leaseHeld = new Map<string, boolean>();

  const keyOf = (channel: string, accountId: string) => `${channel}\u0000${accountId}`;

  async function startAccount(managed: ManagedAccount, config: Record<string, unknown>): Promise<void> {
    const key = keyOf(managed.channel.id, managed.accountId);
    const controller = new AbortController();
    controllers.set(key, controller);
    const logger = withLogFields(options.logger, {
      channel: managed.channel.id,
      accountId: managed.accountId,
    });
    managed.status = { state: 'starting' };
    const dataDirectory = join(options.dataRoot, managed.channel.id, managed.accountId);
    mkdirSync(dataDirectory, { recursive: true, mode: 0o700 });
    chmodSync(dataDirectory, 0o700);
    removeRoutes(managed);
    try {
      managed.running = await managed.channel.start({
        channelId: managed.channel.id,
        accountId: managed.accountId,
        account: config as never,
        signal: controller.signal,
        logger,
        receive: (message) => options.receive(managed, message),
        reportIgnored: (report) =>
          reportIgnoredMessage(
            options.notAnswered,
            options.logger,
            { channel: managed.channel.id, accountId: managed.accountId },
            report,
          ),
        setStatus: (status) => {
          managed.status = status;
        },
        dataDirectory,
        registerHttpRoute: (route) => {
          if (!route.path.startsWith('/') || route.path.includes('?')) {
            throw new Error(`a webhook route path must start with / and have no query: ${route.path}`);
          }
          const clash = accountRoutes.find((existing) => existing.route.path === route.path);
          if (clash !== undefined) {
            throw new Error(
              `the route ${route.path} is already mounted by ${clash.channel}/${clash.accountId}`,
            );
          }
          accountRoutes.push({ channel: managed.channel.id, accountId: managed.accountId, route });
        },
      });
      if (controller.signal.aborted) {
        // Stopped (a reload, the gateway's shutdown) while it was starting: stop it now.
        await stopRunning(managed);
        return;
      }
      if (managed.status.state === 'starting') managed.status = { state: 'connected' };
      managed.restarts = 0;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const fatal = SwitchboardError.isInstance(error) && !error.retryable;
      managed.status = {
        state: 'error',
        error: message,
        detail: fatal ? 'not retrying: fix the configuration' : 'retrying',
      };
      logger.error('channel account failed to start', { error: message, fatal });
      if (fatal || stopping) return;
      const delay = backoffDelay({ attempt: managed.restarts + 1, baseMs, capMs: maxMs });
      managed.restarts += 1;
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!stopping && accountConfigs.get(key) === config && leaseHeld.get(key) !== false)
          void startAccount(managed, config);
      }, delay);
      timer.unref();
      timers.add(timer);
    }
  }

  /** Stops one account's running instance (errors are logged) and marks it stopped. */
  async function stopRunning(managed: ManagedAccount): Promise<void> {
    try {
      await managed.running?.stop();
    } catch (error) {
      options.logger.warn('channel account failed to stop cleanly', {
        channel: managed.channel.id,
        accountId: managed.accountId,
        error: String(error),
      });
    }
    managed.running = undefined;
    managed.status = { state: 'stopped' };
    removeRoutes(managed);
  }

  /** Stops one account for a reload: its retries end, its signal aborts, it stops. */
  async function stopAccount(managed: ManagedAccount): Promise<void> {
    const key = keyOf(managed.channel.id, managed.accountId);
    accountConfigs.delete(key);
    controllers.get(key)?.abort();
    controllers.delete(key);
    await stopRunning(managed);
    await releaseLease(key);
  }

  async function releaseLease(key: string): Promise<void> {
    const hold = holds.get(key);
    holds.delete(key);
    leaseHeld.delete(key);
    await hold?.release();
  }

  /** Starts an account, or (a polling account on replicas) puts it under its lease. */
  function launch(managed: ManagedAccount, config: Record<string, unknown>): Promise<void> {
    const gate = options.leases;
    if (gate === undefined || !gate.needsLease(managed.channel.id, config))
      return startAccount(managed, config);
    const key = keyOf(managed.channel.id, managed.accountId);
    leaseHeld.set(key, false);
    managed.status = { state: 'stopped', detail: "standby: waiting for this account's lease" };
    const hold = gate.hold(
      { channel: managed.channel.id, accountId: managed.accountId },
      {
        start: async () => {
          if (stopping || accountConfigs.get(key) !== config) return;
          leaseHeld.set(key, true);
          await startAccount(managed, config);
        },
        stop: async (reason) => {
          leaseHeld.set(key, false);
          controllers.get(key)?.abort();
          controllers.delete(key);
          await stopRunning(managed);
          managed.status = { state: 'stopped', detail: `standby: ${reason}` };
        },
        standby: (detail) => {
          if (managed.running === undefined)
            managed.status = { state: 'stopped', detail: `standby: ${detail}` };
        },
      },
    );
    holds.set(key, hold);
    return hold.ready;
  }

  function removeRoutes(managed: ManagedAccount): void {
    for (let index = accountRoutes.length - 1; index >= 0; index -= 1) {
      const entry = accountRoutes[index]!;
      if (entry.channel === managed.channel.id && entry.accountId === managed.accountId)
        accountRoutes.splice(index, 1);
    }
  }

  return {
    routes: () => accountRoutes,
    async start(channels, config) {
      const warnings: string[] = [];
      const starts: Promise<void>[] = [];
      registered = channels;
      for (const { plugin, channel } of channels) {
        const resolved = resolveChannelAccounts(channel, config[channel.id], { plugin });
        warnings.push(...resolved.warnings);
        for (const account of resolved.accounts) {
          if (!account.config.enabled) continue;
          const managed: ManagedAccount = {
            channel,
            plugin,
            accountId: account.accountId,
            access: account.config,
            running: undefined,
            status: { state: 'starting' },
            restarts: 0,
          };
          accounts.set(keyOf(channel.id, account.accountId), managed);
          accountConfigs.set(
            keyOf(channel.id, account.accountId),
            account.config as unknown as Record<string, unknown>,
          );
          starts.push(launch(managed, account.config as unknown as Record<string, unknown>));
        }
      }
      await Promise.all(starts);
      return warnings;
    },
    account(channel, accountId) {
      return accounts.get(keyOf(channel, accountId));
    },
    accounts() {
      return [...accounts.values()];
    },
    status() {
      return [...accounts.values()].map((managed) => ({
        channel: managed.channel.id,
        plugin: managed.plugin,
        accountId: managed.accountId,
        status: managed.status,
        restarts: managed.restarts,
      }));
    },
    async stop() {
      stopping = true;
      for (const timer of timers) clearTimeout(timer);
      for (const controller of controllers.values()) controller.abort();
      await Promise.all([...accounts.values()].map((managed) => stopRunning(managed)));
      await Promise.all([...holds.keys()].map((key) => releaseLease(key)));
    },
    async reload(config) {
      const outcome = { restarted: [], started: [], stopped: [], accessUpdated: [] } as {
        [Key in keyof ChannelReloadOutcome]: string[];
      };
      if (stopping) return outcome;
      for (const { plugin, channel } of registered) {
        const wanted = new Map<string, Record<string, unknown>>();
        for (const account of resolveChannelAccounts(channel, config[channel.id], { plugin }).accounts) {
          if (account.config.enabled)
            wanted.set(account.accountId, account.config as unknown as Record<string, unknown>);
        }
        const logger = withLogFields(options.logger, { channel: channel.id });
        for (const managed of [...accounts.values()]) {
          if (managed.channel.id !== channel.id || wanted.has(managed.accountId)) continue;
          await stopAccount(managed);
          accounts.delete(keyOf(channel.id, managed.accountId));
          outcome.stopped.push(`${channel.id}:${managed.accountId}`);
          logger.info('channel account stopped: removed or disabled in the config', {
            accountId: managed.accountId,
          });
        }
        for (const [accountId, next] of wanted) {
          const key = keyOf(channel.id, accountId);
          const existing = accounts.get(key);
          const previous = accountConfigs.get(key);
          if (existing !== undefined && previous !== undefined) {
            if (isDeepStrictEqual(previous, next)) continue;
            if (isDeepStrictEqual(ownSettings(previous), ownSettings(next))) {
              existing.access = next as unknown as ChannelAccessConfig;
              accountConfigs.set(key, next);
              outcome.accessUpdated.push(`${channel.id}:${accountId}`);
              logger.info('channel account access settings changed; applied without a restart', {
                accountId,
              });
              continue;
            }
            await stopAccount(existing);
          }
          const managed: ManagedAccount = {
            channel,
            plugin,
            accountId,
            access: next as unknown as ChannelAccessConfig,
            running: undefined,
            status: { state: 'starting' },
            restarts: 0,
          };
          accounts.set(key, managed);
          accountConfigs.set(key, next);
          await launch(managed, next);
          (existing === undefined ? outcome.started : outcome.restarted).push(`${channel.id}:${accountId}`);
          logger.info(
            existing === undefined
              ? 'channel account started: added or enabled in the config'
              : 'channel account restarted: its settings changed',
            { accountId, state: managed.status.state },
          );
        }
      }
      return outcome;
    },
  };
}
