// Requests per second through the fake Anthropic API in zero-latency streaming mode.
//
//   pnpm --filter @switchboard/testkit bench
//   node --conditions=@switchboard/source bench/anthropic.bench.ts [runs] [seconds] [concurrency]
//
// Client and fake share one process (and the machine's cores), as in the gateway's own
// benches. Each scenario runs `runs` times for `seconds` with `concurrency` requests in
// flight, after a short warm-up, and prints the median.
import { Agent, request as httpRequest } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { createFakeAnthropic } from '@switchboard/testkit/anthropic';

const runs = Number(process.argv[2] ?? 5);
const seconds = Number(process.argv[3] ?? 2);
const concurrency = Number(process.argv[4] ?? 16);

// A typical short reply: 240 characters, 15 text deltas of 16 characters.
const replyText = 'The quick brown fox jumps over the lazy dog. '.repeat(6).slice(0, 240);
const fake = await createFakeAnthropic({ fallback: { text: replyText }, recordLimit: 1000 }).start();
const client = new Anthropic({ baseURL: fake.baseURL, apiKey: 'sk-bench', maxRetries: 0 });
const params = {
  model: 'claude-bench',
  max_tokens: 1024,
  system: 'You are a benchmark.',
  messages: [{ role: 'user' as const, content: 'Say something short.' }],
};
const rawBody = JSON.stringify({ ...params, stream: true });

const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const rawHeaders = {
  'content-type': 'application/json',
  'anthropic-version': '2023-06-01',
  'x-api-key': 'k',
};

type Scenario = () => Promise<void>;

const scenarios: Record<string, Scenario> = {
  'SDK messages.stream().finalMessage()': async () => {
    const message = await client.messages.stream(params).finalMessage();
    if (message.content[0]?.type !== 'text') throw new Error('unexpected reply');
  },
  'SDK messages.create({ stream: true }), events iterated': async () => {
    const stream = await client.messages.create({ ...params, stream: true });
    let events = 0;
    for await (const _event of stream) events += 1;
    if (events < 5) throw new Error('too few events');
  },
  'raw fetch + text() (no SDK)': async () => {
    const response = await fetch(`${fake.baseURL}/v1/messages`, {
      method: 'POST',
      headers: rawHeaders,
      body: rawBody,
    });
    await response.text();
  },
  'node:http keep-alive client (the fake ceiling here)': () =>
    new Promise<void>((resolve, reject) => {
      const outgoing = httpRequest(
        `${fake.baseURL}/v1/messages`,
        { method: 'POST', headers: rawHeaders, agent },
        (incoming) => {
          incoming.on('data', () => {});
          incoming.on('end', resolve);
          incoming.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(rawBody);
    }),
};

async function measure(scenario: Scenario, durationMs: number): Promise<number> {
  const deadline = performance.now() + durationMs;
  let completed = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      await scenario();
      completed += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return completed / ((performance.now() - started) / 1000);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

console.log(
  `fake Anthropic API, zero latency, ${concurrency} in flight, ${runs} runs x ${seconds} s, node ${process.version}`,
);
const results: Array<[string, number]> = [];
for (const [name, scenario] of Object.entries(scenarios)) {
  await measure(scenario, 500);
  const rates: number[] = [];
  for (let run = 0; run < runs; run += 1) rates.push(await measure(scenario, seconds * 1000));
  const rate = median(rates);
  results.push([name, rate]);
  console.log(
    `  ${name.padEnd(56)} median ${Math.round(rate).toString().padStart(6)} req/s  (runs: ${rates.map((value) => Math.round(value)).join(', ')})`,
  );
}
const sdkRate = results[0]![1];
const ceilingRate = results[3]![1];
console.log(`  ratio node:http ceiling / SDK stream helper: ${(ceilingRate / sdkRate).toFixed(2)}x`);
console.log(
  `  requests recorded: ${fake.requests.length} kept of ${fake.lastRequest?.sequence ?? 0} received`,
);
agent.destroy();
await fake.close();
