// How `switchboard gateway run` ends: SIGTERM or SIGINT stop it gracefully, a second signal
// stops it at once, and (under a package manager) it stops when the process that started it
// is gone. Why, and what the exit codes mean: docs/decisions/0009-start-path-and-signals.md.
// SIGHUP reloads the config (docs/decisions/0011-config-reload.md).

type ShutdownSignal = 'SIGTERM' | 'SIGINT';

/** Why the gateway is stopping. */
export type StopCause =
  | { readonly type: 'signal'; readonly signal: ShutdownSignal }
  | {
      /** The gateway cannot go on (a replica that lost its instance lock): `reason` says why. */
      readonly type: 'unrecoverable';
      readonly reason: string;
    }
  | {
      readonly type: 'parent_exited';
      /** The process that started the gateway, now gone. */
      readonly parentProcessId: number;
      /** The process the gateway was handed to (init, or a subreaper). */
      readonly newParentProcessId: number;
    };

export interface StopOutcome {
  readonly cause: StopCause;
  /** False when the graceful close threw. */
  readonly clean: boolean;
}

/** Where signals come from: `process`, or a fake in tests. */
interface SignalSource {
  on(signal: ShutdownSignal, listener: (signal: ShutdownSignal) => void): unknown;
  on(signal: 'SIGHUP', listener: () => void): unknown;
}

export interface ForegroundOptions {
  /** Closes the gateway gracefully. */
  readonly close: (cause: StopCause) => Promise<void>;
  /** One line for the operator (stderr), without the newline. */
  readonly report: (line: string) => void;
  /** Ends the process at once, for a repeated signal (`process.exit(1)`). */
  readonly forceExit: () => void;
  readonly signals: SignalSource;
  /** Reloads the config, on SIGHUP (ignored once stopping). Leave out to keep SIGHUP's default. */
  readonly reload?: () => void;
  readonly now: () => number;
  /**
   * A repeated signal sooner than this after the first is the same request, not a second one:
   * Ctrl-C reaches both pnpm and the gateway and pnpm passes its copy on; a supervisor may
   * signal every process of the group at once. Default 1000 ms.
   */
  readonly repeatWindowMs?: number;
  /** The current parent process id (`() => process.ppid`); leave out to not watch the parent. */
  readonly parentProcessId?: () => number;
  /** Resolves when the gateway cannot go on (see `GatewayHandle.unrecoverable`): it is closed. */
  readonly unrecoverable?: Promise<Error>;
  /** Runs `check` periodically until the returned function is called (default: every second, unref'd). */
  readonly every?: (check: () => void) => () => void;
}

const everySecond = (check: () => void): (() => void) => {
  const timer = setInterval(check, 1000);
  timer.unref();
  return () => clearInterval(timer);
};

/**
 * Waits for the first of: SIGTERM, SIGINT, or (when `parentProcessId` is given) the parent
 * process going away; then closes the gateway and resolves with why and whether the close
 * succeeded. The signal listeners stay installed until the process exits, so a late duplicate
 * signal never falls through to the default action (death by signal, which pnpm reports as
 * a failed command).
 */
export function runInForeground(options: ForegroundOptions): Promise<StopOutcome> {
  const repeatWindowMs = options.repeatWindowMs ?? 1000;
  return new Promise<StopOutcome>((resolve) => {
    let stoppingSince: number | undefined;
    let stopWatching: (() => void) | undefined;

    const stop = (cause: StopCause) => {
      stoppingSince = options.now();
      stopWatching?.();
      options.close(cause).then(
        () => resolve({ cause, clean: true }),
        (error: unknown) => {
          options.report(
            `the gateway did not shut down cleanly: ${error instanceof Error ? error.message : String(error)}`,
          );
          resolve({ cause, clean: false });
        },
      );
    };

    const onSignal = (signal: ShutdownSignal) => {
      if (stoppingSince === undefined) {
        options.report(`received ${signal}, shutting down (send it again to stop at once)`);
        stop({ type: 'signal', signal });
        return;
      }
      if (options.now() - stoppingSince < repeatWindowMs) return;
      options.report(`received ${signal} again, stopping at once`);
      options.forceExit();
    };
    options.signals.on('SIGTERM', onSignal);
    options.signals.on('SIGINT', onSignal);
    const reload = options.reload;
    if (reload !== undefined) {
      options.signals.on('SIGHUP', () => {
        if (stoppingSince !== undefined) return;
        options.report('received SIGHUP, reloading the config');
        reload();
      });
    }

    void options.unrecoverable?.then((error) => {
      if (stoppingSince !== undefined) return;
      options.report(
        `${error.message.replace(/\.?$/, '.')} Shutting down, for a supervisor to start it afresh.`,
      );
      stop({ type: 'unrecoverable', reason: error.message });
    });

    const parentProcessId = options.parentProcessId;
    if (parentProcessId !== undefined) {
      const original = parentProcessId();
      stopWatching = (options.every ?? everySecond)(() => {
        const current = parentProcessId();
        if (current === original || stoppingSince !== undefined) return;
        options.report(`the process that started the gateway (pid ${original}) has exited, shutting down`);
        stop({ type: 'parent_exited', parentProcessId: original, newParentProcessId: current });
      });
    }
  });
}

/**
 * Whether `gateway run` watches its parent: yes when a package manager started it (`pnpm
 * start`: a supervisor then holds pnpm's PID, and if pnpm dies the gateway must not live on
 * unseen), no when started directly (`nohup switchboard gateway run &` outlives its shell on
 * purpose). SWITCHBOARD_EXIT_WITH_PARENT=1 or 0 decides instead.
 */
export function watchesParent(environment: NodeJS.ProcessEnv): boolean {
  const setting = environment.SWITCHBOARD_EXIT_WITH_PARENT?.trim();
  if (setting === '1' || setting === 'true') return true;
  if (setting === '0' || setting === 'false') return false;
  return (environment.npm_config_user_agent ?? '') !== '';
}
