import { type ChildProcess, spawn } from 'node:child_process';
import { SandboxError } from './errors.ts';
import { OutputLog } from './output-log.ts';
import type { PidsCgroup } from './pids-cgroup.ts';

/** How a sandboxed command ended. */
export interface SandboxExit {
  /** The command's exit code; null when a signal ended it. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Killed because it outlived its wall time. */
  readonly timedOut: boolean;
  /** Killed on request (the process tool, a session reset, the gateway stopping, an aborted run). */
  readonly killed: boolean;
  readonly durationMs: number;
}

/** One running (or finished) sandboxed command. */
export interface SandboxProcess {
  /** The host pid of bubblewrap. */
  readonly pid: number;
  readonly command: string;
  readonly startedAt: number;
  readonly output: OutputLog;
  /** Settles when the command and every process it started are gone; never rejects. */
  readonly exit: Promise<SandboxExit>;
  /** The exit once known. */
  exited(): SandboxExit | undefined;
  /** Whether stdin still takes input. */
  stdinOpen(): boolean;
  /** Writes to the command's stdin; `end` closes it afterwards. */
  write(text: string, end: boolean): Promise<void>;
  /** Kills the whole sandbox (SIGKILL); a no-op once exited. */
  kill(): void;
}

export interface StartSandboxProcessOptions {
  readonly bwrapPath: string;
  readonly bwrapArguments: readonly string[];
  /** The command's whole environment (nothing of the gateway's is added). */
  readonly environment: Readonly<Record<string, string>>;
  /** For display and logs. */
  readonly command: string;
  readonly timeoutMs: number;
  readonly outputBytes: number;
  /** Keep stdin open for `write` (background jobs); otherwise the command reads end-of-file. */
  readonly keepStdinOpen: boolean;
  /** A pids cgroup to start the sandbox in (the process limit for root). */
  readonly cgroup?: PidsCgroup | undefined;
  readonly now?: () => number;
}

/**
 * Starts bubblewrap. The outer bwrap is the host-side handle: killing it kills the sandbox's
 * PID namespace (its init dies with its parent), so a timeout or a kill leaves nothing behind.
 * Throws `SANDBOX_SPAWN_FAILED` when the spawn itself fails.
 */
export function startSandboxProcess(options: StartSandboxProcessOptions): SandboxProcess {
  const now = options.now ?? Date.now;
  const startedAt = now();
  const output = new OutputLog(options.outputBytes);
  // With a cgroup, a host shell joins it first and then becomes bwrap: every process of the
  // sandbox is born inside the cgroup, with no window before the join.
  const [file, argv] =
    options.cgroup === undefined
      ? [options.bwrapPath, [...options.bwrapArguments]]
      : [
          '/bin/sh',
          [
            '-c',
            'echo $$ > "$0" && exec "$@"',
            options.cgroup.procsFile,
            options.bwrapPath,
            ...options.bwrapArguments,
          ],
        ];
  let child: ChildProcess;
  try {
    child = spawn(file, argv, {
      env: { ...options.environment },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      windowsHide: true,
    });
  } catch (error) {
    throw new SandboxError('SANDBOX_SPAWN_FAILED', `could not start ${file}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let timedOut = false;
  let killed = false;
  let exit: SandboxExit | undefined;
  let stdinOpen = options.keepStdinOpen;
  child.stdout?.on('data', (chunk: Buffer) => output.append(chunk));
  child.stderr?.on('data', (chunk: Buffer) => output.append(chunk));
  child.stdin?.on('error', () => {
    stdinOpen = false;
  });
  if (!options.keepStdinOpen) child.stdin?.end();

  const killSandbox = () => {
    if (exit !== undefined || child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killSandbox();
  }, options.timeoutMs);
  timer.unref();

  const exitPromise = new Promise<SandboxExit>((resolve) => {
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, spawnError?: Error) => {
      if (exit !== undefined) return;
      clearTimeout(timer);
      stdinOpen = false;
      if (spawnError !== undefined)
        output.append(Buffer.from(`sandbox: could not start bubblewrap: ${spawnError.message}\n`));
      exit = { exitCode, signal, timedOut, killed, durationMs: now() - startedAt };
      const settled = exit;
      resolve(settled);
      // The kernel may still be reaping the killed processes: the cgroup goes once they are.
      void options.cgroup?.remove();
    };
    child.once('error', (error) => finish(null, null, error));
    // 'close' waits for the pipes: every process holding them (the whole sandbox) is gone.
    child.once('close', (code, signal) => finish(code, signal));
  });

  return {
    pid: child.pid ?? -1,
    command: options.command,
    startedAt,
    output,
    exit: exitPromise,
    exited: () => exit,
    stdinOpen: () => stdinOpen && exit === undefined,
    write(text, end) {
      const stdin = child.stdin;
      if (!stdinOpen || exit !== undefined || stdin === null) {
        return Promise.reject(
          new SandboxError('SANDBOX_JOB_STDIN_CLOSED', `the stdin of "${options.command}" is closed`),
        );
      }
      return new Promise<void>((resolve, reject) => {
        stdin.write(text, (error) => {
          if (error)
            reject(new SandboxError('SANDBOX_JOB_STDIN_CLOSED', `writing stdin failed: ${error.message}`));
          else resolve();
        });
        if (end) {
          stdinOpen = false;
          stdin.end();
        }
      });
    },
    kill() {
      if (exit !== undefined) return;
      killed = true;
      killSandbox();
    },
  };
}
