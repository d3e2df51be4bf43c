/**
 * Migrations and instance liveness. Migrations run once per database, serialized across
 * replicas by an advisory lock. Each open store registers an instance row and holds the
 * advisory lock (class, instance_id) on a dedicated connection for as long as it lives;
 * `switchboard_owner_alive(owner)` asks pg_locks whether that lock is still held. The
 * connection sets `idle_session_timeout`, and the store pings it at a third of that, so a
 * paused process (SIGSTOP, a VM freeze) loses its lock, and its work goes to the others,
 * within the timeout.
 */
import { hostname } from 'node:os';
import type { Client, PoolClient } from 'pg';
import { StorePostgresError } from './errors.ts';
import {
  advisoryLockClass,
  bootstrapSql,
  latestSchemaVersion,
  migrationLockId,
  migrations,
  schemaComponent,
} from './schema.ts';

/** Applies every migration this build knows and the database lacks, under the migration lock. */
export async function migrate(client: PoolClient, location: string, now: () => number): Promise<void> {
  await client.query('SELECT pg_advisory_lock($1, $2)', [advisoryLockClass, migrationLockId]);
  try {
    await client.query(bootstrapSql);
    const { rows } = await client.query<{ version: number | null }>(
      'SELECT MAX(version) AS version FROM switchboard_schema_migrations WHERE component = $1',
      [schemaComponent],
    );
    const version = rows[0]?.version ?? 0;
    if (version > latestSchemaVersion) {
      throw new StorePostgresError(
        'STORE_POSTGRES_SCHEMA_TOO_NEW',
        `The PostgreSQL database ${location} has schema version ${version}, but this Switchboard only knows versions up to ${latestSchemaVersion}. ` +
          'A newer Switchboard migrated it: upgrade every replica to the same version.',
        { details: { location, version, latest: latestSchemaVersion } },
      );
    }
    for (const migration of migrations) {
      if (migration.version <= version) continue;
      try {
        await client.query('BEGIN');
        await client.query(migration.sql);
        await client.query(
          'INSERT INTO switchboard_schema_migrations (component, version, name, applied_at) VALUES ($1, $2, $3, $4)',
          [schemaComponent, migration.version, migration.name, now()],
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw new StorePostgresError(
          'STORE_POSTGRES_MIGRATION_FAILED',
          `Migrating the PostgreSQL database ${location} to schema version ${migration.version} (${migration.name}) failed: ${(error as Error).message}. ` +
            'The database is unchanged at the previous version.',
          { cause: error, details: { location, version: migration.version } },
        );
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1, $2)', [advisoryLockClass, migrationLockId]);
  }
}

/** One open store (gateway replica), as `listInstances` reports it. */
export interface StoreInstance {
  readonly instanceId: number;
  readonly ownerId: string;
  readonly hostname: string;
  readonly pid: number;
  readonly startedAt: number;
  /** Whether its instance lock is held right now. */
  readonly alive: boolean;
}

/** Registers this instance and takes its lock on the dedicated `client`; returns the instance id. */
export async function registerInstance(
  client: Client,
  ownerId: string,
  startedAt: number,
  idleTimeoutMs: number,
): Promise<number> {
  await client.query(`SET idle_session_timeout = ${Math.max(1000, Math.floor(idleTimeoutMs))}`);
  // Forget instances that are gone (their lock is free), so the table stays small. A row
  // becomes visible only after its lock is taken (same transaction), so a starting instance
  // never looks dead.
  await client.query('DELETE FROM store_instances i WHERE NOT switchboard_owner_alive(i.owner_id)');
  await client.query('BEGIN');
  let instanceId: number | undefined;
  try {
    const { rows } = await client.query<{ instance_id: number }>(
      'INSERT INTO store_instances (owner_id, hostname, pid, started_at) VALUES ($1, $2, $3, $4) RETURNING instance_id',
      [ownerId, hostname(), process.pid, startedAt],
    );
    instanceId = rows[0]?.instance_id;
    if (instanceId === undefined) throw new Error('store_instances returned no instance id');
    await client.query('SELECT pg_advisory_lock($1, $2)', [advisoryLockClass, instanceId]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  return instanceId;
}
