/** Sessions on PostgreSQL: the `sessions` table, one row lock per change. */
import {
  activityMinute,
  applySessionPatch,
  createSessionEntry,
  decodeCursor,
  encodeCursor,
  requireKey,
  resetSessionEntry,
  type SessionEntry,
  type SessionEntryStore,
  type SessionRow,
  SessionsError,
  sessionColumns,
  sessionFromRow,
  sessionValues,
  validateSessionPatch,
} from '@switchboard/sessions';
import type { Database, Queryable } from './database.ts';

const maxListLimit = 1000;
const defaultListLimit = 50;

export const sessionColumnList: string = sessionColumns.join(', ');

/** `$1, $2, …, $n` starting at `first`. */
function placeholders(count: number, first = 1): string {
  return Array.from({ length: count }, (_, index) => `$${first + index}`).join(', ');
}

async function insertTranscript(client: Queryable, entry: SessionEntry, at: number): Promise<void> {
  await client.query(
    'INSERT INTO transcripts (session_id, session_key, agent_id, created_at) VALUES ($1, $2, $3, $4)',
    [entry.sessionId, entry.key, entry.agentId, at],
  );
}

export async function archiveTranscript(
  client: Queryable,
  sessionId: string,
  reason: string,
  at: number,
): Promise<void> {
  await client.query(
    'UPDATE transcripts SET archived_at = $1, archive_reason = $2 WHERE session_id = $3 AND archived_at IS NULL',
    [at, reason, sessionId],
  );
}

/** The session row, locked for this transaction; undefined when missing. */
async function lockSession(client: Queryable, key: string): Promise<SessionEntry | undefined> {
  const { rows } = await client.query<SessionRow>(
    `SELECT ${sessionColumnList} FROM sessions WHERE session_key = $1 FOR UPDATE`,
    [key],
  );
  const row = rows[0];
  return row === undefined ? undefined : sessionFromRow(row);
}

export function notFound(key: string): SessionsError {
  return new SessionsError('SESSIONS_NOT_FOUND', `No session exists under the key ${JSON.stringify(key)}.`, {
    details: { key },
  });
}

export function checkExpected(entry: SessionEntry, expectedSessionId: string | undefined): void {
  if (expectedSessionId !== undefined && entry.sessionId !== expectedSessionId) {
    throw new SessionsError(
      'SESSIONS_STALE_SESSION',
      `The session ${JSON.stringify(entry.key)} now has session id ${entry.sessionId}, not ${expectedSessionId} (it was reset meanwhile).`,
      { details: { key: entry.key, sessionId: entry.sessionId, expectedSessionId } },
    );
  }
}

/** Writes the columns that changed. */
export async function writeSession(
  client: Queryable,
  entry: SessionEntry,
  previous: SessionEntry,
): Promise<void> {
  const values = sessionValues(entry);
  const before = sessionValues(previous);
  const assignments: string[] = [];
  const changed: unknown[] = [];
  for (let index = 1; index < values.length; index += 1) {
    if (values[index] !== before[index]) {
      changed.push(values[index]);
      assignments.push(`${sessionColumns[index]} = $${changed.length}`);
    }
  }
  if (assignments.length === 0) return;
  await client.query(
    `UPDATE sessions SET ${assignments.join(', ')} WHERE session_key = $${changed.length + 1}`,
    [...changed, entry.key],
  );
}

export function createSessionEntries(database: Database): SessionEntryStore {
  const { now, createId } = database;
  return {
    async getSession(key) {
      requireKey(key, 'key');
      const rows = await database.query<SessionRow>(
        'getSession',
        `SELECT ${sessionColumnList} FROM sessions WHERE session_key = $1`,
        [key],
      );
      return rows[0] === undefined ? undefined : sessionFromRow(rows[0]);
    },

    async ensureSession(key, init) {
      requireKey(key, 'key');
      validateSessionPatch(init, 'init');
      requireKey(init.agentId, 'init.agentId');
      return database.transaction('ensureSession', async (client) => {
        const at = now();
        const entry = createSessionEntry(key, init, createId(), at);
        // A racing insert of the same key waits for the first to commit, then does nothing.
        const inserted = await client.query(
          `INSERT INTO sessions (${sessionColumnList}) VALUES (${placeholders(sessionColumns.length)})
           ON CONFLICT (session_key) DO NOTHING`,
          sessionValues(entry),
        );
        if (inserted.rowCount === 1) {
          await insertTranscript(client, entry, at);
          return { entry, created: true };
        }
        const { rows } = await client.query<SessionRow>(
          `SELECT ${sessionColumnList} FROM sessions WHERE session_key = $1`,
          [key],
        );
        if (rows[0] === undefined) throw notFound(key);
        return { entry: sessionFromRow(rows[0]), created: false };
      });
    },

    async patchSession(key, patch, options = {}) {
      requireKey(key, 'key');
      validateSessionPatch(patch);
      return database.transaction('patchSession', async (client) => {
        const current = await lockSession(client, key);
        if (current === undefined) throw notFound(key);
        checkExpected(current, options.expectedSessionId);
        const entry = applySessionPatch(current, patch, now());
        await writeSession(client, entry, current);
        return entry;
      });
    },

    async listSessions(query = {}) {
      const limit = Math.min(Math.max(1, Math.floor(query.limit ?? defaultListLimit)), maxListLimit);
      const where: string[] = [];
      const values: unknown[] = [];
      const param = (value: unknown): string => {
        values.push(value);
        return `$${values.length}`;
      };
      if (query.agentId !== undefined) where.push(`agent_id = ${param(query.agentId)}`);
      if (query.channel !== undefined) where.push(`channel = ${param(query.channel)}`);
      if (query.chatType !== undefined) where.push(`chat_type = ${param(query.chatType)}`);
      if (query.label !== undefined) where.push(`label = ${param(query.label)}`);
      if (query.search !== undefined && query.search !== '') {
        const needle = param(query.search.toLowerCase());
        where.push(
          `(strpos(lower(session_key), ${needle}) > 0 OR strpos(lower(coalesce(label, '')), ${needle}) > 0 OR strpos(lower(coalesce(display_name, '')), ${needle}) > 0)`,
        );
      }
      if (query.updatedSince !== undefined) where.push(`updated_at >= ${param(query.updatedSince)}`);
      const filterSql = where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;
      const filterValues = [...values];
      if (query.cursor !== undefined) {
        const [updatedAt, key] = decodeCursor(query.cursor);
        where.push(
          `(activity_minute, updated_at, session_key) < (${param(activityMinute(updatedAt))}, ${param(updatedAt)}, ${param(key)})`,
        );
      }
      const offset = Math.max(0, Math.floor(query.offset ?? 0));
      const pageSql = `SELECT ${sessionColumnList} FROM sessions ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
        ORDER BY activity_minute DESC, updated_at DESC, session_key DESC LIMIT ${param(limit + 1)} OFFSET ${param(offset)}`;
      const rows = await database.query<SessionRow>('listSessions', pageSql, values);
      const hasMore = rows.length > limit;
      const sessions = rows.slice(0, limit).map(sessionFromRow);
      const last = sessions[sessions.length - 1];
      let totalCount: number | undefined;
      if (query.includeTotal === true) {
        const counted = await database.query<{ count: number }>(
          'listSessions',
          `SELECT COUNT(*)::int AS count FROM sessions ${filterSql}`,
          filterValues,
        );
        totalCount = counted[0]?.count ?? 0;
      }
      return {
        sessions,
        hasMore,
        nextCursor: hasMore && last !== undefined ? encodeCursor(last.updatedAt, last.key) : undefined,
        totalCount,
      };
    },

    async resetSession(key, options = {}) {
      requireKey(key, 'key');
      return database.transaction('resetSession', async (client) => {
        const current = await lockSession(client, key);
        if (current === undefined) throw notFound(key);
        checkExpected(current, options.expectedSessionId);
        const at = now();
        await archiveTranscript(client, current.sessionId, options.reason ?? 'reset', at);
        const entry = resetSessionEntry(current, createId(), at);
        await insertTranscript(client, entry, at);
        await writeSession(client, entry, current);
        return { entry, previousSessionId: current.sessionId };
      });
    },

    async deleteSession(key, options = {}) {
      requireKey(key, 'key');
      return database.transaction('deleteSession', async (client) => {
        const current = await lockSession(client, key);
        if (current === undefined) return { deleted: false, archivedSessionId: undefined };
        checkExpected(current, options.expectedSessionId);
        await archiveTranscript(client, current.sessionId, 'deleted', now());
        await client.query('DELETE FROM sessions WHERE session_key = $1', [key]);
        return { deleted: true, archivedSessionId: current.sessionId };
      });
    },
  };
}
