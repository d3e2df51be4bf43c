/**
 * The time primitives every package shares: a clock with timers, an abortable sleep, and
 * the one exponential backoff. Behaviour that depends on time takes a {@link Timers} (or a
 * `now`) so tests drive the clock instead of sleeping.
 */
import { setTimeout as wait } from 'node:timers/promises';

/**
 * A clock with one-shot timers. Contract: `now` is milliseconds since the epoch (or any
 * monotonic origin the implementation documents); `setTimeout` calls `callback` once, no
 * earlier than `delayMs` from now, unless `clearTimeout` is called with its handle first.
 * A handle is opaque: only the timers that made it can clear it. Clearing an unknown or
 * fired handle does nothing.
 */
export interface Timers {
  now(): number;
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Node's clock and timers. A pending timer keeps the process alive, as Node's own do. */
export const systemTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout(handle) {
    if (handle !== undefined) clearTimeout(handle as NodeJS.Timeout);
  },
};

/**
 * Node's clock and timers, unreferenced: a pending timer never keeps the process alive. For
 * background work that must not hold up an exit (a reconnect backoff, a typing lease).
 */
export const unreferencedTimers: Timers = {
  now: () => Date.now(),
  setTimeout(callback, delayMs) {
    const handle = setTimeout(callback, delayMs);
    handle.unref();
    return handle;
  },
  clearTimeout: systemTimers.clearTimeout,
};

/** Waits `ms` milliseconds, or rejects with the signal's reason when it aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * Waits `ms` milliseconds on Node's timers (`node:timers/promises`); rejects with the
 * signal's reason when `signal` aborts first (at once when it already has), clearing the
 * timer. Abort a sleep you stop waiting for: a pending one keeps the process alive.
 */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted === true) throw signal.reason;
  try {
    await wait(Math.max(0, ms), undefined, signal === undefined ? undefined : { signal });
  } catch (error) {
    // node:timers/promises rejects with an AbortError wrapping the reason; callers expect the reason.
    throw signal === undefined ? error : (signal.reason ?? error);
  }
}

/**
 * A {@link Sleep} on the given timers, for code that takes injected timers: resolves when the
 * timer fires, rejects with the signal's reason (and clears the timer) when it aborts. Only
 * the timer half of {@link Timers} is needed.
 */
export function sleepOn(timers: Pick<Timers, 'setTimeout' | 'clearTimeout'>): Sleep {
  return (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => {
        timers.clearTimeout(handle);
        reject(signal?.reason);
      };
      const handle = timers.setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
}

/** Options of {@link backoffDelay}. */
export interface BackoffOptions {
  /** Which retry this is: 1 for the wait after the first failure, 2 after the second, … */
  readonly attempt: number;
  /** The first wait, in milliseconds. */
  readonly baseMs: number;
  /** No wait is longer than this, in milliseconds (before jitter). */
  readonly capMs: number;
  /**
   * Spread, as a fraction of the delay: 0.2 makes the wait uniform in ±20 %. Default 0
   * (exact). With jitter the result may exceed `capMs` by at most that fraction.
   */
  readonly jitter?: number;
  /** A uniform random number in [0, 1), injectable for tests. Default `Math.random`. */
  readonly random?: () => number;
}

/**
 * Exponential backoff: `baseMs`, `2 baseMs`, `4 baseMs`, … capped at `capMs`, then spread by
 * `jitter`. Rounded to whole milliseconds. Throws a `RangeError` naming the bad option when
 * one is negative or not finite.
 */
export function backoffDelay(options: BackoffOptions): number {
  const { attempt, baseMs, capMs, jitter = 0 } = options;
  for (const [name, value] of [
    ['attempt', attempt],
    ['baseMs', baseMs],
    ['capMs', capMs],
    ['jitter', jitter],
  ] as const) {
    if (!Number.isFinite(value) || value < 0)
      throw new RangeError(`backoffDelay: ${name} must be a finite number ≥ 0, got ${value}`);
  }
  // 2 ** 30 already dwarfs any cap; stop the exponent growing without bound.
  const exponent = Math.min(Math.max(0, attempt - 1), 30);
  const raw = Math.min(capMs, baseMs * 2 ** exponent);
  if (jitter === 0) return Math.round(raw);
  const random = options.random ?? Math.random;
  return Math.max(0, Math.round(raw * (1 - jitter + 2 * jitter * random())));
}
