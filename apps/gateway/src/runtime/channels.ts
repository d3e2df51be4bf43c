import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  type ChannelAccessConfig,
  type ChannelAccount,
  type ChannelAccountStatus,
  type ChannelPlugin,
  type HttpRoute,
  type InboundMessage,
  type Logger,
  type ReceiveOutcome,
  resolveChannelAccounts,
  SwitchboardError,
  withLogFields,
} from '@switchboard/hooks';

/** One configured account of a channel, as the gateway runs it. */
export interface ManagedAccount {
  readonly channel: ChannelPlugin;
  readonly plugin: string;
  readonly accountId: string;
  readonly access: ChannelAccessConfig;
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
  readonly now?: () => number;
  /** Delay before restarting an account whose start failed (doubles, capped). */
  readonly restartBaseMs?: number;
  readonly restartMaxMs?: number;
}

export interface ChannelStatusSnapshot {
  readonly channel: string;
  readonly plugin: string;
  readonly accountId: string;
  readonly status: ChannelAccountStatus;
  readonly restarts: number;
}

/** A webhook route an account mounted, with the account that owns it. */
export interface AccountRoute {
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
  const baseMs = options.restartBaseMs ?? 1000;
  const maxMs = options.restartMaxMs ?? 5 * 60_000;
  let stopping = false;

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
      const delay = Math.min(maxMs, baseMs * 2 ** managed.restarts);
      managed.restarts += 1;
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!stopping) void startAccount(managed, config);
      }, delay);
      timer.unref();
      timers.add(timer);
    }
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
          starts.push(startAccount(managed, account.config as unknown as Record<string, unknown>));
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
      await Promise.all(
        [...accounts.values()].map(async (managed) => {
          try {
            await managed.running?.stop();
          } catch (error) {
            options.logger.warn('channel account failed to stop cleanly', {
              channel: managed.channel.id,
              accountId: managed.accountId,
              error: String(error),
            });
          }
          managed.status = { state: 'stopped' };
          removeRoutes(managed);
        }),
      );
    },
  };
}
