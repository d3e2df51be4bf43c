// Overhead of runWithFailover per run, with an in-process attempt (no network): what the
// gateway pays on top of the model call. Prints medians over several rounds.
//   node --conditions=@switchboard/source bench/failover.bench.ts
import { ModelError } from '@switchboard/core-loop';
import {
  type AttemptOutcome,
  createAuthProfileManager,
  createKeyValueAuthStateStorage,
  createMemoryAuthStateStorage,
  type KeyValueStateStore,
} from '../src/index.ts';

const rounds = 7;
const runsPerRound = 5000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function profiles(count: number) {
  const entries: Record<string, { provider: string; mode: 'api_key'; apiKey: string }> = {};
  for (let index = 0; index < count; index += 1) {
    entries[`anthropic:k${index}`] = { provider: 'anthropic', mode: 'api_key', apiKey: `sk-${index}` };
  }
  return entries;
}

/** A key-value store with a JSON round trip per write, like a database would. */
function jsonStore(): KeyValueStateStore {
  const data = new Map<string, string>();
  return {
    getState: async (namespace, key) => {
      const text = data.get(`${namespace}\n${key}`);
      return text === undefined ? undefined : JSON.parse(text);
    },
    putState: async (namespace, key, value) => {
      data.set(`${namespace}\n${key}`, JSON.stringify(value));
    },
    deleteState: async (namespace, key) => {
      data.delete(`${namespace}\n${key}`);
    },
    listState: async (namespace) =>
      [...data]
        .filter(([key]) => key.startsWith(`${namespace}\n`))
        .map(([key, text]) => ({ key: key.slice(namespace.length + 1), value: JSON.parse(text) })),
  };
}

async function measure(name: string, body: (index: number) => Promise<unknown>): Promise<number> {
  const perRun: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const started = performance.now();
    for (let index = 0; index < runsPerRound; index += 1) await body(round * runsPerRound + index);
    perRun.push(((performance.now() - started) * 1000) / runsPerRound);
  }
  const value = median(perRun);
  console.log(
    `${name.padEnd(58)} ${value.toFixed(2).padStart(8)} µs/run (median of ${rounds} x ${runsPerRound})`,
  );
  return value;
}

const ok = async (): Promise<AttemptOutcome<number>> => ({ ok: true, value: 1 });
let clock = Date.now();
const now = () => clock;

const baseline = await measure('direct attempt call (baseline)', () => ok());

const three = await createAuthProfileManager({ config: { profiles: profiles(3) }, now });
const happy = await measure('runWithFailover, 3 keys, first answers (memory storage)', () =>
  three.runWithFailover({ model: 'anthropic/claude-sonnet-4-6', attempt: ok }),
);

const persisted = await createAuthProfileManager({
  config: { profiles: profiles(3) },
  now,
  storage: createKeyValueAuthStateStorage(jsonStore()),
});
const happyJson = await measure('runWithFailover, 3 keys, first answers (JSON key-value)', () =>
  persisted.runWithFailover({ model: 'anthropic/claude-sonnet-4-6', attempt: ok }),
);

const rotating = await createAuthProfileManager({ config: { profiles: profiles(3) }, now });
const limited = new ModelError('rate_limit', '429 rate_limit_error', { status: 429 });
const fallback = await measure('runWithFailover, 429 + rotation + 429 + fallback answers', async () => {
  clock += 400_000; // past every window, so each run sees fresh keys
  return rotating.runWithFailover({
    model: 'anthropic/claude-sonnet-4-6',
    fallbacks: ['anthropic/claude-haiku-4-5'],
    attempt: async (candidate) =>
      candidate.model === 'claude-sonnet-4-6' ? { ok: false, error: limited } : { ok: true, value: 1 },
  });
});

const many = await createAuthProfileManager({
  config: { profiles: profiles(50) },
  now,
  storage: createMemoryAuthStateStorage(),
});
const manyKeys = await measure('runWithFailover, 50 keys round robin, first answers', () =>
  many.runWithFailover({ model: 'anthropic/claude-sonnet-4-6', attempt: ok }),
);
const status = await measure('status() with 50 profiles', async () => many.status());

console.log('');
console.log(
  `overhead per run, 3 keys: ${(happy - baseline).toFixed(2)} µs (memory), ${(happyJson - baseline).toFixed(2)} µs (JSON store)`,
);
console.log(`failover run (3 attempts) / happy run: ${(fallback / happy).toFixed(2)}x`);
console.log(`50 keys / 3 keys: ${(manyKeys / happy).toFixed(2)}x; status(50): ${status.toFixed(2)} µs`);
