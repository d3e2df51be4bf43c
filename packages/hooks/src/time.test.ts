import { describe, expect, it } from 'vitest';
import { backoffDelay, sleep, sleepOn, systemTimers, type Timers, unreferencedTimers } from './time.ts';

function manualTimers(): Timers & { advance(ms: number): void; pending(): number } {
  let current = 0;
  let nextId = 1;
  const waiting = new Map<number, { at: number; callback: () => void }>();
  return {
    now: () => current,
    setTimeout(callback, delayMs) {
      const id = nextId++;
      waiting.set(id, { at: current + delayMs, callback });
      return id;
    },
    clearTimeout(handle) {
      waiting.delete(handle as number);
    },
    advance(ms) {
      current += ms;
      for (const [id, timer] of [...waiting]) {
        if (timer.at <= current) {
          waiting.delete(id);
          timer.callback();
        }
      }
    },
    pending: () => waiting.size,
  };
}

describe('backoffDelay', () => {
  it('doubles from the base and stops at the cap', () => {
    const delays = [1, 2, 3, 4, 5, 6].map((attempt) => backoffDelay({ attempt, baseMs: 500, capMs: 5_000 }));
    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 5_000, 5_000]);
  });

  it('treats attempt 0 like attempt 1 and never overflows on huge attempts', () => {
    expect(backoffDelay({ attempt: 0, baseMs: 250, capMs: 10_000 })).toBe(250);
    expect(backoffDelay({ attempt: 10_000, baseMs: 250, capMs: 10_000 })).toBe(10_000);
  });

  it('spreads by the jitter fraction around the delay', () => {
    const low = backoffDelay({ attempt: 3, baseMs: 1_000, capMs: 60_000, jitter: 0.2, random: () => 0 });
    const high = backoffDelay({
      attempt: 3,
      baseMs: 1_000,
      capMs: 60_000,
      jitter: 0.2,
      random: () => 0.999_999,
    });
    const middle = backoffDelay({ attempt: 3, baseMs: 1_000, capMs: 60_000, jitter: 0.2, random: () => 0.5 });
    expect(low).toBe(3_200);
    expect(high).toBe(4_800);
    expect(middle).toBe(4_000);
  });

  it('names a bad option', () => {
    expect(() => backoffDelay({ attempt: 1, baseMs: -1, capMs: 10 })).toThrow(
      /baseMs must be a finite number/,
    );
    expect(() => backoffDelay({ attempt: Number.NaN, baseMs: 1, capMs: 10 })).toThrow(/attempt must be/);
  });
});

describe('sleep', () => {
  it('waits at least the given time on the real clock', async () => {
    const started = performance.now();
    await sleep(30);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('rejects with the abort reason, at once when already aborted', async () => {
    const reason = new Error('stop now');
    await expect(sleep(10, AbortSignal.abort(reason))).rejects.toBe(reason);
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });
});

describe('sleepOn', () => {
  it('resolves only when the injected clock reaches the delay', async () => {
    const timers = manualTimers();
    let done = false;
    const pending = sleepOn(timers)(1_000).then(() => {
      done = true;
    });
    timers.advance(999);
    await Promise.resolve();
    expect(done).toBe(false);
    timers.advance(1);
    await pending;
    expect(done).toBe(true);
  });

  it('clears its timer and rejects with the reason on abort', async () => {
    const timers = manualTimers();
    const controller = new AbortController();
    const pending = sleepOn(timers)(1_000, controller.signal);
    expect(timers.pending()).toBe(1);
    controller.abort(new Error('cancelled'));
    await expect(pending).rejects.toThrow('cancelled');
    expect(timers.pending()).toBe(0);
  });
});

describe('systemTimers', () => {
  it('fires a timer, cancels a cleared one, and reads the wall clock', async () => {
    const before = Date.now();
    expect(systemTimers.now()).toBeGreaterThanOrEqual(before);
    let cleared = false;
    const handle = systemTimers.setTimeout(() => {
      cleared = true;
    }, 5);
    systemTimers.clearTimeout(handle);
    await new Promise<void>((resolve) => systemTimers.setTimeout(resolve, 20));
    expect(cleared).toBe(false);
  });
});

describe('unreferencedTimers', () => {
  it('fires a timer that does not hold the process, and cancels a cleared one', async () => {
    let cleared = false;
    const handle = unreferencedTimers.setTimeout(() => {
      cleared = true;
    }, 5);
    unreferencedTimers.clearTimeout(handle);
    const fired = await new Promise<boolean>((resolve) => {
      const timer = unreferencedTimers.setTimeout(() => resolve(true), 10) as NodeJS.Timeout;
      expect(timer.hasRef()).toBe(false);
      // Something must keep the test alive meanwhile: the unreferenced timer will not.
      setTimeout(() => resolve(false), 2_000);
    });
    expect([fired, cleared]).toEqual([true, false]);
  });
});
