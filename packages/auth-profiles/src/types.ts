import type { ModelError, ModelErrorClass, ThinkingLevel } from '@switchboard/core-loop';

/** How a profile authenticates: an API key (`x-api-key` style) or a static bearer token. */
export type ProfileMode = 'api_key' | 'token';

/**
 * The failure reasons recorded against a profile. Timeouts, context overflow, aborts and
 * rejected requests (`format`) are never held against a key.
 */
export type ProfileFailureReason =
  | 'auth'
  | 'auth_permanent'
  | 'billing'
  | 'rate_limit'
  | 'overloaded'
  | 'model_not_found'
  | 'unknown';

/** A time window during which a profile (or one model of it) is not used. */
export interface FailureWindow {
  readonly reason: ProfileFailureReason;
  /** When the failure that opened the window happened (ms since the epoch). */
  readonly since: number;
  /** When the window ends. A running window is never moved. */
  readonly until: number;
  /** Which step of the schedule produced it: 1 for the first failure, 2 for the next, … */
  readonly step: number;
}

/**
 * The runtime state of one profile, as persisted (one storage key per profile). Two lanes:
 * `disabled` blocks every model (auth, auth_permanent, billing); `models` holds windows
 * that block one model of the key only (rate limits, overload, model not found, unknown
 * HTTP errors).
 */
export interface ProfileRuntimeState {
  readonly version: 1;
  /** Short hash of the credential the state was recorded with; a new key starts clean. */
  readonly fingerprint?: string | undefined;
  /** Last successful use (round robin picks the least recently used first). */
  readonly lastUsed?: number | undefined;
  readonly lastFailureAt?: number | undefined;
  /** Failures per reason since the last success (or since counters were reset). */
  readonly failureCounts: Readonly<Partial<Record<ProfileFailureReason, number>>>;
  readonly disabled?: FailureWindow | undefined;
  readonly models: Readonly<Record<string, FailureWindow>>;
}

/** A credential as the provider wants it; assignable to core-loop's `ModelCredential`. */
export type AuthCredential = { readonly apiKey: string } | { readonly authToken: string };

/** A profile as the outside world may see it: never the secret. */
export interface AuthProfile {
  /** `anthropic:work`, `anthropic:default`, … */
  readonly id: string;
  readonly provider: string;
  readonly mode: ProfileMode;
  /** Where the profile was declared: the config file, or the state store. */
  readonly source: 'config' | 'store';
  /** Whether a secret is available (in the config, or stored for this id). */
  readonly hasCredential: boolean;
  readonly displayName?: string | undefined;
  readonly email?: string | undefined;
}

/** A provider and a model id. */
export interface ModelCandidate {
  readonly provider: string;
  readonly model: string;
}

/** A model as written in config: `"anthropic/claude-sonnet-4-6"` or `{ provider, model }`. */
export type ModelRef = string | ModelCandidate;

/** What one attempt gets: which model, which key, which thinking level. */
export interface AttemptCandidate extends ModelCandidate {
  /** The profile to use; `undefined` when the provider has no profiles (use the provider's own key). */
  readonly profileId: string | undefined;
  readonly profile: AuthProfile | undefined;
  /** The secret of that profile, ready for `StreamOptions`/`getApiKey`; `undefined` with no profile. */
  readonly credential: AuthCredential | undefined;
  /** Thinking level to run with (lowered after a thinking rejection). */
  readonly thinkingLevel: ThinkingLevel | undefined;
  /** 1 for the first attempt of the run, 2 for the next, … */
  readonly attempt: number;
  /** 0 for the requested model, then its position in the fallback chain. */
  readonly candidateIndex: number;
  readonly isFallback: boolean;
  /** The run's signal, to pass on to the model call. */
  readonly signal: AbortSignal | undefined;
}

/**
 * What an attempt reports. `error` may be a `ModelError`, a failed assistant message, or
 * anything a provider call threw (it is normalized with core-loop's classifier). An attempt
 * that throws is treated as `{ ok: false, error: thrown }`.
 */
export type AttemptOutcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: unknown };

/**
 * What the run did after a failed attempt. `wait`: nothing else was usable, so the run
 * waited for a rate limit or overload to pass (see `maxWaitMs`) and tried again.
 */
export type AttemptAction = 'retry_thinking' | 'rotate' | 'next_model' | 'wait' | 'stop';

/** A recorded window, as reported on attempts and events. */
export interface RecordedWindow {
  /** `disabled` blocks every model of the profile, `cooldown` one model. */
  readonly lane: 'disabled' | 'cooldown';
  readonly reason: ProfileFailureReason;
  readonly until: number;
  readonly step: number;
  /** False when a window was already running: it was left as it was (never extended). */
  readonly opened: boolean;
}

/** One attempt of a run. */
export interface FailoverAttempt extends ModelCandidate {
  readonly attempt: number;
  readonly profileId: string | undefined;
  readonly thinkingLevel: ThinkingLevel | undefined;
  readonly ok: boolean;
  readonly errorClass?: ModelErrorClass | undefined;
  readonly status?: number | undefined;
  readonly message?: string | undefined;
  readonly action?: AttemptAction | undefined;
  readonly recorded?: RecordedWindow | undefined;
}

/** What happened with one key of one candidate model. */
export interface CandidateProfileReport {
  readonly profileId: string | undefined;
  /** The class of the error its attempt ended with, or `unavailable` when it was skipped. */
  readonly result: ModelErrorClass | 'unavailable';
  /** Why it is blocked now, when it is. */
  readonly reason?: ProfileFailureReason | undefined;
  readonly until?: number | undefined;
  readonly message?: string | undefined;
}

/** What happened with one candidate model of a run. */
export interface FailoverCandidateReport extends ModelCandidate {
  readonly tried: boolean;
  readonly profiles: readonly CandidateProfileReport[];
  /** When some key of this model is usable again; `undefined` when nothing blocks it. */
  readonly usableAt: number | undefined;
}

/**
 * A profile pinned to a session (stored on the session entry by the gateway). `user`
 * pins come from `/model …@profile` and never rotate; `auto` pins keep provider caches warm
 * and move on when the profile cools down or the session was compacted.
 */
export interface SessionAuthPin {
  readonly profileId: string;
  readonly source: 'auto' | 'user';
  /** The session's compaction count when the pin was made (auto pins advance after a compaction). */
  readonly compactionCount?: number | undefined;
}

/** Events of the manager and of runs, for logs and operator events. */
export type AuthProfilesEvent =
  | { readonly type: 'attempt_start'; readonly candidate: Omit<AttemptCandidate, 'credential' | 'signal'> }
  | { readonly type: 'attempt_failed'; readonly attempt: FailoverAttempt; readonly error: ModelError }
  | {
      readonly type: 'failure_recorded';
      readonly profileId: string;
      readonly model: string;
      readonly window: RecordedWindow;
    }
  | {
      readonly type: 'thinking_downgrade';
      readonly provider: string;
      readonly model: string;
      readonly profileId: string | undefined;
      readonly from: ThinkingLevel | undefined;
      readonly to: ThinkingLevel;
    }
  | {
      readonly type: 'candidate_skipped';
      readonly provider: string;
      readonly model: string;
      readonly usableAt: number | undefined;
      readonly reason: ProfileFailureReason | undefined;
    }
  | {
      readonly type: 'model_fallback';
      readonly from: ModelCandidate;
      readonly to: ModelCandidate;
    }
  | { readonly type: 'waiting'; readonly wait: FailoverWait }
  | { readonly type: 'succeeded'; readonly attempt: FailoverAttempt }
  | { readonly type: 'pin_dropped'; readonly profileId: string; readonly reason: string }
  | { readonly type: 'state_reset'; readonly profileId: string; readonly reason: string }
  | { readonly type: 'storage_error'; readonly error: Error };

/**
 * A pause of a run: every candidate model is blocked and the soonest one to be usable again
 * is blocked by a rate limit or overload, so the run waits for it instead of failing.
 */
export interface FailoverWait {
  /** How long the run waits now. */
  readonly waitMs: number;
  /** Why the model it waits for is blocked. */
  readonly reason: 'rate_limit' | 'overloaded';
  /** The model that is usable again after the wait. */
  readonly provider: string;
  readonly model: string;
  /** The key that is usable again; absent for a provider's own key. */
  readonly profileId?: string | undefined;
  /** The number of the attempt that follows the wait (as in `AttemptCandidate.attempt`). */
  readonly attempt: number;
}

/** The input of one run (the gateway calls `runWithFailover` once per agent run). */
export interface FailoverRequest<T> {
  /** The model this run asks for (session override or the agent's model). */
  readonly model: ModelRef;
  /** The configured primary (`agents.defaults.model.primary`); appended last so an override settles back on it. */
  readonly primary?: ModelRef | undefined;
  /** Configured fallbacks (`agents.defaults.model.fallbacks`), in order. */
  readonly fallbacks?: readonly ModelRef[] | undefined;
  /** An explicit list (even empty) that replaces the configured fallbacks and the primary. */
  readonly fallbacksOverride?: readonly ModelRef[] | undefined;
  /** The thinking level the run starts with. */
  readonly thinkingLevel?: ThinkingLevel | undefined;
  readonly sessionPin?: SessionAuthPin | undefined;
  /** The session's compaction count now (auto pins advance when it grew). */
  readonly compactionCount?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Loop guard; default clamp(24 + 8 x profiles in the chain, 32, 160). */
  readonly maxAttempts?: number | undefined;
  readonly onEvent?: ((event: AuthProfilesEvent) => void) | undefined;
  /**
   * The most the run may wait in total, in ms, for a rate-limited or overloaded model when no
   * other key or model is usable: it waits for the provider's retry-after (or the cooldown
   * schedule when the provider said nothing) and tries again. A wait that does not fit what
   * is left fails the run with `retryAfterMs`. Default 0: never wait, fail at once (the
   * gateway sets it from `agents.defaults.rateLimitMaxWaitSeconds`, 60 s by default).
   */
  readonly maxWaitMs?: number | undefined;
  /** Called when the run starts waiting (also emitted as a `waiting` event). */
  readonly onWait?: ((wait: FailoverWait) => void) | undefined;
  /** Runs the agent (or one model call) with the candidate and reports how it went. */
  readonly attempt: (candidate: AttemptCandidate) => Promise<AttemptOutcome<T>>;
}

/** A run that got an answer. */
export interface FailoverResult<T> extends ModelCandidate {
  readonly value: T;
  readonly profileId: string | undefined;
  readonly thinkingLevel: ThinkingLevel | undefined;
  /** True when the answer came from another model than the requested one. */
  readonly fellBack: boolean;
  readonly attempts: readonly FailoverAttempt[];
  /** The pin the gateway should store on the session (unchanged for a user pin). */
  readonly sessionPin: SessionAuthPin | undefined;
}
