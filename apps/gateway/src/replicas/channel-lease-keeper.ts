// One consumer per polling channel account across gateway replicas on one PostgreSQL
// (decision 0021). A polling account (Telegram long polling, a Discord gateway connection,
// Slack Socket Mode, a WhatsApp linked device) is started only on the replica that holds the
// account's lease (store-postgres channel-leases); the other replicas keep it on standby and
// try to take the lease every poll, which succeeds once the owner is gone (its instance lock
// released: at once after a crash, after `livenessTimeoutMs` after a pause or a network cut).
// The holder renews the lease every poll and stops the account when the lease is no longer
// its own. Every side effect made for a leased account carries the lease's fencing token:
// the journal write of each consumed message (the commit of the consumer's position) and
// the delivery claim before each send go through the fenced store operations, so a replica
// that wakes up after others took its account over fails its first such write with
// STORE_POSTGRES_FENCED, stops the account and logs why.
//
// Webhook-mode accounts need no lease: every replica accepts them and the journal
// deduplicates. Loaded only when `storage.kind` is `postgres`.
import { type Logger, SwitchboardError } from '@switchboard/hooks';
import type { DeliveryDetails, JournalInboundInput, SessionStore } from '@switchboard/sessions';
import {
  type ChannelLease,
  type PostgresSessionStore,
  StorePostgresError,
} from '@switchboard/store-postgres';
import type {
  ChannelLeaseGate,
  ChannelLeaseHandlers,
  ChannelLeaseHold,
} from '../runtime/channel-lease-gate.ts';

interface ChannelLeaseKeeperOptions {
  readonly store: PostgresSessionStore;
  readonly logger: Logger;
  /**
   * Runs after a lease is taken and before the account starts: admits the unfinished messages
   * of the replica that is gone, so they run before the new ones the account receives.
   */
  readonly beforeStart?: () => Promise<void>;
  /** How often a standby replica tries to take a lease and the holder renews it. Default 1000 ms. */
  readonly pollIntervalMs?: number;
  readonly now?: () => number;
}

/** One account this replica wants to run, and where its lease stands. */
interface Entry {
  readonly channel: string;
  readonly accountId: string;
  readonly handlers: ChannelLeaseHandlers;
  /** Set while this replica holds the lease (and the account runs or is starting). */
  lease: ChannelLease | undefined;
  /** A start or stop in progress: the next one waits for it. */
  transition: Promise<void>;
  released: boolean;
  /** The last standby detail logged, so a replica on standby logs a change once. */
  lastDetail: string | undefined;
}

/** What the gateway uses: the channel manager's lease gate, and the fenced store. */
export interface ChannelLeaseKeeper extends ChannelLeaseGate {
  /**
   * The store the runtime uses, with the journal write and the delivery claim of a leased
   * account fenced by its token (other accounts and the protocol pass through unchanged).
   * Contract: every other operation is the store's own.
   */
  fence(store: SessionStore): SessionStore;
  /**
   * Called right before each platform send (every attempt): resolves while this replica may
   * still send for the account — it holds the account's lease, if the account is leased, and
   * its instance lock. A replica resumed after a pause, whose work others have taken over,
   * rejects here (STORE_POSTGRES_FENCED or SESSIONS_LOCK_LOST) instead of sending a reply the
   * replica that took over sends too; a leased account is then stopped. Free while the lock
   * connection answers (see `PostgresSessionStore.confirmLockHeld`).
   */
  confirmSendAllowed(channel: string, accountId: string): Promise<void>;
  /** Stops the poll; the leases go with the instance lock or the accounts' release. */
  close(): void;
}

const keyOf = (channel: string, accountId: string): string => `${channel}\u0000${accountId}`;

/**
 * Whether an account consumes by polling (one consumer at a time) rather than by webhooks (any
 * replica). Built-in channels are read from their config; an unknown channel counts as polling,
 * the safe side: it runs on one replica instead of consuming twice.
 */
export function needsChannelLease(channel: string, config: Readonly<Record<string, unknown>>): boolean {
  switch (channel) {
    case 'telegram':
      return config.webhook === undefined;
    case 'slack':
      return config.mode !== 'http';
    case 'whatsapp':
      return config.transport !== 'cloud';
    default:
      return true;
  }
}

/** True for an error that means the lease (or this replica's instance lock) is gone. */
function meansLeaseLost(error: unknown): boolean {
  return (
    SwitchboardError.isInstance(error) &&
    (error.code === 'STORE_POSTGRES_FENCED' || error.code === 'SESSIONS_LOCK_LOST')
  );
}

export function createChannelLeaseKeeper(options: ChannelLeaseKeeperOptions): ChannelLeaseKeeper {
  const { store, logger } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | undefined;
  let closed = false;

  const where = (entry: Entry) => ({ channel: entry.channel, accountId: entry.accountId });

  /** Queues a start or stop after the entry's previous one. */
  function transition(entry: Entry, work: () => Promise<void>): Promise<void> {
    entry.transition = entry.transition.then(work, work);
    return entry.transition;
  }

  function standby(entry: Entry, detail: string): void {
    entry.handlers.standby(detail);
    if (entry.lastDetail !== detail) {
      entry.lastDetail = detail;
      logger.info(`channel account on standby: ${detail}`, where(entry));
    }
  }

  /** The lease is no longer this replica's: stop the account (once) and say why. */
  function lose(entry: Entry, reason: string): Promise<void> {
    if (entry.lease === undefined) return entry.transition;
    const lost = entry.lease;
    entry.lease = undefined;
    logger.error(
      `channel account stopped: this replica no longer holds its lease (fencing token ${lost.fencingToken}): ${reason}`,
      where(entry),
    );
    return transition(entry, async () => {
      await entry.handlers.stop(`lease lost (fencing token ${lost.fencingToken}): ${reason}`);
      if (!entry.released) standby(entry, `lease lost: ${reason}; trying to take it again every poll`);
    });
  }

  /** One attempt to take (or renew) the lease of one account. */
  async function attempt(entry: Entry, holders: () => Promise<Map<string, string>>): Promise<void> {
    if (entry.released || closed) return;
    let lease: ChannelLease | undefined;
    try {
      lease = await store.acquireChannelLease(entry.channel, entry.accountId);
    } catch (error) {
      if (entry.lease !== undefined && meansLeaseLost(error)) {
        await lose(entry, error instanceof Error ? error.message : String(error));
        return;
      }
      const text = error instanceof Error ? error.message : String(error);
      if (entry.lease === undefined) standby(entry, `cannot take the lease: ${text}`);
      else
        logger.warn('channel lease: renewing failed; retrying next poll', { ...where(entry), error: text });
      return;
    }
    if (entry.released || closed) {
      if (lease !== undefined && entry.lease === undefined)
        await store.releaseChannelLease(lease).catch(() => {});
      return;
    }
    if (entry.lease !== undefined) {
      if (lease?.fencingToken === entry.lease.fencingToken) return;
      await lose(
        entry,
        lease === undefined
          ? 'another replica holds it now'
          : `it was taken over and given back with token ${lease.fencingToken}`,
      );
      return;
    }
    if (lease === undefined) {
      const holder = (await holders()).get(keyOf(entry.channel, entry.accountId));
      standby(entry, `replica ${holder ?? '(another)'} holds this account's lease and runs it`);
      return;
    }
    entry.lease = lease;
    entry.lastDetail = undefined;
    logger.info(
      `channel account lease taken (fencing token ${lease.fencingToken}): this replica runs the account`,
      {
        ...where(entry),
        at: now(),
      },
    );
    await transition(entry, async () => {
      await options.beforeStart?.().catch((error: unknown) =>
        logger.warn("channel lease: admitting the previous holder's messages failed; the poll retries them", {
          ...where(entry),
          error: String(error),
        }),
      );
      if (entry.lease === lease && !entry.released) await entry.handlers.start();
    });
  }

  async function tick(only?: Entry): Promise<void> {
    let cached: Promise<Map<string, string>> | undefined;
    const holders = () => {
      cached ??= Promise.all([store.listChannelLeases(), store.listInstances()]).then(
        ([leases, instances]) => {
          const names = new Map(instances.map((instance) => [instance.ownerId, instance]));
          return new Map(
            leases.map((lease) => {
              const instance = names.get(lease.ownerId);
              return [
                keyOf(lease.channel, lease.accountId),
                instance === undefined
                  ? lease.ownerId
                  : `#${instance.instanceId} (${instance.hostname} pid ${instance.pid})`,
              ];
            }),
          );
        },
        () => new Map<string, string>(),
      );
      return cached;
    };
    const targets = only === undefined ? [...entries.values()] : [only];
    await Promise.all(targets.map((entry) => attempt(entry, holders)));
  }

  function schedule(): void {
    if (timer !== undefined || closed) return;
    timer = setInterval(() => {
      if (ticking !== undefined) return;
      ticking = tick()
        .catch((error: unknown) => logger.warn('channel lease poll failed', { error: String(error) }))
        .finally(() => {
          ticking = undefined;
        });
    }, pollIntervalMs);
    timer.unref();
  }

  /** The lease this replica holds for a leased account; undefined for accounts it does not keep. */
  function leaseFor(channel: string | undefined, accountId: string | undefined): Entry | undefined {
    if (channel === undefined || accountId === undefined) return undefined;
    return entries.get(keyOf(channel, accountId));
  }

  function notHeld(entry: Entry, what: string): StorePostgresError {
    return new StorePostgresError(
      'STORE_POSTGRES_FENCED',
      `${what} for ${entry.channel} account ${entry.accountId} was refused: this replica does not hold the account's lease (another replica runs it).`,
      { details: where(entry) },
    );
  }

  /** Runs a fenced write; a refusal stops the account and is passed on. */
  async function fenced<T>(
    entry: Entry,
    what: string,
    write: (lease: ChannelLease) => Promise<T>,
  ): Promise<T> {
    const lease = entry.lease;
    if (lease === undefined) throw notHeld(entry, what);
    try {
      return await write(lease);
    } catch (error) {
      if (meansLeaseLost(error) && entry.lease === lease)
        void lose(entry, `${what} was refused: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    }
  }

  return {
    needsLease: needsChannelLease,

    hold(account, handlers): ChannelLeaseHold {
      const key = keyOf(account.channel, account.accountId);
      const entry: Entry = {
        channel: account.channel,
        accountId: account.accountId,
        handlers,
        lease: undefined,
        transition: Promise.resolve(),
        released: false,
        lastDetail: undefined,
      };
      entries.set(key, entry);
      schedule();
      const ready = tick(entry).catch((error: unknown) =>
        logger.warn('channel lease: the first attempt failed; the poll retries', {
          ...where(entry),
          error: String(error),
        }),
      );
      return {
        ready,
        async release() {
          entry.released = true;
          if (entries.get(key) === entry) entries.delete(key);
          await entry.transition;
          const lease = entry.lease;
          entry.lease = undefined;
          if (lease !== undefined)
            await store.releaseChannelLease(lease).catch((error: unknown) =>
              logger.warn('channel lease: releasing failed; it frees itself when this replica stops', {
                ...where(entry),
                error: String(error),
              }),
            );
        },
      };
    },

    fence(base) {
      return {
        ...base,
        journalInbound(input: JournalInboundInput) {
          const entry = leaseFor(input.channel, input.accountId);
          if (entry === undefined) return base.journalInbound(input);
          return fenced(entry, `the inbound message ${input.messageId}`, (lease) =>
            store.journalInboundFenced(lease, input),
          );
        },
        claimDelivery(key: string, details?: DeliveryDetails) {
          const entry = leaseFor(details?.channel, details?.accountId);
          if (entry === undefined) return base.claimDelivery(key, details);
          return fenced(entry, `the send ${key}`, (lease) => store.claimDeliveryFenced(lease, key, details));
        },
      };
    },

    confirmSendAllowed(channel, accountId) {
      const entry = leaseFor(channel, accountId);
      if (entry === undefined) return store.confirmLockHeld();
      return fenced(entry, `a send`, () => store.confirmLockHeld());
    },

    close() {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}
