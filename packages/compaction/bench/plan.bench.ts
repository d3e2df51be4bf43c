// How long planning a compaction takes for a 10,000-message session, model latency
// excluded: estimating every message, choosing the cut, chunking the older part by token
// share and serialising it for the summariser. Target: under 50 ms (median).
// Also prints the cost of the same decision with the session read from a real SQLite store
// (what `prepareContext` does before every run).
//
//   pnpm --filter @switchboard/compaction bench
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AssistantMessage, emptyUsage, type Message } from '@switchboard/hooks';
import { createSqliteSessionStore } from '@switchboard/sessions';
import { estimateContext } from '../src/estimate.ts';
import { planCompaction } from '../src/plan.ts';
import { contextMessages, loadSessionContext } from '../src/session-context.ts';
import { resolveCompactionBudget } from '../src/settings.ts';

const messageCount = 10_000;
const runs = 41;
const target = 50;

/** A realistic mix: user turns, tool rounds with parallel calls, answers; sizes vary. */
function session(count: number): Message[] {
  let seed = 42;
  const next = (): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const messages: Message[] = [];
  let call = 0;
  const assistant = (
    content: AssistantMessage['content'],
    stopReason: AssistantMessage['stopReason'],
  ): AssistantMessage => ({
    role: 'assistant',
    content,
    provider: 'anthropic',
    model: 'claude-sonnet-4-6',
    usage: emptyUsage,
    stopReason,
    timestamp: messages.length,
  });
  while (messages.length < count) {
    messages.push({
      role: 'user',
      content: `question ${messages.length}: ${'u'.repeat(50 + Math.floor(next() * 400))}`,
      timestamp: messages.length,
    });
    if (next() < 0.6) {
      const ids = Array.from({ length: 1 + Math.floor(next() * 2) }, () => {
        call += 1;
        return `toolu_${call}`;
      });
      messages.push(
        assistant(
          ids.map((id) => ({
            type: 'toolCall' as const,
            id,
            name: 'read_file',
            arguments: { path: `src/file-${id}.ts` },
          })),
          'toolUse',
        ),
      );
      for (const id of ids) {
        messages.push({
          role: 'toolResult',
          toolCallId: id,
          toolName: 'read_file',
          content: [
            { type: 'text', text: `contents of ${id}\n${'x'.repeat(200 + Math.floor(next() * 3000))}` },
          ],
          details: { bytes: 1234 },
          isError: false,
          timestamp: messages.length,
        });
      }
    }
    messages.push(
      assistant([{ type: 'text', text: `answer ${'a'.repeat(100 + Math.floor(next() * 600))}` }], 'stop'),
    );
  }
  return messages.slice(0, count);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] as number;
}

const messages = session(messageCount);
const budget = resolveCompactionBudget({ contextWindow: 200_000 });
const systemPrompt = 's'.repeat(12_000);

function planOnce(history: readonly Message[]): ReturnType<typeof planCompaction> {
  const estimate = estimateContext({ messages: history, systemPrompt, safetyMargin: budget.safetyMargin });
  return planCompaction({ messages: history, systemPrompt, budget, ratio: estimate.ratio });
}

for (let warm = 0; warm < 5; warm += 1) planOnce(messages);
const times: number[] = [];
let plan = planOnce(messages);
for (let run = 0; run < runs; run += 1) {
  const started = performance.now();
  plan = planOnce(messages);
  times.push(performance.now() - started);
}
const planMedian = median(times);
const characters = plan.chunks.reduce((sum, chunk) => sum + chunk.text.length, 0);
console.log(
  `plan a compaction of a ${messageCount.toLocaleString('en')}-message session (window ${budget.contextWindow}, keep ${budget.keepRecentTokens} tokens):`,
);
console.log(
  `  estimate + plan: median ${planMedian.toFixed(2)} ms, p90 ${percentile(times, 0.9).toFixed(2)} ms over ${runs} runs (target < ${target} ms: ${(target / planMedian).toFixed(1)}× under)`,
);
console.log(
  `  ${plan.tokensBefore.toLocaleString('en')} tokens before; ${plan.summarizedMessages.toLocaleString('en')} messages summarised in ${plan.chunks.length} chunks (${(characters / 1_000_000).toFixed(2)} M characters serialised); ${plan.keptMessages} kept`,
);

// The same decision with the session read from SQLite (what prepareContext pays per run
// for a session that was never compacted).
const directory = await mkdtemp(join(tmpdir(), 'switchboard-compaction-bench-'));
try {
  const store = await createSqliteSessionStore({
    stateDirectory: directory,
    durability: 'normal',
    lock: { heartbeatMs: 0 },
  });
  const key = 'agent:main:bench';
  await store.ensureSession(key, { agentId: 'main' });
  for (let start = 0; start < messages.length; start += 1000) {
    await store.appendEntries(
      key,
      messages.slice(start, start + 1000).map((message) => ({ type: 'message' as const, message })),
    );
  }
  const loadTimes: number[] = [];
  for (let run = 0; run < 11; run += 1) {
    const started = performance.now();
    const loaded = await loadSessionContext(store, key);
    const estimate = estimateContext({ messages: contextMessages(loaded), systemPrompt });
    planCompaction({ messages: loaded.messages, systemPrompt, budget, ratio: estimate.ratio });
    loadTimes.push(performance.now() - started);
  }
  console.log(`  read from SQLite + estimate + plan: median ${median(loadTimes).toFixed(2)} ms over 11 runs`);
  await store.close();
} finally {
  await rm(directory, { recursive: true, force: true });
}
