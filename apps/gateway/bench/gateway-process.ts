// What the gateway benches share: the fake model in its own process, a gateway process
// started as users start it (the built bundle, or the sources with --source), a protocol
// client, /proc readings of its CPU and memory, and the medians and targets they print.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';

const here = import.meta.dirname;
const benchToken = 'bench-token-0123456789abcdefghij';

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

/** Issue 28's targets, printed beside each figure: `[target ≤ 150 ms: missed]`. */
export function against(
  value: number,
  limit: number,
  unit: string,
  direction: 'at most' | 'at least' = 'at most',
): string {
  const met = direction === 'at most' ? value <= limit : value >= limit;
  return `[target ${direction === 'at most' ? '≤' : '≥'} ${limit.toLocaleString('en')} ${unit}: ${met ? 'met' : 'missed'}]`;
}

/** The gateway entry the bench runs: the built bundle, or the sources (`--source`). Exits when the bundle is missing. */
export function gatewayEntry(source: boolean): string {
  const entry = source ? join(here, '..', 'src', 'main.ts') : join(here, '..', 'dist', 'main.mjs');
  if (!source && !existsSync(entry)) {
    console.error('Build the gateway first (pnpm --filter @switchboard/gateway build), or pass --source.');
    process.exit(2);
  }
  return entry;
}

export function startFakeModel(): Promise<{ baseURL: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=@switchboard/source', join(here, 'fake-model.ts')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      const match = /BASE_URL (\S+)/.exec(chunk.toString());
      if (match?.[1] !== undefined) resolve({ baseURL: match[1], child });
    });
    child.once('exit', (code) => reject(new Error(`fake model exited with ${code}`)));
  });
}

/** The config every bench gateway starts from: token auth, the fake model, warnings only. */
export function benchConfig(
  baseURL: string,
  agentDefaults: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    gateway: { port: 0, auth: { mode: 'token', token: benchToken } },
    models: { providers: { anthropic: { baseUrl: baseURL, apiKey: 'bench-key' } } },
    agents: { defaults: { model: 'anthropic/claude-sonnet-4-6', maxConcurrent: 8, ...agentDefaults } },
    logging: { level: 'warn' },
  };
}

export interface RunningGateway {
  readonly child: ChildProcess;
  readonly port: number;
  /** From spawning the process to its first `hello-ok`. */
  readonly startMs: number;
  /** The gateway process's CPU time (user + system) up to its first `hello-ok`: less noisy than `startMs` on a busy machine. */
  readonly startCpuMs: number;
  readonly stateDirectory: string;
}

export interface StartOptions {
  readonly entry: string;
  readonly source: boolean;
  readonly config: Record<string, unknown>;
  /** An existing state directory (a seeded store); a fresh temporary one when absent. */
  readonly stateDirectory?: string;
  /** Extra environment variables for the gateway process. */
  readonly environment?: Readonly<Record<string, string>>;
}

/** Starts `switchboard gateway run` in its own process; resolves at its first `hello-ok`. */
export function startGatewayProcess(options: StartOptions): Promise<RunningGateway> {
  const state = options.stateDirectory ?? mkdtempSync(join(tmpdir(), 'switchboard-bench-'));
  writeFileSync(join(state, 'switchboard.json'), JSON.stringify(options.config));
  const started = performance.now();
  const profile =
    process.env.BENCH_CPU_PROFILE === undefined
      ? []
      : ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`];
  const heap = process.env.BENCH_HEAP_SNAPSHOT === undefined ? [] : [`--heapsnapshot-signal=SIGUSR2`];
  const extra = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter((flag) => flag.length > 0);
  const args = [
    ...extra,
    ...profile,
    ...heap,
    ...(options.source ? ['--conditions=@switchboard/source', options.entry] : [options.entry]),
  ];
  const child = spawn(process.execPath, [...args, 'gateway', 'run', '--state-dir', state], {
    cwd: process.env.BENCH_HEAP_SNAPSHOT ?? process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.environment, SWITCHBOARD_STATE_DIR: state },
  });
  return new Promise((resolve, reject) => {
    const onData = async (chunk: Buffer) => {
      const match = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(chunk.toString());
      if (match === null) return;
      const port = Number(match[1]);
      const client = await connect(port);
      const startMs = performance.now() - started;
      const startCpuMs = processStats(child.pid ?? 0).cpuMs;
      client.close();
      resolve({ child, port, startMs, startCpuMs, stateDirectory: state });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      if (/error/i.test(chunk.toString())) process.stderr.write(chunk);
    });
    child.once('exit', (code) => reject(new Error(`gateway exited with ${code}`)));
  });
}

/** The repository root (where the README's commands run). */
const repositoryRoot: string = join(here, '..', '..', '..');

/**
 * Milliseconds from running `command` in the repository root (the README's start command,
 * `pnpm start`) to its gateway's first `hello-ok`; the process group is stopped afterwards.
 */
export function timeStartCommand(
  command: string,
  args: readonly string[],
  config: Record<string, unknown>,
): Promise<number> {
  const state = mkdtempSync(join(tmpdir(), 'switchboard-bench-'));
  writeFileSync(join(state, 'switchboard.json'), JSON.stringify(config));
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: repositoryRoot,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SWITCHBOARD_STATE_DIR: state },
  });
  return new Promise((resolve, reject) => {
    let elapsed: number | undefined;
    child.stdout?.on('data', async (chunk: Buffer) => {
      const match = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(chunk.toString());
      if (match === null || elapsed !== undefined) return;
      const client = await connect(Number(match[1]));
      elapsed = performance.now() - started;
      client.close();
      process.kill(-child.pid!, 'SIGTERM');
    });
    child.stderr?.on('data', () => undefined);
    child.once('exit', (code) =>
      elapsed === undefined
        ? reject(new Error(`${command} ${args.join(' ')} exited with ${code} before its gateway answered`))
        : resolve(elapsed),
    );
  });
}

/** Milliseconds for a command to run and exit in the repository root. */
export function timeCommand(command: string, args: readonly string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(command, args, { cwd: repositoryRoot, stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`${command} exited with ${code}`)),
    );
  });
}

export async function stop(gateway: RunningGateway): Promise<void> {
  const exited = new Promise((resolve) => gateway.child.once('exit', resolve));
  gateway.child.kill('SIGTERM');
  await exited;
}

export interface Client {
  /** Runs one `agent` turn; resolves with the milliseconds from request to final. */
  agent(sessionKey: string, message: string): Promise<number>;
  /** Any other method; resolves with its payload and the round trip in milliseconds. */
  request(method: string, params?: Record<string, unknown>): Promise<{ payload: unknown; ms: number }>;
  close(): void;
}

interface Pending {
  readonly started: number;
  readonly resolve: (result: { payload: unknown; ms: number }) => void;
  readonly reject: (error: Error) => void;
}

/**
 * A protocol client as the gateway's own clients connect (WebChat, the CLI): session-scoped
 * events, so it receives its own runs' events and a `session.run` summary of the others.
 * `caps: []` connects as OpenClaw's clients do (every run's events).
 */
export function connect(
  port: number,
  scopes: readonly string[] = ['operator.write'],
  caps: readonly string[] = ['session-scoped-events'],
): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}`, { perMessageDeflate: false });
    const pending = new Map<string, Pending>();
    const send = (method: string, params: Record<string, unknown>, id = randomUUID()) =>
      new Promise<{ payload: unknown; ms: number }>((done, fail) => {
        pending.set(id, { started: performance.now(), resolve: done, reject: fail });
        socket.send(JSON.stringify({ type: 'req', id, method, params }));
      });
    socket.on('error', reject);
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as {
        type: string;
        id?: string;
        ok?: boolean;
        event?: string;
        payload?: { status?: string };
        error?: unknown;
      };
      if (frame.type === 'event' && frame.event === 'connect.challenge') {
        socket.send(
          JSON.stringify({
            type: 'req',
            id: 'connect',
            method: 'connect',
            params: {
              minProtocol: 4,
              maxProtocol: 4,
              client: { id: 'test', mode: 'test', version: '1', platform: 'linux' },
              scopes,
              caps,
              auth: { token: benchToken },
            },
          }),
        );
        return;
      }
      if (frame.type !== 'res' || frame.id === undefined) return;
      if (frame.id === 'connect') {
        if (!frame.ok) reject(new Error(JSON.stringify(frame.error)));
        else
          resolve({
            async agent(sessionKey, message) {
              const id = randomUUID();
              return (await send('agent', { message, idempotencyKey: id, sessionKey }, id)).ms;
            },
            request: (method, params = {}) => send(method, params),
            close: () => socket.close(),
          });
        return;
      }
      const waiting = pending.get(frame.id);
      if (waiting === undefined || (frame.ok && frame.payload?.status === 'accepted')) return;
      pending.delete(frame.id);
      if (frame.ok) waiting.resolve({ payload: frame.payload, ms: performance.now() - waiting.started });
      else waiting.reject(new Error(JSON.stringify(frame.error)));
    });
  });
}

export function processStats(pid: number): { rssMb: number; cpuMs: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  const ticks = Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  return { rssMb: rssKb / 1024, cpuMs: (ticks * 1000) / 100 };
}

/** Resident memory by mapping (file name, [heap], [anon]…), largest first, in MB. */
export function residentByMapping(pid: number): string {
  const totals = new Map<string, number>();
  let current = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header !== null) {
      current = header[1] === '' ? '[anonymous]' : (header[1] ?? '');
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss !== null) totals.set(current, (totals.get(current) ?? 0) + Number(rss[1]));
  }
  return [...totals]
    .sort((left, right) => right[1] - left[1])
    .slice(0, 6)
    .map(([name, kb]) => `${name.split('/').pop()} ${(kb / 1024).toFixed(1)}`)
    .join(', ');
}

/** The `memory` section of `status`. */
export async function memoryDetail(port: number): Promise<unknown> {
  const client = await connect(port, ['operator.read']);
  const { payload } = await client.request('status');
  client.close();
  return (payload as { memory?: unknown }).memory;
}
