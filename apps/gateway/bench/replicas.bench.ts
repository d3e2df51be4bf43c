// Replicas on PostgreSQL (issue 27, decision 0021): throughput, per-message latency and CPU per
// message with one gateway on SQLite, one on PostgreSQL and three replicas on one PostgreSQL
// (same machine, same run), and PostgreSQL round trips (statements, `pg_stat_statements`) and
// transactions per message. Each scenario: 50 sessions at once, each sending its messages one
// after the other (`agent`, answered at the final); with replicas each session's client is
// connected to one replica (a load balancer's per-connection stickiness), sessions spread over
// the replicas. The model is testkit's fake Anthropic at zero latency in its own process.
//
//   pnpm exec node --conditions=@switchboard/source apps/gateway/bench/replicas.bench.ts [--quick] [--built]
//
// Needs Debian's `postgresql` package (initdb, pg_ctl); without it the bench says so and exits 0.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findPostgresBinaries, startPostgresCluster } from '@switchboard/testkit/postgres';
import {
  benchConfig,
  type Client,
  connect,
  gatewayEntry,
  median,
  percentile,
  processStats,
  type RunningGateway,
  startFakeModel,
  startGatewayProcess,
  stop,
} from './gateway-process.ts';

try {
  findPostgresBinaries();
} catch (error) {
  console.log(`replicas bench skipped: ${(error as Error).message}`);
  process.exit(0);
}

const quick = process.argv.includes('--quick');
const source = !process.argv.includes('--built');
const entry = gatewayEntry(source);
const sessions = 50;
const perSession = quick ? 10 : 40;
const messages = sessions * perSession;

const cluster = await startPostgresCluster({
  settings: ["shared_preload_libraries = 'pg_stat_statements'", 'max_connections = 200'],
});
const model = await startFakeModel();

/** CPU milliseconds of the PostgreSQL server: the postmaster and every backend it forked. */
function postgresCpuMs(): number {
  const postmaster = Number(
    readFileSync(join(cluster.dataDirectory, 'postmaster.pid'), 'utf8').split('\n')[0],
  );
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      const parent = Number(fields[1]);
      if (Number(entry) !== postmaster && parent !== postmaster) continue;
      total += ((Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * 1000) / 100;
    } catch {
      // The process ended while being read.
    }
  }
  return total;
}

/** Runs SQL on a database of the cluster with psql; returns the rows' first columns. */
async function psql(url: string, statement: string): Promise<string[]> {
  const address = new URL(url);
  const { stdout } = await promisify(execFile)(join(findPostgresBinaries(), 'psql'), [
    '-h',
    '127.0.0.1',
    '-p',
    address.port,
    '-U',
    'postgres',
    '-d',
    address.pathname.slice(1),
    '-At',
    '-c',
    statement,
  ]);
  return stdout.split('\n').filter((line) => line !== '');
}

async function databaseStats(url: string): Promise<{ statements: number; transactions: number }> {
  const [statements] = await psql(
    url,
    `SELECT coalesce(sum(calls), 0) FROM pg_stat_statements s
     JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = current_database()`,
  );
  const [transactions] = await psql(
    url,
    'SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()',
  );
  return { statements: Number(statements), transactions: Number(transactions) };
}

interface Outcome {
  readonly label: string;
  readonly perSecond: number;
  readonly latencies: number[];
  readonly gatewayCpuPerMessage: number;
  readonly postgresCpuPerMessage: number | undefined;
  readonly statementsPerMessage: number | undefined;
  readonly transactionsPerMessage: number | undefined;
}

async function scenario(label: string, replicas: number, storage: 'sqlite' | 'postgres'): Promise<Outcome> {
  const url =
    storage === 'postgres' ? await cluster.createDatabase(`bench_${replicas}_${Date.now()}`) : undefined;
  if (url !== undefined) await psql(url, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const config = {
    ...benchConfig(model.baseURL),
    storage: url === undefined ? undefined : { kind: 'postgres', url },
  };
  const gateways: RunningGateway[] = [];
  for (let index = 0; index < replicas; index += 1) {
    gateways.push(
      await startGatewayProcess({
        entry,
        source,
        config,
        stateDirectory: mkdtempSync(join(tmpdir(), 'switchboard-replicas-bench-')),
      }),
    );
  }
  const clients: Client[] = await Promise.all(gateways.map((gateway) => connect(gateway.port)));
  // Warm up every replica (module loading, first connections), then measure.
  await Promise.all(clients.map((client, index) => client.agent(`agent:main:warm-${index}`, 'warm up')));
  const before = {
    gatewayCpu: gateways.reduce((sum, gateway) => sum + processStats(gateway.child.pid!).cpuMs, 0),
    postgresCpu: url === undefined ? 0 : postgresCpuMs(),
    stats: url === undefined ? undefined : await databaseStats(url),
  };
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: sessions }, async (_, session) => {
      const client = clients[session % clients.length]!;
      for (let index = 0; index < perSession; index += 1)
        latencies.push(await client.agent(`agent:main:bench-${session}`, `message ${index}`));
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const gatewayCpu = gateways.reduce((sum, gateway) => sum + processStats(gateway.child.pid!).cpuMs, 0);
  const after = url === undefined ? undefined : await databaseStats(url);
  const postgresCpu = url === undefined ? undefined : postgresCpuMs() - before.postgresCpu;
  for (const client of clients) client.close();
  await Promise.all(gateways.map((gateway) => stop(gateway)));
  return {
    label,
    perSecond: messages / seconds,
    latencies,
    gatewayCpuPerMessage: (gatewayCpu - before.gatewayCpu) / messages,
    postgresCpuPerMessage: postgresCpu === undefined ? undefined : postgresCpu / messages,
    // The measurement's own queries are left out (about; the counters are cumulative).
    statementsPerMessage:
      after === undefined || before.stats === undefined
        ? undefined
        : (after.statements - before.stats.statements - 3) / messages,
    transactionsPerMessage:
      after === undefined || before.stats === undefined
        ? undefined
        : (after.transactions - before.stats.transactions - 2) / messages,
  };
}

console.log(
  `Switchboard replicas bench (${source ? 'sources via type stripping' : 'built bundle'}), Node ${process.version}; ${sessions} sessions × ${perSession} messages each, the fake model at zero latency`,
);
const outcomes: Outcome[] = [];
try {
  outcomes.push(await scenario('SQLite, 1 gateway', 1, 'sqlite'));
  outcomes.push(await scenario('PostgreSQL, 1 replica', 1, 'postgres'));
  outcomes.push(await scenario('PostgreSQL, 3 replicas', 3, 'postgres'));
} finally {
  model.child.kill('SIGTERM');
  await cluster.stop();
}
const fixed = (value: number | undefined, digits = 1) => (value === undefined ? '—' : value.toFixed(digits));
console.log(
  '| setup | messages/s | latency median / p95 (ms) | gateway CPU per message (ms, all replicas) | PostgreSQL CPU per message (ms) | PG statements per message | PG transactions per message |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const outcome of outcomes) {
  console.log(
    `| ${outcome.label} | ${outcome.perSecond.toFixed(0)} | ${median(outcome.latencies).toFixed(1)} / ${percentile(outcome.latencies, 95).toFixed(1)} | ${fixed(outcome.gatewayCpuPerMessage, 2)} | ${fixed(outcome.postgresCpuPerMessage, 2)} | ${fixed(outcome.statementsPerMessage)} | ${fixed(outcome.transactionsPerMessage)} |`,
  );
}
const one = outcomes[1]!;
const three = outcomes[2]!;
console.log(
  `3 replicas vs 1 on PostgreSQL: ${(three.perSecond / one.perSecond).toFixed(2)}× the throughput (one machine: the replicas share its ${(await import('node:os')).availableParallelism()} cores with PostgreSQL and the load generator)`,
);
