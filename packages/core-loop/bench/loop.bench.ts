// Loop overhead per turn with an in-process, zero-latency stream function, and one turn
// through the real SDK to testkit's fake Anthropic API on 127.0.0.1.
//   node --conditions=@switchboard/source bench/loop.bench.ts
import type { AssistantMessage, ToolCallContent } from '@switchboard/hooks';
import { emptyUsage } from '@switchboard/hooks';
import { createFakeAnthropic } from '@switchboard/testkit/anthropic';
import { z } from 'zod';
import { createAnthropicProvider } from '../src/anthropic.ts';
import { createAssistantMessageEventStream } from '../src/event-stream.ts';
import {
  Agent,
  agentLoop,
  anthropicModel,
  createStreamFunction,
  defineTool,
  type StreamFunction,
} from '../src/index.ts';

const targetMs = 0.2;
const model = anthropicModel('claude-sonnet-4-6', { api: 'bench' });

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] as number;
}

/**
 * A zero-latency model: every call streams start, a text block, one tool call (until
 * `turns` calls were made) and done, all pushed synchronously.
 */
function zeroLatencyModel(turnsPerRun: number): StreamFunction {
  let call = 0;
  return (streamModel) => {
    call += 1;
    const stream = createAssistantMessageEventStream();
    const wantsTool = call % turnsPerRun !== 0;
    const base = {
      role: 'assistant' as const,
      provider: streamModel.provider,
      model: streamModel.id,
      usage: emptyUsage,
      stopReason: 'stop' as const,
      timestamp: 0,
    };
    const text = { type: 'text' as const, text: 'thinking about it' };
    const toolCall: ToolCallContent = {
      type: 'toolCall',
      id: `call_${call}`,
      name: 'noop',
      arguments: { n: call },
    };
    const withText: AssistantMessage = { ...base, content: [text] };
    stream.push({ type: 'start', partial: { ...base, content: [] } });
    stream.push({ type: 'text_start', contentIndex: 0, partial: withText });
    stream.push({ type: 'text_delta', contentIndex: 0, delta: text.text, partial: withText });
    stream.push({ type: 'text_end', contentIndex: 0, content: text.text, partial: withText });
    if (wantsTool) {
      const withTool: AssistantMessage = { ...base, content: [text, toolCall] };
      stream.push({ type: 'toolcall_start', contentIndex: 1, partial: withTool });
      stream.push({ type: 'toolcall_end', contentIndex: 1, toolCall, partial: withTool });
      stream.push({ type: 'done', reason: 'toolUse', message: { ...withTool, stopReason: 'toolUse' } });
    } else {
      stream.push({ type: 'done', reason: 'stop', message: withText });
    }
    return stream;
  };
}

const noop = defineTool({
  name: 'noop',
  description: 'Does nothing',
  parameters: z.object({ n: z.number() }),
  execute: async (_id, args) => ({ content: [{ type: 'text', text: String(args.n) }] }),
});

async function benchLoopFunction(turnsPerRun: number, runs: number): Promise<number[]> {
  const streamFn = zeroLatencyModel(turnsPerRun);
  const samples: number[] = [];
  for (let index = 0; index < runs; index += 1) {
    const started = performance.now();
    const stream = agentLoop(
      [{ role: 'user', content: 'go', timestamp: 0 }],
      { systemPrompt: 'bench', messages: [], tools: [noop] },
      { model, maxModelCalls: turnsPerRun + 1 },
      undefined,
      streamFn,
    );
    let events = 0;
    for await (const _event of stream) events += 1;
    await stream.result();
    samples.push((performance.now() - started) / turnsPerRun);
    if (events === 0) throw new Error('no events');
  }
  return samples;
}

async function benchAgent(turnsPerRun: number, runs: number): Promise<number[]> {
  const agent = new Agent({
    model,
    streamFn: zeroLatencyModel(turnsPerRun),
    tools: [noop],
    maxModelCalls: turnsPerRun + 1,
  });
  let events = 0;
  agent.subscribe(() => {
    events += 1;
  });
  const samples: number[] = [];
  for (let index = 0; index < runs; index += 1) {
    agent.clearMessages();
    const started = performance.now();
    await agent.prompt('go');
    samples.push((performance.now() - started) / turnsPerRun);
  }
  if (events === 0) throw new Error('no events');
  return samples;
}

async function benchSdkTurn(runs: number): Promise<number[]> {
  const fake = await createFakeAnthropic({
    fallback: { text: 'Hello from the fake API, in a few text deltas.' },
  }).start();
  try {
    const streamFn = createStreamFunction([
      createAnthropicProvider({ baseUrl: fake.baseURL, apiKey: 'sk-bench' }),
    ]);
    const agent = new Agent({ model: anthropicModel('claude-sonnet-4-6'), streamFn });
    const samples: number[] = [];
    for (let index = 0; index < runs; index += 1) {
      agent.clearMessages();
      const started = performance.now();
      await agent.prompt('Say hello');
      samples.push(performance.now() - started);
      const last = agent.state.messages.at(-1) as AssistantMessage;
      if (last.stopReason !== 'stop') throw new Error(`turn failed: ${last.errorMessage}`);
    }
    return samples;
  } finally {
    await fake.close();
  }
}

function report(label: string, samples: number[], unit: string): number {
  const middle = median(samples);
  console.log(
    `${label.padEnd(58)} median ${middle.toFixed(4)} ${unit}   p90 ${percentile(samples, 0.9).toFixed(4)} ${unit}   (${samples.length} samples)`,
  );
  return middle;
}

// Warm up the JIT.
await benchLoopFunction(20, 50);
await benchAgent(20, 50);
await benchSdkTurn(30);

console.log(
  `@switchboard/core-loop bench (Node ${process.version}); target: < ${targetMs} ms loop overhead per turn\n`,
);
const loopMulti = report(
  'agentLoop(), 100-turn tool loop, per turn',
  await benchLoopFunction(100, 200),
  'ms',
);
const loopSingle = report(
  'agentLoop(), single-turn run (prompt → text)',
  await benchLoopFunction(1, 2000),
  'ms',
);
const agentMulti = report('Agent.prompt(), 100-turn tool loop, per turn', await benchAgent(100, 200), 'ms');
const agentSingle = report('Agent.prompt(), single-turn run', await benchAgent(1, 2000), 'ms');
const sdk = report(
  'Agent.prompt(), one turn via @anthropic-ai/sdk → HTTP fake',
  await benchSdkTurn(300),
  'ms',
);

const worst = Math.max(loopMulti, loopSingle, agentMulti, agentSingle);
console.log(
  `\nloop overhead per turn: worst median ${worst.toFixed(4)} ms = ${(worst / targetMs).toFixed(3)} × the ${targetMs} ms target (${worst < targetMs ? 'met' : 'MISSED'})`,
);
console.log(
  `one SDK turn over HTTP costs ${(sdk / worst).toFixed(0)} × the in-process loop overhead per turn`,
);
