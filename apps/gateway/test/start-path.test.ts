// The README's start command (`pnpm start`) and the `switchboard` bin as a supervisor sees
// them: it signals the PID it started and expects the gateway to stop, its port to close and
// no process to stay behind (docs/decisions/0009-start-path-and-signals.md).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readmeCommand, repositoryRoot } from './readme.ts';

const root = repositoryRoot;

interface ProcessRow {
  readonly pid: number;
  readonly parent: number;
  readonly state: string;
  readonly args: string;
}

function processTable(): ProcessRow[] {
  return execFileSync('ps', ['-A', '-o', 'pid=,ppid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => ({
      pid: Number(match[1]),
      parent: Number(match[2]),
      state: match[3] ?? '',
      args: match[4] ?? '',
    }));
}

function descendantsOf(pid: number): ProcessRow[] {
  const table = processTable();
  const found: ProcessRow[] = [];
  const parents = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const row of table) {
      if (parents.has(row.parent) && !parents.has(row.pid)) {
        parents.add(row.pid);
        found.push(row);
        grew = true;
      }
    }
  }
  return found;
}

/** Still running: present and not a zombie (a zombie has exited; its new parent has yet to reap it). */
function running(pids: readonly number[]): ProcessRow[] {
  const wanted = new Set(pids);
  return processTable().filter((row) => wanted.has(row.pid) && !row.state.startsWith('Z'));
}

function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const within = <T>(promise: Promise<T>, ms: number): Promise<T | 'timed out'> =>
  Promise.race([promise, new Promise<'timed out'>((resolve) => setTimeout(resolve, ms, 'timed out'))]);

interface Started {
  readonly child: ChildProcess;
  readonly port: number;
  /** Every process started below `child` (pnpm's shell, shims, the gateway). */
  readonly tree: readonly ProcessRow[];
  readonly output: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when every process holding the child's stdout and stderr has exited. */
  readonly closed: Promise<void>;
}

const startedPids: number[] = [];

/** Starts `command` from the repo root on a fresh state directory; resolves once it listens. */
async function start(command: readonly string[]): Promise<Started> {
  const state = mkdtempSync(join(tmpdir(), 'switchboard-start-path-'));
  writeFileSync(join(state, 'switchboard.json'), JSON.stringify({ gateway: { port: 0 } }));
  const environment = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('SWITCHBOARD_')),
  );
  // The PATH of an operator's shell or a supervisor. Under `pnpm test` it starts with
  // node_modules/.bin, where `node` is the shim that does not pass signals on: `pnpm` itself
  // (`#!/usr/bin/env node`) would then run under it.
  environment.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((entry) => !entry.split(sep).includes('node_modules'))
    .join(delimiter);
  const [file = '', ...args] = command;
  const child = spawn(file, args, {
    cwd: root,
    env: { ...environment, SWITCHBOARD_STATE_DIR: state },
    // Its own process group, as a shell gives a foreground job: Ctrl-C signals the group.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid !== undefined) startedPids.push(child.pid);
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no gateway listening after 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /is listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match !== null) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`${command.join(' ')} exited with ${code} before listening:\n${output}`));
    });
  });
  const tree = descendantsOf(child.pid ?? -1);
  startedPids.push(...tree.map((row) => row.pid));
  return { child, port, tree, output: () => output, exited, closed };
}

/** After the stop: the PID exited 0, nothing is left of the tree and the port is closed. */
async function expectStopped(started: Started, expected: { code: number | null }): Promise<void> {
  const pids = [started.child.pid ?? -1, ...started.tree.map((row) => row.pid)];
  const exit = await within(started.exited, 20_000);
  const closed = await within(started.closed, 20_000);
  const left = running(pids);
  const describe = `tree: ${JSON.stringify(started.tree.map((row) => row.args))}\noutput:\n${started.output()}`;
  expect(exit, describe).toEqual({ code: expected.code, signal: expected.code === null ? 'SIGKILL' : null });
  expect(closed, describe).toBeUndefined();
  expect(left, describe).toEqual([]);
  expect(await portAccepts(started.port), describe).toBe(false);
  expect(started.output()).toContain('gateway stopped');
}

afterAll(() => {
  // Whatever a failed run left behind, by the PIDs this file started.
  for (const row of running(startedPids)) {
    try {
      process.kill(row.pid, 'SIGKILL');
    } catch {}
  }
});

describe('the documented start command under a supervisor', { timeout: 60_000 }, () => {
  const startCommand = readmeCommand('Start the gateway').split(' && ').at(-1)?.split(' ') ?? [];

  it('the README starts the gateway with pnpm start', () => {
    expect(startCommand).toEqual(['pnpm', 'start']);
  });

  it.concurrent('SIGTERM to the PID of pnpm start stops the gateway, exit code 0', async () => {
    const started = await start(startCommand);
    process.kill(started.child.pid ?? -1, 'SIGTERM');
    await expectStopped(started, { code: 0 });
    expect(started.output()).toContain('received SIGTERM, shutting down');
  });

  it.concurrent('SIGINT to the PID of pnpm start stops the gateway, exit code 0', async () => {
    const started = await start(startCommand);
    process.kill(started.child.pid ?? -1, 'SIGINT');
    await expectStopped(started, { code: 0 });
    expect(started.output()).toContain('received SIGINT, shutting down');
  });

  it.concurrent('Ctrl-C (SIGINT to the whole process group) stops it once, quietly, exit code 0', async () => {
    const started = await start(startCommand);
    process.kill(-(started.child.pid ?? -1), 'SIGINT');
    await expectStopped(started, { code: 0 });
    expect(started.output()).not.toContain('ELIFECYCLE');
    expect(started.output()).not.toContain('stopping at once');
  });

  it.concurrent('when pnpm itself is killed (SIGKILL), the gateway notices and shuts down', async () => {
    const started = await start(startCommand);
    process.kill(started.child.pid ?? -1, 'SIGKILL');
    await expectStopped(started, { code: null });
    expect(started.output()).toContain(
      `the process that started the gateway (pid ${started.child.pid}) has exited, shutting down`,
    );
  });

  it.concurrent('the switchboard bin becomes the gateway process itself: SIGTERM to its PID, exit 0', async () => {
    const version = execFileSync('pnpm', ['exec', 'switchboard', '--version'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(version).toMatch(/^switchboard \d+\.\d+\.\d+\n$/);
    const started = await start([join(root, 'node_modules', '.bin', 'switchboard'), 'gateway', 'run']);
    // No shell, no shim: the PID a supervisor holds (systemd's MAINPID) is Node running the CLI.
    expect(started.tree).toEqual([]);
    expect(running([started.child.pid ?? -1])[0]?.args).toMatch(/node .*main\.(ts|mjs) gateway run$/);
    process.kill(started.child.pid ?? -1, 'SIGTERM');
    await expectStopped(started, { code: 0 });
  });
});
