/**
 * Cooldown arithmetic: which failures are held against a key, for how long, and how the
 * runtime state of one profile changes on a failure or a success. Pure functions of the
 * state, the settings and the time, so tests never sleep.
 */
import type { ModelError } from '@switchboard/core-loop';
import { backoffDelay } from '@switchboard/hooks';
import { z } from 'zod';
import type { CooldownSettings } from './config.ts';
import type { FailureWindow, ProfileFailureReason, ProfileRuntimeState, RecordedWindow } from './types.ts';

/** Reasons that disable the whole profile (every model) for a while. */
const disablingReasons: ReadonlySet<ProfileFailureReason> = new Set<ProfileFailureReason>([
  'auth',
  'auth_permanent',
  'billing',
]);

/**
 * The reason a model error is held against the profile that got it, or `undefined` when it
 * is not: timeouts (transport, not the key), context overflow, aborts, rejected requests
 * (`format`), no credential configured (`no_credentials`: nothing was sent), and `unknown` failures without an HTTP status (the request went through; the
 * model answered in a way nobody recognised, such as a refusal).
 */
export function failureReasonOf(error: ModelError): ProfileFailureReason | undefined {
  switch (error.errorClass) {
    case 'auth':
    case 'auth_permanent':
    case 'billing':
    case 'rate_limit':
    case 'overloaded':
    case 'model_not_found':
      return error.errorClass;
    case 'unknown':
      return error.status === undefined ? undefined : 'unknown';
    default:
      return undefined;
  }
}

/** A fresh state: no use, no failures. */
export function emptyProfileState(fingerprint?: string): ProfileRuntimeState {
  return { version: 1, fingerprint, failureCounts: {}, models: {} };
}

/** Facts of one failure that the window length depends on. */
export interface FailureFacts {
  readonly reason: ProfileFailureReason;
  /** The model the failure happened on; model-scoped reasons block only this model. */
  readonly model: string;
  readonly provider: string;
  readonly now: number;
  /** What the provider asked for (retry-after); sets the length of a rate-limit or overload window. */
  readonly retryAfterMs?: number | undefined;
}

/**
 * The length of the window the `step`-th consecutive failure opens:
 * - rate limits and overload with a retry-after: exactly what the provider asked for (at
 *   least 1 ms, at most the billing maximum, 24 h by default), at every step: a key is never
 *   blocked longer than the provider said;
 * - other transient reasons, and rate limits and overload without a retry-after: the
 *   escalating schedule (10 s, 60 s, 300 s by default; the last entry repeats);
 * - billing: base (per provider when configured) doubling per step up to the maximum;
 * - auth / auth_permanent: the same doubling with their own base and maximum.
 * The exponent is capped at 10.
 */
export function windowDurationMs(
  reason: ProfileFailureReason,
  step: number,
  settings: CooldownSettings,
  options: { readonly provider?: string | undefined; readonly retryAfterMs?: number | undefined } = {},
): number {
  const index = Math.max(1, Math.floor(step)) - 1;
  const doubling = (base: number, max: number) =>
    backoffDelay({ attempt: Math.min(index, 10) + 1, baseMs: base, capMs: max });
  switch (reason) {
    case 'billing': {
      const base =
        (options.provider === undefined ? undefined : settings.billingBaseMsByProvider[options.provider]) ??
        settings.billingBaseMs;
      return doubling(base, Math.max(base, settings.billingMaxMs));
    }
    case 'auth':
      return doubling(settings.authBaseMs, Math.max(settings.authBaseMs, settings.authMaxMs));
    case 'auth_permanent':
      return doubling(
        settings.authPermanentBaseMs,
        Math.max(settings.authPermanentBaseMs, settings.authPermanentMaxMs),
      );
    default: {
      const asked = options.retryAfterMs;
      if (
        (reason === 'rate_limit' || reason === 'overloaded') &&
        asked !== undefined &&
        !Number.isNaN(asked)
      ) {
        // At least 1 ms: a retry-after of 0 still opens a window, so a run waits for it
        // (briefly) instead of taking the key for usable and giving up.
        return Math.min(Math.max(1, asked), settings.billingMaxMs);
      }
      const schedule = settings.scheduleMs;
      return schedule[Math.min(index, schedule.length - 1)] ?? 0;
    }
  }
}

/**
 * How long after a window ended a new failure still counts as "the same trouble" and
 * escalates to the next step: as long as the window itself lasted, never more than the
 * failure window (24 h). After that the window has expired for good and the count restarts.
 */
function escalationGraceMs(window: FailureWindow, settings: CooldownSettings): number {
  return Math.min(Math.max(0, window.until - window.since), settings.failureWindowMs);
}

function isRunning(window: FailureWindow | undefined, now: number): boolean {
  return window !== undefined && window.until > now;
}

function isStale(window: FailureWindow, now: number, settings: CooldownSettings): boolean {
  return now >= window.until + escalationGraceMs(window, settings);
}

/**
 * Records one failure: opens a window in the right lane unless one is running there (a
 * running window is never extended nor shortened), escalates the step when the previous
 * window of that lane ended less than its own length ago (for the disable lane: with the
 * same reason), and counts the failure. Counters restart when the last failure is older
 * than the failure window.
 */
export function recordFailure(
  state: ProfileRuntimeState,
  facts: FailureFacts,
  settings: CooldownSettings,
): { readonly state: ProfileRuntimeState; readonly window: RecordedWindow } {
  const { now, reason } = facts;
  const quiet = state.lastFailureAt === undefined || now - state.lastFailureAt >= settings.failureWindowMs;
  const failureCounts = quiet ? {} : { ...state.failureCounts };
  failureCounts[reason] = (failureCounts[reason] ?? 0) + 1;
  const disabling = disablingReasons.has(reason);
  const previous = disabling ? state.disabled : state.models[facts.model];
  let window: FailureWindow;
  let opened: boolean;
  if (previous !== undefined && isRunning(previous, now)) {
    window = previous;
    opened = false;
  } else {
    const continues =
      previous !== undefined &&
      !quiet &&
      !isStale(previous, now, settings) &&
      (!disabling || previous.reason === reason);
    const step = continues ? previous.step + 1 : 1;
    const duration = windowDurationMs(reason, step, settings, {
      provider: facts.provider,
      retryAfterMs: facts.retryAfterMs,
    });
    window = { reason, since: now, until: now + duration, step };
    opened = true;
  }
  const models = pruneModels(state.models, now, settings);
  const next: ProfileRuntimeState = {
    ...state,
    lastFailureAt: now,
    failureCounts,
    ...(disabling ? { disabled: window, models } : { models: { ...models, [facts.model]: window } }),
  };
  return {
    state: next,
    window: {
      lane: disabling ? 'disabled' : 'cooldown',
      reason: window.reason,
      until: window.until,
      step: window.step,
      opened,
    },
  };
}

/**
 * Records a success of `model`: last use is now, the counters and the disable are cleared,
 * and so is that model's window. Another model's running rate-limit window stays: it is
 * about that model.
 */
export function recordSuccess(
  state: ProfileRuntimeState,
  model: string,
  now: number,
  settings: CooldownSettings,
): ProfileRuntimeState {
  const models = { ...pruneModels(state.models, now, settings) };
  delete models[model];
  return {
    version: 1,
    fingerprint: state.fingerprint,
    lastUsed: now,
    failureCounts: {},
    models,
  };
}

function pruneModels(
  models: Readonly<Record<string, FailureWindow>>,
  now: number,
  settings: CooldownSettings,
): Record<string, FailureWindow> {
  const kept: Record<string, FailureWindow> = {};
  for (const [model, window] of Object.entries(models)) {
    if (!isStale(window, now, settings)) kept[model] = window;
  }
  return kept;
}

/**
 * The window that keeps `model` of this profile from being used now, or `undefined` when
 * it is usable. When both lanes block, the one that ends later.
 */
export function blockingWindow(
  state: ProfileRuntimeState | undefined,
  model: string,
  now: number,
): FailureWindow | undefined {
  if (state === undefined) return undefined;
  const disabled =
    state.disabled !== undefined && isRunning(state.disabled, now) ? state.disabled : undefined;
  const modelWindow = state.models[model];
  const cooling = modelWindow !== undefined && isRunning(modelWindow, now) ? modelWindow : undefined;
  if (disabled === undefined) return cooling;
  if (cooling === undefined) return disabled;
  return cooling.until > disabled.until ? cooling : disabled;
}

/** True when nothing blocks `model` of this profile now. */
export function isUsableFor(state: ProfileRuntimeState | undefined, model: string, now: number): boolean {
  return blockingWindow(state, model, now) === undefined;
}

const failureReasonSchema = z.enum([
  'auth',
  'auth_permanent',
  'billing',
  'rate_limit',
  'overloaded',
  'model_not_found',
  'unknown',
]);
const windowSchema = z.object({
  reason: failureReasonSchema,
  since: z.number(),
  until: z.number(),
  step: z.number().int().min(1),
});

const stateSchema = z.object({
  version: z.literal(1),
  fingerprint: z.string().optional(),
  lastUsed: z.number().optional(),
  lastFailureAt: z.number().optional(),
  failureCounts: z.partialRecord(failureReasonSchema, z.number().int().min(0)).default({}),
  disabled: windowSchema.optional(),
  models: z.record(z.string(), windowSchema).default({}),
});

/** Reads a stored state; `undefined` when it does not have the expected shape. */
export function parseProfileState(value: unknown): ProfileRuntimeState | undefined {
  const result = stateSchema.safeParse(value);
  return result.success ? result.data : undefined;
}
