/**
 * `listSessions` on SQLite: one page of the `sessions` table, newest `updated_at` first.
 *
 * The sort is (activity_minute, updated_at, session_key), all descending. The indexes hold
 * only `activity_minute` (an append rewrites `updated_at` without touching an index unless the
 * minute changed, see schema.ts), so a plain `LIMIT ? OFFSET ?` deep in the list has SQLite
 * fetch and sort every skipped row: 60 ms at offset 50,000 of 100,000 sessions. A page at an
 * offset is found in three steps instead, each cheap:
 *
 * 1. the minute of the row at `offset`, read from the minute index alone (no table rows);
 * 2. how many matching rows lie in newer minutes (a count over the same index range);
 * 3. the page itself, starting at that minute, skipping only the rows of that minute that
 *    come before the offset.
 *
 * The result is the same rows in the same order as the plain query; only the work differs
 * (2 ms instead of 60 ms at offset 50,000). All three run in one synchronous call, so no
 * write can land between them.
 */
import type { SQLInputValue, StatementSync } from 'node:sqlite';
import { decodeCursor, encodeCursor } from '../store-arguments.ts';
import { activityMinute, type SessionRow, sessionFromRow } from '../store-rows.ts';
import type { SessionListQuery, SessionPage } from '../types.ts';
import { defaultListLimit, maxListLimit, sessionColumnList } from './statements.ts';

/** The listing order; every page query uses it. */
const listOrder = 'ORDER BY activity_minute DESC, updated_at DESC, session_key DESC';

/** The filters of a query (without the cursor) as SQL conditions and their values. */
function filterConditions(query: SessionListQuery): { conditions: string[]; values: SQLInputValue[] } {
  const conditions: string[] = [];
  const values: SQLInputValue[] = [];
  if (query.agentId !== undefined) {
    conditions.push('agent_id = ?');
    values.push(query.agentId);
  }
  if (query.channel !== undefined) {
    conditions.push('channel = ?');
    values.push(query.channel);
  }
  if (query.chatType !== undefined) {
    conditions.push('chat_type = ?');
    values.push(query.chatType);
  }
  if (query.label !== undefined) {
    conditions.push('label = ?');
    values.push(query.label);
  }
  if (query.search !== undefined && query.search !== '') {
    const needle = query.search.toLowerCase();
    conditions.push(
      "(instr(lower(session_key), ?) > 0 OR instr(lower(coalesce(label, '')), ?) > 0 OR instr(lower(coalesce(display_name, '')), ?) > 0)",
    );
    values.push(needle, needle, needle);
  }
  if (query.updatedSince !== undefined) {
    conditions.push('activity_minute >= ? AND updated_at >= ?');
    values.push(activityMinute(query.updatedSince), query.updatedSince);
  }
  return { conditions, values };
}

function whereClause(conditions: readonly string[]): string {
  return conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
}

/**
 * One page of sessions for `query`. `statement` prepares (and caches) SQL on the store's
 * database; the caller runs this inside the store's read path.
 */
export function listSessionPage(
  statement: (sql: string) => StatementSync,
  query: SessionListQuery,
): SessionPage {
  const limit = Math.min(Math.max(1, Math.floor(query.limit ?? defaultListLimit)), maxListLimit);
  const offset = Math.max(0, Math.floor(query.offset ?? 0));
  const filters = filterConditions(query);
  const conditions = [...filters.conditions];
  const values = [...filters.values];
  if (query.cursor !== undefined) {
    const [updatedAt, key] = decodeCursor(query.cursor);
    // The minute lets the index seek straight to the page; the row value orders within it.
    conditions.push('activity_minute <= ? AND (activity_minute, updated_at, session_key) < (?, ?, ?)');
    values.push(activityMinute(updatedAt), activityMinute(updatedAt), updatedAt, key);
  }
  let rows: SessionRow[];
  if (offset === 0) {
    rows = statement(
      `SELECT ${sessionColumnList} FROM sessions ${whereClause(conditions)} ${listOrder} LIMIT ?`,
    ).all(...values, limit + 1) as unknown as SessionRow[];
  } else {
    rows = pageAtOffset(statement, conditions, values, limit + 1, offset);
  }
  const hasMore = rows.length > limit;
  const sessions = rows.slice(0, limit).map(sessionFromRow);
  const last = sessions[sessions.length - 1];
  let totalCount: number | undefined;
  if (query.includeTotal === true) {
    totalCount = (
      statement(`SELECT COUNT(*) AS count FROM sessions ${whereClause(filters.conditions)}`).get(
        ...filters.values,
      ) as { count: number }
    ).count;
  }
  return {
    sessions,
    hasMore,
    nextCursor: hasMore && last !== undefined ? encodeCursor(last.updatedAt, last.key) : undefined,
    totalCount,
  };
}

/** Up to `count` rows from `offset` on, seeking by minute first (see the module comment). */
function pageAtOffset(
  statement: (sql: string) => StatementSync,
  conditions: readonly string[],
  values: readonly SQLInputValue[],
  count: number,
  offset: number,
): SessionRow[] {
  const where = whereClause(conditions);
  const boundary = statement(
    `SELECT activity_minute FROM sessions ${where} ORDER BY activity_minute DESC LIMIT 1 OFFSET ?`,
  ).get(...values, offset) as { activity_minute: number } | undefined;
  // Fewer matching rows than the offset: the page is empty.
  if (boundary === undefined) return [];
  const minute = boundary.activity_minute;
  const newer = (
    statement(
      `SELECT COUNT(*) AS count FROM sessions ${whereClause([...conditions, 'activity_minute > ?'])}`,
    ).get(...values, minute) as { count: number }
  ).count;
  return statement(
    `SELECT ${sessionColumnList} FROM sessions ${whereClause([...conditions, 'activity_minute <= ?'])} ${listOrder} LIMIT ? OFFSET ?`,
  ).all(...values, minute, count, offset - newer) as unknown as SessionRow[];
}
