/**
 * The PostgreSQL session store: every store role on one `pg` pool, for gateways that share a
 * database (several replicas) or keep state off the gateway host.
 *
 * Durability: a resolved operation is committed by PostgreSQL (with the server's
 * `synchronous_commit`, durable on the server's disk by default). Concurrency: each operation
 * is one statement or one transaction; row locks (`FOR UPDATE`) serialize appends to a key,
 * claims of a receipt and journal transitions, from any number of replicas.
 *
 * Loaded lazily: the gateway imports this package (and `pg`) only when `storage.kind` is
 * `postgres`.
 */
import { randomUUID } from 'node:crypto';
import { type SessionStore, SessionsError } from '@switchboard/sessions';
import type { Client, CustomTypesConfig, Pool } from 'pg';
import { type ChannelLeaseStore, createChannelLeases } from './channel-leases.ts';
import { createDatabase, type DatabaseStatus, toStoreError } from './database.ts';
import { createDeliveryReceipts } from './delivery-receipts.ts';
import { redactUrl, StorePostgresError } from './errors.ts';
import { createInboundJournal } from './inbound-journal.ts';
import { migrate, registerInstance, type StoreInstance } from './instance.ts';
import { createMaintenance } from './maintenance.ts';
import { createNotifications, type Notifications } from './notifications.ts';
import { latestSchemaVersion } from './schema.ts';
import { createSessionEntries } from './session-entries.ts';
import { createSessionLeases, type SessionLeaseStore } from './session-leases.ts';
import { createStateRecords } from './state-records.ts';
import { createTranscripts } from './transcripts.ts';

export interface PostgresSessionStoreOptions {
  /** `postgres://user:password@host:port/database` (libpq URL; `?sslmode=` and friends work). */
  readonly url: string;
  /** Most pooled connections this store opens (plus one for its instance lock). Default 10. */
  readonly poolSize?: number;
  /** How long to wait for a connection. Default 10 000 ms. */
  readonly connectTimeoutMs?: number;
  /**
   * The server ends the instance-lock connection after this much silence (the store pings it
   * at a third of it), so a paused or cut-off replica is declared gone within about this
   * time. Default 10 000 ms.
   */
  readonly livenessTimeoutMs?: number;
  /**
   * The liveness timeout from opening until `started()` is called: a gateway's start-up (its
   * channels, plugins and their SDKs) can keep the event loop busy for longer than
   * `livenessTimeoutMs` on a loaded host, and must not lose its lock for that. A replica has
   * no work for others to take over before it has started. Default `livenessTimeoutMs`.
   */
  readonly startupLivenessTimeoutMs?: number;
  /**
   * Called once when this store learns that its instance lock is gone (its connection ended,
   * or the database no longer lists it): every operation fails from then on and other
   * replicas take its work over, so the owner should stop and start afresh (a new instance).
   */
  readonly onLockLost?: (error: SessionsError) => void;
  /** Called with errors of idle pooled connections (the next operation reports them too). */
  readonly onConnectionError?: (error: Error) => void;
  /** The clock used for every timestamp. Default `Date.now`. */
  readonly now?: () => number;
  /** Makes session ids and the instance's owner id. Default `crypto.randomUUID`. */
  readonly createId?: () => string;
}

/** The PostgreSQL store, with the facts about this instance. */
export interface PostgresSessionStore
  extends SessionStore,
    SessionLeaseStore,
    ChannelLeaseStore,
    Notifications {
  readonly schemaVersion: number;
  /** This instance's owner id (on its journal records and delivery claims). */
  readonly ownerId: string;
  readonly instanceId: number;
  /** Every registered instance (gateway replica) with whether it is alive, for `status`. */
  listInstances(): Promise<StoreInstance[]>;
  /** Start-up is over: `livenessTimeoutMs` applies from now on (see `startupLivenessTimeoutMs`). */
  started(): Promise<void>;
  /**
   * Resolves while this instance still holds its lock, for a side effect outside the database
   * (a platform send) that must not happen once other replicas may have taken its work over.
   * Free while the lock connection answered within the liveness timeout; after a longer
   * silence (a pause, a starved event loop) it first makes one round trip on that connection.
   * Rejects with SESSIONS_LOCK_LOST when the lock is gone (the store is then fenced).
   */
  confirmLockHeld(): Promise<void>;
}

function parseUrl(url: unknown): string {
  if (typeof url !== 'string' || url === '') {
    throw new StorePostgresError(
      'STORE_POSTGRES_INVALID_URL',
      `storage.url must be a postgres:// URL; got ${JSON.stringify(url)}.`,
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StorePostgresError(
      'STORE_POSTGRES_INVALID_URL',
      `storage.url is not a URL: ${redactUrl(url)}. Write it as postgres://user:password@host:5432/database.`,
    );
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new StorePostgresError(
      'STORE_POSTGRES_INVALID_URL',
      `storage.url must start with postgres:// or postgresql://; got ${parsed.protocol}// in ${redactUrl(url)}.`,
    );
  }
  return redactUrl(url);
}

/**
 * Connects, migrates (once per database, under an advisory lock) and registers this
 * instance. Rejects with STORE_POSTGRES_UNREACHABLE when the server cannot be used.
 */
export async function createPostgresSessionStore(
  options: PostgresSessionStoreOptions,
): Promise<PostgresSessionStore> {
  const location = parseUrl(options.url);
  const now = options.now ?? Date.now;
  const createId = options.createId ?? randomUUID;
  const ownerId = createId();
  const livenessTimeoutMs = options.livenessTimeoutMs ?? 10_000;
  /** The timeout in force: the start-up one until `started()`. */
  let currentTimeoutMs = Math.max(livenessTimeoutMs, options.startupLivenessTimeoutMs ?? livenessTimeoutMs);
  const pg = (await import('pg')).default;
  const types: CustomTypesConfig = {
    getTypeParser: ((oid: number, format?: string) =>
      oid === pg.types.builtins.INT8
        ? (value: string) => Number(value)
        : pg.types.getTypeParser(oid, format as 'text')) as CustomTypesConfig['getTypeParser'],
  };
  const connection = {
    connectionString: options.url,
    application_name: `switchboard:${ownerId}`,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    types,
  };
  // A replica paused (or cut off) in the middle of a transaction must not keep its row locks:
  // the server ends such a connection after the liveness timeout, as it ends the lock's, so
  // the replicas taking its work over are not blocked on a lease or journal row it locked.
  const pool: Pool = new pg.Pool({
    ...connection,
    max: options.poolSize ?? 10,
    idle_in_transaction_session_timeout: livenessTimeoutMs,
  });
  pool.on('error', (error) => options.onConnectionError?.(error));
  const lockClient: Client = new pg.Client(connection);
  let closed = false;
  let lost: string | undefined;
  const lockLostError = () =>
    new SessionsError(
      'SESSIONS_LOCK_LOST',
      `This gateway lost its instance lock on ${location} (${lost}): other replicas may have taken over its work. Restart the gateway.`,
      { details: { location, ownerId } },
    );
  /** Records why the lock is gone (the first reason wins) and tells the owner once. */
  function loseLock(reason: string): void {
    if (lost !== undefined || closed) return;
    lost = reason;
    // Before the instance is registered, opening fails with its own error instead.
    if (instanceId !== undefined) options.onLockLost?.(lockLostError());
  }
  lockClient.on('error', (error) => {
    loseLock(error.message);
    options.onConnectionError?.(error);
  });
  lockClient.on('end', () => {
    if (!closed) loseLock('the connection ended');
  });

  let instanceId: number | undefined;
  try {
    const client = await pool.connect();
    const onError = (error: Error): void => options.onConnectionError?.(error);
    client.on('error', onError);
    try {
      await migrate(client, location, now);
    } finally {
      client.removeListener('error', onError);
      client.release();
    }
    await lockClient.connect();
    instanceId = await registerInstance(lockClient, ownerId, now(), currentTimeoutMs);
  } catch (error) {
    await lockClient.end().catch(() => undefined);
    await pool.end().catch(() => undefined);
    if (error instanceof StorePostgresError) throw error;
    throw new StorePostgresError(
      'STORE_POSTGRES_UNREACHABLE',
      `Cannot use the PostgreSQL database ${location}: ${(error as Error).message}. Check storage.url, that the server runs and accepts this user, and that the database exists.`,
      { cause: error, retryable: true, details: { location } },
    );
  }

  // A local lease: the lock connection must have answered within the liveness timeout. When
  // it has not (a process resumed after a pause, or one starved of CPU), the next operation
  // first makes one round trip on it: an answer means the lock is still held (it ends only
  // with its session), a failure or no answer within the timeout fences this process, before
  // any late event from a connection the server cut arrives.
  let lastAnswer = performance.now();
  const ping = setInterval(
    () => {
      lockClient.query('SELECT 1').then(
        () => {
          lastAnswer = performance.now();
        },
        (error: Error) => {
          loseLock(error.message);
        },
      );
    },
    Math.max(250, Math.floor(livenessTimeoutMs / 3)),
  );
  ping.unref();
  let confirming: Promise<void> | undefined;
  function confirmLock(silentMs: number): Promise<void> {
    const silence = `its connection did not answer for ${Math.round(silentMs)} ms, more than the liveness timeout of ${currentTimeoutMs} ms (was the process paused?)`;
    let timer: NodeJS.Timeout | undefined;
    const answered = lockClient.query('SELECT 1').then(
      () => {
        lastAnswer = performance.now();
      },
      (error: Error) => {
        loseLock(`${silence}, and then ${error.message}`);
      },
    );
    const timedOut = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        loseLock(`${silence}, nor to a check within another ${currentTimeoutMs} ms`);
        resolve();
      }, currentTimeoutMs);
    });
    return Promise.race([answered, timedOut]).finally(() => clearTimeout(timer));
  }

  const status: DatabaseStatus = {
    inflight: new Set(),
    unusable(operation) {
      return status.closed(operation) ?? (lost === undefined ? undefined : lockLostError());
    },
    closed(operation) {
      if (!closed) return undefined;
      return new SessionsError(
        'SESSIONS_STORE_CLOSED',
        `The session store ${location} is closed (during ${operation}).`,
      );
    },
    confirmAlive() {
      const silentMs = performance.now() - lastAnswer;
      if (silentMs <= currentTimeoutMs || lost !== undefined) return undefined;
      confirming ??= confirmLock(silentMs).finally(() => {
        confirming = undefined;
      });
      return confirming;
    },
    lose(reason) {
      loseLock(reason);
      return lockLostError();
    },
  };
  const database = createDatabase({ pool, location, ownerId, now, createId, status });
  const maintenance = createMaintenance(database);

  const store: PostgresSessionStore = {
    location,
    schemaVersion: latestSchemaVersion,
    ownerId,
    instanceId,
    ...createSessionEntries(database),
    ...createTranscripts(database),
    ...createInboundJournal(database),
    ...createDeliveryReceipts(database),
    ...createStateRecords(database),
    ...createSessionLeases(database),
    ...createChannelLeases(database),
    ...createNotifications({
      database,
      createClient: () => new pg.Client(connection),
      onConnectionError: options.onConnectionError,
    }),
    prune: maintenance.prune,
    diskUsage: maintenance.diskUsage,
    checkIntegrity: maintenance.checkIntegrity,

    async listInstances() {
      const rows = await database.query<{
        instance_id: number;
        owner_id: string;
        hostname: string;
        pid: number;
        started_at: number;
        alive: boolean;
      }>(
        'listInstances',
        'SELECT *, switchboard_owner_alive(owner_id) AS alive FROM store_instances ORDER BY instance_id',
      );
      return rows.map((row) => ({
        instanceId: row.instance_id,
        ownerId: row.owner_id,
        hostname: row.hostname,
        pid: row.pid,
        startedAt: row.started_at,
        alive: row.alive,
      }));
    },

    async confirmLockHeld() {
      const unusable = status.unusable('confirmLockHeld');
      if (unusable !== undefined) throw unusable;
      await status.confirmAlive();
      const lockLost = status.unusable('confirmLockHeld');
      if (lockLost !== undefined) throw lockLost;
    },

    async started() {
      if (currentTimeoutMs === livenessTimeoutMs) return;
      const unusable = status.unusable('started');
      if (unusable !== undefined) throw unusable;
      await lockClient
        .query(`SET idle_session_timeout = ${Math.max(1000, Math.floor(livenessTimeoutMs))}`)
        .catch((error: Error) => {
          throw status.lose(error.message);
        });
      lastAnswer = performance.now();
      currentTimeoutMs = livenessTimeoutMs;
    },

    async close() {
      if (closed) return;
      closed = true;
      clearInterval(ping);
      // Operations already accepted finish (or fail) before the connections close.
      await Promise.all([...status.inflight]);
      try {
        if (lost === undefined)
          await lockClient.query('DELETE FROM store_instances WHERE owner_id = $1', [ownerId]);
      } catch (error) {
        // The row stays; its lock is released below, so the others see this instance gone.
        options.onConnectionError?.(toStoreError(error, location, 'close'));
      }
      await lockClient.end().catch(() => undefined);
      await pool.end().catch(() => undefined);
    },
  };
  return store;
}
