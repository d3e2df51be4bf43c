// Benchmarks of the SQLite session store. Run from packages/sessions:
//   pnpm bench            (or: node --conditions=@switchboard/source bench/store.bench.ts)
// Prints medians. Targets (issue 4): ≥ 20,000 durable entries/s batched per turn, context
// build < 50 ms for a 100,000-entry session with a compaction point, append latency ratio
// (entry 100,000 / entry 10) ≤ 1.5, and listing among 100,000 sessions.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { AssistantMessage, ToolResultMessage, UserMessage } from '@switchboard/hooks';
import {
  createSqliteSessionStore,
  type Durability,
  type NewTranscriptEntry,
  type SqliteSessionStore,
} from '../src/index.ts';

const quick = process.argv.includes('--quick');
const sections = (
  process.argv.find((argument) => argument.startsWith('--only='))?.slice('--only='.length) ??
  'appends,context,listing'
).split(',');
const root = mkdtempSync(join(tmpdir(), 'switchboard-sessions-bench-'));
let storeCounter = 0;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function format(value: number, digits = 2): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

async function openStore(durability: Durability, now?: () => number): Promise<SqliteSessionStore> {
  storeCounter += 1;
  return createSqliteSessionStore({
    stateDirectory: join(root, `store-${storeCounter}`),
    durability,
    lock: { heartbeatMs: 0 },
    now,
  });
}

const usage = {
  input: 1200,
  output: 300,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 1500,
  cost: { input: 0.001, output: 0.002, cacheRead: 0, cacheWrite: 0, total: 0.003 },
};

/** One realistic turn of 10 entries: a user message, four tool round trips, a final answer. */
function turn(index: number): NewTranscriptEntry[] {
  const timestamp = 1_700_000_000_000 + index;
  const user: UserMessage = {
    role: 'user',
    content: `Question number ${index}: what is in the project folder?`,
    timestamp,
  };
  const entries: NewTranscriptEntry[] = [{ type: 'message', message: user }];
  for (let call = 0; call < 4; call += 1) {
    const assistant: AssistantMessage = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me look at the files.' },
        {
          type: 'toolCall',
          id: `call-${index}-${call}`,
          name: 'read_file',
          arguments: { path: `src/file-${call}.ts` },
        },
      ],
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      usage,
      stopReason: 'toolUse',
      timestamp,
    };
    const result: ToolResultMessage = {
      role: 'toolResult',
      toolCallId: `call-${index}-${call}`,
      toolName: 'read_file',
      content: [{ type: 'text', text: `export const value${call} = ${index};\n`.repeat(8) }],
      isError: false,
      timestamp,
    };
    entries.push({ type: 'message', message: assistant }, { type: 'message', message: result });
  }
  const answer: AssistantMessage = {
    role: 'assistant',
    content: [{ type: 'text', text: `The folder holds four source files; the values are all ${index}.` }],
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    usage,
    stopReason: 'stop',
    timestamp,
  };
  entries.push({ type: 'message', message: answer });
  return entries;
}

function singleEntry(index: number): NewTranscriptEntry[] {
  return [{ type: 'message', message: { role: 'user', content: `message ${index}`, timestamp: index } }];
}

/**
 * The disk's floor: commits per second of a bare node:sqlite database (WAL, synchronous
 * FULL) writing one small row per transaction. Every durable commit costs at least this
 * fsync, so the store's durable rate is read against it.
 */
async function rawFsyncCommitsPerSecond(): Promise<number> {
  const { DatabaseSync } = await import('node:sqlite');
  storeCounter += 1;
  const directory = join(root, `raw-${storeCounter}`);
  mkdirSync(directory);
  const database = new DatabaseSync(join(directory, 'raw.db'));
  database.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; CREATE TABLE t (value TEXT)');
  const insert = database.prepare('INSERT INTO t VALUES (?)');
  const commits = quick ? 200 : 500;
  const started = performance.now();
  for (let index = 0; index < commits; index += 1) {
    database.exec('BEGIN IMMEDIATE');
    insert.run('x');
    database.exec('COMMIT');
  }
  const rate = commits / ((performance.now() - started) / 1000);
  database.close();
  return rate;
}

async function benchDurableAppends(durability: Durability): Promise<{ rate: number; floor: number }> {
  const runs = quick ? 3 : 5;
  const turns = quick ? 300 : 1000;
  const rates: number[] = [];
  const floors: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    if (durability === 'full') floors.push(await rawFsyncCommitsPerSecond());
    const store = await openStore(durability);
    await store.ensureSession('agent:main:main', { agentId: 'main' });
    const batches = Array.from({ length: turns }, (_, index) => turn(index));
    const started = performance.now();
    for (const batch of batches) {
      await store.appendEntries('agent:main:main', batch, {
        patch: { addUsage: { input: 1200, output: 300 } },
      });
    }
    const seconds = (performance.now() - started) / 1000;
    rates.push((turns * 10) / seconds);
    await store.close();
  }
  return { rate: median(rates), floor: floors.length === 0 ? 0 : median(floors) };
}

/** Several sessions appending at once: their turns share commits (group commit). */
async function benchConcurrentAppends(sessions: number): Promise<number> {
  const runs = quick ? 3 : 5;
  const turnsPerSession = quick ? 100 : 250;
  const rates: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const store = await openStore('full');
    const keys = Array.from({ length: sessions }, (_, index) => `agent:main:concurrent-${index}`);
    for (const key of keys) await store.ensureSession(key, { agentId: 'main' });
    const batches = Array.from({ length: turnsPerSession }, (_, index) => turn(index));
    const started = performance.now();
    await Promise.all(
      keys.map(async (key) => {
        for (const batch of batches) await store.appendEntries(key, batch);
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    rates.push((sessions * turnsPerSession * 10) / seconds);
    await store.close();
  }
  return median(rates);
}

async function fillSession(store: SqliteSessionStore, key: string, count: number): Promise<void> {
  await store.ensureSession(key, { agentId: 'main' });
  let written = 0;
  while (written < count) {
    const size = Math.min(1000, count - written);
    const batch: NewTranscriptEntry[] = [];
    for (let index = 0; index < size; index += 1) batch.push(...singleEntry(written + index));
    await store.appendEntries(key, batch);
    written += size;
  }
}

async function benchContextAndLatency(): Promise<{
  /** The first build (nothing cached), then the median of later builds (cached). */
  contextColdMs: number;
  contextMs: number;
  contextEntries: number;
  contextWideColdMs: number;
  contextWideMs: number;
  contextWideEntries: number;
  fullReadMs: number;
  latencySmall: number;
  latencyBig: number;
  latencySmallNormal: number;
  latencyBigNormal: number;
}> {
  const total = 100_000;
  const store = await openStore('full');
  const key = 'agent:main:big';
  await fillSession(store, key, total - 201);
  // A compaction point near the end keeps the latest ~100 entries, then 100 more follow.
  await store.appendEntries(key, [
    {
      type: 'compaction',
      summary: 'Summary of the first 99,700 entries.',
      firstKeptSequence: total - 300,
      tokensBefore: 180_000,
    },
  ]);
  const tail: NewTranscriptEntry[] = [];
  for (let index = 0; index < 200; index += 1) tail.push(...singleEntry(total - 200 + index));
  await store.appendEntries(key, tail);
  const info = await store.getTranscript((await store.getSession(key))!.sessionId);
  if (info?.lastSequence !== total) throw new Error(`expected ${total} entries, found ${info?.lastSequence}`);

  const contextTimes: number[] = [];
  let contextEntries = 0;
  for (let round = 0; round < 30; round += 1) {
    const started = performance.now();
    const context = await store.buildContext(key);
    contextTimes.push(performance.now() - started);
    contextEntries = context.messages.length;
  }

  // A wide context: a compaction point with 2,000 entries after it (a long, uncompacted tail).
  const wideKey = 'agent:main:wide';
  await fillSession(store, wideKey, 98_000);
  await store.appendEntries(wideKey, [
    { type: 'compaction', summary: 'Summary.', firstKeptSequence: 98_001, tokensBefore: 180_000 },
  ]);
  const wideTail: NewTranscriptEntry[] = [];
  for (let index = 0; index < 1999; index += 1) wideTail.push(...singleEntry(index));
  await store.appendEntries(wideKey, wideTail);
  const wideTimes: number[] = [];
  let contextWideEntries = 0;
  for (let round = 0; round < 15; round += 1) {
    const started = performance.now();
    const context = await store.buildContext(wideKey);
    wideTimes.push(performance.now() - started);
    contextWideEntries = context.messages.length;
  }
  const fullTimes: number[] = [];
  const sessionId = (await store.getSession(key))!.sessionId;
  for (let round = 0; round < 3; round += 1) {
    const started = performance.now();
    await store.readTranscript(sessionId);
    fullTimes.push(performance.now() - started);
  }

  const latency = async (target: SqliteSessionStore, bigKey: string): Promise<[number, number]> => {
    // 200 sessions holding 9 entries each get their 10th; the 100,000-entry session gets 200 more.
    const smallKeys: string[] = [];
    for (let index = 0; index < 200; index += 1) {
      const smallKey = `agent:main:small-${index}-${storeCounter}`;
      await fillSession(target, smallKey, 9);
      smallKeys.push(smallKey);
    }
    const small: number[] = [];
    const big: number[] = [];
    for (let index = 0; index < 200; index += 1) {
      let started = performance.now();
      await target.appendEntries(smallKeys[index]!, singleEntry(index));
      small.push(performance.now() - started);
      started = performance.now();
      await target.appendEntries(bigKey, singleEntry(index));
      big.push(performance.now() - started);
    }
    return [median(small), median(big)];
  };
  const [latencySmall, latencyBig] = await latency(store, key);
  await store.close();

  // The same latency comparison without fsync, to show the CPU path alone.
  const normal = await openStore('normal');
  await fillSession(normal, key, total);
  const [latencySmallNormal, latencyBigNormal] = await latency(normal, key);
  await normal.close();
  return {
    contextColdMs: contextTimes[0]!,
    contextMs: median(contextTimes.slice(1)),
    contextEntries,
    contextWideColdMs: wideTimes[0]!,
    contextWideMs: median(wideTimes.slice(1)),
    contextWideEntries,
    fullReadMs: median(fullTimes),
    latencySmall,
    latencyBig,
    latencySmallNormal,
    latencyBigNormal,
  };
}

/**
 * 100,000 sessions whose last activity is spread over 35 days (one every 30 s, as a store
 * that size accumulates), then the same listings after 10,000 of them were all active within
 * one minute (the worst case for the minute-grained activity index: that minute is sorted
 * on the fly).
 */
async function benchListing(): Promise<Record<string, number>> {
  const total = 100_000;
  const keyOf = (index: number): string =>
    `agent:${index % 10 === 0 ? 'ops' : 'main'}:telegram:direct:user-${index}`;
  let clock = Date.UTC(2026, 0, 1);
  const store = await openStore('normal', () => clock);
  const started = performance.now();
  for (let index = 0; index < total; index += 1) {
    clock += 30_000;
    await store.ensureSession(keyOf(index), {
      agentId: index % 10 === 0 ? 'ops' : 'main',
      channel: 'telegram',
      chatType: 'direct',
      label: index % 1000 === 0 ? 'vip' : null,
    });
  }
  const fillSeconds = (performance.now() - started) / 1000;
  const time = async (work: () => Promise<unknown>, rounds = 20): Promise<number> => {
    const times: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const begin = performance.now();
      await work();
      times.push(performance.now() - begin);
    }
    return median(times);
  };
  const deepCursor = async (): Promise<string> => {
    let cursor: string | undefined;
    for (let page = 0; page < 1000; page += 1) {
      cursor = (await store.listSessions({ limit: 50, cursor })).nextCursor;
    }
    return cursor!;
  };
  let cursor = await deepCursor();
  const results: Record<string, number> = {
    firstPage: await time(() => store.listSessions({ limit: 50 })),
    firstPageWithTotal: await time(() => store.listSessions({ limit: 50, includeTotal: true })),
    agentFilter: await time(() => store.listSessions({ agentId: 'ops', limit: 50 })),
    labelFilter: await time(() => store.listSessions({ label: 'vip', limit: 50 })),
    cursorPage1000: await time(() => store.listSessions({ limit: 50, cursor })),
    offset50000: await time(() => store.listSessions({ limit: 50, offset: 50_000 })),
    search: await time(() => store.listSessions({ search: 'user-99999', limit: 50 }), 10),
    fillSeconds,
  };
  clock += 3_600_000;
  for (let index = 0; index < 10_000; index += 1) {
    clock += 5;
    await store.patchSession(keyOf(index * 7), { lastInteractionAt: clock });
  }
  cursor = await deepCursor();
  results.burstFirstPage = await time(() => store.listSessions({ limit: 50 }));
  results.burstCursorPage1000 = await time(() => store.listSessions({ limit: 50, cursor }));
  await store.close();
  return results;
}

try {
  console.log(`@switchboard/sessions store bench (node ${process.version}, ${quick ? 'quick' : 'full'} run)`);
  if (sections.includes('appends')) {
    const durable = await benchDurableAppends('full');
    const relaxed = await benchDurableAppends('normal');
    console.log(
      `\nDisk floor: a bare node:sqlite WAL database with synchronous FULL commits ${format(durable.floor, 0)} one-row transactions/s here`,
    );
    console.log(
      `  (so at 10 entries per turn no durable store can exceed ${format(durable.floor * 10, 0)} entries/s on this disk)`,
    );
    console.log('\nAppends, 10-entry turns, one transaction per turn (median of runs)');
    console.log(
      `  durability full   (fsync per commit): ${format(durable.rate, 0)} entries/s   target ≥ 20,000`,
    );
    console.log(`  durability normal (no fsync)        : ${format(relaxed.rate, 0)} entries/s`);
    const concurrent = await benchConcurrentAppends(8);
    console.log(`  durability full, 8 sessions at once (group commit): ${format(concurrent, 0)} entries/s`);
  }

  if (sections.includes('context')) {
    const context = await benchContextAndLatency();
    console.log('\nContext build, 100,000-entry session');
    console.log(
      `  compaction point 300 entries from the end: first ${format(context.contextColdMs)} ms, cached ${format(context.contextMs)} ms (${context.contextEntries} messages)   target < 50 ms`,
    );
    console.log(
      `  compaction point 2,000 entries from the end: first ${format(context.contextWideColdMs)} ms, cached ${format(context.contextWideMs)} ms (${context.contextWideEntries} messages)`,
    );
    console.log(`  (reading all 100,000 entries, no compaction used: ${format(context.fullReadMs)} ms)`);
    console.log('\nAppend latency, one entry per transaction (median of 200)');
    console.log(
      `  durability full:   entry 10 ${format(context.latencySmall, 3)} ms, entry 100,000 ${format(context.latencyBig, 3)} ms, ratio ${format(context.latencyBig / context.latencySmall)}   target ≤ 1.5`,
    );
    console.log(
      `  durability normal: entry 10 ${format(context.latencySmallNormal, 3)} ms, entry 100,000 ${format(context.latencyBigNormal, 3)} ms, ratio ${format(context.latencyBigNormal / context.latencySmallNormal)}`,
    );
  }
  if (sections.includes('listing')) {
    const listing = await benchListing();
    console.log(
      `\nListing among 100,000 sessions (page of 50; filled in ${format(listing.fillSeconds!, 1)} s)`,
    );
    console.log(`  first page:                  ${format(listing.firstPage!, 3)} ms`);
    console.log(`  first page + total count:    ${format(listing.firstPageWithTotal!, 3)} ms`);
    console.log(`  agentId filter (10%):        ${format(listing.agentFilter!, 3)} ms`);
    console.log(`  label filter (0.1%):         ${format(listing.labelFilter!, 3)} ms`);
    console.log(`  cursor, page 1,001:          ${format(listing.cursorPage1000!, 3)} ms`);
    console.log(`  offset 50,000:               ${format(listing.offset50000!, 3)} ms`);
    console.log(`  search substring (full scan): ${format(listing.search!, 3)} ms`);
    console.log('  after 10,000 sessions were active within one minute (worst case for the activity index):');
    console.log(`  first page:                  ${format(listing.burstFirstPage!, 3)} ms`);
    console.log(`  cursor, page 1,001:          ${format(listing.burstCursorPage1000!, 3)} ms`);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
