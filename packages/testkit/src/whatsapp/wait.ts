import { TestkitError } from '../shared/errors.ts';

/** Wakes waiters whenever the fake's recorded state changes. */
export interface ChangeSignal {
  notify(): void;
  /** Resolves with `check()`'s value once it is not undefined; rejects after `timeoutMs`. */
  waitFor<T>(check: () => T | undefined, timeoutMs: number, describe: () => string): Promise<T>;
  /** Rejects every pending wait (the fake closed). */
  close(): void;
}

export function createChangeSignal(): ChangeSignal {
  const waiters = new Set<{ poll(): void; fail(error: Error): void }>();
  return {
    notify() {
      for (const waiter of [...waiters]) waiter.poll();
    },
    waitFor<T>(check: () => T | undefined, timeoutMs: number, describe: () => string): Promise<T> {
      const ready = check();
      if (ready !== undefined) return Promise.resolve(ready);
      return new Promise<T>((resolve, reject) => {
        const waiter = {
          poll() {
            const value = check();
            if (value === undefined) return;
            clearTimeout(timer);
            waiters.delete(waiter);
            resolve(value);
          },
          fail(error: Error) {
            clearTimeout(timer);
            waiters.delete(waiter);
            reject(error);
          },
        };
        const timer = setTimeout(
          () =>
            waiter.fail(
              new TestkitError('TESTKIT_WAIT_TIMEOUT', `timed out after ${timeoutMs} ms: ${describe()}`),
            ),
          timeoutMs,
        );
        waiters.add(waiter);
      });
    },
    close() {
      for (const waiter of [...waiters])
        waiter.fail(new TestkitError('TESTKIT_CLOSED', 'the fake was closed'));
    },
  };
}
