// The one wait primitive of every fake: a test awaits a condition over the fake's recorded
// state ("3 messages in chat 42", "a connected gateway session"); the fake calls `notify()`
// after each change, which re-checks every pending wait. A wait that runs out of time rejects
// with TESTKIT_WAIT_TIMEOUT naming what was awaited and what had arrived; `close()` rejects
// the pending ones with TESTKIT_CLOSED.
import { TestkitError } from './errors.ts';

/** The timer functions a waiter uses (a fake with injectable timers passes its own). */
interface WaiterTimers {
  setTimeout(callback: () => void, milliseconds: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Options of {@link createConditionWaiter}. */
export interface ConditionWaiterOptions {
  /** Names the fake at the start of every error message, e.g. `fake Telegram`. */
  readonly subject: string;
  /** The timeout of a wait that gives none. */
  readonly defaultTimeoutMs: number;
  /** Default: Node's timers, unref'd so a pending wait never keeps a process alive on its own. */
  readonly timers?: WaiterTimers;
}

/** One condition to await. */
interface Condition<T> {
  /** Returns the awaited value once the condition holds, `undefined` before. Must not throw. */
  readonly check: () => T | undefined;
  /** What is awaited, completing "waited N ms for …", e.g. `2 message(s) in chat 42`. */
  readonly awaited: string;
  /** What had arrived when the wait gave up, read at that moment, e.g. `1 arrived`. */
  readonly arrived?: () => string;
  /** Structured details for the timeout error (`error.details`). */
  readonly details?: () => Readonly<Record<string, unknown>>;
  /** Default: the waiter's `defaultTimeoutMs`. */
  readonly timeoutMs?: number | undefined;
}

/**
 * The waits of one fake. Contract: `notify()` is called after every change of the state the
 * conditions read (it is cheap when nothing waits); a condition that already holds resolves
 * at once, even after `close()`; otherwise a wait after `close()` rejects at once.
 */
export interface ConditionWaiter {
  /** Resolves with `condition.check()`'s value once it is defined. */
  until<T>(condition: Condition<T>): Promise<T>;
  /** Re-checks every pending wait; the fake calls it after each change of its state. */
  notify(): void;
  /** Rejects every pending wait with TESTKIT_CLOSED; later waits that do not hold reject too. */
  close(): void;
  /** How many waits are pending. */
  readonly pending: number;
}

const nodeTimers: WaiterTimers = {
  setTimeout: (callback, milliseconds) => setTimeout(callback, milliseconds).unref(),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

interface PendingWait {
  readonly awaited: string;
  poll(): void;
  fail(error: TestkitError): void;
}

/** A `check` for a boolean condition: `true` once `predicate()` holds. */
export function whenTrue(predicate: () => boolean): () => true | undefined {
  return () => (predicate() ? true : undefined);
}

export function createConditionWaiter(options: ConditionWaiterOptions): ConditionWaiter {
  const timers = options.timers ?? nodeTimers;
  const pending = new Set<PendingWait>();
  let closed = false;

  const closedError = (awaited: string): TestkitError =>
    new TestkitError('TESTKIT_CLOSED', `${options.subject} closed while waiting for ${awaited}`);

  return {
    until<T>(condition: Condition<T>): Promise<T> {
      const ready = condition.check();
      if (ready !== undefined) return Promise.resolve(ready);
      if (closed) return Promise.reject(closedError(condition.awaited));
      const timeoutMs = condition.timeoutMs ?? options.defaultTimeoutMs;
      return new Promise<T>((resolve, reject) => {
        const settle = (): void => {
          timers.clearTimeout(timer);
          pending.delete(wait);
        };
        const wait: PendingWait = {
          awaited: condition.awaited,
          poll() {
            const value = condition.check();
            if (value === undefined) return;
            settle();
            resolve(value);
          },
          fail(error) {
            settle();
            reject(error);
          },
        };
        const timer = timers.setTimeout(() => {
          const arrived = condition.arrived === undefined ? '' : `, ${condition.arrived()}`;
          wait.fail(
            new TestkitError(
              'TESTKIT_WAIT_TIMEOUT',
              `${options.subject}: waited ${timeoutMs} ms for ${condition.awaited}${arrived}`,
              condition.details === undefined ? {} : { details: { ...condition.details(), timeoutMs } },
            ),
          );
        }, timeoutMs);
        pending.add(wait);
      });
    },
    notify() {
      if (pending.size === 0) return;
      for (const wait of [...pending]) wait.poll();
    },
    close() {
      closed = true;
      for (const wait of [...pending]) wait.fail(closedError(wait.awaited));
    },
    get pending() {
      return pending.size;
    },
  };
}
