// Per-turn overhead of each model provider on its testkit fake (127.0.0.1, zero latency):
// the same answer (streamed text and two tool calls) through the real SDKs, Anthropic as the
// baseline. Prints the median and p90 per call and each provider's ratio to Anthropic, and
// the cold import time of each SDK (what a gateway that never uses a provider does not pay).
//   pnpm --filter @switchboard/provider-openai bench
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { LlmContext, Model, ModelProvider } from '@switchboard/core-loop';
import { anthropicModel } from '@switchboard/core-loop';
import { createAnthropicProvider } from '@switchboard/core-loop/anthropic';
import { createOllamaProvider } from '@switchboard/provider-ollama';
import { createOllamaModel } from '@switchboard/provider-ollama/models';
import { createFakeAnthropic } from '@switchboard/testkit/anthropic';
import { createFakeOllama } from '@switchboard/testkit/ollama';
import { createFakeOpenAI } from '@switchboard/testkit/openai';
import { createOpenAICompletionsProvider } from '../src/completions.ts';
import { createOpenAIModel } from '../src/models.ts';
import { createOpenAIResponsesProvider } from '../src/responses.ts';

const calls = Number(process.env.BENCH_CALLS ?? 300);
const warmup = 30;
const text = 'The answer streams in several small pieces, as a real model would send it to us.';
const toolCalls = [
  { name: 'read', arguments: { path: 'notes/a.txt' } },
  { name: 'read', arguments: { path: 'notes/b.txt' } },
];
const context: LlmContext = {
  systemPrompt: 'You are a benchmark.',
  messages: [{ role: 'user', content: 'Read both notes.', timestamp: 0 }],
  tools: [
    {
      name: 'read',
      description: 'Reads a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  ],
};

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] as number;
}

async function measure(provider: ModelProvider, model: Model, apiKey: string): Promise<number[]> {
  const durations: number[] = [];
  for (let index = 0; index < warmup + calls; index += 1) {
    const started = performance.now();
    const result = await provider.stream(model, context, { apiKey }).result();
    const elapsed = performance.now() - started;
    if (result.stopReason !== 'toolUse')
      throw new Error(`${model.api}: ${result.stopReason} ${result.errorMessage ?? ''}`);
    if (index >= warmup) durations.push(elapsed);
  }
  return durations;
}

function coldImportMs(specifier: string, directory: string): number {
  const script = `const t=performance.now();await import(${JSON.stringify(specifier)});console.log(performance.now()-t)`;
  const runs: number[] = [];
  for (let run = 0; run < 5; run += 1) {
    const out = execFileSync(
      process.execPath,
      ['--conditions=@switchboard/source', '--input-type=module', '-e', script],
      {
        cwd: directory,
        encoding: 'utf8',
      },
    );
    runs.push(Number(out.trim()));
  }
  return percentile(runs, 0.5);
}

const anthropicFake = await createFakeAnthropic({
  fallback: { text, toolCalls: toolCalls.map((call) => ({ name: call.name, input: call.arguments })) },
}).start();
const openaiFake = await createFakeOpenAI({ fallback: { text, toolCalls } }).start();
const ollamaFake = await createFakeOllama({ fallback: { text, toolCalls } }).start();
try {
  const rows: Array<{ name: string; durations: number[] }> = [];
  rows.push({
    name: 'anthropic-messages',
    durations: await measure(
      createAnthropicProvider(),
      anthropicModel('claude-sonnet-4-6', { baseUrl: anthropicFake.baseURL }),
      'k',
    ),
  });
  rows.push({
    name: 'openai-completions',
    durations: await measure(
      createOpenAICompletionsProvider(),
      createOpenAIModel({
        api: 'openai-completions',
        provider: 'local',
        id: 'bench',
        baseUrl: openaiFake.baseURL,
      }),
      'k',
    ),
  });
  rows.push({
    name: 'openai-responses',
    durations: await measure(
      createOpenAIResponsesProvider(),
      createOpenAIModel({
        api: 'openai-responses',
        provider: 'openai',
        id: 'gpt-5',
        baseUrl: openaiFake.baseURL,
      }),
      'k',
    ),
  });
  rows.push({
    name: 'ollama',
    durations: await measure(
      createOllamaProvider(),
      createOllamaModel({ provider: 'ollama', id: 'bench', baseUrl: ollamaFake.host }),
      '',
    ),
  });
  const baseline = percentile(rows[0]?.durations ?? [1], 0.5);
  console.log(
    `per call, ${calls} calls each after ${warmup} warm-up (text in pieces + two tool calls), fakes on 127.0.0.1:`,
  );
  for (const row of rows) {
    const median = percentile(row.durations, 0.5);
    console.log(
      `  ${row.name.padEnd(20)} median ${median.toFixed(3)} ms  p90 ${percentile(row.durations, 0.9).toFixed(3)} ms  ratio to anthropic ${(median / baseline).toFixed(2)}`,
    );
  }
  // What the gateway imports at start-up (the /models entries) against what it imports on a
  // provider's first call (the SDK entries). Absolute numbers depend on the machine's load.
  const packages = join(import.meta.dirname, '..', '..');
  console.log('import in a fresh process (median of 5):');
  for (const [specifier, directory] of [
    ['@switchboard/provider-openai/models', 'provider-openai'],
    ['@switchboard/provider-ollama/models', 'provider-openai'],
    ['@switchboard/provider-openai', 'provider-openai'],
    ['@switchboard/provider-ollama', 'provider-openai'],
    ['@switchboard/core-loop/anthropic', 'provider-openai'],
  ] as const) {
    console.log(
      `  ${specifier.padEnd(38)} ${coldImportMs(specifier, join(packages, directory)).toFixed(1)} ms`,
    );
  }
} finally {
  await Promise.all([anthropicFake.close(), openaiFake.close(), ollamaFake.close()]);
}
