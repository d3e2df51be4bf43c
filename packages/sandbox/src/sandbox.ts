import { type Logger, noopLogger } from '@switchboard/hooks';
import { buildBwrapArguments, sandboxWorkdir } from './bwrap-arguments.ts';
import { sandboxEnvironment } from './environment.ts';
import { SandboxError } from './errors.ts';
import { openPidsCgroups, type PidsCgroups } from './pids-cgroup.ts';
import type { SandboxPolicy } from './policy.ts';
import { type BubblewrapProbe, findBubblewrap, probeBubblewrap } from './probe.ts';
import { createProcessRegistry, type JobSummary, type ProcessRegistry } from './process-registry.ts';
import { type SandboxExit, type SandboxProcess, startSandboxProcess } from './sandbox-process.ts';

/** One `exec` call. */
export interface ExecRequest {
  /** The session the command (and a background job) belongs to. */
  readonly sessionKey: string;
  /** The host folder shown read-write (or read-only, `workspaceAccess: ro`) at /workspace. */
  readonly workspaceHostPath: string;
  readonly policy: SandboxPolicy;
  /** Run by `bash -lc`. */
  readonly command: string;
  /** Relative to /workspace, or absolute under /workspace or /tmp. */
  readonly workdir?: string | undefined;
  readonly env?: Readonly<Record<string, string>> | undefined;
  /** Wall time; default `limits.timeoutSeconds` (foreground) or `limits.backgroundTimeoutSeconds`. */
  readonly timeoutSeconds?: number | undefined;
  /** Start as a background job and return at once. */
  readonly background?: boolean | undefined;
  /** A foreground command still running after this long becomes a background job; default 10 s. */
  readonly yieldMs?: number | undefined;
  /** Kills a foreground command (not one moved to the background). */
  readonly signal?: AbortSignal | undefined;
}

/** How an `exec` call ended: the command exited, or it runs on as a background job. */
export type ExecOutcome =
  | {
      readonly type: 'exited';
      readonly exit: SandboxExit;
      /** Stdout and stderr interleaved; a note first when older output was dropped. */
      readonly output: string;
      readonly outputBytes: number;
      readonly droppedBytes: number;
    }
  | { readonly type: 'backgrounded'; readonly job: JobSummary; readonly output: string };

export interface SandboxOptions {
  /** Default: the first `bwrap` on PATH. */
  readonly bwrapPath?: string;
  readonly logger?: Logger;
  readonly now?: () => number;
  /**
   * Put each command in a pids cgroup (the process limit when the gateway runs as root, where
   * the kernel ignores RLIMIT_NPROC). Default: when running as root and the cgroup
   * filesystem is writable.
   */
  readonly pidsCgroups?: boolean;
}

/**
 * Runs commands in bubblewrap sandboxes and owns their background jobs. Contract: `exec`
 * never runs anything outside a sandbox; when bubblewrap is not usable it throws
 * `SANDBOX_UNAVAILABLE` with the reason. `close` kills every job.
 */
export interface Sandbox {
  /** Whether bubblewrap works here (probed once, then cached). */
  probe(): Promise<BubblewrapProbe>;
  /** How the process limit is enforced: a pids cgroup, or RLIMIT_NPROC (not enforced for root). */
  processLimit(): 'cgroup' | 'rlimit' | 'unenforced';
  exec(request: ExecRequest): Promise<ExecOutcome>;
  readonly processes: ProcessRegistry;
  close(): Promise<void>;
}

const defaultYieldMs = 10_000;

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const logger = options.logger ?? noopLogger;
  const now = options.now ?? Date.now;
  const processes = createProcessRegistry();
  let probed: Promise<BubblewrapProbe> | undefined;
  const isRoot = process.getuid?.() === 0;
  let cgroups: PidsCgroups | undefined | null = null;
  const pidsCgroups = (): PidsCgroups | undefined => {
    if (cgroups === null) {
      cgroups = (options.pidsCgroups ?? isRoot) ? openPidsCgroups() : undefined;
      if (cgroups === undefined && isRoot) {
        logger.warn(
          'sandbox: running as root without a writable pids cgroup; the process limit is not enforced',
          {},
        );
      }
    }
    return cgroups;
  };

  const probe = () => {
    probed ??= probeBubblewrap(options.bwrapPath ?? findBubblewrap());
    return probed;
  };

  const start = async (request: ExecRequest, background: boolean): Promise<SandboxProcess> => {
    const probeResult = await probe();
    if (!probeResult.usable) {
      throw new SandboxError('SANDBOX_UNAVAILABLE', `the sandbox cannot run: ${probeResult.reason}`);
    }
    const { limits } = request.policy;
    const workdir = sandboxWorkdir(request.workdir);
    if (workdir === undefined) {
      throw new SandboxError(
        'SANDBOX_INVALID_ARGUMENT',
        `workdir "${request.workdir}" is outside /workspace and /tmp`,
        { details: { workdir: request.workdir } },
      );
    }
    const timeoutSeconds =
      request.timeoutSeconds ?? (background ? limits.backgroundTimeoutSeconds : limits.timeoutSeconds);
    if (!(timeoutSeconds > 0) || timeoutSeconds > limits.maxTimeoutSeconds) {
      throw new SandboxError(
        'SANDBOX_INVALID_ARGUMENT',
        `timeoutSeconds must be above 0 and at most ${limits.maxTimeoutSeconds} (limits.maxTimeoutSeconds); got ${timeoutSeconds}`,
        { details: { timeoutSeconds } },
      );
    }
    const environment = sandboxEnvironment(request.policy.env, request.env);
    const bwrapArguments = buildBwrapArguments({
      workspaceHostPath: request.workspaceHostPath,
      workspaceWritable: request.policy.workspaceAccess !== 'ro',
      network: request.policy.network,
      readOnlyPaths: request.policy.readOnlyPaths,
      workdir,
      limits,
      command: request.command,
    });
    const started = startSandboxProcess({
      bwrapPath: probeResult.path,
      bwrapArguments,
      environment,
      command: request.command,
      timeoutMs: timeoutSeconds * 1000,
      outputBytes: limits.outputBytes,
      keepStdinOpen: background,
      cgroup: pidsCgroups()?.create(limits.processes),
      now,
    });
    logger.debug('sandbox: started', {
      sessionKey: request.sessionKey,
      pid: started.pid,
      background,
      network: request.policy.network,
    });
    return started;
  };

  const exited = (exit: SandboxExit, process: SandboxProcess): ExecOutcome => ({
    type: 'exited',
    exit,
    output: process.output.text(),
    outputBytes: process.output.totalBytes,
    droppedBytes: process.output.droppedBytes,
  });

  return {
    probe,
    processLimit: () => (pidsCgroups() !== undefined ? 'cgroup' : isRoot ? 'unenforced' : 'rlimit'),
    processes,

    async exec(request) {
      const limit = request.policy.limits.maxBackgroundJobs;
      if (request.background === true) {
        if (!processes.hasRoom(request.sessionKey, limit)) {
          throw new SandboxError(
            'SANDBOX_JOB_LIMIT',
            `this session already runs ${limit} background jobs (limits.maxBackgroundJobs); kill one first`,
            { details: { limit } },
          );
        }
        const job = processes.add(request.sessionKey, await start(request, true), limit);
        return { type: 'backgrounded', job, output: '' };
      }

      const running = await start(request, false);
      const signal = request.signal;
      const onAbort = () => running.kill();
      if (signal?.aborted) running.kill();
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const yieldMs = request.yieldMs ?? defaultYieldMs;
        let yieldTimer: NodeJS.Timeout | undefined;
        const yielded = new Promise<'yield'>((resolve) => {
          yieldTimer = setTimeout(() => resolve('yield'), yieldMs);
        });
        const first = await Promise.race([running.exit, yielded]);
        clearTimeout(yieldTimer);
        if (first !== 'yield') return exited(first, running);
        // Still running: hand it to the registry if the session has room, else keep waiting.
        if (processes.hasRoom(request.sessionKey, limit)) {
          const job = processes.add(request.sessionKey, running, limit);
          return { type: 'backgrounded', job, output: running.output.text() };
        }
        return exited(await running.exit, running);
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    },

    async close() {
      const killed = await processes.killAll();
      if (killed > 0) logger.info('sandbox: killed background jobs at close', { killed });
      const opened = cgroups;
      opened?.close();
    },
  };
}
