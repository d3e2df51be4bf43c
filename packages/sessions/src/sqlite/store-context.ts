/**
 * What the SQLite store's table modules share: the open database, its statement cache, the
 * group commit (`run` for reads, `write` for writes) and the row helpers several tables use.
 * Built once per store in sqlite-store.ts.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { DeliveryRow, SessionRow, TranscriptRow } from '../store-rows.ts';
import type {
  ArchiveReason,
  DeliveryReceipt,
  InboundRecord,
  InboundRef,
  SessionEntry,
  TranscriptEntry,
} from '../types.ts';
import type { ContextCache } from './context-cache.ts';
import type { SqliteStatementName } from './statements.ts';

export interface SqliteStoreContext {
  readonly database: DatabaseSync;
  readonly databasePath: string;
  readonly now: () => number;
  readonly createId: () => string;
  /** This process's lock owner id (also the owner of delivery claims). */
  readonly ownerId: string;
  /** A prepared statement for `sql`, cached by its text. */
  statement(sql: string): StatementSync;
  readonly sql: Readonly<Record<SqliteStatementName, string>>;
  /** A read: runs now, or behind queued writes. */
  run<T>(operation: string, work: () => T): Promise<T>;
  /** A write: runs in the next group commit, atomically. */
  write<T>(operation: string, work: () => T): Promise<T>;
  readonly contextCache: ContextCache;
  getSessionRow(key: string): SessionEntry | undefined;
  /** SESSIONS_NOT_FOUND, or SESSIONS_STALE_SESSION when the session id is not the expected one. */
  requireSession(key: string, expectedSessionId: string | undefined): SessionEntry;
  checkExpected(entry: SessionEntry, expectedSessionId: string | undefined): void;
  /** Writes the columns that changed (untouched indexes stay untouched). */
  writeSession(entry: SessionEntry, previous: SessionEntry): void;
  getTranscriptRow(sessionId: string): TranscriptRow | undefined;
  requireTranscript(sessionId: string): TranscriptRow;
  readEntries(transcript: TranscriptRow, from: number, to: number, limit: number): TranscriptEntry[];
  archive(sessionId: string, reason: ArchiveReason, at: number): void;
  getInboundRow(ref: InboundRef): InboundRecord | undefined;
  getDeliveryRow(key: string): (DeliveryReceipt & { ownerId: DeliveryRow['owner_id'] }) | undefined;
  withoutOwner(receipt: DeliveryReceipt & { ownerId: string }): DeliveryReceipt;
  /** Sizes of the database file, its WAL and its free pages, in bytes. */
  databaseBytes(): { database: number; wal: number; free: number };
}

/** The session row joined with its current transcript, as `appendEntries` reads it. */
export interface AppendTargetRow extends SessionRow {
  transcript_id: number;
  next_sequence: number;
  archived_at: number | null;
}

/** One stored transcript entry. */
export interface EntryRow {
  sequence: number;
  type: string;
  created_at: number;
  body: string;
}
