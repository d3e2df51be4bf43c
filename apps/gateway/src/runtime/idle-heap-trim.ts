import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Gives memory back after a burst of traffic. Under load V8 grows the heap well past what is
 * live (the gateway bench: about 300 MB of heap holding 30 MB of live objects) and keeps it
 * afterwards; one full, memory-reducing collection once the gateway has been quiet for a
 * while returns it. Nothing happens while turns run, and at most once per burst.
 */
export interface IdleHeapTrimOptions {
  /**
   * Quiet time before collecting (the check runs this often, so the collection comes one to
   * two intervals after the last turn). Default 5 000 ms. The collection blocks the event loop
   * for about 100–200 ms (the bench: 179 ms taking a 231 MB heap down to 32 MB), at most once
   * per burst and never while a turn runs or waits.
   */
  readonly idleMs?: number;
  /** True while anything runs or waits: never collect then. */
  readonly isBusy: () => boolean;
  /** Runs the collection; default V8's own, made reachable at start. */
  readonly collect?: () => void;
  /** Called after each collection with what it took and what it gave back (for the log). */
  readonly onCollected?: (report: HeapTrimReport) => void;
}

export interface HeapTrimReport {
  readonly durationMs: number;
  readonly heapBeforeBytes: number;
  readonly heapAfterBytes: number;
}

export interface IdleHeapTrim {
  /** Call when a turn ends (cheap: sets a flag). */
  noteActivity(): void;
  stop(): void;
}

export function startIdleHeapTrim(options: IdleHeapTrimOptions): IdleHeapTrim {
  const collect = options.collect ?? v8Collect();
  let sawActivity = false;
  let pending = false;
  const timer = setInterval(() => {
    if (sawActivity) {
      sawActivity = false;
      pending = true;
      return;
    }
    if (!pending || options.isBusy()) return;
    pending = false;
    if (collect === undefined) return;
    const heapBeforeBytes = process.memoryUsage().heapTotal;
    const started = performance.now();
    collect();
    options.onCollected?.({
      durationMs: performance.now() - started,
      heapBeforeBytes,
      heapAfterBytes: process.memoryUsage().heapTotal,
    });
  }, options.idleMs ?? 5000);
  timer.unref();
  return {
    noteActivity() {
      sawActivity = true;
    },
    stop() {
      clearInterval(timer);
    },
  };
}

type GcFunction = (options?: { type?: 'major'; execution?: 'sync'; flavor?: 'last-resort' }) => void;

/** V8's collector, exposed once through its flag (not left on the global object). */
function v8Collect(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as GcFunction | undefined;
    if (typeof gc !== 'function') return undefined;
    return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  } catch {
    return undefined;
  }
}
