// The running state the parts of the subagent manager share: the gateway runtime (once it
// runs), the stop signal, and the timers that retry announcements and archive sessions.
import type { Logger } from '@switchboard/hooks';
import type { SessionStore } from '@switchboard/sessions';
import type { ExtensionRuntime } from '../extensions/extension.ts';
import type { SubagentRunStore } from './run-record.ts';

/** What every part of the manager is built with. */
export interface ManagerParts {
  readonly state: ManagerState;
  readonly records: SubagentRunStore;
  readonly store: SessionStore;
  readonly logger: Logger;
  readonly now: () => number;
}

/**
 * One manager's running state. Contract: `runtime` is set by `start` and never unset;
 * after `stop()`, `stopped` is true, `stopping` is resolved, and no `later` work runs.
 */
export class ManagerState {
  runtime: ExtensionRuntime | undefined;
  /** Resolves (with undefined) when the manager stops: races a wait so it ends at once. */
  readonly stopping: Promise<undefined>;
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  #stopped = false;
  #markStopped: () => void = () => undefined;

  constructor() {
    this.stopping = new Promise<undefined>((resolve) => {
      this.#markStopped = () => resolve(undefined);
    });
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** Runs `work` after `delayMs` unless the manager stopped by then; the timer keeps no process alive. */
  later(delayMs: number, work: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (!this.#stopped) work();
    }, delayMs);
    timer.unref();
    this.#timers.add(timer);
  }

  /** Marks the manager stopped and cancels every pending `later`. */
  stop(): void {
    this.#stopped = true;
    this.#markStopped();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}
