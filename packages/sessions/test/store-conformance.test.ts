// The store conformance suite from @switchboard/testkit against the SQLite store: real
// database files in a temporary directory, a restart is close and reopen of the same file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type StoreConformanceHarness,
  type StoreOpenOptions,
  storeConformanceCasesFor,
} from '@switchboard/testkit/store-conformance';
import { afterEach, describe, it } from 'vitest';
import { createSqliteSessionStore, type SessionStore, type SqliteSessionStore } from '../src/index.ts';

const directories: string[] = [];
const opened: SessionStore[] = [];

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

async function openIn(stateDirectory: string, options: StoreOpenOptions): Promise<SqliteSessionStore> {
  const store = await createSqliteSessionStore({
    stateDirectory,
    now: options.now,
    lock: { heartbeatMs: 0 },
  });
  opened.push(store);
  return store;
}

function directoryOf(store: SessionStore): string {
  return (store as SqliteSessionStore).stateDirectory;
}

const harness: StoreConformanceHarness = {
  sharing: 'single-instance',
  async open(options) {
    const directory = mkdtempSync(join(tmpdir(), 'switchboard-store-conformance-'));
    directories.push(directory);
    return openIn(directory, options);
  },
  async reopen(store, options) {
    await store.close();
    return openIn(directoryOf(store), options);
  },
  async openSecond(store, options) {
    return openIn(directoryOf(store), options);
  },
};

describe('store conformance: SQLite', () => {
  for (const conformanceCase of storeConformanceCasesFor(harness)) {
    it(conformanceCase.name, () => conformanceCase.run(harness));
  }
});
