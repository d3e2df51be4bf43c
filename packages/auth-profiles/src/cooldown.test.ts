import { ModelError } from '@switchboard/core-loop';
import { describe, expect, it } from 'vitest';
import { resolveCooldownSettings, defaultCooldownSettings as settings } from './config.ts';
import {
  blockingWindow,
  emptyProfileState,
  failureReasonOf,
  isUsableFor,
  parseProfileState,
  recordFailure,
  recordSuccess,
  windowDurationMs,
} from './cooldown.ts';
import type { ProfileFailureReason, ProfileRuntimeState } from './types.ts';

const s = 1000;
const min = 60 * s;
const h = 60 * min;
const sonnet = 'claude-sonnet-4-6';
const haiku = 'claude-haiku-4-5';

function fail(
  state: ProfileRuntimeState,
  reason: ProfileFailureReason,
  now: number,
  model = sonnet,
  retryAfterMs?: number,
) {
  return recordFailure(state, { reason, model, provider: 'anthropic', now, retryAfterMs }, settings);
}

describe('windowDurationMs', () => {
  it('follows the seed schedule for transient failures: 10 s, 60 s, then 300 s', () => {
    expect([1, 2, 3, 4, 9].map((step) => windowDurationMs('rate_limit', step, settings))).toEqual([
      10 * s,
      60 * s,
      300 * s,
      300 * s,
      300 * s,
    ]);
    expect(windowDurationMs('overloaded', 2, settings)).toBe(60 * s);
    expect(windowDurationMs('model_not_found', 1, settings)).toBe(10 * s);
  });

  it("uses exactly the provider's retry-after for rate limits and overload, at every step, capped at 24 h", () => {
    expect(windowDurationMs('rate_limit', 1, settings, { retryAfterMs: 1 * s })).toBe(1 * s);
    expect(windowDurationMs('rate_limit', 3, settings, { retryAfterMs: 1 * s })).toBe(1 * s);
    expect(windowDurationMs('overloaded', 1, settings, { retryAfterMs: 2 * s })).toBe(2 * s);
    expect(windowDurationMs('rate_limit', 1, settings, { retryAfterMs: 90 * s })).toBe(90 * s);
    expect(windowDurationMs('rate_limit', 1, settings, { retryAfterMs: 7 * 24 * h })).toBe(24 * h);
    // retry-after: 0 still opens a (1 ms) window, so a run waits for it rather than giving up.
    expect(windowDurationMs('rate_limit', 1, settings, { retryAfterMs: 0 })).toBe(1);
    // Without a retry-after the escalating schedule; other reasons ignore a retry-after.
    expect(windowDurationMs('rate_limit', 2, settings)).toBe(60 * s);
    expect(windowDurationMs('unknown', 1, settings, { retryAfterMs: 90 * s })).toBe(10 * s);
  });

  it('a first 429 with retry-after 1 s blocks the key for 1 s, not 10 s', () => {
    const { state, window } = fail(emptyProfileState(), 'rate_limit', 0, sonnet, 1 * s);
    expect(window).toMatchObject({ until: 1 * s, step: 1, opened: true });
    expect(isUsableFor(state, sonnet, 1 * s - 1)).toBe(false);
    expect(isUsableFor(state, sonnet, 1 * s)).toBe(true);
    // Right after, a 429 without a retry-after escalates along the schedule (step 2: 60 s).
    const again = fail(state, 'rate_limit', 1 * s, sonnet);
    expect(again.window).toMatchObject({ until: 61 * s, step: 2 });
  });

  it('doubles billing from 5 h up to 24 h, with a per-provider base', () => {
    expect([1, 2, 3, 4, 5].map((step) => windowDurationMs('billing', step, settings) / h)).toEqual([
      5, 10, 20, 24, 24,
    ]);
    const custom = resolveCooldownSettings({
      billingBackoffHoursByProvider: { openai: 8 },
      billingMaxHours: 48,
    });
    expect(windowDurationMs('billing', 2, custom, { provider: 'openai' })).toBe(16 * h);
    expect(windowDurationMs('billing', 2, custom, { provider: 'anthropic' })).toBe(10 * h);
  });

  it('doubles auth_permanent from 10 min to 60 min and auth from 5 min to 60 min', () => {
    expect([1, 2, 3, 4].map((step) => windowDurationMs('auth_permanent', step, settings) / min)).toEqual([
      10, 20, 40, 60,
    ]);
    expect([1, 2, 3, 4, 5, 6].map((step) => windowDurationMs('auth', step, settings) / min)).toEqual([
      5, 10, 20, 40, 60, 60,
    ]);
  });

  it('caps the exponent at 10 and never goes below one minute for a disable base', () => {
    const custom = resolveCooldownSettings({ billingBackoffHours: 0.001, billingMaxHours: 10_000 });
    expect(custom.billingBaseMs).toBe(min);
    expect(windowDurationMs('billing', 30, custom)).toBe(min * 1024);
  });

  it('uses a configured schedule', () => {
    const custom = resolveCooldownSettings({ cooldownScheduleSeconds: [30, 60, 300, 1500, 3600] });
    expect([1, 4, 7].map((step) => windowDurationMs('rate_limit', step, custom) / s)).toEqual([
      30, 1500, 3600,
    ]);
  });
});

describe('recordFailure', () => {
  it('scopes a rate limit to the model: other models of the key stay usable', () => {
    const { state, window } = fail(emptyProfileState(), 'rate_limit', 0);
    expect(window).toEqual({ lane: 'cooldown', reason: 'rate_limit', until: 10 * s, step: 1, opened: true });
    expect(isUsableFor(state, sonnet, 5 * s)).toBe(false);
    expect(isUsableFor(state, haiku, 5 * s)).toBe(true);
    expect(isUsableFor(state, sonnet, 10 * s)).toBe(true);
    expect(state.failureCounts).toEqual({ rate_limit: 1 });
  });

  it('never extends a running window, and a failure during it does not escalate', () => {
    const first = fail(emptyProfileState(), 'rate_limit', 0).state;
    const second = fail(first, 'rate_limit', 9 * s, sonnet, 120 * s);
    expect(second.window).toEqual({
      lane: 'cooldown',
      reason: 'rate_limit',
      until: 10 * s,
      step: 1,
      opened: false,
    });
    expect(second.state.models[sonnet]).toEqual(first.models[sonnet]);
    expect(second.state.failureCounts).toEqual({ rate_limit: 2 });
    const third = fail(second.state, 'rate_limit', 12 * s);
    expect(third.window.step).toBe(2);
  });

  it('escalates 10 s → 60 s → 300 s while failures come right after each window', () => {
    let state = emptyProfileState();
    const windows = [];
    let now = 0;
    for (let index = 0; index < 4; index += 1) {
      const result = fail(state, 'rate_limit', now);
      state = result.state;
      windows.push(result.window.until - now);
      now = result.window.until + 1 * s; // the next request after the window fails again
    }
    expect(windows).toEqual([10 * s, 60 * s, 300 * s, 300 * s]);
  });

  it('restarts the count once a window has expired and the key rested as long again', () => {
    const first = fail(emptyProfileState(), 'rate_limit', 0).state; // until 10 s
    const second = fail(first, 'rate_limit', 15 * s).state; // within 10 s after: step 2, until 75 s
    expect(second.models[sonnet]).toMatchObject({ step: 2, until: 75 * s });
    const rested = fail(second, 'rate_limit', 75 * s + 60 * s); // 60 s after a 60 s window: expired for good
    expect(rested.window).toMatchObject({ step: 1, until: 135 * s + 10 * s });
  });

  it('restarts the count after 24 h without a failure (billing: 5 h, 10 h, 20 h, 24 h, then 5 h)', () => {
    let state = emptyProfileState();
    const lengths: number[] = [];
    let now = 0;
    for (let index = 0; index < 5; index += 1) {
      const result = fail(state, 'billing', now);
      state = result.state;
      lengths.push((result.window.until - now) / h);
      now = result.window.until + 1;
    }
    // The fifth failure comes 24 h after the fourth (its window was 24 h): counters restarted.
    expect(lengths).toEqual([5, 10, 20, 24, 5]);
  });

  it('disables every model for billing and auth, and restarts the step when the reason changes', () => {
    const billing = fail(emptyProfileState(), 'billing', 0, sonnet);
    expect(billing.window).toMatchObject({ lane: 'disabled', reason: 'billing', until: 5 * h });
    expect(isUsableFor(billing.state, haiku, 1 * h)).toBe(false);
    const revoked = fail(billing.state, 'auth_permanent', 5 * h + 1);
    expect(revoked.window).toMatchObject({
      lane: 'disabled',
      reason: 'auth_permanent',
      step: 1,
      until: 5 * h + 1 + 10 * min,
    });
    const revokedAgain = fail(revoked.state, 'auth_permanent', 5 * h + 2 + 10 * min);
    expect(revokedAgain.window).toMatchObject({ step: 2, until: 5 * h + 2 + 30 * min });
  });

  it('reports the later of two blocking windows', () => {
    const cooling = fail(emptyProfileState(), 'rate_limit', 0, sonnet, 30 * min).state;
    const both = fail(cooling, 'auth', 1 * min).state; // disabled until 6 min
    expect(blockingWindow(both, sonnet, 2 * min)).toMatchObject({ reason: 'rate_limit', until: 30 * min });
    expect(blockingWindow(both, haiku, 2 * min)).toMatchObject({ reason: 'auth', until: 6 * min });
    expect(blockingWindow(both, haiku, 7 * min)).toBeUndefined();
  });
});

describe('recordSuccess', () => {
  it("clears the disable, the counts and that model's window, and keeps another model's running window", () => {
    let state = fail(emptyProfileState('fp'), 'rate_limit', 0, haiku, 10 * min).state;
    state = fail(state, 'overloaded', 1 * s, sonnet).state;
    state = fail(state, 'auth', 2 * s, sonnet).state;
    const after = recordSuccess(state, sonnet, 3 * s, settings);
    expect(after).toEqual({
      version: 1,
      fingerprint: 'fp',
      lastUsed: 3 * s,
      failureCounts: {},
      models: { [haiku]: state.models[haiku] },
    });
    expect(isUsableFor(after, sonnet, 3 * s)).toBe(true);
    expect(isUsableFor(after, haiku, 3 * s)).toBe(false);
  });
});

describe('failureReasonOf', () => {
  it('holds key failures against the key and nothing else', () => {
    const reason = (errorClass: ConstructorParameters<typeof ModelError>[0], status?: number) =>
      failureReasonOf(new ModelError(errorClass, 'x', status === undefined ? {} : { status }));
    expect(reason('rate_limit', 429)).toBe('rate_limit');
    expect(reason('auth', 401)).toBe('auth');
    expect(reason('billing', 402)).toBe('billing');
    expect(reason('unknown', 418)).toBe('unknown');
    expect(reason('unknown')).toBeUndefined(); // a refusal or odd stop reason: not the key
    expect(reason('timeout', 500)).toBeUndefined();
    expect(reason('context_overflow', 400)).toBeUndefined();
    expect(reason('format', 400)).toBeUndefined();
    expect(reason('aborted')).toBeUndefined();
  });
});

describe('parseProfileState', () => {
  it('reads what was written and refuses anything else', () => {
    const state = fail(emptyProfileState('abc'), 'rate_limit', 5).state;
    expect(parseProfileState(JSON.parse(JSON.stringify(state)))).toEqual(state);
    expect(parseProfileState({ version: 2 })).toBeUndefined();
    expect(
      parseProfileState({ version: 1, models: { x: { reason: 'nope', since: 0, until: 1, step: 1 } } }),
    ).toBe(undefined);
    expect(parseProfileState({ version: 1 })).toEqual({ version: 1, failureCounts: {}, models: {} });
  });
});
