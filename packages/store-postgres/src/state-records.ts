/** State records on PostgreSQL: small JSON values under (namespace, key), with expiry by the store's clock. */
import {
  encodeStateValue,
  requireKey,
  type StateRecordStore,
  type StateRow,
  stateFromRow,
} from '@switchboard/sessions';
import type { Database } from './database.ts';

export function createStateRecords(database: Database): StateRecordStore {
  const { now } = database;
  return {
    async getState(namespace, key) {
      const rows = await database.query<StateRow>(
        'getState',
        'SELECT * FROM state_records WHERE namespace = $1 AND key = $2 AND (expires_at IS NULL OR expires_at > $3)',
        [requireKey(namespace, 'namespace'), requireKey(key, 'key'), now()],
      );
      return rows[0] === undefined ? undefined : stateFromRow(rows[0]);
    },

    async putState(namespace, key, value, options = {}) {
      requireKey(namespace, 'namespace');
      requireKey(key, 'key');
      const { json, expiresAt } = encodeStateValue(namespace, key, value, options);
      const at = now();
      await database.query(
        'putState',
        `INSERT INTO state_records (namespace, key, value, updated_at, expires_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at,
           expires_at = excluded.expires_at`,
        [namespace, key, json, at, expiresAt ?? null],
      );
      return { namespace, key, value: JSON.parse(json) as unknown, updatedAt: at, expiresAt };
    },

    async deleteState(namespace, key) {
      const rows = await database.query(
        'deleteState',
        'DELETE FROM state_records WHERE namespace = $1 AND key = $2 RETURNING key',
        [requireKey(namespace, 'namespace'), requireKey(key, 'key')],
      );
      return rows.length === 1;
    },

    async listState(namespace, options = {}) {
      const prefix = options.prefix ?? '';
      // starts_with keeps the prefix match exact under any collation (no LIKE wildcards).
      const rows = await database.query<StateRow>(
        'listState',
        `SELECT * FROM state_records WHERE namespace = $1 AND starts_with(key, $2)
           AND (expires_at IS NULL OR expires_at > $3) ORDER BY key LIMIT $4`,
        [requireKey(namespace, 'namespace'), prefix, now(), options.limit ?? null],
      );
      return rows.map(stateFromRow);
    },
  };
}
