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
  /**
   * `work` in one transaction (READ COMMITTED); rolled back when it throws. With
   * `evenAfterLockLoss`, it also runs once this instance's lock is gone (not once the store is
   * closed): only for writes that record a fact and can only prevent a repeat, such as a send
   * that went out (`recordDelivery`); `work` reads `lockLost` to act accordingly.
   */
  transaction<T>(
    operation: string,
    work: (client: Queryable, state: { readonly lockLost: boolean }) => Promise<T>,
    options?: { readonly evenAfterLockLoss?: boolean },
  ): Promise<T>;
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
  /** The error once the store is closed (not when only the lock is lost). */
  closed(operation: string): SessionsError | undefined;
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

/**
 * The connection itself failed (not the statement): node-postgres' own errors for a dead
 * client carry no SQLSTATE; the server's termination notices are class 08 or 57P01.
 */
function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  if (code !== undefined) return code.startsWith('08') || code === '57P01';
  const message = error instanceof Error ? error.message : '';
  return /not queryable|Connection terminated|ECONNRESET|EPIPE/i.test(message);
}

/** The statement did not take effect: the client never sent it, or the server ended its backend first. */
function endedBeforeAnswering(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  if (code !== undefined) return code === '57P01';
  return /not queryable/i.test(error instanceof Error ? error.message : '');
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

  function track<T>(operation: string, work: () => Promise<T>, evenAfterLockLoss = false): Promise<T> {
    const unusable = evenAfterLockLoss ? status.closed(operation) : status.unusable(operation);
    if (unusable !== undefined) return Promise.reject(unusable);
    const confirming = evenAfterLockLoss ? undefined : status.confirmAlive();
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

  /**
   * A pooled client with its transaction begun. The pool can hand out an idle connection the
   * server has just ended (`pg_terminate_backend`, a restart, a network cut) before it noticed:
   * BEGIN then fails on it without anything having run, so it is tried once more on a fresh
   * connection (and `transaction` runs a transaction once more when its connection died before
   * COMMIT). Without this, a replica cut off the database could not record a send it had made,
   * and the replica taking over would send it again (decision 0021).
   */
  async function checkOut(): Promise<PoolClient> {
    for (let attempt = 1; ; attempt += 1) {
      const client = await pool.connect();
      // Checked out, a client has no error listener of the pool's (see `transaction`).
      const ignore = (): void => undefined;
      client.on('error', ignore);
      try {
        await client.query('BEGIN');
        return client;
      } catch (error) {
        client.release(true);
        if (attempt >= 2 || !isConnectionFailure(error)) throw error;
      } finally {
        client.removeListener('error', ignore);
      }
    }
  }

  return {
    location,
    ownerId: parts.ownerId,
    now: parts.now,
    createId: parts.createId,
    query<Row extends QueryResultRow>(operation: string, sql: string, values: readonly unknown[] = []) {
      return track(operation, async () => {
        for (let attempt = 1; ; attempt += 1) {
          try {
            return (await pool.query<Row>(sql, [...values])).rows;
          } catch (error) {
            // As in `checkOut`, for a statement that certainly did not take effect: the client
            // was dead before sending it, or the server ended the backend before answering it
            // (57P01: a statement it ended is rolled back, so running it again is safe).
            if (attempt >= 2 || !endedBeforeAnswering(error)) throw error;
          }
        }
      });
    },
    lockLost(operation) {
      return status.lose(`the database no longer listed its instance lock as held during ${operation}`);
    },
    transaction<T>(
      operation: string,
      work: (client: Queryable, state: { readonly lockLost: boolean }) => Promise<T>,
      options: { readonly evenAfterLockLoss?: boolean } = {},
    ): Promise<T> {
      const evenAfterLockLoss = options.evenAfterLockLoss === true;
      return track(
        operation,
        async () => {
          for (let attempt = 1; ; attempt += 1) {
            const client: PoolClient = await checkOut();
            // pg-pool removes its error listener while a client is checked out: a connection the
            // server ends between two statements would otherwise crash the process.
            let broken = false;
            const onError = (): void => {
              broken = true;
            };
            client.on('error', onError);
            let committing = false;
            try {
              const lockLost = status.unusable(operation) !== undefined;
              const value = await work(wrap(client), { lockLost });
              committing = true;
              await client.query('COMMIT');
              return value;
            } catch (error) {
              try {
                await client.query('ROLLBACK');
              } catch {
                broken = true;
              }
              // The connection died before COMMIT was sent: the server rolled the transaction
              // back, so it is run once more on a fresh connection (its statements only touch
              // the database). A failure during COMMIT may have committed: never repeated.
              if (committing || attempt >= 2 || !isConnectionFailure(error)) throw error;
            } finally {
              client.removeListener('error', onError);
              client.release(broken);
            }
          }
        },
        evenAfterLockLoss,
      );
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
