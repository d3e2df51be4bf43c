// The store conformance suite against a real PostgreSQL: one throwaway cluster for the
// file, a fresh database per case. A restart is close and reopen; a crash is the server
// cutting the instance's connections (pg_terminate_backend), as when the process dies.
import type { SessionStore } from '@switchboard/sessions';
import {
  type StoreConformanceHarness,
  storeConformanceCasesFor,
} from '@switchboard/testkit/store-conformance';
import { afterEach, describe, it } from 'vitest';
import { createPostgresSessionStore, type PostgresSessionStore } from '../src/index.ts';
import { asSuperuser, freshDatabase, useCluster, waitFor } from './cluster.ts';

const cluster = useCluster();
const opened: PostgresSessionStore[] = [];
const urls = new WeakMap<SessionStore, string>();

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

async function openAt(url: string, now: () => number): Promise<PostgresSessionStore> {
  const store = await createPostgresSessionStore({ url, now, poolSize: 4 });
  opened.push(store);
  urls.set(store, url);
  return store;
}

function urlOf(store: SessionStore): string {
  const url = urls.get(store);
  if (url === undefined) throw new Error('store not opened by this harness');
  return url;
}

const harness: StoreConformanceHarness = {
  sharing: 'shared',
  async open(options) {
    return openAt(await freshDatabase(cluster()), options.now);
  },
  async reopen(store, options) {
    await store.close();
    return openAt(urlOf(store), options.now);
  },
  async openSecond(store, options) {
    return openAt(urlOf(store), options.now);
  },
  async crash(store) {
    const { ownerId } = store as PostgresSessionStore;
    const url = urlOf(store);
    await asSuperuser(
      url,
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
      [`switchboard:${ownerId}`],
    );
    await waitFor('the crashed instance to look gone', async () => {
      const [row] = await asSuperuser<{ alive: boolean }>(
        url,
        'SELECT switchboard_owner_alive($1) AS alive',
        [ownerId],
      );
      return row?.alive === false;
    });
  },
};

describe('store conformance: PostgreSQL', () => {
  for (const conformanceCase of storeConformanceCasesFor(harness)) {
    it(conformanceCase.name, () => conformanceCase.run(harness), 60_000);
  }
});
