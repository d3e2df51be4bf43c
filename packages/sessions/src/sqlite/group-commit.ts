/**
 * The SQLite store's group commit, on its own: writes issued in the same turn of the event
 * loop share one transaction (one fsync), each inside its own savepoint, and every promise
 * settles only after COMMIT returned.
 */
import type { DatabaseSync } from 'node:sqlite';
import type { SessionsError } from '../errors.ts';
import { toStoreError } from './database-errors.ts';

export interface GroupCommitOptions {
  readonly database: DatabaseSync;
  readonly databasePath: string;
  /** The error every operation rejects with while the store cannot be used (closed, lock lost). */
  readonly usableError: (operation: string) => SessionsError | undefined;
  /** Called when a whole group rolled back (BEGIN, a savepoint or COMMIT failed). */
  readonly onGroupRolledBack: () => void;
}

export interface GroupCommit {
  /** A read: runs now, or behind queued writes (so it sees them). */
  run<T>(operation: string, work: () => T): Promise<T>;
  /** A write: runs in the next group commit, atomically. */
  write<T>(operation: string, work: () => T): Promise<T>;
  /** Runs the queued group now (close uses it so accepted writes commit first). */
  flush(): void;
}

export function createGroupCommit(options: GroupCommitOptions): GroupCommit {
  const { database, databasePath, usableError } = options;
  /**
   * Group commit. Writes are queued and run together at the next turn of the event loop in
   * one transaction (one fsync), each inside its own savepoint: a failing write rolls back
   * alone and rejects alone; the others commit. Every promise settles only after COMMIT
   * returned, so "resolved" always means "committed". Reads run at once when nothing is
   * queued, otherwise in order behind the queued writes (so they see them).
   */
  interface QueuedOperation {
    readonly operation: string;
    readonly write: boolean;
    readonly work: () => unknown;
    readonly resolve: (value: unknown) => void;
    readonly reject: (error: unknown) => void;
  }
  const queue: QueuedOperation[] = [];
  let flushScheduled = false;
  const control = {
    begin: database.prepare('BEGIN IMMEDIATE'),
    savepoint: database.prepare('SAVEPOINT operation'),
    release: database.prepare('RELEASE operation'),
    rollbackTo: database.prepare('ROLLBACK TO operation'),
    rollback: database.prepare('ROLLBACK'),
    commit: database.prepare('COMMIT'),
  };

  function submit<T>(operation: string, write: boolean, work: () => T): Promise<T> {
    const unusable = usableError(operation);
    if (unusable !== undefined) return Promise.reject(unusable);
    if (!write && queue.length === 0) {
      try {
        return Promise.resolve(work());
      } catch (error) {
        return Promise.reject(toStoreError(error, databasePath, operation));
      }
    }
    return new Promise<T>((resolve, reject) => {
      queue.push({ operation, write, work, resolve: resolve as (value: unknown) => void, reject });
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flush);
      }
    });
  }

  function flush(): void {
    flushScheduled = false;
    const batch = queue.splice(0);
    if (batch.length === 0) return;
    const unusable = usableError('commit');
    if (unusable !== undefined) {
      for (const operation of batch) operation.reject(unusable);
      return;
    }
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    // A lone operation needs no savepoint: if it fails, the whole transaction rolls back.
    const alone = batch.length === 1;
    try {
      control.begin.run();
      for (const operation of batch) {
        const savepoint = operation.write && !alone;
        if (savepoint) control.savepoint.run();
        try {
          const value = operation.work();
          if (savepoint) control.release.run();
          outcomes.push({ ok: true, value });
        } catch (error) {
          if (savepoint) {
            control.rollbackTo.run();
            control.release.run();
          } else if (alone) {
            control.rollback.run();
          }
          outcomes.push({ ok: false, error: toStoreError(error, databasePath, operation.operation) });
        }
      }
      if (database.isTransaction) control.commit.run();
    } catch (error) {
      // BEGIN, a savepoint or COMMIT itself failed: nothing of this group is committed,
      // so entries a read in this group saw may not exist.
      options.onGroupRolledBack();
      try {
        if (database.isTransaction) control.rollback.run();
      } catch {
        // The original error says what went wrong.
      }
      const mapped = toStoreError(
        error,
        databasePath,
        batch.map((operation) => operation.operation).join(', '),
      );
      for (const operation of batch) operation.reject(mapped);
      return;
    }
    for (const [index, operation] of batch.entries()) {
      const outcome = outcomes[index]!;
      if (outcome.ok) operation.resolve(outcome.value);
      else operation.reject(outcome.error);
    }
  }

  /** A read: runs now, or behind queued writes. */
  function run<T>(operation: string, work: () => T): Promise<T> {
    return submit(operation, false, work);
  }

  /** A write: runs in the next group commit, atomically. */
  function write<T>(operation: string, work: () => T): Promise<T> {
    return submit(operation, true, work);
  }

  return { run, write, flush };
}
