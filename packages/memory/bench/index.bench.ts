// Memory index numbers (issue 24):
//  1. index build time for 1,000 daily notes, and a restart with nothing changed (stat only);
//  2. search latency (median, p99) at 10,000 chunks, keyword-only and hybrid (vectors from the
//     fake embeddings server over HTTP, every query a new text so each pays its embedding call);
//  3. proof that a query does no per-query file scan: the index's counters after the queries.
// Target: search under 20 ms median at 10,000 chunks.
//
//   pnpm --filter @switchboard/memory bench
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeEmbeddings } from '@switchboard/testkit/embeddings';
import { createOpenAiCompatibleEmbeddings } from '../src/embeddings.ts';
import { type MemoryIndex, openMemoryIndex } from '../src/memory-index.ts';
import { type Corpus, writeCorpus } from '../test/corpus.ts';

const target = 20;

function percentile(sorted: readonly number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;
}

async function timeQueries(
  index: MemoryIndex,
  corpus: Corpus,
  count: number,
): Promise<{ median: number; p99: number; fastest: number; recall: number }> {
  const times: number[] = [];
  let found = 0;
  for (let query = 0; query < count; query++) {
    const answer = corpus.answers[(query * 7919) % corpus.answers.length]!;
    const started = performance.now();
    const { results } = await index.search(answer.query, { maxResults: 5 });
    times.push(performance.now() - started);
    if (results.some((result) => result.path === answer.path)) found++;
  }
  times.sort((left, right) => left - right);
  return {
    median: percentile(times, 0.5),
    p99: percentile(times, 0.99),
    fastest: times[0]!,
    recall: found / count,
  };
}

const noDecay = {
  maxResults: 6,
  minScore: 0.35,
  hybrid: { vectorWeight: 0.7, textWeight: 0.3, candidateMultiplier: 4 },
  mmr: { enabled: true, lambda: 0.7 },
  temporalDecay: { enabled: false, halfLifeDays: 30 },
};

const root = await mkdtemp(join(tmpdir(), 'memory-bench-'));
console.log(
  `load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')} on ${availableParallelism()} cores (medians grow with it)`,
);
try {
  // 1. 1,000 notes.
  {
    const workspace = join(root, 'thousand');
    const corpus = await writeCorpus(workspace, 1000, 3);
    const databasePath = join(root, 'state', 'thousand.sqlite');
    let started = performance.now();
    const index = await openMemoryIndex({
      workspaceDir: workspace,
      databasePath,
      watch: false,
      search: noDecay,
    });
    const build = performance.now() - started;
    const status = index.status();
    await index.close();
    started = performance.now();
    const again = await openMemoryIndex({
      workspaceDir: workspace,
      databasePath,
      watch: false,
      search: noDecay,
    });
    const restart = performance.now() - started;
    const counters = again.status().counters;
    const queries = await timeQueries(again, corpus, 200);
    await again.close();
    console.log(
      `1,000 notes (${status.chunks} chunks): index build ${build.toFixed(0)} ms; restart with no change ${restart.toFixed(0)} ms (${counters.filesChecked} files checked, ${counters.filesRead} read)`,
    );
    console.log(
      `  keyword search: median ${queries.median.toFixed(2)} ms, p99 ${queries.p99.toFixed(2)} ms, recall@5 ${queries.recall.toFixed(3)}`,
    );
  }

  // 2. 10,000 chunks, keyword-only and hybrid.
  const workspace = join(root, 'large');
  const corpus = await writeCorpus(workspace, 2500, 4);
  {
    const started = performance.now();
    const index = await openMemoryIndex({
      workspaceDir: workspace,
      databasePath: join(root, 'state', 'keyword.sqlite'),
      watch: false,
      search: noDecay,
    });
    const build = performance.now() - started;
    const before = index.status().counters;
    const queries = await timeQueries(index, corpus, 300);
    const after = index.status();
    await index.close();
    console.log(
      `${after.chunks} chunks, keyword-only: index build ${build.toFixed(0)} ms; search median ${queries.median.toFixed(2)} ms, p99 ${queries.p99.toFixed(2)} ms, fastest ${queries.fastest.toFixed(2)} ms, recall@5 ${queries.recall.toFixed(3)} (target median < ${target} ms: ${queries.median < target ? 'met' : 'MISSED'})`,
    );
    console.log(
      `  300 searches: ${after.counters.filesChecked - before.filesChecked} files checked, ${after.counters.filesRead - before.filesRead} files read, ${after.counters.syncs - before.syncs} syncs (no per-query scan)`,
    );
  }
  {
    const fake = createFakeEmbeddings({ dimensions: 384 });
    await fake.start();
    try {
      const embeddings = createOpenAiCompatibleEmbeddings({
        baseUrl: `${fake.baseURL}/v1`,
        model: 'bench-embed',
      });
      const started = performance.now();
      const index = await openMemoryIndex({
        workspaceDir: workspace,
        databasePath: join(root, 'state', 'hybrid.sqlite'),
        watch: false,
        embeddings,
        embeddingBatchSize: 128,
        search: noDecay,
      });
      await index.whenIdle();
      const build = performance.now() - started;
      const queries = await timeQueries(index, corpus, 100);
      // The same 100 queries again: their vectors are cached, so this is the index's own cost.
      const cached = await timeQueries(index, corpus, 100);
      const status = index.status();
      await index.close();
      console.log(
        `${status.chunks} chunks, hybrid (384-dimension vectors, ${status.embeddings?.embeddedChunks} embedded${status.embeddings?.lastError === undefined ? '' : `; last embeddings error: ${status.embeddings.lastError}`}): index build incl. embedding ${build.toFixed(0)} ms, recall@5 ${queries.recall.toFixed(3)}`,
      );
      console.log(
        `  search incl. one embeddings HTTP call: median ${queries.median.toFixed(2)} ms, p99 ${queries.p99.toFixed(2)} ms`,
      );
      console.log(
        `  search, query vector cached (FTS5 + cosine over every vector + merge + MMR): median ${cached.median.toFixed(2)} ms, p99 ${cached.p99.toFixed(2)} ms, fastest ${cached.fastest.toFixed(2)} ms (target median < ${target} ms: ${cached.median < target ? 'met' : 'MISSED'})`,
      );
    } finally {
      await fake.close();
    }
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
