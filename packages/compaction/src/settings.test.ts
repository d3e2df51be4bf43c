import { describe, expect, it } from 'vitest';
import { resolveCompactionBudget } from './settings.ts';

describe('resolveCompactionBudget', () => {
  it('uses the defaults on a 200k window', () => {
    expect(resolveCompactionBudget({ contextWindow: 200_000 })).toEqual({
      contextWindow: 200_000,
      reserveTokens: 16_384,
      promptBudget: 183_616,
      keepRecentTokens: 20_000,
      summaryMaxTokens: 4096,
      maxAttempts: 3,
      toolResultMaxTokens: 10_000,
      toolResultShareTokens: 55_084,
      safetyMargin: 1.2,
    });
  });

  it('lowers a reserve and keep budget that only make sense for bigger windows', () => {
    const budget = resolveCompactionBudget({ contextWindow: 8192 });
    // The prompt keeps at least min(8000, half the window).
    expect(budget.reserveTokens).toBe(4096);
    expect(budget.promptBudget).toBe(4096);
    expect(budget.keepRecentTokens).toBe(Math.floor(4096 * 0.4));
    expect(budget.summaryMaxTokens).toBe(1024);
    expect(budget.toolResultMaxTokens).toBe(500);
    const explicit = resolveCompactionBudget({
      contextWindow: 8192,
      reserveTokens: 2048,
      keepRecentTokens: 1000,
    });
    expect(explicit.promptBudget).toBe(6144);
    expect(explicit.keepRecentTokens).toBe(1000);
  });

  it('caps an explicit summary size at a quarter of the prompt budget', () => {
    expect(resolveCompactionBudget({ contextWindow: 8192, summaryMaxTokens: 4000 }).summaryMaxTokens).toBe(
      1024,
    );
    expect(resolveCompactionBudget({ contextWindow: 8192, summaryMaxTokens: 300 }).summaryMaxTokens).toBe(
      300,
    );
  });

  it('names the key path of a setting that makes no sense', () => {
    expect(() => resolveCompactionBudget({ contextWindow: 100 })).toThrow(
      expect.objectContaining({
        code: 'COMPACTION_INVALID_SETTINGS',
        message: 'settings.contextWindow must be an integer ≥ 1024; got 100.',
        details: { key: 'settings.contextWindow' },
      }),
    );
    expect(() => resolveCompactionBudget({ contextWindow: 8192, reserveTokens: -1 })).toThrow(
      /settings\.reserveTokens must be an integer ≥ 0; got -1/,
    );
    expect(() => resolveCompactionBudget({ contextWindow: 8192, keepRecentTokens: 1.5 })).toThrow(
      /settings\.keepRecentTokens/,
    );
    expect(() => resolveCompactionBudget({ contextWindow: 8192, maxAttempts: 0 })).toThrow(
      /settings\.maxAttempts must be an integer from 1 to 10; got 0/,
    );
    expect(() => resolveCompactionBudget({ contextWindow: 8192, safetyMargin: 0.5 })).toThrow(
      /settings\.safetyMargin must be a number from 1 to 3/,
    );
    expect(() => resolveCompactionBudget({ contextWindow: '8192' as unknown as number })).toThrow(
      /settings\.contextWindow must be an integer ≥ 1024; got "8192"/,
    );
  });
});
