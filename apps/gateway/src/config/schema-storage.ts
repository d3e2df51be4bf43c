// `storage`: where the gateway keeps sessions, transcripts, the inbound journal, delivery
// receipts and state records. SQLite (the default) is one file in the state directory, for
// one gateway; PostgreSQL (@switchboard/store-postgres, decision 0021) is shared by several
// gateway replicas.
import { z } from 'zod';

const sqliteStorageSchema = z.strictObject({
  kind: z.literal('sqlite'),
});

const postgresStorageSchema = z.strictObject({
  kind: z.literal('postgres'),
  /** `postgres://user:password@host:5432/database`; use `${PGURL}` to keep the password out of the file. */
  url: z
    .string()
    .regex(
      /^postgres(ql)?:\/\//,
      'expected a postgres:// or postgresql:// URL, e.g. "postgres://switchboard@db:5432/switchboard"',
    ),
  /** Pooled connections per gateway (plus one for its instance lock). Default 10. */
  poolSize: z.number().int().positive().max(1000).optional(),
  /**
   * After this much silence a replica counts as gone and the others take over its unfinished
   * messages and delivery claims. Default 10 000 ms.
   */
  livenessTimeoutMs: z.number().int().min(1000).max(600_000).optional(),
});

export const storageConfigSchema = z
  .discriminatedUnion('kind', [sqliteStorageSchema, postgresStorageSchema])
  .default({ kind: 'sqlite' });

export type StorageConfig = z.infer<typeof storageConfigSchema>;
