/**
 * Session reset policies (OpenClaw's `session.reset`, `resetByType`, `resetByChannel`,
 * `resetTriggers`) as pure functions of the session and a clock, plus the one store
 * operation that applies them.
 *
 * - `daily` (the default, at 04:00 in the gateway's time zone): a session whose current
 *   session id started before the most recent daily boundary is stale. Later metadata
 *   writes do not keep it fresh; only the start of the session id counts.
 * - `idle`: a session whose last real interaction (user or channel message; heartbeats and
 *   cron runs do not count) is `idleMinutes` old is stale.
 * - `daily` with `idleMinutes` as well: whichever expires first.
 * - `off`: never stale; `/new` and `/reset` still work.
 */
import { SessionsError } from './errors.ts';
import type { SessionStore } from './session-store.ts';
import type { ChatType, ResetReason, SessionEntry } from './types.ts';

export type ResetMode = 'daily' | 'idle' | 'off';

/** One reset rule as configured; missing fields come from the level below. */
export interface ResetPolicyConfig {
  readonly mode?: ResetMode;
  /** Hour of the daily reset, 0–23, in the gateway's time zone. Default 4. */
  readonly atHour?: number;
  /** Minutes without interaction after which the session resets. */
  readonly idleMinutes?: number;
}

/** The `session` part of the configuration that concerns resets. */
export interface SessionResetConfig {
  readonly reset?: ResetPolicyConfig;
  readonly resetByType?: {
    readonly direct?: ResetPolicyConfig;
    readonly group?: ResetPolicyConfig;
    readonly thread?: ResetPolicyConfig;
  };
  readonly resetByChannel?: Readonly<Record<string, ResetPolicyConfig>>;
  /** Commands that reset the session. Default `/new` and `/reset`. */
  readonly resetTriggers?: readonly string[];
}

/** A policy with every field decided. */
export interface ResolvedResetPolicy {
  readonly mode: ResetMode;
  readonly atHour: number;
  /** Undefined: no idle reset. */
  readonly idleMinutes: number | undefined;
}

/** What the session is: picks the `resetByType` and `resetByChannel` overrides. */
export interface ResetContext {
  readonly chatType?: ChatType;
  /** A thread inside a group or channel (uses `resetByType.thread`). */
  readonly isThread?: boolean;
  readonly channel?: string;
}

const defaultResetTriggers: readonly string[] = ['/new', '/reset'];
const defaultAtHour = 4;
const defaultIdleMinutes = 60;

function checkPolicy(policy: ResetPolicyConfig | undefined, path: string): void {
  if (policy === undefined) return;
  if (typeof policy !== 'object' || policy === null) {
    throw configError(path, 'an object', policy);
  }
  if (policy.mode !== undefined && !['daily', 'idle', 'off'].includes(policy.mode)) {
    throw configError(`${path}.mode`, 'one of daily, idle, off', policy.mode);
  }
  if (
    policy.atHour !== undefined &&
    (!Number.isInteger(policy.atHour) || policy.atHour < 0 || policy.atHour > 23)
  ) {
    throw configError(`${path}.atHour`, 'an integer from 0 to 23', policy.atHour);
  }
  if (
    policy.idleMinutes !== undefined &&
    (typeof policy.idleMinutes !== 'number' ||
      !Number.isFinite(policy.idleMinutes) ||
      policy.idleMinutes <= 0)
  ) {
    throw configError(`${path}.idleMinutes`, 'a number of minutes > 0', policy.idleMinutes);
  }
}

function configError(path: string, expected: string, value: unknown): SessionsError {
  return new SessionsError(
    'SESSIONS_INVALID_CONFIG',
    `${path} must be ${expected}; got ${JSON.stringify(value)}.`,
    {
      details: { path },
    },
  );
}

/**
 * Checks every reset setting; throws SESSIONS_INVALID_CONFIG naming the key path
 * (`session.resetByChannel.discord.atHour`).
 */
export function validateResetConfig(config: SessionResetConfig, path = 'session'): void {
  checkPolicy(config.reset, `${path}.reset`);
  for (const type of ['direct', 'group', 'thread'] as const) {
    checkPolicy(config.resetByType?.[type], `${path}.resetByType.${type}`);
  }
  for (const [channel, policy] of Object.entries(config.resetByChannel ?? {})) {
    checkPolicy(policy, `${path}.resetByChannel.${channel}`);
  }
  if (config.resetTriggers !== undefined) {
    if (!Array.isArray(config.resetTriggers))
      throw configError(`${path}.resetTriggers`, 'an array of strings', config.resetTriggers);
    for (const [index, trigger] of config.resetTriggers.entries()) {
      if (typeof trigger !== 'string' || trigger.trim() === '') {
        throw configError(`${path}.resetTriggers[${index}]`, 'a non-empty string', trigger);
      }
    }
  }
}

/**
 * The policy for one session: the global `reset`, overridden field by field by
 * `resetByType` (thread, else the chat type), then by `resetByChannel`.
 */
export function resolveResetPolicy(
  config: SessionResetConfig,
  context: ResetContext = {},
): ResolvedResetPolicy {
  validateResetConfig(config);
  const typeKey =
    context.isThread === true
      ? 'thread'
      : context.chatType === 'direct'
        ? 'direct'
        : context.chatType === undefined
          ? undefined
          : 'group';
  const layers = [
    config.reset,
    typeKey === undefined ? undefined : config.resetByType?.[typeKey],
    context.channel === undefined
      ? undefined
      : (config.resetByChannel?.[context.channel.toLowerCase()] ?? config.resetByChannel?.[context.channel]),
  ];
  let mode: ResetMode = 'daily';
  let atHour = defaultAtHour;
  let idleMinutes: number | undefined;
  for (const layer of layers) {
    if (layer === undefined) continue;
    if (layer.mode !== undefined) mode = layer.mode;
    if (layer.atHour !== undefined) atHour = layer.atHour;
    if (layer.idleMinutes !== undefined) idleMinutes = layer.idleMinutes;
  }
  if (mode === 'off') return { mode, atHour, idleMinutes: undefined };
  if (mode === 'idle') return { mode, atHour, idleMinutes: idleMinutes ?? defaultIdleMinutes };
  return { mode, atHour, idleMinutes };
}

/** The session facts a freshness check reads. */
export interface FreshnessInput {
  readonly sessionStartedAt: number;
  readonly lastInteractionAt?: number | undefined;
}

export interface FreshnessOptions {
  readonly now: number;
  /** IANA time zone for the daily hour. Default: the gateway host's zone. */
  readonly timeZone?: string;
}

export type SessionFreshness =
  | {
      readonly fresh: true;
      /** When the session becomes stale by the daily rule, if it applies. */
      readonly dailyResetAt: number | undefined;
      /** When the session becomes stale by the idle rule, if it applies. */
      readonly idleExpiresAt: number | undefined;
    }
  | { readonly fresh: false; readonly reason: 'daily' | 'idle'; readonly expiredAt: number };

/** Whether a session may be reused at `options.now`, and if not, which rule expired first. */
export function evaluateSessionFreshness(
  session: FreshnessInput,
  policy: ResolvedResetPolicy,
  options: FreshnessOptions,
): SessionFreshness {
  if (policy.mode === 'off') return { fresh: true, dailyResetAt: undefined, idleExpiresAt: undefined };
  const now = options.now;
  let dailyExpiry: number | undefined;
  if (policy.mode === 'daily') {
    // The first daily boundary after the session started.
    const boundary = nextDailyBoundary(session.sessionStartedAt, policy.atHour, options.timeZone);
    dailyExpiry = boundary;
  }
  let idleExpiry: number | undefined;
  if (policy.idleMinutes !== undefined) {
    idleExpiry = (session.lastInteractionAt ?? session.sessionStartedAt) + policy.idleMinutes * 60_000;
  }
  const expired: Array<{ reason: 'daily' | 'idle'; at: number }> = [];
  if (dailyExpiry !== undefined && dailyExpiry <= now) expired.push({ reason: 'daily', at: dailyExpiry });
  if (idleExpiry !== undefined && idleExpiry <= now) expired.push({ reason: 'idle', at: idleExpiry });
  expired.sort((left, right) => left.at - right.at);
  const first = expired[0];
  if (first !== undefined) return { fresh: false, reason: first.reason, expiredAt: first.at };
  return { fresh: true, dailyResetAt: dailyExpiry, idleExpiresAt: idleExpiry };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function zoneFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch (error) {
      throw new SessionsError(
        'SESSIONS_INVALID_CONFIG',
        `timeZone ${JSON.stringify(timeZone)} is not a known IANA time zone.`,
        {
          cause: error,
        },
      );
    }
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallClock(time: number, timeZone: string): WallClock {
  const parts: Record<string, number> = {};
  for (const part of zoneFormatter(timeZone).formatToParts(time)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 1970,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

/** Milliseconds the zone is ahead of UTC at `time`. */
function zoneOffset(time: number, timeZone: string): number {
  const clock = wallClock(time, timeZone);
  const asUtc = Date.UTC(clock.year, clock.month - 1, clock.day, clock.hour, clock.minute, clock.second);
  return asUtc - (time - (((time % 1000) + 1000) % 1000));
}

/** The instant at which the zone's wall clock shows year-month-day hour:00. */
function zonedInstant(year: number, month: number, day: number, hour: number, timeZone: string): number {
  const guess = Date.UTC(year, month - 1, day, hour);
  const first = guess - zoneOffset(guess, timeZone);
  return guess - zoneOffset(first, timeZone);
}

let cachedHostTimeZone: string | undefined;

/** The machine's time zone. Resolving it builds an Intl formatter, so it is done once. */
function hostTimeZone(): string {
  cachedHostTimeZone ??= Intl.DateTimeFormat().resolvedOptions().timeZone;
  return cachedHostTimeZone;
}

/**
 * The last boundary computed per hour and zone, with the instant it was computed for: every
 * instant from there up to the boundary has the same answer. Every turn asks (session
 * freshness), and each computation formats dates in the zone three times.
 */
const knownBoundaries = new Map<string, { readonly from: number; readonly boundary: number }>();

/** The first instant after `after` at which the wall clock of `timeZone` shows `atHour`:00. */
export function nextDailyBoundary(after: number, atHour: number, timeZone: string = hostTimeZone()): number {
  const key = `${atHour}\u0000${timeZone}`;
  const known = knownBoundaries.get(key);
  if (known !== undefined && after >= known.from && after < known.boundary) return known.boundary;
  const boundary = computeDailyBoundary(after, atHour, timeZone);
  if (knownBoundaries.size >= 64) knownBoundaries.clear();
  knownBoundaries.set(key, { from: after, boundary });
  return boundary;
}

function computeDailyBoundary(after: number, atHour: number, timeZone: string): number {
  const clock = wallClock(after, timeZone);
  for (let dayOffset = 0; dayOffset <= 2; dayOffset += 1) {
    const date = new Date(Date.UTC(clock.year, clock.month - 1, clock.day + dayOffset));
    const candidate = zonedInstant(
      date.getUTCFullYear(),
      date.getUTCMonth() + 1,
      date.getUTCDate(),
      atHour,
      timeZone,
    );
    if (candidate > after) return candidate;
  }
  // Unreachable for real zones (a day never lasts 48 hours); fall back to a plain day later.
  return after + 86_400_000;
}

/** A reset command found at the start of a message. */
export interface ResetTriggerMatch {
  readonly trigger: string;
  /** `new` for `/new`, otherwise `reset`. */
  readonly reason: 'new' | 'reset';
  /** The text after the command (for `/new <model>`). */
  readonly remainder: string;
}

/**
 * Whether `text` starts with a reset trigger (case-insensitive, whole word; a Telegram-style
 * `@botname` suffix is accepted: `/new@my_bot`).
 */
export function matchResetTrigger(
  text: string,
  triggers: readonly string[] = defaultResetTriggers,
): ResetTriggerMatch | undefined {
  const trimmed = text.trimStart();
  const lower = trimmed.toLowerCase();
  for (const trigger of triggers) {
    const wanted = trigger.trim().toLowerCase();
    if (wanted === '' || !lower.startsWith(wanted)) continue;
    let rest = trimmed.slice(wanted.length);
    const mention = /^@[A-Za-z0-9_]+/.exec(rest);
    if (mention !== null) rest = rest.slice(mention[0].length);
    if (rest !== '' && !/^\s/.test(rest)) continue;
    return { trigger, reason: wanted === '/new' ? 'new' : 'reset', remainder: rest.trim() };
  }
  return undefined;
}

export interface ApplyResetPolicyOptions {
  readonly now: number;
  readonly timeZone?: string;
}

export type ApplyResetPolicyResult =
  | { readonly reset: false; readonly entry: SessionEntry }
  | {
      readonly reset: true;
      readonly entry: SessionEntry;
      readonly reason: Extract<ResetReason, 'daily' | 'idle'>;
      readonly previousSessionId: string;
    };

/**
 * Resets the session under `key` when the policy says it is stale (guarded by its current
 * session id, so two callers cannot both reset it). SESSIONS_NOT_FOUND when it does not exist.
 */
export async function applyResetPolicy(
  store: SessionStore,
  key: string,
  policy: ResolvedResetPolicy,
  options: ApplyResetPolicyOptions,
): Promise<ApplyResetPolicyResult> {
  const entry = await store.getSession(key);
  if (entry === undefined) {
    throw new SessionsError('SESSIONS_NOT_FOUND', `No session exists under the key ${JSON.stringify(key)}.`, {
      details: { key },
    });
  }
  const freshness = evaluateSessionFreshness(entry, policy, options);
  if (freshness.fresh) return { reset: false, entry };
  try {
    const result = await store.resetSession(key, {
      reason: freshness.reason,
      expectedSessionId: entry.sessionId,
    });
    return {
      reset: true,
      entry: result.entry,
      reason: freshness.reason,
      previousSessionId: result.previousSessionId,
    };
  } catch (error) {
    // Someone else reset it first: the session is fresh now.
    if (error instanceof SessionsError && error.code === 'SESSIONS_STALE_SESSION') {
      const current = await store.getSession(key);
      if (current !== undefined) return { reset: false, entry: current };
    }
    throw error;
  }
}
