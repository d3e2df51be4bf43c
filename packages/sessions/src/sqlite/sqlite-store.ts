/**
 * The default session store: one SQLite database file in the state directory, opened with
 * Node's built-in `node:sqlite`.
 *
 * Durability. The database runs in WAL mode. With `durability: 'full'` (the default,
 * `PRAGMA synchronous = FULL`) every commit is fsynced to the WAL before the promise of the
 * operation resolves: a resolved append, journal write or receipt survives a process crash
 * (SIGKILL, OOM) and a power cut or kernel panic. With `durability: 'normal'`
 * (`synchronous = NORMAL`) a resolved operation survives a process crash, but the last
 * commits before a power cut or OS crash may roll back (the database stays consistent).
 * Writes issued in the same turn of the event loop share one transaction (group commit).
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { SessionsError } from '../errors.ts';
import { requireKey } from '../session-entry.ts';
import type { SessionStore } from '../session-store.ts';
import {
  type DeliveryRow,
  deliveryFromRow,
  type InboundRow,
  inboundFromRow,
  type SessionRow,
  sessionColumns,
  sessionFromRow,
  sessionValues,
  type TranscriptRow,
} from '../store-rows.ts';
import { decodeEntry } from '../transcript.ts';
import type {
  ArchiveReason,
  DeliveryReceipt,
  InboundRecord,
  InboundRef,
  SessionEntry,
  TranscriptEntry,
} from '../types.ts';
import { createContextCache } from './context-cache.ts';
import { toStoreError } from './database-errors.ts';
import { createSqliteDeliveryReceipts } from './delivery-receipts.ts';
import { createGroupCommit } from './group-commit.ts';
import { createSqliteInboundJournal } from './inbound-journal.ts';
import {
  acquireInstanceLock,
  type LockAcquisition,
  type ReclaimedLock,
  releaseInstanceLock,
  renewInstanceLock,
} from './instance-lock.ts';
import { createSqliteMaintenance } from './maintenance.ts';
import { bootstrapSql, latestSchemaVersion, migrations, schemaComponent } from './schema.ts';
import { createSqliteSessionEntries } from './session-entries.ts';
import { createSqliteStateRecords } from './state-records.ts';
import { sqliteStatements } from './statements.ts';
import type { EntryRow, SqliteStoreContext } from './store-context.ts';
import { createSqliteTranscripts } from './transcripts.ts';

/**
 * Decoded context entries kept across `buildContext` calls (all sessions together), so a
 * turn decodes only what was appended since the previous one. Measured in the gateway
 * bench: 15% less CPU per message with 50 busy sessions; a full cache holds roughly
 * 10–30 MB of decoded messages, depending on their size. The most recently used context
 * stays even when it alone is larger (see context-cache.ts).
 */
const contextCacheEntries = 10_000;

/** `full`: a resolved write survives power loss. `normal`: it survives a process crash. */
export type Durability = 'full' | 'normal';

export interface SqliteSessionStoreOptions {
  /** The state directory; created (mode 0700) when missing. */
  readonly stateDirectory: string;
  /** The database file inside the state directory. Default `switchboard.db`. */
  readonly fileName?: string;
  /** Default `full` (see the module comment and the README). */
  readonly durability?: Durability;
  /** How long to wait for another connection's write lock. Default 5000 ms. */
  readonly busyTimeoutMs?: number;
  /** The single-instance lock's heartbeat and staleness. */
  readonly lock?: {
    /** How often the lock row is renewed; 0 turns renewal off. Default 10 000 ms. */
    readonly heartbeatMs?: number;
    /** A holder on another host (or without process start times) is gone after this. Default 60 000 ms. */
    readonly staleAfterMs?: number;
  };
  /** The clock used for every timestamp. Default `Date.now`. */
  readonly now?: () => number;
  /** Makes session ids. Default `crypto.randomUUID`. */
  readonly createId?: () => string;
}

/** The SQLite store, with a few facts about the open database. */
export interface SqliteSessionStore extends SessionStore {
  readonly databasePath: string;
  readonly stateDirectory: string;
  readonly durability: Durability;
  readonly schemaVersion: number;
  /** This process's lock owner id (also the owner of delivery claims). */
  readonly ownerId: string;
  /** Set when a previous holder's lock was reclaimed (it did not shut down cleanly). */
  readonly reclaimedLock: ReclaimedLock | undefined;
  /**
   * Renews the lock now (the store also does it every `lock.heartbeatMs`). Resolves false,
   * and every later operation rejects with SESSIONS_LOCK_LOST, when the lock is no longer ours.
   */
  heartbeat(): Promise<boolean>;
}

const defaultFileName = 'switchboard.db';

function prepareDirectory(stateDirectory: string): string {
  const directory = resolve(requireKey(stateDirectory, 'options.stateDirectory'));
  try {
    if (existsSync(directory)) {
      if (!statSync(directory).isDirectory()) {
        throw new SessionsError(
          'SESSIONS_STATE_DIRECTORY_INVALID',
          `The state directory ${directory} exists but is not a directory. Point SWITCHBOARD_STATE_DIR (or the stateDirectory option) at a directory.`,
          { details: { path: directory } },
        );
      }
    } else {
      mkdirSync(directory, { recursive: true, mode: 0o700 });
    }
  } catch (error) {
    if (error instanceof SessionsError) throw error;
    throw new SessionsError(
      'SESSIONS_STATE_DIRECTORY_INVALID',
      `The state directory ${directory} cannot be created (${(error as Error).message}). Check that its parent exists and is writable.`,
      { cause: error, details: { path: directory } },
    );
  }
  return directory;
}

/**
 * Opens (creating or migrating as needed) the session database in `stateDirectory` and takes
 * the single-instance lock. Rejects with SESSIONS_LOCKED when another live gateway holds it,
 * SESSIONS_DATABASE_CORRUPT / SESSIONS_DATABASE_UNREADABLE when the file cannot be used.
 */
export async function createSqliteSessionStore(
  options: SqliteSessionStoreOptions,
): Promise<SqliteSessionStore> {
  const durability = options.durability ?? 'full';
  if (durability !== 'full' && durability !== 'normal') {
    throw new SessionsError(
      'SESSIONS_INVALID_ARGUMENT',
      `options.durability must be "full" or "normal"; got ${String(durability)}.`,
    );
  }
  const stateDirectory = prepareDirectory(options.stateDirectory);
  const fileName = options.fileName ?? defaultFileName;
  const databasePath = join(stateDirectory, fileName);
  const now = options.now ?? Date.now;
  const createId = options.createId ?? randomUUID;
  const heartbeatMs = options.lock?.heartbeatMs ?? 10_000;
  const staleAfterMs = options.lock?.staleAfterMs ?? 60_000;
  const ownerId = createId();
  const isNew = !existsSync(databasePath);

  let database: DatabaseSync;
  try {
    // Loaded on first use: importing this package (for the dispatcher, say) never loads
    // node:sqlite, which prints an ExperimentalWarning on Node 22 and Node 24 before 24.15.
    const { DatabaseSync } = await import('node:sqlite');
    database = new DatabaseSync(databasePath, { timeout: options.busyTimeoutMs ?? 5000 });
  } catch (error) {
    throw toStoreError(error, databasePath, 'open');
  }
  let lockTaken = false;
  let acquisition: LockAcquisition;
  try {
    if (isNew) chmodSync(databasePath, 0o600);
    const pageCount = (database.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
    // Incremental auto-vacuum lets `prune` give space back; it can only be chosen before the first table.
    if (pageCount === 0) database.exec('PRAGMA auto_vacuum = INCREMENTAL');
    const mode = (database.prepare('PRAGMA journal_mode = WAL').get() as { journal_mode: string })
      .journal_mode;
    if (mode.toLowerCase() !== 'wal') {
      throw new SessionsError(
        'SESSIONS_WAL_UNAVAILABLE',
        `The session database ${databasePath} could not be switched to WAL mode (it reports "${mode}"). ` +
          'Keep the state directory on a local file system (not a network share).',
        { details: { path: databasePath } },
      );
    }
    database.exec(`PRAGMA synchronous = ${durability === 'full' ? 'FULL' : 'NORMAL'}`);
    database.exec('PRAGMA foreign_keys = ON');
    database.exec('PRAGMA journal_size_limit = 67108864');

    database.exec('BEGIN IMMEDIATE');
    try {
      database.exec(bootstrapSql);
      acquisition = acquireInstanceLock(database, {
        ownerId,
        now: now(),
        staleAfterMs,
        stateDirectory,
        databasePath,
      });
      database.exec('COMMIT');
      lockTaken = true;
    } catch (error) {
      if (database.isTransaction) database.exec('ROLLBACK');
      throw error;
    }
    migrate(database, databasePath, now);
  } catch (error) {
    try {
      if (lockTaken) releaseInstanceLock(database, ownerId);
    } catch {
      // The database is unusable; closing it is all that is left to do.
    }
    database.close();
    throw toStoreError(error, databasePath, 'open');
  }
  return buildStore({
    database,
    databasePath,
    stateDirectory,
    durability,
    ownerId,
    now,
    createId,
    heartbeatMs,
    reclaimedLock: acquisition.reclaimedFrom,
  });
}

function currentSchemaVersion(database: DatabaseSync): number {
  const row = database
    .prepare('SELECT MAX(version) AS version FROM schema_migrations WHERE component = ?')
    .get(schemaComponent) as { version: number | null };
  return row.version ?? 0;
}

function migrate(database: DatabaseSync, databasePath: string, now: () => number): void {
  const version = currentSchemaVersion(database);
  if (version > latestSchemaVersion) {
    throw new SessionsError(
      'SESSIONS_SCHEMA_TOO_NEW',
      `The session database ${databasePath} has schema version ${version}, but this Switchboard only knows versions up to ${latestSchemaVersion}. ` +
        'It was written by a newer Switchboard: upgrade, or restore a backup made before the upgrade.',
      { details: { path: databasePath, version, latest: latestSchemaVersion } },
    );
  }
  for (const migration of migrations) {
    if (migration.version <= version) continue;
    database.exec('BEGIN IMMEDIATE');
    try {
      database.exec(migration.sql);
      database
        .prepare('INSERT INTO schema_migrations (component, version, name, applied_at) VALUES (?, ?, ?, ?)')
        .run(schemaComponent, migration.version, migration.name, now());
      database.exec('COMMIT');
    } catch (error) {
      if (database.isTransaction) database.exec('ROLLBACK');
      const mapped = toStoreError(error, databasePath, `migration ${migration.version}`);
      if (mapped.code !== 'SESSIONS_DATABASE_ERROR') throw mapped;
      throw new SessionsError(
        'SESSIONS_MIGRATION_FAILED',
        `Migrating the session database ${databasePath} to schema version ${migration.version} (${migration.name}) failed: ${(error as Error).message}. ` +
          'The database is unchanged at the previous version.',
        { cause: error, details: { path: databasePath, version: migration.version } },
      );
    }
  }
}

interface StoreParts {
  readonly database: DatabaseSync;
  readonly databasePath: string;
  readonly stateDirectory: string;
  readonly durability: Durability;
  readonly ownerId: string;
  readonly now: () => number;
  readonly createId: () => string;
  readonly heartbeatMs: number;
  readonly reclaimedLock: LockAcquisition['reclaimedFrom'];
}

function buildStore(parts: StoreParts): SqliteSessionStore {
  const { database, databasePath, now, createId, ownerId } = parts;
  let closed = false;
  let lockLost = false;
  const statementCache = new Map<string, StatementSync>();
  const contextCache = createContextCache(contextCacheEntries);

  function statement(sql: string): StatementSync {
    let prepared = statementCache.get(sql);
    if (prepared === undefined) {
      prepared = database.prepare(sql);
      statementCache.set(sql, prepared);
    }
    return prepared;
  }

  const sql = sqliteStatements;

  function usableError(operation: string): SessionsError | undefined {
    if (closed) {
      return new SessionsError(
        'SESSIONS_STORE_CLOSED',
        `The session store ${databasePath} is closed (during ${operation}).`,
      );
    }
    if (lockLost) {
      return new SessionsError(
        'SESSIONS_LOCK_LOST',
        `This gateway no longer holds the lock on ${parts.stateDirectory} (another process reclaimed it). Restart the gateway.`,
        { details: { stateDirectory: parts.stateDirectory } },
      );
    }
    return undefined;
  }

  const groupCommit = createGroupCommit({
    database,
    databasePath,
    usableError,
    // A group whose COMMIT failed may have shown uncommitted entries to a read in the group.
    onGroupRolledBack: () => contextCache.clear(),
  });
  const { run, write, flush } = groupCommit;

  function getSessionRow(key: string): SessionEntry | undefined {
    const row = statement(sql.getSession).get(key) as SessionRow | undefined;
    return row === undefined ? undefined : sessionFromRow(row);
  }

  function requireSession(key: string, expectedSessionId: string | undefined): SessionEntry {
    const entry = getSessionRow(key);
    if (entry === undefined) {
      throw new SessionsError(
        'SESSIONS_NOT_FOUND',
        `No session exists under the key ${JSON.stringify(key)}.`,
        {
          details: { key },
        },
      );
    }
    checkExpected(entry, expectedSessionId);
    return entry;
  }

  function checkExpected(entry: SessionEntry, expectedSessionId: string | undefined): void {
    if (expectedSessionId !== undefined && entry.sessionId !== expectedSessionId) {
      throw new SessionsError(
        'SESSIONS_STALE_SESSION',
        `The session ${JSON.stringify(entry.key)} now has session id ${entry.sessionId}, not ${expectedSessionId} (it was reset meanwhile).`,
        { details: { key: entry.key, sessionId: entry.sessionId, expectedSessionId } },
      );
    }
  }

  /** Writes the columns that changed (untouched indexes stay untouched). */
  function writeSession(entry: SessionEntry, previous: SessionEntry): void {
    const values = sessionValues(entry);
    const before = sessionValues(previous);
    const columns: string[] = [];
    const changed: Array<string | number | null> = [];
    for (let index = 1; index < values.length; index += 1) {
      if (values[index] !== before[index]) {
        columns.push(sessionColumns[index]!);
        changed.push(values[index]!);
      }
    }
    if (columns.length === 0) return;
    statement(
      `UPDATE sessions SET ${columns.map((column) => `${column} = ?`).join(', ')} WHERE session_key = ?`,
    ).run(...changed, entry.key);
  }

  function getTranscriptRow(sessionId: string): TranscriptRow | undefined {
    return statement(sql.getTranscript).get(sessionId) as TranscriptRow | undefined;
  }

  function requireTranscript(sessionId: string): TranscriptRow {
    const row = getTranscriptRow(requireKey(sessionId, 'sessionId'));
    if (row === undefined) {
      throw new SessionsError(
        'SESSIONS_TRANSCRIPT_NOT_FOUND',
        `No transcript exists with session id ${sessionId}.`,
        {
          details: { sessionId },
        },
      );
    }
    return row;
  }

  function readEntries(
    transcript: TranscriptRow,
    from: number,
    to: number,
    limit: number,
  ): TranscriptEntry[] {
    const sessionId = transcript.session_id;
    const rows = statement(sql.readEntries).all(
      transcript.transcript_id,
      from,
      to,
      limit,
    ) as unknown as EntryRow[];
    return rows.map((row) => decodeEntry(sessionId, row.sequence, row.type, row.created_at, row.body));
  }

  function archive(sessionId: string, reason: ArchiveReason, at: number): void {
    statement(sql.archiveTranscript).run(at, reason, sessionId);
  }

  function getInboundRow(ref: InboundRef): InboundRecord | undefined {
    const row = statement(sql.getInbound).get(ref.channel, ref.accountId, ref.messageId) as
      | InboundRow
      | undefined;
    return row === undefined ? undefined : inboundFromRow(row);
  }

  function getDeliveryRow(key: string): (DeliveryReceipt & { ownerId: string }) | undefined {
    const row = statement(sql.getDelivery).get(key) as DeliveryRow | undefined;
    return row === undefined ? undefined : { ...deliveryFromRow(row), ownerId: row.owner_id };
  }

  function withoutOwner(receipt: DeliveryReceipt & { ownerId: string }): DeliveryReceipt {
    const { ownerId: _owner, ...rest } = receipt;
    return rest;
  }

  function databaseBytes(): { database: number; wal: number; free: number } {
    const pageSize = (database.prepare('PRAGMA page_size').get() as { page_size: number }).page_size;
    const pages = (database.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
    const free = (database.prepare('PRAGMA freelist_count').get() as { freelist_count: number })
      .freelist_count;
    let wal = 0;
    try {
      wal = statSync(`${databasePath}-wal`).size;
    } catch {
      wal = 0;
    }
    return { database: pageSize * pages, wal, free: pageSize * free };
  }

  function renew(): boolean {
    if (closed || lockLost) return !lockLost;
    if (!renewInstanceLock(database, ownerId, now())) lockLost = true;
    return !lockLost;
  }

  let heartbeat: NodeJS.Timeout | undefined;
  if (parts.heartbeatMs > 0) {
    heartbeat = setInterval(() => {
      // Never inside a group commit: flushes run to completion synchronously.
      try {
        renew();
      } catch {
        // A busy or failing database: the next heartbeat tries again; operations report the cause.
      }
    }, parts.heartbeatMs);
    heartbeat.unref();
  }

  const context: SqliteStoreContext = {
    database,
    databasePath,
    now,
    createId,
    ownerId,
    statement,
    sql,
    run,
    write,
    contextCache,
    getSessionRow,
    requireSession,
    checkExpected,
    writeSession,
    getTranscriptRow,
    requireTranscript,
    readEntries,
    archive,
    getInboundRow,
    getDeliveryRow,
    withoutOwner,
    databaseBytes,
  };

  const store: SqliteSessionStore = {
    location: databasePath,
    databasePath,
    stateDirectory: parts.stateDirectory,
    durability: parts.durability,
    schemaVersion: latestSchemaVersion,
    ownerId,
    reclaimedLock: parts.reclaimedLock,

    ...createSqliteSessionEntries(context),
    ...createSqliteTranscripts(context),
    ...createSqliteInboundJournal(context),
    ...createSqliteDeliveryReceipts(context),
    ...createSqliteStateRecords(context),
    ...createSqliteMaintenance(context),

    async heartbeat(): Promise<boolean> {
      if (closed) return false;
      try {
        return renew();
      } catch (error) {
        throw toStoreError(error, databasePath, 'heartbeat');
      }
    },

    async close(): Promise<void> {
      if (closed) return;
      // Writes already accepted are committed (or rejected) before the database closes.
      flush();
      closed = true;
      if (heartbeat !== undefined) clearInterval(heartbeat);
      try {
        if (!lockLost) releaseInstanceLock(database, ownerId);
      } catch {
        // The lock row stays; the next start sees this pid gone and reclaims it.
      } finally {
        database.close();
      }
    },
  };
  return store;
}
