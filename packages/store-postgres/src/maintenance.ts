/** Retention, disk usage and integrity on PostgreSQL. */
import { requireCount, type StoreMaintenance } from '@switchboard/sessions';
import type { Database, Queryable } from './database.ts';
import { archiveTranscript } from './session-entries.ts';

/** The maintenance role without what the store itself owns (its location and its close). */
export type Maintenance = Omit<StoreMaintenance, 'location' | 'close'>;

async function databaseBytes(database: Database): Promise<number> {
  const rows = await database.query<{ bytes: number }>(
    'databaseBytes',
    'SELECT pg_database_size(current_database())::bigint AS bytes',
  );
  return rows[0]?.bytes ?? 0;
}

async function count(client: Queryable, sql: string, values: readonly unknown[] = []): Promise<number> {
  const { rows } = await client.query<{ count: number }>(sql, values);
  return rows[0]?.count ?? 0;
}

export function createMaintenance(database: Database): Maintenance {
  return {
    async prune(policy) {
      const pruneAfterMs = requireCount(policy.pruneAfterMs, 'policy.pruneAfterMs');
      const maxEntries = requireCount(policy.maxEntries, 'policy.maxEntries', true);
      const archiveRetentionMs = requireCount(policy.archiveRetentionMs, 'policy.archiveRetentionMs');
      const journalRetentionMs = requireCount(policy.journalRetentionMs, 'policy.journalRetentionMs');
      const at = policy.now ?? database.now();
      const keep = [...(policy.keepChatTypes ?? [])];
      const before = await databaseBytes(database);
      const report = await database.transaction('prune', async (client) => {
        let sessionsPruned = 0;
        const pruneRows = async (
          rows: ReadonlyArray<{ session_key: string; session_id: string }>,
        ): Promise<void> => {
          for (const row of rows) {
            await archiveTranscript(client, row.session_id, 'pruned', at);
            await client.query('DELETE FROM sessions WHERE session_key = $1', [row.session_key]);
            sessionsPruned += 1;
          }
        };
        const keepSql = 'AND (chat_type IS NULL OR NOT (chat_type = ANY($KEEP::text[])))';
        if (pruneAfterMs !== undefined) {
          const { rows } = await client.query<{ session_key: string; session_id: string }>(
            `SELECT session_key, session_id FROM sessions WHERE updated_at < $1 ${keepSql.replace('$KEEP', '$2')}
             FOR UPDATE`,
            [at - pruneAfterMs, keep],
          );
          await pruneRows(rows);
        }
        if (maxEntries !== undefined) {
          const total = await count(client, 'SELECT COUNT(*)::int AS count FROM sessions');
          if (total > maxEntries) {
            const { rows } = await client.query<{ session_key: string; session_id: string }>(
              `SELECT session_key, session_id FROM sessions WHERE TRUE ${keepSql.replace('$KEEP', '$1')}
               ORDER BY activity_minute ASC, updated_at ASC, session_key ASC LIMIT $2 FOR UPDATE`,
              [keep, total - maxEntries],
            );
            await pruneRows(rows);
          }
        }
        let transcriptsDeleted = 0;
        let entriesDeleted = 0;
        if (archiveRetentionMs !== undefined) {
          const { rows } = await client.query<{ entry_count: number }>(
            'DELETE FROM transcripts WHERE archived_at IS NOT NULL AND archived_at <= $1 RETURNING entry_count',
            [at - archiveRetentionMs],
          );
          transcriptsDeleted = rows.length;
          entriesDeleted = rows.reduce((sum, row) => sum + row.entry_count, 0);
        }
        let journalRecordsDeleted = 0;
        let deliveryReceiptsDeleted = 0;
        if (journalRetentionMs !== undefined) {
          const cutoff = at - journalRetentionMs;
          journalRecordsDeleted = (
            await client.query(
              "DELETE FROM inbound_journal WHERE state IN ('replied', 'failed') AND updated_at < $1",
              [cutoff],
            )
          ).rowCount;
          deliveryReceiptsDeleted = (
            await client.query(
              "DELETE FROM delivery_receipts WHERE state IN ('sent', 'failed') AND updated_at < $1",
              [cutoff],
            )
          ).rowCount;
        }
        const stateRecordsDeleted = (
          await client.query('DELETE FROM state_records WHERE expires_at IS NOT NULL AND expires_at <= $1', [
            at,
          ])
        ).rowCount;
        return {
          sessionsPruned,
          transcriptsDeleted,
          entriesDeleted,
          journalRecordsDeleted,
          deliveryReceiptsDeleted,
          stateRecordsDeleted,
        };
      });
      // Autovacuum reclaims dead rows for reuse; the file shrinks only under VACUUM FULL,
      // which an operator runs (it locks the tables), so this is usually 0.
      const after = await databaseBytes(database);
      return { ...report, bytesFreed: Math.max(0, before - after) };
    },

    async diskUsage() {
      const reader: Queryable = {
        async query(sql, values) {
          const rows = await database.query('diskUsage', sql, values);
          return { rows: rows as never[], rowCount: rows.length };
        },
      };
      const bytes = await databaseBytes(database);
      const { rows } = await reader.query<{
        transcripts: number;
        archived: number;
        entries: number;
        bytes: number;
      }>(
        `SELECT COUNT(*)::int AS transcripts, COUNT(archived_at)::int AS archived,
           COALESCE(SUM(entry_count), 0)::bigint AS entries, COALESCE(SUM(byte_count), 0)::bigint AS bytes FROM transcripts`,
      );
      const transcripts = rows[0] ?? { transcripts: 0, archived: 0, entries: 0, bytes: 0 };
      return {
        location: database.location,
        databaseBytes: bytes,
        walBytes: 0,
        freeBytes: 0,
        sessions: await count(reader, 'SELECT COUNT(*)::int AS count FROM sessions'),
        transcripts: transcripts.transcripts,
        archivedTranscripts: transcripts.archived,
        transcriptEntries: transcripts.entries,
        transcriptBytes: transcripts.bytes,
        journalRecords: await count(reader, 'SELECT COUNT(*)::int AS count FROM inbound_journal'),
        deliveryReceipts: await count(reader, 'SELECT COUNT(*)::int AS count FROM delivery_receipts'),
        stateRecords: await count(reader, 'SELECT COUNT(*)::int AS count FROM state_records'),
      };
    },

    async checkIntegrity() {
      const problems: string[] = [];
      const orphans = await database.query<{ session_key: string; session_id: string }>(
        'checkIntegrity',
        `SELECT s.session_key, s.session_id FROM sessions s
         LEFT JOIN transcripts t ON t.session_id = s.session_id
         WHERE t.transcript_id IS NULL OR t.archived_at IS NOT NULL LIMIT 100`,
      );
      for (const row of orphans) {
        problems.push(
          `session ${JSON.stringify(row.session_key)} points at transcript ${row.session_id}, which is missing or archived`,
        );
      }
      const counters = await database.query<{ session_id: string }>(
        'checkIntegrity',
        `SELECT t.session_id FROM transcripts t
         WHERE t.entry_count <> (SELECT COUNT(*) FROM transcript_entries e WHERE e.transcript_id = t.transcript_id)
         LIMIT 100`,
      );
      for (const row of counters) {
        problems.push(`transcript ${row.session_id}: its entry count does not match its stored entries`);
      }
      return { ok: problems.length === 0, problems };
    },
  };
}
