/**
 * The connection layer: a `pg` pool with BIGINT read as numbers, one query or one
 * transaction per store operation, and the mapping of driver errors to store errors.
 * Every operation first checks that the store is open and its instance still alive.
 */
import { SessionsError } from '@switchboard/sessions';
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { StorePostgresError } from './errors.ts';

/** A query runner: the pool, or the client of one transaction. */
export interface Queryable {
  query<Row extends QueryResultRow>(
    sql: string,
    values?: readonly unknown[],
  ): Promise<{ rows: Row[]; rowCount: number }>;
}

/** What the role modules (sessions, transcripts, journal, …) use. */
export interface Database {
  /** Where the data lives, password hidden. */
  readonly location: string;
  /** This store instance's owner id (journal records and delivery claims carry it). */
  readonly ownerId: string;
  readonly now: () => number;
  readonly createId: () => string;
  /** One statement outside a transaction. */
  query<Row extends QueryResultRow>(
    operation: string,
    sql: string,
    values?: readonly unknown[],
  ): Promise<Row[]>;
  /** `work` in one transaction (READ COMMITTED); rolled back when it throws. */
  transaction<T>(operation: string, work: (client: Queryable) => Promise<T>): Promise<T>;
  /**
   * The database answered that this instance's lock is gone (a write checked
   * `switchboard_owner_alive` of its own owner id): every later operation is refused, and the
   * returned SESSIONS_LOCK_LOST error is the one to throw now.
   */
  lockLost(operation: string): SessionsError;
}

/** The state `createDatabase` reads on every operation. */
export interface DatabaseStatus {
  /** Undefined while usable; the error every operation rejects with otherwise. */
  unusable(operation: string): SessionsError | undefined;
  /**
   * Undefined while the instance lock's connection answered within the liveness timeout;
   * otherwise a check on it, after which `unusable` says whether the lock is still held.
   */
  confirmAlive(): Promise<void> | undefined;
  /** Counts in-flight operations so `close` can wait for them. */
  readonly inflight: Set<Promise<unknown>>;
  /** Marks the instance lock lost (`reason` goes into every later error); returns the error. */
  lose(reason: string): SessionsError;
}

/** Server error classes a caller may retry: serialization failures, deadlocks, lost connections. */
function isRetryable(code: string | undefined): boolean {
  return code === '40001' || code === '40P01' || (code?.startsWith('08') ?? false) || code === '57P01';
}

/** Wraps a driver error; contract errors (SwitchboardErrors) pass through unchanged. */
export function toStoreError(error: unknown, location: string, operation: string): Error {
  if (error instanceof SessionsError || error instanceof StorePostgresError) return error;
  const code = (error as { code?: string }).code;
  return new StorePostgresError(
    'STORE_POSTGRES_QUERY_FAILED',
    `PostgreSQL (${location}) failed during ${operation}: ${(error as Error).message}${code === undefined ? '' : ` [${code}]`}.`,
    { cause: error, retryable: isRetryable(code), details: { operation, sqlState: code } },
  );
}

export function createDatabase(parts: {
  readonly pool: Pool;
  readonly location: string;
  readonly ownerId: string;
  readonly now: () => number;
  readonly createId: () => string;
  readonly status: DatabaseStatus;
}): Database {
  const { pool, location, status } = parts;

  function track<T>(operation: string, work: () => Promise<T>): Promise<T> {
    const unusable = status.unusable(operation);
    if (unusable !== undefined) return Promise.reject(unusable);
    const confirming = status.confirmAlive();
    const run =
      confirming === undefined
        ? work()
        : confirming.then(() => {
            const lockLost = status.unusable(operation);
            if (lockLost !== undefined) throw lockLost;
            return work();
          });
    const promise = run.catch((error: unknown) => {
      throw toStoreError(error, location, operation);
    });
    const settled = promise.then(
      () => undefined,
      () => undefined,
    );
    status.inflight.add(settled);
    void settled.then(() => status.inflight.delete(settled));
    return promise;
  }

  return {
    location,
    ownerId: parts.ownerId,
    now: parts.now,
    createId: parts.createId,
    query<Row extends QueryResultRow>(operation: string, sql: string, values: readonly unknown[] = []) {
      return track(operation, async () => (await pool.query<Row>(sql, [...values])).rows);
    },
    lockLost(operation) {
      return status.lose(`the database no longer listed its instance lock as held during ${operation}`);
    },
    transaction<T>(operation: string, work: (client: Queryable) => Promise<T>): Promise<T> {
      return track(operation, async () => {
        const client: PoolClient = await pool.connect();
        // pg-pool removes its error listener while a client is checked out: a connection the
        // server ends between two statements would otherwise crash the process.
        let broken = false;
        const onError = (): void => {
          broken = true;
        };
        client.on('error', onError);
        try {
          await client.query('BEGIN');
          const value = await work(wrap(client));
          await client.query('COMMIT');
          return value;
        } catch (error) {
          try {
            await client.query('ROLLBACK');
          } catch {
            broken = true;
          }
          throw error;
        } finally {
          client.removeListener('error', onError);
          client.release(broken);
        }
      });
    },
  };
}

function wrap(client: PoolClient): Queryable {
  return {
    async query<Row extends QueryResultRow>(sql: string, values: readonly unknown[] = []) {
      const result = await client.query<Row>(sql, [...values]);
      return { rows: result.rows, rowCount: result.rowCount ?? 0 };
    },
  };
}
