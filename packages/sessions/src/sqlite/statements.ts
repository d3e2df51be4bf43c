/** The SQL statements of the SQLite store, shared by its table modules. */
import { sessionColumns } from '../store-rows.ts';

/** The column list of `sessions`, in `sessionValues` order. */
export const sessionColumnList: string = sessionColumns.join(', ');

export type SqliteStatementName =
  | 'getSession'
  | 'insertSession'
  | 'deleteSession'
  | 'appendTarget'
  | 'insertTranscript'
  | 'getTranscript'
  | 'archiveTranscript'
  | 'advanceTranscript'
  | 'insertEntry'
  | 'getEntry'
  | 'readEntries'
  | 'insertInbound'
  | 'getInbound'
  | 'updateInbound'
  | 'unfinishedInbound'
  | 'getDelivery'
  | 'insertDelivery'
  | 'reclaimDelivery'
  | 'sentDelivery'
  | 'failedDelivery';

/** The SQL of every prepared statement the store reuses (prepared once, cached by text). */
export const sqliteStatements: Readonly<Record<SqliteStatementName, string>> = {
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

/** Page sizes of the list operations. */
export const maxListLimit = 1000;
export const defaultListLimit = 50;
