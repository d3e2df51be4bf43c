import type { DeliveryTimers } from './types.ts';

/** A hand-driven clock and timer queue for tests: time moves only through `advance`. */
export interface ManualClock extends DeliveryTimers {
  now(): number;
  /** Moves time forward, firing due timers in order and letting promise chains settle between them. */
  advance(ms: number): Promise<void>;
  /** Lets pending promise chains run without moving time. */
  settle(): Promise<void>;
  /** Number of armed timers. */
  readonly pending: number;
}

interface Entry {
  readonly id: number;
  readonly due: number;
  readonly callback: () => void;
}

export function createManualClock(start = 0): ManualClock {
  let current = start;
  let nextId = 1;
  let entries: Entry[] = [];

  async function settle(): Promise<void> {
    for (let round = 0; round < 5; round++) await new Promise<void>((resolve) => setImmediate(resolve));
  }

  return {
    now: () => current,
    setTimeout(callback: () => void, ms: number): unknown {
      const entry = { id: nextId++, due: current + Math.max(0, ms), callback };
      entries.push(entry);
      return entry.id;
    },
    clearTimeout(handle: unknown): void {
      entries = entries.filter((entry) => entry.id !== handle);
    },
    async advance(ms: number): Promise<void> {
      const target = current + ms;
      await settle();
      for (;;) {
        entries.sort((a, b) => a.due - b.due || a.id - b.id);
        const next = entries[0];
        if (next === undefined || next.due > target) break;
        entries.shift();
        current = next.due;
        next.callback();
        await settle();
      }
      current = target;
      await settle();
    },
    settle,
    get pending(): number {
      return entries.length;
    },
  };
}
