/** Retention, disk usage and integrity of the SQLite database. */
import type { StoreMaintenance } from '../session-store.ts';
import { requireCount } from '../store-arguments.ts';
import { activityMinute } from '../store-rows.ts';
import type { DiskUsage, IntegrityReport, PrunePolicy, PruneReport } from '../types.ts';
import type { SqliteStoreContext } from './store-context.ts';

export function createSqliteMaintenance(
  context: SqliteStoreContext,
): Omit<StoreMaintenance, 'location' | 'close'> {
  const { database, databasePath, now, statement, sql, run, write, contextCache, archive, databaseBytes } =
    context;
  return {
    async prune(policy: PrunePolicy): Promise<PruneReport> {
      const pruneAfterMs = requireCount(policy.pruneAfterMs, 'policy.pruneAfterMs');
      const maxEntries = requireCount(policy.maxEntries, 'policy.maxEntries', true);
      const archiveRetentionMs = requireCount(policy.archiveRetentionMs, 'policy.archiveRetentionMs');
      const journalRetentionMs = requireCount(policy.journalRetentionMs, 'policy.journalRetentionMs');
      const at = policy.now ?? now();
      const keep = policy.keepChatTypes ?? [];
      const keepSql =
        keep.length === 0
          ? ''
          : `AND (chat_type IS NULL OR chat_type NOT IN (${keep.map(() => '?').join(', ')}))`;
      const before = await run('prune', () => databaseBytes());
      const report = await write('prune', () => {
        let sessionsPruned = 0;
        const pruneRows = (rows: Array<{ session_key: string; session_id: string }>): void => {
          for (const row of rows) {
            archive(row.session_id, 'pruned', at);
            statement(sql.deleteSession).run(row.session_key);
            sessionsPruned += 1;
          }
        };
        if (pruneAfterMs !== undefined) {
          pruneRows(
            statement(
              `SELECT session_key, session_id FROM sessions WHERE activity_minute <= ? AND updated_at < ? ${keepSql}`,
            ).all(activityMinute(at - pruneAfterMs), at - pruneAfterMs, ...keep) as unknown as Array<{
              session_key: string;
              session_id: string;
            }>,
          );
        }
        if (maxEntries !== undefined) {
          const total = (statement('SELECT COUNT(*) AS count FROM sessions').get() as { count: number })
            .count;
          if (total > maxEntries) {
            pruneRows(
              statement(
                `SELECT session_key, session_id FROM sessions WHERE 1 = 1 ${keepSql} ORDER BY activity_minute ASC, updated_at ASC, session_key ASC LIMIT ?`,
              ).all(...keep, total - maxEntries) as unknown as Array<{
                session_key: string;
                session_id: string;
              }>,
            );
          }
        }
        let transcriptsDeleted = 0;
        let entriesDeleted = 0;
        if (archiveRetentionMs !== undefined) {
          const doomed = statement(
            'SELECT session_id, entry_count FROM transcripts WHERE archived_at IS NOT NULL AND archived_at <= ?',
          ).all(at - archiveRetentionMs) as unknown as Array<{ session_id: string; entry_count: number }>;
          for (const row of doomed) {
            statement('DELETE FROM transcripts WHERE session_id = ?').run(row.session_id);
            contextCache.clear();
            transcriptsDeleted += 1;
            entriesDeleted += row.entry_count;
          }
        }
        let journalRecordsDeleted = 0;
        let deliveryReceiptsDeleted = 0;
        if (journalRetentionMs !== undefined) {
          const cutoff = at - journalRetentionMs;
          journalRecordsDeleted = Number(
            statement(
              "DELETE FROM inbound_journal WHERE state IN ('replied', 'failed') AND updated_at < ?",
            ).run(cutoff).changes,
          );
          deliveryReceiptsDeleted = Number(
            statement(
              "DELETE FROM delivery_receipts WHERE state IN ('sent', 'failed') AND updated_at < ?",
            ).run(cutoff).changes,
          );
        }
        const stateRecordsDeleted = Number(
          statement('DELETE FROM state_records WHERE expires_at IS NOT NULL AND expires_at <= ?').run(at)
            .changes,
        );
        return {
          sessionsPruned,
          transcriptsDeleted,
          entriesDeleted,
          journalRecordsDeleted,
          deliveryReceiptsDeleted,
          stateRecordsDeleted,
        };
      });
      // Give freed pages back to the file system and fold the WAL into the database.
      const after = await run('prune', () => {
        database.exec('PRAGMA incremental_vacuum');
        database.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get();
        return databaseBytes();
      });
      return {
        ...report,
        bytesFreed: Math.max(0, before.database + before.wal - (after.database + after.wal)),
      };
    },

    async diskUsage(): Promise<DiskUsage> {
      return run('diskUsage', () => {
        const bytes = databaseBytes();
        const count = (table: string): number =>
          (statement(`SELECT COUNT(*) AS count FROM ${table}`).get() as { count: number }).count;
        const transcripts = statement(
          `SELECT COUNT(*) AS transcripts, COUNT(archived_at) AS archived,
             COALESCE(SUM(entry_count), 0) AS entries, COALESCE(SUM(byte_count), 0) AS bytes FROM transcripts`,
        ).get() as { transcripts: number; archived: number; entries: number; bytes: number };
        return {
          location: databasePath,
          databaseBytes: bytes.database,
          walBytes: bytes.wal,
          freeBytes: bytes.free,
          sessions: count('sessions'),
          transcripts: transcripts.transcripts,
          archivedTranscripts: transcripts.archived,
          transcriptEntries: transcripts.entries,
          transcriptBytes: transcripts.bytes,
          journalRecords: count('inbound_journal'),
          deliveryReceipts: count('delivery_receipts'),
          stateRecords: count('state_records'),
        };
      });
    },

    async checkIntegrity(): Promise<IntegrityReport> {
      return run('checkIntegrity', () => {
        const problems: string[] = [];
        for (const row of database.prepare('PRAGMA integrity_check').all() as Array<{
          integrity_check: string;
        }>) {
          if (row.integrity_check !== 'ok') problems.push(row.integrity_check);
        }
        for (const row of database.prepare('PRAGMA foreign_key_check').all() as Array<
          Record<string, unknown>
        >) {
          problems.push(
            `foreign key violation in ${String(row.table)} (row ${String(row.rowid)}) → ${String(row.parent)}`,
          );
        }
        return { ok: problems.length === 0, problems };
      });
    },
  };
}
