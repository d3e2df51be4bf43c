// What the sandbox costs per command: `exec true` through the sandbox (bubblewrap with every
// namespace, the read-only system binds, prlimit, then `bash -lc true`) against the same
// `bash -lc true` spawned plainly, and a bare `/bin/true` spawn for scale. Runs are
// interleaved so a busy machine slows all three alike. Target: under 20 ms median added.
//
//   pnpm --filter @switchboard/sandbox bench
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveSandboxPolicy } from '../src/policy.ts';
import { createSandbox } from '../src/sandbox.ts';
import { createSandboxTools } from '../src/tools.ts';

const runs = Number(process.env.BENCH_RUNS ?? 60);
const workspace = mkdtempSync(join(tmpdir(), 'switchboard-sandbox-bench-'));
const sandbox = createSandbox();
const probe = await sandbox.probe();
if (!probe.usable) throw new Error(probe.reason);
const policy = resolveSandboxPolicy();
const environment = { PATH: '/usr/bin:/bin', HOME: workspace, LANG: 'C.UTF-8' };
const [execTool] = createSandboxTools({ sandbox, sessionKey: 'bench', workspaceHostPath: workspace, policy });
if (execTool === undefined) throw new Error('no exec tool');

function plain(file: string, argumentsList: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, [...argumentsList], {
      cwd: workspace,
      env: environment,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.once('error', reject);
    child.once('close', () => resolve());
  });
}

const cases: Record<string, () => Promise<unknown>> = {
  'spawn /bin/true': () => plain('/bin/true', []),
  'spawn bash -lc true': () => plain('/bin/bash', ['-lc', 'true']),
  'sandbox exec true': () =>
    sandbox.exec({ sessionKey: 'bench', workspaceHostPath: workspace, policy, command: 'true' }),
  'exec tool true': () =>
    execTool.execute('bench', { command: 'true' }, new AbortController().signal, () => {}),
};

const samples: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (const run of Object.values(cases)) await run(); // warm-up
for (let index = 0; index < runs; index += 1) {
  for (const [name, run] of Object.entries(cases)) {
    const started = performance.now();
    await run();
    samples[name]?.push(performance.now() - started);
  }
}
await sandbox.close();

const percentile = (values: number[], fraction: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] as number;
};
console.log(`bubblewrap ${probe.version}, process limit: ${sandbox.processLimit()}, ${runs} runs each`);
for (const [name, values] of Object.entries(samples)) {
  console.log(
    `${name.padEnd(22)} median ${percentile(values, 0.5).toFixed(1).padStart(6)} ms   p99 ${percentile(values, 0.99).toFixed(1).padStart(6)} ms`,
  );
}
const bash = percentile(samples['spawn bash -lc true'] ?? [], 0.5);
const sandboxed = percentile(samples['sandbox exec true'] ?? [], 0.5);
const tool = percentile(samples['exec tool true'] ?? [], 0.5);
console.log(
  `sandbox added per command (median): ${(sandboxed - bash).toFixed(1)} ms (x${(sandboxed / bash).toFixed(2)}); exec tool layer: ${(tool - sandboxed).toFixed(1)} ms; target under 20 ms`,
);
