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
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { SessionsError } from '../errors.ts';
import { assertInboundTransition, describeInbound } from '../journal.ts';
import {
  applySessionPatch,
  createSessionEntry,
  requireKey,
  resetSessionEntry,
  validateSessionPatch,
} from '../session-entry.ts';
import type { SessionStore } from '../session-store.ts';
import {
  decodeCursor,
  encodeCursor,
  encodeInboundPayload,
  encodeStateValue,
  requireCount,
  requireRef,
  requireState,
} from '../store-arguments.ts';
import {
  activityMinute,
  type DeliveryRow,
  deliveryFromRow,
  type InboundRow,
  inboundFromRow,
  type SessionRow,
  type StateRow,
  sessionColumns,
  sessionFromRow,
  sessionValues,
  stateFromRow,
  type TranscriptRow,
  transcriptFromRow,
} from '../store-rows.ts';
import { assembleContext, contextStartSequence, decodeEntry, encodeEntries } from '../transcript.ts';
import type {
  AppendOptions,
  AppendResult,
  ArchiveReason,
  BuildContextOptions,
  CreateSessionInput,
  DeleteSessionOptions,
  DeleteSessionResult,
  DeliveryClaim,
  DeliveryDetails,
  DeliveryReceipt,
  DiskUsage,
  EnsureSessionResult,
  InboundRecord,
  InboundRef,
  InboundState,
  IntegrityReport,
  JournalInboundInput,
  JournalInboundResult,
  ListStateOptions,
  ListUnfinishedOptions,
  NewTranscriptEntry,
  PrunePolicy,
  PruneReport,
  PutStateOptions,
  ReadTranscriptOptions,
  ResetSessionOptions,
  ResetSessionResult,
  SessionContext,
  SessionEntry,
  SessionListQuery,
  SessionPage,
  SessionPatch,
  StateRecord,
  StreamTranscriptOptions,
  TranscriptEntry,
  TranscriptInfo,
  TranscriptListQuery,
  UpdateInboundOptions,
} from '../types.ts';
import { createContextCache } from './context-cache.ts';
import { toStoreError } from './database-errors.ts';
import {
  acquireInstanceLock,
  type LockAcquisition,
  type ReclaimedLock,
  releaseInstanceLock,
  renewInstanceLock,
} from './instance-lock.ts';
import { bootstrapSql, latestSchemaVersion, migrations, schemaComponent } from './schema.ts';

/**
 * Decoded context entries kept across `buildContext` calls (all sessions together), so a
 * turn decodes only what was appended since the previous one. Measured in the gateway
 * bench: 15% less CPU per message with 50 busy sessions; a full cache holds roughly
 * 10–30 MB of decoded messages, depending on their size.
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
const maxListLimit = 1000;
const defaultListLimit = 50;

interface AppendTargetRow extends SessionRow {
  transcript_id: number;
  next_sequence: number;
  archived_at: number | null;
}

interface EntryRow {
  sequence: number;
  type: string;
  created_at: number;
  body: string;
}

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

  const sessionColumnList = sessionColumns.join(', ');
  const sql = {
    getSession: `SELECT ${sessionColumnList} FROM sessions WHERE session_key = ?`,
    insertSession: `INSERT INTO sessions (${sessionColumnList}) VALUES (${sessionColumns.map(() => '?').join(', ')})`,
    deleteSession: 'DELETE FROM sessions WHERE session_key = ?',
    appendTarget: `SELECT ${sessionColumns.map((column) => `s.${column}`).join(', ')}, t.transcript_id, t.next_sequence, t.archived_at
      FROM sessions s JOIN transcripts t ON t.session_id = s.session_id WHERE s.session_key = ?`,
    insertTranscript:
      'INSERT INTO transcripts (session_id, session_key, agent_id, created_at) VALUES (?, ?, ?, ?)',
    getTranscript: 'SELECT * FROM transcripts WHERE session_id = ?',
    archiveTranscript:
      'UPDATE transcripts SET archived_at = ?, archive_reason = ? WHERE session_id = ? AND archived_at IS NULL',
    advanceTranscript: `UPDATE transcripts SET next_sequence = ?, entry_count = entry_count + ?, byte_count = byte_count + ?,
      last_compaction_sequence = COALESCE(?, last_compaction_sequence) WHERE transcript_id = ?`,
    insertEntry:
      'INSERT INTO transcript_entries (transcript_id, sequence, type, created_at, body) VALUES (?, ?, ?, ?, ?)',
    getEntry:
      'SELECT sequence, type, created_at, body FROM transcript_entries WHERE transcript_id = ? AND sequence = ?',
    readEntries: `SELECT sequence, type, created_at, body FROM transcript_entries
      WHERE transcript_id = ? AND sequence >= ? AND sequence <= ? ORDER BY sequence LIMIT ?`,
    insertInbound: `INSERT INTO inbound_journal (channel, account_id, message_id, state, session_key, received_at, updated_at, payload)
      VALUES (?, ?, ?, 'received', ?, ?, ?, ?) ON CONFLICT (channel, account_id, message_id) DO NOTHING`,
    getInbound: 'SELECT * FROM inbound_journal WHERE channel = ? AND account_id = ? AND message_id = ?',
    updateInbound: `UPDATE inbound_journal SET state = ?, updated_at = ?, attempts = ?, error = ?, session_key = ?
      WHERE channel = ? AND account_id = ? AND message_id = ?`,
    unfinishedInbound: `SELECT * FROM inbound_journal WHERE state IN ('received', 'queued', 'running') AND received_at >= ?
      ORDER BY received_at, channel, account_id, message_id LIMIT ?`,
    getDelivery: 'SELECT * FROM delivery_receipts WHERE idempotency_key = ?',
    insertDelivery: `INSERT INTO delivery_receipts (idempotency_key, state, attempts, owner_id, claimed_at, updated_at, details)
      VALUES (?, 'claimed', 1, ?, ?, ?, ?)`,
    reclaimDelivery: `UPDATE delivery_receipts SET state = 'claimed', attempts = attempts + 1, owner_id = ?, claimed_at = ?,
      updated_at = ?, error = NULL, details = ? WHERE idempotency_key = ?`,
    sentDelivery: `UPDATE delivery_receipts SET state = 'sent', updated_at = ?, sent_at = ?, platform_message_id = ?, error = NULL
      WHERE idempotency_key = ?`,
    failedDelivery: `UPDATE delivery_receipts SET state = 'failed', updated_at = ?, error = ? WHERE idempotency_key = ?`,
  };

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
      contextCache.clear();
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

  const store: SqliteSessionStore = {
    location: databasePath,
    databasePath,
    stateDirectory: parts.stateDirectory,
    durability: parts.durability,
    schemaVersion: latestSchemaVersion,
    ownerId,
    reclaimedLock: parts.reclaimedLock,

    async getSession(key: string): Promise<SessionEntry | undefined> {
      return run('getSession', () => getSessionRow(requireKey(key, 'key')));
    },

    async ensureSession(key: string, init: CreateSessionInput): Promise<EnsureSessionResult> {
      return write('ensureSession', () => {
        requireKey(key, 'key');
        validateSessionPatch(init, 'init');
        requireKey(init.agentId, 'init.agentId');
        const existing = getSessionRow(key);
        if (existing !== undefined) return { entry: existing, created: false };
        const at = now();
        const entry = createSessionEntry(key, init, createId(), at);
        statement(sql.insertTranscript).run(entry.sessionId, key, entry.agentId, at);
        statement(sql.insertSession).run(...sessionValues(entry));
        return { entry, created: true };
      });
    },

    async patchSession(key: string, patch: SessionPatch, options = {}): Promise<SessionEntry> {
      return write('patchSession', () => {
        requireKey(key, 'key');
        validateSessionPatch(patch);
        const current = requireSession(key, options.expectedSessionId);
        const entry = applySessionPatch(current, patch, now());
        writeSession(entry, current);
        return entry;
      });
    },

    async listSessions(query: SessionListQuery = {}): Promise<SessionPage> {
      return run('listSessions', () => {
        const limit = Math.min(Math.max(1, Math.floor(query.limit ?? defaultListLimit)), maxListLimit);
        const where: string[] = [];
        const values: SQLInputValue[] = [];
        if (query.agentId !== undefined) {
          where.push('agent_id = ?');
          values.push(query.agentId);
        }
        if (query.channel !== undefined) {
          where.push('channel = ?');
          values.push(query.channel);
        }
        if (query.chatType !== undefined) {
          where.push('chat_type = ?');
          values.push(query.chatType);
        }
        if (query.label !== undefined) {
          where.push('label = ?');
          values.push(query.label);
        }
        if (query.search !== undefined && query.search !== '') {
          const needle = query.search.toLowerCase();
          where.push(
            "(instr(lower(session_key), ?) > 0 OR instr(lower(coalesce(label, '')), ?) > 0 OR instr(lower(coalesce(display_name, '')), ?) > 0)",
          );
          values.push(needle, needle, needle);
        }
        if (query.updatedSince !== undefined) {
          where.push('activity_minute >= ? AND updated_at >= ?');
          values.push(activityMinute(query.updatedSince), query.updatedSince);
        }
        const filterSql = where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;
        const filterValues = [...values];
        if (query.cursor !== undefined) {
          const [updatedAt, key] = decodeCursor(query.cursor);
          // The minute lets the index seek straight to the page; the row value orders within it.
          where.push('activity_minute <= ? AND (activity_minute, updated_at, session_key) < (?, ?, ?)');
          values.push(activityMinute(updatedAt), activityMinute(updatedAt), updatedAt, key);
        }
        const offset = Math.max(0, Math.floor(query.offset ?? 0));
        const pageSql = `SELECT ${sessionColumnList} FROM sessions ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
          ORDER BY activity_minute DESC, updated_at DESC, session_key DESC LIMIT ? OFFSET ?`;
        const rows = statement(pageSql).all(...values, limit + 1, offset) as unknown as SessionRow[];
        const hasMore = rows.length > limit;
        const sessions = rows.slice(0, limit).map(sessionFromRow);
        const last = sessions[sessions.length - 1];
        let totalCount: number | undefined;
        if (query.includeTotal === true) {
          totalCount = (
            statement(`SELECT COUNT(*) AS count FROM sessions ${filterSql}`).get(...filterValues) as {
              count: number;
            }
          ).count;
        }
        return {
          sessions,
          hasMore,
          nextCursor: hasMore && last !== undefined ? encodeCursor(last.updatedAt, last.key) : undefined,
          totalCount,
        };
      });
    },

    async resetSession(key: string, options: ResetSessionOptions = {}): Promise<ResetSessionResult> {
      return write('resetSession', () => {
        requireKey(key, 'key');
        const current = requireSession(key, options.expectedSessionId);
        const at = now();
        archive(current.sessionId, options.reason ?? 'reset', at);
        const entry = resetSessionEntry(current, createId(), at);
        statement(sql.insertTranscript).run(entry.sessionId, key, entry.agentId, at);
        writeSession(entry, current);
        return { entry, previousSessionId: current.sessionId };
      });
    },

    async deleteSession(key: string, options: DeleteSessionOptions = {}): Promise<DeleteSessionResult> {
      return write('deleteSession', () => {
        requireKey(key, 'key');
        const current = getSessionRow(key);
        if (current === undefined) return { deleted: false, archivedSessionId: undefined };
        checkExpected(current, options.expectedSessionId);
        archive(current.sessionId, 'deleted', now());
        statement(sql.deleteSession).run(key);
        return { deleted: true, archivedSessionId: current.sessionId };
      });
    },

    async appendEntries(
      key: string,
      entries: readonly NewTranscriptEntry[],
      options: AppendOptions = {},
    ): Promise<AppendResult> {
      return write('appendEntries', () => {
        requireKey(key, 'key');
        if (options.patch !== undefined) validateSessionPatch(options.patch, 'options.patch');
        const row = statement(sql.appendTarget).get(key) as AppendTargetRow | undefined;
        if (row === undefined) {
          throw new SessionsError(
            'SESSIONS_NOT_FOUND',
            `No session exists under the key ${JSON.stringify(key)}.`,
            {
              details: { key },
            },
          );
        }
        const previous = sessionFromRow(row);
        checkExpected(previous, options.expectedSessionId);
        if (row.archived_at !== null) {
          throw new SessionsError(
            'SESSIONS_TRANSCRIPT_ARCHIVED',
            `The transcript ${previous.sessionId} of ${JSON.stringify(key)} is archived and accepts no more entries.`,
            { details: { key, sessionId: previous.sessionId } },
          );
        }
        const sessionId = previous.sessionId;
        const at = now();
        const firstSequence = row.next_sequence;
        const encoded = encodeEntries(entries, firstSequence, at);
        const insert = statement(sql.insertEntry);
        const stored: TranscriptEntry[] = [];
        let bytes = 0;
        let compactionSequence: number | null = null;
        let compactions = 0;
        let modelChange: SessionPatch | undefined;
        for (const [index, entry] of encoded.entries()) {
          const sequence = firstSequence + index;
          insert.run(row.transcript_id, sequence, entry.type, entry.timestamp, entry.body);
          bytes += Buffer.byteLength(entry.body);
          if (entry.value.type === 'compaction') {
            compactionSequence = sequence;
            compactions += 1;
          } else if (entry.value.type === 'model_change') {
            modelChange = { modelProvider: entry.value.provider, model: entry.value.model };
          }
          stored.push({ ...entry.value, sessionId, sequence, timestamp: entry.timestamp });
        }
        statement(sql.advanceTranscript).run(
          firstSequence + encoded.length,
          encoded.length,
          bytes,
          compactionSequence,
          row.transcript_id,
        );
        let session = previous;
        if (modelChange !== undefined) session = applySessionPatch(session, modelChange, at);
        session = applySessionPatch(session, options.patch ?? {}, at);
        if (compactions > 0) session = { ...session, compactionCount: session.compactionCount + compactions };
        writeSession(session, previous);
        return {
          sessionId: session.sessionId,
          entries: stored,
          firstSequence,
          lastSequence: firstSequence + encoded.length - 1,
          session,
        };
      });
    },

    async readTranscript(sessionId: string, options: ReadTranscriptOptions = {}): Promise<TranscriptEntry[]> {
      return run('readTranscript', () => {
        const transcript = requireTranscript(sessionId);
        const from = options.fromSequence ?? 1;
        const to = options.toSequence ?? Number.MAX_SAFE_INTEGER;
        const limit = options.limit ?? -1;
        const types = options.types;
        if (types === undefined) return readEntries(transcript, from, to, limit);
        if (types.length === 0) return [];
        const rows = statement(
          `SELECT sequence, type, created_at, body FROM transcript_entries
           WHERE transcript_id = ? AND sequence >= ? AND sequence <= ? AND type IN (${types.map(() => '?').join(', ')})
           ORDER BY sequence LIMIT ?`,
        ).all(transcript.transcript_id, from, to, ...types, limit) as unknown as EntryRow[];
        return rows.map((row) => decodeEntry(sessionId, row.sequence, row.type, row.created_at, row.body));
      });
    },

    async *streamTranscript(
      sessionId: string,
      options: StreamTranscriptOptions = {},
    ): AsyncIterable<TranscriptEntry> {
      const batchSize = Math.max(1, Math.floor(options.batchSize ?? 500));
      let next = options.fromSequence ?? 1;
      const transcript = await run('streamTranscript', () => requireTranscript(sessionId));
      while (true) {
        const page = await run('streamTranscript', () =>
          readEntries(transcript, next, Number.MAX_SAFE_INTEGER, batchSize),
        );
        for (const entry of page) yield entry;
        const last = page[page.length - 1];
        if (page.length < batchSize || last === undefined) return;
        next = last.sequence + 1;
      }
    },

    async getTranscript(sessionId: string): Promise<TranscriptInfo | undefined> {
      return run('getTranscript', () => {
        const row = getTranscriptRow(requireKey(sessionId, 'sessionId'));
        return row === undefined ? undefined : transcriptFromRow(row);
      });
    },

    async listTranscripts(query: TranscriptListQuery = {}): Promise<TranscriptInfo[]> {
      return run('listTranscripts', () => {
        const where: string[] = [];
        const values: SQLInputValue[] = [];
        if (query.sessionKey !== undefined) {
          where.push('session_key = ?');
          values.push(query.sessionKey);
        }
        if (query.archived === true) where.push('archived_at IS NOT NULL');
        if (query.archived === false) where.push('archived_at IS NULL');
        const limit = Math.min(Math.max(1, Math.floor(query.limit ?? 100)), maxListLimit);
        const rows = statement(
          `SELECT * FROM transcripts ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`} ORDER BY created_at DESC, session_id LIMIT ?`,
        ).all(...values, limit) as unknown as TranscriptRow[];
        return rows.map(transcriptFromRow);
      });
    },

    async buildContext(
      target: string | { sessionId: string },
      options: BuildContextOptions = {},
    ): Promise<SessionContext> {
      return run('buildContext', () => {
        let sessionId: string;
        if (typeof target === 'string') {
          sessionId = requireSession(requireKey(target, 'target'), undefined).sessionId;
        } else {
          sessionId = requireKey(target?.sessionId, 'target.sessionId');
        }
        const transcript = requireTranscript(sessionId);
        const lastSequence = transcript.next_sequence - 1;
        const compactionSequence = transcript.last_compaction_sequence;
        let cached = contextCache.get(transcript.transcript_id, sessionId, compactionSequence);
        if (cached !== undefined && cached.lastSequence < lastSequence) {
          const added = readEntries(transcript, cached.lastSequence + 1, Number.MAX_SAFE_INTEGER, -1);
          for (const entry of added) cached.entries.push(entry);
          cached.lastSequence = lastSequence;
          contextCache.grew(transcript.transcript_id, added.length);
        } else if (cached === undefined || cached.lastSequence > lastSequence) {
          let compaction: TranscriptEntry | undefined;
          if (compactionSequence !== null) {
            const row = statement(sql.getEntry).get(transcript.transcript_id, compactionSequence) as
              | EntryRow
              | undefined;
            if (row !== undefined)
              compaction = decodeEntry(sessionId, row.sequence, row.type, row.created_at, row.body);
          }
          cached = {
            sessionId,
            compactionSequence,
            compaction,
            entries: readEntries(transcript, contextStartSequence(compaction), Number.MAX_SAFE_INTEGER, -1),
            lastSequence,
          };
          contextCache.set(transcript.transcript_id, cached);
        }
        const { compaction, entries } = cached;
        return assembleContext({
          sessionId,
          lastSequence,
          compaction,
          entries:
            compaction === undefined
              ? entries
              : entries.filter((entry) => entry.sequence !== compaction.sequence),
          ...(options.formatSummary === undefined ? {} : { formatSummary: options.formatSummary }),
        });
      });
    },

    async journalInbound(input: JournalInboundInput): Promise<JournalInboundResult> {
      return write('journalInbound', () => {
        const ref = requireRef(input, 'input');
        const payload = encodeInboundPayload(ref, input.payload);
        const at = input.receivedAt ?? now();
        const inserted = statement(sql.insertInbound).run(
          ref.channel,
          ref.accountId,
          ref.messageId,
          input.sessionKey ?? null,
          at,
          at,
          payload,
        );
        const record = getInboundRow(ref);
        if (record === undefined)
          throw new Error(`inbound record ${describeInbound(ref)} vanished after insert`);
        return Number(inserted.changes) === 1 ? { duplicate: false, record } : { duplicate: true, record };
      });
    },

    async getInbound(ref: InboundRef): Promise<InboundRecord | undefined> {
      return run('getInbound', () => getInboundRow(requireRef(ref, 'ref')));
    },

    async updateInbound(
      ref: InboundRef,
      state: InboundState,
      options: UpdateInboundOptions = {},
    ): Promise<InboundRecord> {
      return write('updateInbound', () => {
        const checked = requireRef(ref, 'ref');
        requireState(state, 'state');
        const current = getInboundRow(checked);
        if (current === undefined) {
          throw new SessionsError(
            'SESSIONS_JOURNAL_NOT_FOUND',
            `No inbound journal record exists for ${describeInbound(checked)}.`,
            { details: { ...checked } },
          );
        }
        assertInboundTransition(checked, current.state, state);
        const next: InboundRecord = {
          ...current,
          state,
          updatedAt: now(),
          attempts:
            state === 'running' && current.state !== 'running' ? current.attempts + 1 : current.attempts,
          error: options.error ?? (state === current.state ? current.error : undefined),
          sessionKey: options.sessionKey ?? current.sessionKey,
        };
        statement(sql.updateInbound).run(
          next.state,
          next.updatedAt,
          next.attempts,
          next.error ?? null,
          next.sessionKey ?? null,
          checked.channel,
          checked.accountId,
          checked.messageId,
        );
        return next;
      });
    },

    async listUnfinishedInbound(options: ListUnfinishedOptions = {}): Promise<InboundRecord[]> {
      return run('listUnfinishedInbound', () => {
        const rows = statement(sql.unfinishedInbound).all(
          options.receivedSince ?? 0,
          options.limit ?? -1,
        ) as unknown as InboundRow[];
        return rows.map(inboundFromRow);
      });
    },

    async claimDelivery(key: string, details: DeliveryDetails = {}): Promise<DeliveryClaim> {
      return write('claimDelivery', () => {
        requireKey(key, 'key');
        const detailsJson = JSON.stringify(details);
        const existing = getDeliveryRow(key);
        const at = now();
        if (existing === undefined) {
          statement(sql.insertDelivery).run(key, ownerId, at, at, detailsJson);
          return { status: 'claimed', receipt: withoutOwner(getDeliveryRow(key)!), recovered: false };
        }
        if (existing.state === 'sent') return { status: 'already-sent', receipt: withoutOwner(existing) };
        if (existing.state === 'claimed' && existing.ownerId === ownerId) {
          return { status: 'in-progress', receipt: withoutOwner(existing) };
        }
        const recovered = existing.state === 'claimed';
        const merged = JSON.stringify({ ...existing.details, ...details });
        statement(sql.reclaimDelivery).run(ownerId, at, at, merged, key);
        return { status: 'claimed', receipt: withoutOwner(getDeliveryRow(key)!), recovered };
      });
    },

    async recordDelivery(key: string, platformMessageId: string): Promise<DeliveryReceipt> {
      return write('recordDelivery', () => {
        requireKey(key, 'key');
        requireKey(platformMessageId, 'platformMessageId');
        const existing = getDeliveryRow(key);
        if (existing === undefined) {
          throw new SessionsError(
            'SESSIONS_DELIVERY_NOT_FOUND',
            `No delivery was claimed under the idempotency key ${JSON.stringify(key)}; call claimDelivery before sending.`,
            { details: { key } },
          );
        }
        if (existing.state === 'sent') {
          if (existing.platformMessageId === platformMessageId) return withoutOwner(existing);
          throw new SessionsError(
            'SESSIONS_DELIVERY_CONFLICT',
            `The delivery ${JSON.stringify(key)} was already recorded as platform message ${existing.platformMessageId}, not ${platformMessageId}.`,
            { details: { key, recorded: existing.platformMessageId, attempted: platformMessageId } },
          );
        }
        const at = now();
        statement(sql.sentDelivery).run(at, at, platformMessageId, key);
        return withoutOwner(getDeliveryRow(key)!);
      });
    },

    async failDelivery(key: string, error: string): Promise<DeliveryReceipt> {
      return write('failDelivery', () => {
        requireKey(key, 'key');
        const existing = getDeliveryRow(key);
        if (existing === undefined) {
          throw new SessionsError(
            'SESSIONS_DELIVERY_NOT_FOUND',
            `No delivery was claimed under the idempotency key ${JSON.stringify(key)}.`,
            { details: { key } },
          );
        }
        if (existing.state === 'sent') {
          throw new SessionsError(
            'SESSIONS_DELIVERY_CONFLICT',
            `The delivery ${JSON.stringify(key)} is already recorded as sent (platform message ${existing.platformMessageId}); it cannot fail afterwards.`,
            { details: { key } },
          );
        }
        statement(sql.failedDelivery).run(now(), String(error), key);
        return withoutOwner(getDeliveryRow(key)!);
      });
    },

    async getDelivery(key: string): Promise<DeliveryReceipt | undefined> {
      return run('getDelivery', () => {
        const existing = getDeliveryRow(requireKey(key, 'key'));
        return existing === undefined ? undefined : withoutOwner(existing);
      });
    },

    async getState(namespace: string, key: string): Promise<StateRecord | undefined> {
      return run('getState', () => {
        const row = statement('SELECT * FROM state_records WHERE namespace = ? AND key = ?').get(
          requireKey(namespace, 'namespace'),
          requireKey(key, 'key'),
        ) as StateRow | undefined;
        if (row === undefined || (row.expires_at !== null && row.expires_at <= now())) return undefined;
        return stateFromRow(row);
      });
    },

    async putState(
      namespace: string,
      key: string,
      value: unknown,
      options: PutStateOptions = {},
    ): Promise<StateRecord> {
      return write('putState', () => {
        requireKey(namespace, 'namespace');
        requireKey(key, 'key');
        const { json, expiresAt } = encodeStateValue(namespace, key, value, options);
        const at = now();
        statement(
          `INSERT INTO state_records (namespace, key, value, updated_at, expires_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at,
             expires_at = excluded.expires_at`,
        ).run(namespace, key, json, at, expiresAt ?? null);
        return { namespace, key, value: JSON.parse(json) as unknown, updatedAt: at, expiresAt };
      });
    },

    async deleteState(namespace: string, key: string): Promise<boolean> {
      return write('deleteState', () => {
        const result = statement('DELETE FROM state_records WHERE namespace = ? AND key = ?').run(
          requireKey(namespace, 'namespace'),
          requireKey(key, 'key'),
        );
        return Number(result.changes) === 1;
      });
    },

    async listState(namespace: string, options: ListStateOptions = {}): Promise<StateRecord[]> {
      return run('listState', () => {
        const prefix = options.prefix ?? '';
        // Keys from the prefix up to the prefix followed by the highest code point.
        const rows = statement(
          `SELECT * FROM state_records WHERE namespace = ? AND key >= ? AND key < ?
             AND (expires_at IS NULL OR expires_at > ?) ORDER BY key LIMIT ?`,
        ).all(
          requireKey(namespace, 'namespace'),
          prefix,
          `${prefix}\u{10FFFF}`,
          now(),
          options.limit ?? -1,
        ) as unknown as StateRow[];
        return rows.map(stateFromRow);
      });
    },

    async prune(policy: PrunePolicy): Promise<PruneReport> {
      const pruneAfterMs = requireCount(policy.pruneAfterMs, 'policy.pruneAfterMs');
      const maxEntries = requireCount(policy.maxEntries, 'policy.maxEntries', true);
      const archiveRetentionMs = requireCount(policy.archiveRetentionMs, 'policy.archiveRetentionMs');
      const journalRetentionMs = requireCount(policy.journalRetentionMs, 'policy.journalRetentionMs');
      const at = policy.now ?? now();
      const keep = policy.keepChatTypes ?? [];
      const keepSql =
        keep.length === 0
          ? ''
          : `AND (chat_type IS NULL OR chat_type NOT IN (${keep.map(() => '?').join(', ')}))`;
      const before = await run('prune', () => databaseBytes());
      const report = await write('prune', () => {
        let sessionsPruned = 0;
        const pruneRows = (rows: Array<{ session_key: string; session_id: string }>): void => {
          for (const row of rows) {
            archive(row.session_id, 'pruned', at);
            statement(sql.deleteSession).run(row.session_key);
            sessionsPruned += 1;
          }
        };
        if (pruneAfterMs !== undefined) {
          pruneRows(
            statement(
              `SELECT session_key, session_id FROM sessions WHERE activity_minute <= ? AND updated_at < ? ${keepSql}`,
            ).all(activityMinute(at - pruneAfterMs), at - pruneAfterMs, ...keep) as unknown as Array<{
              session_key: string;
              session_id: string;
            }>,
          );
        }
        if (maxEntries !== undefined) {
          const total = (statement('SELECT COUNT(*) AS count FROM sessions').get() as { count: number })
            .count;
          if (total > maxEntries) {
            pruneRows(
              statement(
                `SELECT session_key, session_id FROM sessions WHERE 1 = 1 ${keepSql} ORDER BY activity_minute ASC, updated_at ASC, session_key ASC LIMIT ?`,
              ).all(...keep, total - maxEntries) as unknown as Array<{
                session_key: string;
                session_id: string;
              }>,
            );
          }
        }
        let transcriptsDeleted = 0;
        let entriesDeleted = 0;
        if (archiveRetentionMs !== undefined) {
          const doomed = statement(
            'SELECT session_id, entry_count FROM transcripts WHERE archived_at IS NOT NULL AND archived_at <= ?',
          ).all(at - archiveRetentionMs) as unknown as Array<{ session_id: string; entry_count: number }>;
          for (const row of doomed) {
            statement('DELETE FROM transcripts WHERE session_id = ?').run(row.session_id);
            contextCache.clear();
            transcriptsDeleted += 1;
            entriesDeleted += row.entry_count;
          }
        }
        let journalRecordsDeleted = 0;
        let deliveryReceiptsDeleted = 0;
        if (journalRetentionMs !== undefined) {
          const cutoff = at - journalRetentionMs;
          journalRecordsDeleted = Number(
            statement(
              "DELETE FROM inbound_journal WHERE state IN ('replied', 'failed') AND updated_at < ?",
            ).run(cutoff).changes,
          );
          deliveryReceiptsDeleted = Number(
            statement(
              "DELETE FROM delivery_receipts WHERE state IN ('sent', 'failed') AND updated_at < ?",
            ).run(cutoff).changes,
          );
        }
        const stateRecordsDeleted = Number(
          statement('DELETE FROM state_records WHERE expires_at IS NOT NULL AND expires_at <= ?').run(at)
            .changes,
        );
        return {
          sessionsPruned,
          transcriptsDeleted,
          entriesDeleted,
          journalRecordsDeleted,
          deliveryReceiptsDeleted,
          stateRecordsDeleted,
        };
      });
      // Give freed pages back to the file system and fold the WAL into the database.
      const after = await run('prune', () => {
        database.exec('PRAGMA incremental_vacuum');
        database.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get();
        return databaseBytes();
      });
      return {
        ...report,
        bytesFreed: Math.max(0, before.database + before.wal - (after.database + after.wal)),
      };
    },

    async diskUsage(): Promise<DiskUsage> {
      return run('diskUsage', () => {
        const bytes = databaseBytes();
        const count = (table: string): number =>
          (statement(`SELECT COUNT(*) AS count FROM ${table}`).get() as { count: number }).count;
        const transcripts = statement(
          `SELECT COUNT(*) AS transcripts, COUNT(archived_at) AS archived,
             COALESCE(SUM(entry_count), 0) AS entries, COALESCE(SUM(byte_count), 0) AS bytes FROM transcripts`,
        ).get() as { transcripts: number; archived: number; entries: number; bytes: number };
        return {
          location: databasePath,
          databaseBytes: bytes.database,
          walBytes: bytes.wal,
          freeBytes: bytes.free,
          sessions: count('sessions'),
          transcripts: transcripts.transcripts,
          archivedTranscripts: transcripts.archived,
          transcriptEntries: transcripts.entries,
          transcriptBytes: transcripts.bytes,
          journalRecords: count('inbound_journal'),
          deliveryReceipts: count('delivery_receipts'),
          stateRecords: count('state_records'),
        };
      });
    },

    async checkIntegrity(): Promise<IntegrityReport> {
      return run('checkIntegrity', () => {
        const problems: string[] = [];
        for (const row of database.prepare('PRAGMA integrity_check').all() as Array<{
          integrity_check: string;
        }>) {
          if (row.integrity_check !== 'ok') problems.push(row.integrity_check);
        }
        for (const row of database.prepare('PRAGMA foreign_key_check').all() as Array<
          Record<string, unknown>
        >) {
          problems.push(
            `foreign key violation in ${String(row.table)} (row ${String(row.rowid)}) → ${String(row.parent)}`,
          );
        }
        return { ok: problems.length === 0, problems };
      });
    },

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
