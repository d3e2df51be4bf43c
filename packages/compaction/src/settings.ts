import { CompactionError } from './errors.ts';

/**
 * Compaction settings for one model. `contextWindow` comes from the model config
 * (`Model.contextWindow`); the rest are optional and usually come from
 * `agents.defaults.compaction`. Every figure is in tokens.
 */
export interface CompactionSettings {
  /** The model's context window. Required. */
  readonly contextWindow: number;
  /**
   * Tokens kept free for the answer and housekeeping: compaction runs before a call whose
   * prompt would exceed `contextWindow − reserveTokens`. Default 16384, lowered for small
   * windows so the prompt keeps at least min(8000, half the window).
   */
  readonly reserveTokens?: number;
  /** Most recent messages kept verbatim, at most this many tokens. Default 20000, at most 40% of the prompt budget. */
  readonly keepRecentTokens?: number;
  /** Longest summary. Default min(0.8 × reserve, 25% of the prompt budget, 4096), at least 256. */
  readonly summaryMaxTokens?: number;
  /** Compact-and-retry attempts after a context overflow before giving up. Default 3. */
  readonly maxAttempts?: number;
  /**
   * Size kept tool results are cut to from the second overflow attempt on. Default 10% of
   * the prompt budget, between 500 and 10000.
   */
  readonly toolResultMaxTokens?: number;
  /** Factor applied to the characters/4 estimate until the provider reported real usage. Default 1.2. */
  readonly safetyMargin?: number;
}

/** The resolved figures compaction works with (see {@link resolveCompactionBudget}). */
export interface CompactionBudget {
  readonly contextWindow: number;
  /** The reserve actually used (the setting, lowered for small windows). */
  readonly reserveTokens: number;
  /** `contextWindow − reserveTokens`: the largest prompt sent without compacting first. */
  readonly promptBudget: number;
  readonly keepRecentTokens: number;
  readonly summaryMaxTokens: number;
  readonly maxAttempts: number;
  readonly toolResultMaxTokens: number;
  /** Largest single kept tool result on a normal compaction (30% of the prompt budget). */
  readonly toolResultShareTokens: number;
  readonly safetyMargin: number;
}

/** Defaults of the optional settings (see {@link CompactionSettings}). */
export const defaultCompactionSettings: {
  readonly reserveTokens: number;
  readonly keepRecentTokens: number;
  readonly maxAttempts: number;
  readonly safetyMargin: number;
} = Object.freeze({
  reserveTokens: 16_384,
  keepRecentTokens: 20_000,
  maxAttempts: 3,
  safetyMargin: 1.2,
});

/** The smallest context window compaction accepts. */
export const minimumContextWindow = 1024;

function invalid(key: string, expected: string, value: unknown): CompactionError {
  return new CompactionError(
    'COMPACTION_INVALID_SETTINGS',
    `settings.${key} must be ${expected}; got ${JSON.stringify(value) ?? String(value)}.`,
    { details: { key: `settings.${key}` } },
  );
}

function integer(value: unknown, key: string, minimum: number, maximum = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < minimum || value > maximum) {
    throw invalid(
      key,
      maximum === Number.MAX_SAFE_INTEGER
        ? `an integer ≥ ${minimum}`
        : `an integer from ${minimum} to ${maximum}`,
      value,
    );
  }
  return value;
}

/**
 * Validates settings and works out the budget. Out-of-range values that only make sense
 * for another model (a 16k reserve on an 8k window) are lowered, not rejected; values that
 * make no sense at all (negative, fractional, missing window) throw
 * `COMPACTION_INVALID_SETTINGS` naming the key path.
 */
export function resolveCompactionBudget(settings: CompactionSettings): CompactionBudget {
  if (typeof settings !== 'object' || settings === null) {
    throw new CompactionError(
      'COMPACTION_INVALID_SETTINGS',
      'settings must be an object with a contextWindow.',
    );
  }
  const contextWindow = integer(settings.contextWindow, 'contextWindow', minimumContextWindow);
  const reserveSetting = integer(
    settings.reserveTokens ?? defaultCompactionSettings.reserveTokens,
    'reserveTokens',
    0,
  );
  const keepSetting = integer(
    settings.keepRecentTokens ?? defaultCompactionSettings.keepRecentTokens,
    'keepRecentTokens',
    0,
  );
  const maxAttempts = integer(
    settings.maxAttempts ?? defaultCompactionSettings.maxAttempts,
    'maxAttempts',
    1,
    10,
  );
  const safetyMargin = settings.safetyMargin ?? defaultCompactionSettings.safetyMargin;
  if (
    typeof safetyMargin !== 'number' ||
    !Number.isFinite(safetyMargin) ||
    safetyMargin < 1 ||
    safetyMargin > 3
  ) {
    throw invalid('safetyMargin', 'a number from 1 to 3', safetyMargin);
  }
  const minimumPrompt = Math.min(8000, Math.floor(contextWindow / 2));
  const reserveTokens = Math.min(reserveSetting, contextWindow - minimumPrompt);
  const promptBudget = contextWindow - reserveTokens;
  const keepRecentTokens = Math.min(keepSetting, Math.floor(promptBudget * 0.4));
  const summaryCeiling = Math.floor(promptBudget * 0.25);
  const summaryMaxTokens =
    settings.summaryMaxTokens === undefined
      ? Math.max(256, Math.min(Math.floor(reserveTokens * 0.8), summaryCeiling, 4096))
      : Math.min(integer(settings.summaryMaxTokens, 'summaryMaxTokens', 64), Math.max(64, summaryCeiling));
  const toolResultMaxTokens =
    settings.toolResultMaxTokens === undefined
      ? Math.min(10_000, Math.max(500, Math.floor(promptBudget * 0.1)))
      : integer(settings.toolResultMaxTokens, 'toolResultMaxTokens', 50);
  return {
    contextWindow,
    reserveTokens,
    promptBudget,
    keepRecentTokens,
    summaryMaxTokens,
    maxAttempts,
    toolResultMaxTokens,
    toolResultShareTokens: Math.max(toolResultMaxTokens, Math.floor(promptBudget * 0.3)),
    safetyMargin,
  };
}
