/** Transcripts on SQLite: `transcripts` and `transcript_entries`, and the model context (with the decoded-context cache). */
import type { SQLInputValue } from 'node:sqlite';
import { SessionsError } from '../errors.ts';
import { applySessionPatch, requireKey, validateSessionPatch } from '../session-entry.ts';
import type { TranscriptStore } from '../session-store.ts';
import { sessionFromRow, type TranscriptRow, transcriptFromRow } from '../store-rows.ts';
import { assembleContext, contextStartSequence, decodeEntry, encodeEntries } from '../transcript.ts';
import type {
  AppendOptions,
  AppendResult,
  BuildContextOptions,
  NewTranscriptEntry,
  ReadTranscriptOptions,
  SessionContext,
  SessionPatch,
  StreamTranscriptOptions,
  TranscriptEntry,
  TranscriptInfo,
  TranscriptListQuery,
} from '../types.ts';
import { maxListLimit } from './statements.ts';
import type { AppendTargetRow, EntryRow, SqliteStoreContext } from './store-context.ts';

export function createSqliteTranscripts(context: SqliteStoreContext): TranscriptStore {
  const {
    now,
    statement,
    sql,
    run,
    write,
    contextCache,
    requireSession,
    checkExpected,
    writeSession,
    getTranscriptRow,
    requireTranscript,
    readEntries,
  } = context;
  return {
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
        // Write-through, last (nothing after it can roll this operation back): the next context
        // build of this session then reads no rows. Decoded from the stored text, as a read
        // would, so the cache shares no object with the caller. A group commit that rolls back
        // clears the cache (onGroupRolledBack).
        contextCache.appended(row.transcript_id, firstSequence, compactions > 0, () =>
          encoded.map((entry, index) =>
            decodeEntry(sessionId, firstSequence + index, entry.type, entry.timestamp, entry.body),
          ),
        );
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
          formatSummary: options.formatSummary,
        });
      });
    },
  };
}
