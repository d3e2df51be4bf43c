// Usage accounting, including case 63 (OpenClaw usage-accumulator tests).
import { emptyUsage } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { createUsage, createUsageAccumulator } from './usage.ts';

const prices = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

describe('usage', () => {
  it('case 54: totalTokens is the sum of the four buckets; cost per million tokens', () => {
    const usage = createUsage({ input: 1000, output: 500, cacheRead: 20_000, cacheWrite: 2000 }, prices);
    expect(usage.totalTokens).toBe(23_500);
    expect(usage.cost).toEqual({
      input: 0.003,
      output: 0.0075,
      cacheRead: 0.006,
      cacheWrite: 0.0075,
      total: 0.003 + 0.0075 + 0.006 + 0.0075,
    });
    expect(createUsage({ input: -5, output: Number.NaN, cacheRead: 0, cacheWrite: 0 }).totalTokens).toBe(0);
  });

  it('case 63: sums every call for billing, keeps the last call apart, ignores zero-only usage', () => {
    const accumulator = createUsageAccumulator();
    accumulator.add(createUsage({ input: 100, output: 50, cacheRead: 10_000, cacheWrite: 1000 }, prices));
    accumulator.add(createUsage({ input: 80, output: 40, cacheRead: 11_000, cacheWrite: 0 }, prices));
    accumulator.add(emptyUsage);
    const snapshot = accumulator.snapshot();
    expect(snapshot.calls).toBe(2);
    expect(snapshot.input).toBe(180);
    expect(snapshot.output).toBe(90);
    // Summed cache reads would claim a 21k context; the last call alone says 11.08k.
    expect(snapshot.cacheRead).toBe(21_000);
    expect(snapshot.contextTokens).toBe(80 + 11_000);
    expect(snapshot.lastCall?.input).toBe(80);
    expect(snapshot.cost.total).toBeCloseTo((180 * 3 + 90 * 15 + 21_000 * 0.3 + 1000 * 3.75) / 1_000_000, 12);
  });

  it('starts empty', () => {
    const snapshot = createUsageAccumulator().snapshot();
    expect(snapshot).toMatchObject({ calls: 0, totalTokens: 0, contextTokens: 0, lastCall: undefined });
  });
});
