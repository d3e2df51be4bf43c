/** State records on SQLite: `state_records`. */
import { requireKey } from '../session-entry.ts';
import type { StateRecordStore } from '../session-store.ts';
import { encodeStateValue } from '../store-arguments.ts';
import { type StateRow, stateFromRow } from '../store-rows.ts';
import type { ListStateOptions, PutStateOptions, StateRecord } from '../types.ts';
import type { SqliteStoreContext } from './store-context.ts';

export function createSqliteStateRecords(context: SqliteStoreContext): StateRecordStore {
  const { now, statement, run, write } = context;
  return {
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
  };
}
