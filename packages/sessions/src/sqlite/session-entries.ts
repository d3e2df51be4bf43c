/** Sessions on SQLite: the `sessions` table. */
import type { SQLInputValue } from 'node:sqlite';
import {
  applySessionPatch,
  createSessionEntry,
  requireKey,
  resetSessionEntry,
  validateSessionPatch,
} from '../session-entry.ts';
import type { SessionEntryStore } from '../session-store.ts';
import { decodeCursor, encodeCursor } from '../store-arguments.ts';
import { activityMinute, type SessionRow, sessionFromRow, sessionValues } from '../store-rows.ts';
import type {
  CreateSessionInput,
  DeleteSessionOptions,
  DeleteSessionResult,
  EnsureSessionResult,
  ResetSessionOptions,
  ResetSessionResult,
  SessionEntry,
  SessionListQuery,
  SessionPage,
  SessionPatch,
} from '../types.ts';
import { defaultListLimit, maxListLimit, sessionColumnList } from './statements.ts';
import type { SqliteStoreContext } from './store-context.ts';

export function createSqliteSessionEntries(context: SqliteStoreContext): SessionEntryStore {
  const {
    now,
    createId,
    statement,
    sql,
    run,
    write,
    getSessionRow,
    requireSession,
    checkExpected,
    writeSession,
    archive,
  } = context;
  return {
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
  };
}
