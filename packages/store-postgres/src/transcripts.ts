/**
 * Transcripts on PostgreSQL. An append locks the session and transcript rows, so appends to
 * one key from any replica get consecutive sequences; `buildContext` reads the committed
 * rows each time (no cache that another replica's append could make stale).
 */
import {
  type AppendResult,
  applySessionPatch,
  assembleContext,
  contextStartSequence,
  decodeEntry,
  encodeEntries,
  requireKey,
  type SessionPatch,
  type SessionRow,
  SessionsError,
  sessionFromRow,
  type TranscriptEntry,
  type TranscriptRow,
  type TranscriptStore,
  transcriptFromRow,
  validateSessionPatch,
} from '@switchboard/sessions';
import type { Database, Queryable } from './database.ts';
import { checkExpected, notFound, sessionColumnList, writeSession } from './session-entries.ts';

const maxListLimit = 1000;

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

function decodeRows(sessionId: string, rows: readonly EntryRow[]): TranscriptEntry[] {
  return rows.map((row) => decodeEntry(sessionId, row.sequence, row.type, row.created_at, row.body));
}

async function requireTranscript(client: Queryable, sessionId: string): Promise<TranscriptRow> {
  const { rows } = await client.query<TranscriptRow>('SELECT * FROM transcripts WHERE session_id = $1', [
    requireKey(sessionId, 'sessionId'),
  ]);
  const row = rows[0];
  if (row === undefined) {
    throw new SessionsError(
      'SESSIONS_TRANSCRIPT_NOT_FOUND',
      `No transcript exists with session id ${sessionId}.`,
      { details: { sessionId } },
    );
  }
  return row;
}

async function readEntries(
  client: Queryable,
  transcript: TranscriptRow,
  from: number,
  to: number,
  limit: number | null,
): Promise<TranscriptEntry[]> {
  const { rows } = await client.query<EntryRow>(
    `SELECT sequence, type, created_at, body FROM transcript_entries
     WHERE transcript_id = $1 AND sequence >= $2 AND sequence <= $3 ORDER BY sequence LIMIT $4`,
    [transcript.transcript_id, from, to, limit],
  );
  return decodeRows(transcript.session_id, rows);
}

/** Reads through the pool as a `Queryable` (each call one statement). */
function poolReader(database: Database, operation: string): Queryable {
  return {
    async query(sql, values) {
      const rows = await database.query(operation, sql, values);
      return { rows: rows as never[], rowCount: rows.length };
    },
  };
}

export function createTranscripts(database: Database): TranscriptStore {
  const { now } = database;
  return {
    async appendEntries(key, entries, options = {}) {
      requireKey(key, 'key');
      if (options.patch !== undefined) validateSessionPatch(options.patch, 'options.patch');
      return database.transaction('appendEntries', async (client): Promise<AppendResult> => {
        const { rows } = await client.query<AppendTargetRow>(
          `SELECT ${sessionColumnList
            .split(', ')
            .map((column) => `s.${column}`)
            .join(', ')}, t.transcript_id, t.next_sequence, t.archived_at
           FROM sessions s JOIN transcripts t ON t.session_id = s.session_id
           WHERE s.session_key = $1 FOR UPDATE OF s, t`,
          [key],
        );
        const row = rows[0];
        if (row === undefined) throw notFound(key);
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
        const stored: TranscriptEntry[] = [];
        let bytes = 0;
        let compactionSequence: number | null = null;
        let compactions = 0;
        let modelChange: SessionPatch | undefined;
        const values: unknown[] = [];
        const tuples: string[] = [];
        for (const [index, entry] of encoded.entries()) {
          const sequence = firstSequence + index;
          values.push(row.transcript_id, sequence, entry.type, entry.timestamp, entry.body);
          const base = index * 5;
          tuples.push(`($${base + 1}, $${base + 2}, $${base + 3}, $${base + 4}, $${base + 5})`);
          bytes += Buffer.byteLength(entry.body);
          if (entry.value.type === 'compaction') {
            compactionSequence = sequence;
            compactions += 1;
          } else if (entry.value.type === 'model_change') {
            modelChange = { modelProvider: entry.value.provider, model: entry.value.model };
          }
          stored.push({ ...entry.value, sessionId, sequence, timestamp: entry.timestamp });
        }
        if (tuples.length > 0) {
          await client.query(
            `INSERT INTO transcript_entries (transcript_id, sequence, type, created_at, body) VALUES ${tuples.join(', ')}`,
            values,
          );
        }
        await client.query(
          `UPDATE transcripts SET next_sequence = $1, entry_count = entry_count + $2, byte_count = byte_count + $3,
             last_compaction_sequence = COALESCE($4, last_compaction_sequence) WHERE transcript_id = $5`,
          [firstSequence + encoded.length, encoded.length, bytes, compactionSequence, row.transcript_id],
        );
        let session = previous;
        if (modelChange !== undefined) session = applySessionPatch(session, modelChange, at);
        session = applySessionPatch(session, options.patch ?? {}, at);
        if (compactions > 0) session = { ...session, compactionCount: session.compactionCount + compactions };
        await writeSession(client, session, previous);
        return {
          sessionId: session.sessionId,
          entries: stored,
          firstSequence,
          lastSequence: firstSequence + encoded.length - 1,
          session,
        };
      });
    },

    async readTranscript(sessionId, options = {}) {
      const reader = poolReader(database, 'readTranscript');
      const transcript = await requireTranscript(reader, sessionId);
      const from = options.fromSequence ?? 1;
      const to = options.toSequence ?? Number.MAX_SAFE_INTEGER;
      const limit = options.limit ?? null;
      const types = options.types;
      if (types === undefined) return readEntries(reader, transcript, from, to, limit);
      if (types.length === 0) return [];
      const rows = await database.query<EntryRow>(
        'readTranscript',
        `SELECT sequence, type, created_at, body FROM transcript_entries
         WHERE transcript_id = $1 AND sequence >= $2 AND sequence <= $3 AND type = ANY($4::text[])
         ORDER BY sequence LIMIT $5`,
        [transcript.transcript_id, from, to, [...types], limit],
      );
      return decodeRows(transcript.session_id, rows);
    },

    async *streamTranscript(sessionId, options = {}) {
      const batchSize = Math.max(1, Math.floor(options.batchSize ?? 500));
      let next = options.fromSequence ?? 1;
      const reader = poolReader(database, 'streamTranscript');
      const transcript = await requireTranscript(reader, sessionId);
      while (true) {
        const page = await readEntries(reader, transcript, next, Number.MAX_SAFE_INTEGER, batchSize);
        for (const entry of page) yield entry;
        const last = page[page.length - 1];
        if (page.length < batchSize || last === undefined) return;
        next = last.sequence + 1;
      }
    },

    async getTranscript(sessionId) {
      const rows = await database.query<TranscriptRow>(
        'getTranscript',
        'SELECT * FROM transcripts WHERE session_id = $1',
        [requireKey(sessionId, 'sessionId')],
      );
      return rows[0] === undefined ? undefined : transcriptFromRow(rows[0]);
    },

    async listTranscripts(query = {}) {
      const where: string[] = [];
      const values: unknown[] = [];
      if (query.sessionKey !== undefined) {
        values.push(query.sessionKey);
        where.push(`session_key = $${values.length}`);
      }
      if (query.archived === true) where.push('archived_at IS NOT NULL');
      if (query.archived === false) where.push('archived_at IS NULL');
      values.push(Math.min(Math.max(1, Math.floor(query.limit ?? 100)), maxListLimit));
      const rows = await database.query<TranscriptRow>(
        'listTranscripts',
        `SELECT * FROM transcripts ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
         ORDER BY created_at DESC, session_id LIMIT $${values.length}`,
        values,
      );
      return rows.map(transcriptFromRow);
    },

    async buildContext(target, options = {}) {
      // One transaction with REPEATABLE READ: the transcript row and its entries are one snapshot.
      return database.transaction('buildContext', async (client) => {
        await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
        let sessionId: string;
        if (typeof target === 'string') {
          const key = requireKey(target, 'target');
          const { rows } = await client.query<{ session_id: string }>(
            'SELECT session_id FROM sessions WHERE session_key = $1',
            [key],
          );
          if (rows[0] === undefined) throw notFound(key);
          sessionId = rows[0].session_id;
        } else {
          sessionId = requireKey(target?.sessionId, 'target.sessionId');
        }
        const transcript = await requireTranscript(client, sessionId);
        const lastSequence = transcript.next_sequence - 1;
        let compaction: TranscriptEntry | undefined;
        if (transcript.last_compaction_sequence !== null) {
          [compaction] = await readEntries(
            client,
            transcript,
            transcript.last_compaction_sequence,
            transcript.last_compaction_sequence,
            1,
          );
        }
        const entries = await readEntries(
          client,
          transcript,
          contextStartSequence(compaction),
          Number.MAX_SAFE_INTEGER,
          null,
        );
        return assembleContext({
          sessionId,
          lastSequence,
          compaction,
          entries:
            compaction === undefined
              ? entries
              : entries.filter((entry) => entry.sequence !== compaction.sequence),
          formatSummary: options.formatSummary,
        });
      });
    },
  };
}
