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

/** `sent` and `waitForSent` over a fake's record of outgoing messages. */
export interface SentLog<Message> {
  sent(conversationId?: string): readonly Message[];
  waitForSent(conversationId: string, count: number, timeoutMs?: number): Promise<readonly Message[]>;
}

export function sentLog<Message extends { readonly conversationId: string }>(
  sent: readonly Message[],
  signal: ChangeSignal,
): SentLog<Message> {
  const inConversation = (conversationId?: string): readonly Message[] =>
    conversationId === undefined
      ? [...sent]
      : sent.filter((message) => message.conversationId === conversationId);
  return {
    sent: inConversation,
    waitForSent(conversationId, count, timeoutMs = 10_000) {
      return signal.waitFor(
        () => {
          const found = inConversation(conversationId);
          return found.length >= count ? found : undefined;
        },
        timeoutMs,
        () => `${count} message(s) sent to ${conversationId}; got ${inConversation(conversationId).length}`,
      );
    },
  };
}
