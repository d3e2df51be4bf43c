// The subagent bench (issue 23): what delegating costs in time, with testkit's fake Anthropic at
// zero latency. The gateway and the fake run in this process (one clock, performance.now()).
//
//   pnpm exec node --conditions=@switchboard/source apps/gateway/bench/subagents.bench.ts [--runs N]
//
// - plain turn: the `agent` request sent → the model request of that turn arrives at the fake
//   (a fresh session each time: the child's first turn is also a fresh session's);
// - spawn → child's first model request: the `sessions_spawn` call's own duration (its record,
//   the child session, the journal: after_tool_call's durationMs) plus the time from its return
//   to the child's model request; the overhead is that minus the plain turn;
// - announcement: the child's run ended (agent_end) → the requester's announcement turn sends
//   its model request. The child answers only once the requester's own turn has ended, so the
//   announcement never waits behind it and the number is the announcement path alone.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { definePlugin } from '@switchboard/hooks';
import { createFakeAnthropic, type RecordedRequest } from '@switchboard/testkit/anthropic';
import { startGateway } from '../src/gateway/start-gateway.ts';
import { createGatewayLogger } from '../src/runtime/logger.ts';
import { connectClient } from '../test/protocol-client.ts';

const runsArgument = process.argv.indexOf('--runs');
const runs = runsArgument === -1 ? 30 : Number(process.argv[runsArgument + 1]);
const warmup = 5;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}
const ms = (value: number) => `${value.toFixed(2)} ms`;

/** Resolves the next time `key` is marked, with the performance.now() of the mark. */
function createMarks() {
  const seen = new Map<string, number>();
  const waiting = new Map<string, (time: number) => void>();
  return {
    mark(key: string) {
      const time = performance.now();
      if (seen.has(key)) return;
      seen.set(key, time);
      waiting.get(key)?.(time);
    },
    when(key: string, timeoutMs = 30_000): Promise<number> {
      const time = seen.get(key);
      if (time !== undefined) return Promise.resolve(time);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${key} within ${timeoutMs} ms`)), timeoutMs);
        waiting.set(key, (at) => {
          clearTimeout(timer);
          resolve(at);
        });
      });
    },
  };
}

const marks = createMarks();
/** The sessions_spawn call's own duration (record, child session, journal), by run index. */
const spawnDurations = new Map<string, number>();
const lastIsToolResult = (request: RecordedRequest): boolean => {
  const last = request.messages.at(-1)?.content;
  return Array.isArray(last) && last.some((block) => (block as { type: string }).type === 'tool_result');
};

const model = await createFakeAnthropic({
  recordLimit: 10,
  fallback: async (request) => {
    const text = request.lastUserText ?? '';
    if (text.startsWith('plain ')) {
      marks.mark(`model:${text}`);
      return { text: 'plain answer' };
    }
    if (lastIsToolResult(request)) return { text: 'A helper is on it.' };
    if (text.startsWith('[Subagent result')) {
      const index = /CHILD (\d+)/.exec(text)?.[1];
      marks.mark(`announce-request:${index}`);
      return { text: 'relayed' };
    }
    const child = /^CHILD (\d+)$/.exec(text)?.[1];
    if (child !== undefined) {
      marks.mark(`child-request:${child}`);
      // Answer once the requester's turn is over, so the announcement does not queue behind it.
      await marks.when(`requester-end:${child}`);
      return { text: `child ${child} done` };
    }
    const delegate = /^delegate (\d+)$/.exec(text)?.[1];
    if (delegate !== undefined)
      return {
        toolCalls: [
          { name: 'sessions_spawn', input: { task: `CHILD ${delegate}`, label: `CHILD ${delegate}` } },
        ],
      };
    return { text: 'ok' };
  },
}).start();

const timing = definePlugin({
  name: 'bench-timing',
  version: '1.0.0',
  specVersion: 1,
  setup(api) {
    api.on('after_tool_call', (event) => {
      if (event.toolName !== 'sessions_spawn') return;
      const index = String(event.params.task).slice('CHILD '.length);
      spawnDurations.set(index, event.durationMs);
      marks.mark(`spawn-returned:${index}`);
    });
    api.on('agent_end', (event) => {
      const bench = /^agent:main:bench-(\d+)$/.exec(event.sessionKey)?.[1];
      if (bench !== undefined) marks.mark(`requester-end:${bench}`);
      if (event.sessionKey.includes(':subagent:')) {
        const task = event.messages.find((message) => message.role === 'user');
        const index = /CHILD (\d+)/.exec(JSON.stringify(task?.content ?? ''))?.[1];
        if (index !== undefined) marks.mark(`child-end:${index}`);
      }
    });
  },
});

const stateDirectory = mkdtempSync(join(tmpdir(), 'switchboard-subagent-bench-'));
writeFileSync(
  join(stateDirectory, 'switchboard.json'),
  JSON.stringify({
    gateway: { port: 0, auth: { mode: 'token', token: 'bench-token-0123456789abcdef' } },
    models: { providers: { anthropic: { baseUrl: model.baseURL, apiKey: 'bench-key' } } },
    agents: { defaults: { model: 'anthropic/claude-sonnet-4-6' } },
    logging: { level: 'warn' },
  }),
);
const gateway = await startGateway({
  stateDirectory,
  environment: {},
  logger: createGatewayLogger({ level: 'warn', write: (line) => process.stderr.write(`${line}\n`) }),
  plugins: [timing],
});
const { client, hello } = await connectClient(gateway.url, {
  token: gateway.token,
  scopes: ['operator.admin'],
});
if (!hello.ok) throw new Error(`connect failed: ${JSON.stringify(hello.error)}`);

const plain: number[] = [];
const spawnToChild: number[] = [];
const spawnCall: number[] = [];
const announce: number[] = [];
for (let index = 0; index < warmup + runs; index += 1) {
  const counted = index >= warmup;
  // A plain turn in a fresh session.
  const sentAt = performance.now();
  const request = client.requestFinal('agent', {
    message: `plain ${index}`,
    idempotencyKey: `plain-${index}`,
    sessionKey: `agent:main:plain-${index}`,
  });
  const modelAt = await marks.when(`model:plain ${index}`);
  await request;
  if (counted) plain.push(modelAt - sentAt);

  // A spawn, its child's first model request, and the announcement after the child's end.
  await client.requestFinal('agent', {
    message: `delegate ${index}`,
    idempotencyKey: `delegate-${index}`,
    sessionKey: `agent:main:bench-${index}`,
  });
  const returned = await marks.when(`spawn-returned:${index}`);
  const childRequest = await marks.when(`child-request:${index}`);
  const childEnd = await marks.when(`child-end:${index}`);
  const announced = await marks.when(`announce-request:${index}`);
  await gateway.dispatcher.whenIdle();
  if (counted) {
    spawnToChild.push(childRequest - returned);
    spawnCall.push(spawnDurations.get(String(index)) ?? Number.NaN);
    announce.push(announced - childEnd);
  }
}

const plainMedian = median(plain);
const spawnMedian = median(spawnToChild);
const wholeSpawn = spawnCall.map((duration, index) => duration + (spawnToChild[index] ?? Number.NaN));
console.log(
  `subagents bench: ${runs} runs each (after ${warmup} warm-up), fake model at zero latency, one process`,
);
console.log(
  `  plain turn, request → model request:           median ${ms(plainMedian)}, p90 ${ms(percentile(plain, 90))}`,
);
console.log(
  `  sessions_spawn returned → child model request:  median ${ms(spawnMedian)}, p90 ${ms(percentile(spawnToChild, 90))}`,
);
console.log(
  `  the sessions_spawn call itself (durationMs):    median ${ms(median(spawnCall))}, p90 ${ms(percentile(spawnCall, 90))}`,
);
console.log(
  `  spawn called → child model request:            median ${ms(median(wholeSpawn))}, p90 ${ms(percentile(wholeSpawn, 90))}`,
);
console.log(
  `  spawn called → child request, minus plain turn: median ${ms(median(wholeSpawn) - plainMedian)} (${(median(wholeSpawn) / plainMedian).toFixed(2)}x)`,
);
console.log(
  `  child ended → announcement model request:       median ${ms(median(announce))}, p90 ${ms(percentile(announce, 90))}`,
);

client.close();
await gateway.close('bench over', 2000);
await model.close();
rmSync(stateDirectory, { recursive: true, force: true });
