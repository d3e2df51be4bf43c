import type { Timers } from '@switchboard/hooks';

export type { Timers } from '@switchboard/hooks';
export { systemTimers } from '@switchboard/hooks';

/** Timers driven by hand: time only moves when `advance` is called. */
export interface ManualTimers extends Timers {
  /** Moves time forward, firing every timer that falls due, in order. */
  advance(milliseconds: number): void;
  /** How many timers are waiting. */
  pending(): number;
}

/** Hand-driven timers for tests of debounce and grace periods. */
export function createManualTimers(start = 0): ManualTimers {
  let current = start;
  let nextId = 1;
  const waiting = new Map<number, { at: number; callback: () => void }>();
  return {
    now: () => current,
    setTimeout(callback, delayMs) {
      const id = nextId++;
      waiting.set(id, { at: current + Math.max(0, delayMs), callback });
      return id;
    },
    clearTimeout(handle) {
      waiting.delete(handle as number);
    },
    advance(milliseconds) {
      const target = current + milliseconds;
      while (true) {
        let dueId: number | undefined;
        let dueAt = Number.POSITIVE_INFINITY;
        for (const [id, timer] of waiting) {
          if (timer.at <= target && timer.at < dueAt) {
            dueAt = timer.at;
            dueId = id;
          }
        }
        if (dueId === undefined) break;
        const timer = waiting.get(dueId)!;
        waiting.delete(dueId);
        current = Math.max(current, timer.at);
        timer.callback();
      }
      current = target;
    },
    pending: () => waiting.size,
  };
}
