// One throwaway PostgreSQL cluster per test file, a fresh database per store.
import { type PostgresCluster, startPostgresCluster } from '@switchboard/testkit/postgres';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';

let cluster: PostgresCluster | undefined;
let databases = 0;

/** Starts the cluster before the file's tests and stops it after them. */
export function useCluster(): () => PostgresCluster {
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    cluster = undefined;
  }, 120_000);
  return () => {
    if (cluster === undefined) throw new Error('the PostgreSQL cluster is not running');
    return cluster;
  };
}

/** A new empty database on the running cluster. */
export async function freshDatabase(current: PostgresCluster): Promise<string> {
  databases += 1;
  return current.createDatabase(`store_${process.pid}_${databases}`);
}

/** Runs `sql` as the superuser on the database of `url`. */
export async function asSuperuser<Row extends pg.QueryResultRow>(
  url: string,
  sql: string,
  values: readonly unknown[] = [],
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql, [...values])).rows;
  } finally {
    await client.end();
  }
}

/** Waits (polling, no fixed sleep) until `condition` holds, or fails after `timeoutMs`. */
export async function waitFor(
  what: string,
  condition: () => Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
