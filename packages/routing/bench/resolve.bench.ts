/**
 * resolveAgentRoute throughput with 1,000 bindings over 10 channels and 100 accounts.
 *
 *   pnpm --filter @switchboard/routing bench
 *   (node --expose-gc --conditions=@switchboard/source bench/resolve.bench.ts [--runs 7])
 *
 * First, every input any mode times is resolved by a naive reference
 * (test/reference-resolver.ts, a plain scan written from the spec) and by the fast
 * resolver without a route cache, with one, and from the cache; any difference aborts the
 * bench. Then each measurement runs in a fresh child process (one resolver set-up per
 * process, as in the gateway, so no mode's type feedback slows another's code), the modes
 * taking turns round by round so they see the same machine load. Medians over the runs:
 *   cold    a fresh config object every 1,000 resolves, so every index is rebuilt
 *           (index build time reported separately)
 *   warm    indexes built, route cache disabled, realistic mixed traffic
 *   missed  indexes built, route cache on, every peer new (every lookup misses)
 *   cached  the same 2,000 conversations over and over (every lookup hits)
 */
import { execFileSync } from 'node:child_process';
import { isDeepStrictEqual } from 'node:util';
import {
  createRouteResolver,
  type ResolveAgentRouteInput,
  type ResolvedAgentRoute,
  type RoutingConfig,
} from '@switchboard/routing';
import { referenceResolve } from '../test/reference-resolver.ts';
import {
  accountsOf,
  CHANNELS,
  createLargeConfig,
  createRandom,
  sampleInput,
} from '../test/route-fixtures.ts';

const OPENCLAW_RESOLVES_PER_SECOND = 790_000;
const TARGET_RESOLVES_PER_SECOND = 2_400_000;
const COLD_BATCH = 1_000;
const MODES = ['cold', 'warm', 'missed', 'cached'] as const;
type ModeName = (typeof MODES)[number];

function argument(name: string): string | undefined {
  const position = process.argv.indexOf(name);
  return position === -1 ? undefined : process.argv[position + 1];
}

const fixture = createLargeConfig(1);
const config = fixture.config;
const pairs = CHANNELS.flatMap((channel) =>
  [...accountsOf(channel), 'default'].map((accountId) => ({ channel, accountId })),
);

function sample(count: number, seed: number, unique: boolean): ResolveAgentRouteInput[] {
  const random = createRandom(seed);
  return Array.from({ length: count }, (_, index) =>
    sampleInput(fixture, random, unique ? `u${seed}-${index}` : undefined),
  );
}

const inputSets = {
  mixed: (): ResolveAgentRouteInput[] => sample(20_000, 11, false),
  unique: (): ResolveAgentRouteInput[] => sample(30_000, 12, true),
  repeated: (): ResolveAgentRouteInput[] => sample(2_000, 13, false),
};

let sink = 0;

function rate(count: number, nanoseconds: bigint): number {
  return count / (Number(nanoseconds) / 1e9);
}

function timeResolves(
  resolve: (input: ResolveAgentRouteInput) => ResolvedAgentRoute,
  inputs: readonly ResolveAgentRouteInput[],
  count: number,
): number {
  const length = inputs.length;
  const started = process.hrtime.bigint();
  for (let index = 0; index < count; index += 1) {
    sink += resolve(inputs[index % length] as ResolveAgentRouteInput).sessionKey.length;
  }
  return rate(count, process.hrtime.bigint() - started);
}

const collectGarbage = (globalThis as { gc?: () => void }).gc ?? (() => {});

/** One measurement of one mode, after warming up the same code path; resolves per second. */
function measure(mode: ModeName): number {
  if (mode === 'cold') {
    // The bench's own mutable inputs, re-pointed at each fresh config the way a dispatcher
    // would pass its current config.
    const inputs = inputSets
      .mixed()
      .slice(0, COLD_BATCH)
      .map((input) => ({ ...input }));
    const once = (batches: number): number => {
      const resolver = createRouteResolver();
      const configs: RoutingConfig[] = Array.from({ length: batches }, () => ({ ...config }));
      collectGarbage();
      const started = process.hrtime.bigint();
      for (const fresh of configs) {
        for (const input of inputs) {
          input.config = fresh;
          sink += resolver.resolveAgentRoute(input).sessionKey.length;
        }
      }
      return rate(batches * COLD_BATCH, process.hrtime.bigint() - started);
    };
    once(100);
    return once(200);
  }
  if (mode === 'warm') {
    const inputs = inputSets.mixed();
    const resolver = createRouteResolver({ routeCacheCapacity: 0 });
    timeResolves(resolver.resolveAgentRoute, inputs, 500_000);
    collectGarbage();
    return timeResolves(resolver.resolveAgentRoute, inputs, 1_000_000);
  }
  if (mode === 'missed') {
    // Every resolver starts with built indexes and an empty route cache, so each pass over
    // the inputs misses every time.
    const inputs = inputSets.unique();
    const once = (): number => {
      const resolver = createRouteResolver();
      for (const pair of pairs) sink += resolver.resolveAgentRoute({ config, ...pair }).sessionKey.length;
      collectGarbage();
      return timeResolves(resolver.resolveAgentRoute, inputs, inputs.length);
    };
    for (let pass = 0; pass < 5; pass += 1) once();
    const rates = Array.from({ length: 5 }, once);
    return median(rates);
  }
  const inputs = inputSets.repeated();
  const resolver = createRouteResolver();
  timeResolves(resolver.resolveAgentRoute, inputs, 1_000_000);
  collectGarbage();
  const measured = timeResolves(resolver.resolveAgentRoute, inputs, 2_000_000);
  const stats = resolver.stats(config);
  if (stats === null || stats.routeCacheMisses > inputs.length * 3)
    throw new Error('cached mode missed the cache');
  return measured;
}

/** Index build times in µs: normalizing and bucketing the bindings, and building every pair's index. */
function measureBuild(): { prepare: number; indexes: number } {
  const prepareTimes: number[] = [];
  const indexTimes: number[] = [];
  for (let run = 0; run < 60; run += 1) {
    const resolver = createRouteResolver();
    const fresh = { ...config };
    let started = process.hrtime.bigint();
    resolver.prepare(fresh);
    const prepared = process.hrtime.bigint() - started;
    started = process.hrtime.bigint();
    for (const pair of pairs)
      sink += resolver.resolveAgentRoute({ config: fresh, ...pair }).sessionKey.length;
    const built = process.hrtime.bigint() - started;
    if (run >= 30) {
      prepareTimes.push(Number(prepared) / 1e3);
      indexTimes.push(Number(built) / 1e3);
    }
  }
  return { prepare: median(prepareTimes), indexes: median(indexTimes) };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

// --- a child: one measurement, printed as JSON ----------------------------------------------
const child = argument('--child');
if (child !== undefined) {
  const result = child === 'build' ? measureBuild() : { rate: measure(child as ModeName) };
  process.stdout.write(`${JSON.stringify({ ...result, sink: sink > 0 })}\n`);
  process.exit(0);
}

// --- the parent: answers first ---------------------------------------------------------------
type Resolve = (input: ResolveAgentRouteInput) => ResolvedAgentRoute;

function verify(
  label: string,
  resolvers: readonly Resolve[],
  inputs: readonly ResolveAgentRouteInput[],
): number {
  const expected = inputs.map((input) => referenceResolve(input));
  let checked = 0;
  for (const resolve of resolvers) {
    inputs.forEach((input, position) => {
      const fast = resolve(input);
      if (!isDeepStrictEqual({ ...fast }, expected[position])) {
        console.error(`MISMATCH (${label}) for input`, { ...input, config: '<config>' });
        console.error('  fast:     ', fast);
        console.error('  reference:', expected[position]);
        process.exit(1);
      }
      checked += 1;
    });
  }
  return checked;
}

// Without a route cache, and with one three times over: a route is cached on its second
// miss, so the third pass is answered from the cache.
const verifyCached = createRouteResolver().resolveAgentRoute;
const verifyUncached = createRouteResolver({ routeCacheCapacity: 0 }).resolveAgentRoute;
const everyWay: Resolve[] = [verifyUncached, verifyCached, verifyCached, verifyCached];
const mixedInputs = inputSets.mixed();
let verified = 0;
verified += verify('mixed traffic', everyWay, mixedInputs);
verified += verify('unique peers', everyWay, inputSets.unique());
verified += verify('repeated conversations', everyWay, inputSets.repeated());
verified += verify(
  'every (channel, account) pair',
  everyWay,
  pairs.flatMap(({ channel, accountId }) => [
    { config, channel, accountId },
    { config, channel, accountId, peer: { kind: 'direct', id: '' } },
    { config, channel, accountId, peer: { kind: 'group', id: ' MixedCase ' } },
  ]),
);
const matchedBy = new Map<string, number>();
for (const input of mixedInputs) {
  const tier = verifyUncached(input).matchedBy;
  matchedBy.set(tier, (matchedBy.get(tier) ?? 0) + 1);
}

// --- the parent: measurements in child processes ------------------------------------------------
const runs = Number(argument('--runs') ?? 7);

function inChild(what: string): Record<string, number> {
  const output = execFileSync(
    process.execPath,
    [...process.execArgv, import.meta.filename, '--child', what],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return JSON.parse(output) as Record<string, number>;
}

const rates = new Map<ModeName, number[]>(MODES.map((mode) => [mode, []]));
for (let round = 0; round < runs; round += 1) {
  for (const mode of MODES) rates.get(mode)?.push(inChild(mode).rate as number);
}
const build = inChild('build');

// --- report ----------------------------------------------------------------------------------
const descriptions: Record<ModeName, string> = {
  cold: `fresh config object every ${COLD_BATCH} resolves (indexes rebuilt)`,
  warm: 'indexes built, route cache disabled, mixed traffic',
  missed: 'indexes built, route cache on, every peer new (all misses)',
  cached: '2,000 conversations repeated (all hits)',
};
const format = (value: number): string => Math.round(value).toLocaleString('en-US');
console.log(`@switchboard/routing resolve bench (node ${process.version}, ${runs} runs per mode)`);
console.log(
  `config: ${config.bindings?.length} bindings, ${CHANNELS.length} channels, ${pairs.length - CHANNELS.length} accounts, ${config.agents?.list?.length} agents`,
);
console.log(
  `verified ${format(verified)} answers (every timed input, uncached, cached and from the cache) against the naive reference: all identical`,
);
console.log(
  `tiers hit by the mixed traffic: ${[...matchedBy].map(([tier, count]) => `${tier} ${((count / mixedInputs.length) * 100).toFixed(1)}%`).join(', ')}`,
);
console.log('');
console.log('mode     median resolves/s   min .. max                 vs OpenClaw 2026.9.6 (790,000/s)');
for (const mode of MODES) {
  const measured = rates.get(mode) ?? [];
  const middle = median(measured);
  const range = `${format(Math.min(...measured))} .. ${format(Math.max(...measured))}`;
  const ratio = `${(middle / OPENCLAW_RESOLVES_PER_SECOND).toFixed(2)}x`;
  const note = middle >= TARGET_RESOLVES_PER_SECOND ? '' : '  (below 2,400,000/s)';
  console.log(
    `${mode.padEnd(8)} ${format(middle).padStart(17)}   ${range.padEnd(25)}  ${ratio}${note}   ${descriptions[mode]}`,
  );
}
console.log('');
console.log(
  `index build (median): normalize + bucket ${config.bindings?.length} bindings ${(build.prepare as number).toFixed(0)} µs; ` +
    `build ${pairs.length} (channel, account) indexes ${(build.indexes as number).toFixed(0)} µs ` +
    `(${((build.indexes as number) / pairs.length).toFixed(1)} µs each)`,
);
