import { afterEach, describe, expect, it, vi } from 'vitest';
import { type HeapTrimReport, startIdleHeapTrim } from './idle-heap-trim.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('idle heap trim', () => {
  it('collects once after a burst, only when quiet and idle, and never without activity', () => {
    vi.useFakeTimers();
    let collections = 0;
    let busy = false;
    const trim = startIdleHeapTrim({ idleMs: 1000, isBusy: () => busy, collect: () => (collections += 1) });

    vi.advanceTimersByTime(5000);
    expect(collections).toBe(0); // nothing happened, nothing to give back

    trim.noteActivity();
    vi.advanceTimersByTime(1000); // the check that sees the activity only arms
    expect(collections).toBe(0);
    trim.noteActivity(); // still busy with traffic
    vi.advanceTimersByTime(1000);
    expect(collections).toBe(0);
    busy = true; // quiet for a whole interval, but a turn is queued
    vi.advanceTimersByTime(1000);
    expect(collections).toBe(0);
    busy = false;
    vi.advanceTimersByTime(1000);
    expect(collections).toBe(1);
    vi.advanceTimersByTime(10_000);
    expect(collections).toBe(1); // once per burst

    trim.noteActivity();
    trim.stop();
    vi.advanceTimersByTime(10_000);
    expect(collections).toBe(1);
  });

  it('reaches V8 collector by default and returns heap to the system', () => {
    const retained: unknown[] = [];
    for (let index = 0; index < 200_000; index += 1) retained.push({ index, text: `garbage ${index}` });
    const before = process.memoryUsage().heapUsed; // the objects are still reachable here
    retained.length = 0;
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] }); // a real clock times the collection
    const reports: HeapTrimReport[] = [];
    const trim = startIdleHeapTrim({
      idleMs: 10,
      isBusy: () => false,
      onCollected: (report) => reports.push(report),
    });
    trim.noteActivity();
    vi.advanceTimersByTime(20);
    trim.stop();
    // 200 000 small objects are well over 5 MB.
    expect(before - process.memoryUsage().heapUsed).toBeGreaterThan(5 * 1024 * 1024);
    expect(reports).toHaveLength(1);
    expect(reports[0]?.durationMs).toBeGreaterThan(0);
    expect(reports[0]!.heapAfterBytes).toBeLessThanOrEqual(reports[0]!.heapBeforeBytes);
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe('undefined'); // not left on the global
  });
});
