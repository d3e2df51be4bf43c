// The store work of one message, on SQLite and on PostgreSQL (same machine, same run): journal
// it, move it to running, append the user message and the reply, claim and record the
// delivery, mark it replied. Prints per-message latency (median, p95) one message at a time,
// throughput with 50 sessions at once, and PostgreSQL round trips per message. Run from
// packages/store-postgres:
//   pnpm bench           (or: node --conditions=@switchboard/source bench/store.bench.ts [--quick])
// PostgreSQL runs in a throwaway cluster with fsync and synchronous_commit on (durable
// commits, like SQLite's `full`). `PostgreSQL + lease` adds what a replica does on top:
// admit the message to its session (the session lease, decision 0021) and release the lease
// when it is answered.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createSqliteSessionStore, type SessionStore } from '@switchboard/sessions';
import { startPostgresCluster } from '@switchboard/testkit/postgres';
import pg from 'pg';
import { createPostgresSessionStore, type PostgresSessionStore } from '../src/index.ts';

const quick = process.argv.includes('--quick');
const sequentialMessages = quick ? 100 : 400;
const concurrentSessions = 50;
const messagesPerSession = quick ? 4 : 10;

let statements = 0;
const originalQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
  statements += 1;
  return (originalQuery as (...inner: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

let messageCounter = 0;
async function oneMessage(
  store: SessionStore,
  sessionKey: string,
  leases?: PostgresSessionStore,
): Promise<void> {
  messageCounter += 1;
  const id = messageCounter;
  const ref = { channel: 'telegram', accountId: 'default', messageId: `m${id}` };
  await store.journalInbound({ ...ref, sessionKey, payload: { text: 'hello' } });
  await leases?.admitToSession(sessionKey, [{ ref }]);
  await store.ensureSession(sessionKey, { agentId: 'main' });
  await store.updateInbound(ref, 'running');
  await store.buildContext(sessionKey);
  await store.appendEntries(
    sessionKey,
    [
      { type: 'message', message: { role: 'user', content: `hello ${id}`, timestamp: 1 } },
      { type: 'custom_message', customType: 'reply', content: `reply ${id}` },
    ],
    { patch: { addUsage: { input: 100, output: 20 } } },
  );
  const key = `delivery-${id}`;
  await store.claimDelivery(key, { channel: 'telegram', to: '42' });
  await store.recordDelivery(key, `p${id}`);
  await store.updateInbound(ref, 'replied');
  await leases?.releaseSession(sessionKey);
}

async function measure(name: string, store: SessionStore, leases?: PostgresSessionStore): Promise<void> {
  const latencies: number[] = [];
  const before = statements;
  for (let index = 0; index < sequentialMessages; index += 1) {
    const started = performance.now();
    await oneMessage(store, `agent:main:seq:${index % 20}`, leases);
    latencies.push(performance.now() - started);
  }
  const perMessageStatements = (statements - before) / sequentialMessages;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrentSessions }, async (_, session) => {
      for (let index = 0; index < messagesPerSession; index += 1)
        await oneMessage(store, `agent:main:par:${session}`, leases);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const throughput = (concurrentSessions * messagesPerSession) / seconds;
  console.log(
    `${name.padEnd(18)} one at a time: median ${percentile(latencies, 0.5).toFixed(2)} ms, p95 ${percentile(latencies, 0.95).toFixed(2)} ms per message` +
      ` | ${concurrentSessions} sessions at once: ${throughput.toFixed(0)} messages/s` +
      (name.startsWith('PostgreSQL') ? ` | ${perMessageStatements.toFixed(1)} round trips per message` : ''),
  );
}

const directory = mkdtempSync(join(tmpdir(), 'switchboard-store-bench-'));
const cluster = await startPostgresCluster({ settings: ['fsync = on', 'synchronous_commit = on'] });
try {
  const sqlite = await createSqliteSessionStore({
    stateDirectory: directory,
    durability: 'full',
    lock: { heartbeatMs: 0 },
  });
  if (!process.argv.includes('--postgres-only')) await measure('SQLite full', sqlite);
  await sqlite.close();
  const postgres = await createPostgresSessionStore({
    url: await cluster.createDatabase('bench'),
    poolSize: 10,
  });
  await measure('PostgreSQL', postgres).catch((error: unknown) => {
    console.error('PostgreSQL bench failed:', error);
    throw error;
  });
  await measure('PostgreSQL + lease', postgres, postgres);
  await postgres.close();
} finally {
  await cluster.stop();
  rmSync(directory, { recursive: true, force: true });
}
