/**
 * One run with failover: the candidate chain, the keys of each candidate, thinking
 * downgrades, the decision after each failed attempt, and the error when nothing answered.
 * The manager supplies profiles, state and bookkeeping through `FailoverContext`.
 */
import { ModelError, type ThinkingLevel, toModelError } from '@switchboard/core-loop';
import type { AssistantMessage } from '@switchboard/hooks';
import type { CooldownSettings } from './config.ts';
import { blockingWindow, windowDurationMs } from './cooldown.ts';
import { describeExhaustion, soonestUsable } from './describe.ts';
import { AuthProfilesError } from './errors.ts';
import { buildCandidateChain, formatModel } from './model-ref.ts';
import { type OrderableProfile, orderProfiles } from './ordering.ts';
import { pickThinkingDowngrade } from './thinking.ts';
import type {
  AttemptAction,
  AttemptCandidate,
  AttemptOutcome,
  AuthCredential,
  AuthProfile,
  AuthProfilesEvent,
  CandidateProfileReport,
  FailoverAttempt,
  FailoverCandidateReport,
  FailoverRequest,
  FailoverResult,
  FailoverWait,
  FailureWindow,
  ModelCandidate,
  ProfileRuntimeState,
  RecordedWindow,
  SessionAuthPin,
} from './types.ts';

/** What a run needs from the manager. */
export interface FailoverContext {
  readonly now: () => number;
  readonly settings: CooldownSettings;
  readonly defaultProvider: string;
  readonly states: ReadonlyMap<string, ProfileRuntimeState>;
  readonly sleep: (milliseconds: number, signal?: AbortSignal) => Promise<void>;
  explicitOrder(provider: string): readonly string[] | undefined;
  orderable(): readonly OrderableProfile[];
  /** Ids of the provider's profiles that have a secret, in declaration order. */
  eligible(provider: string): string[];
  profile(
    profileId: string,
  ): { readonly profile: AuthProfile; readonly credential: AuthCredential | undefined } | undefined;
  recordSuccess(profileId: string, model: string): Promise<void>;
  recordFailure(profileId: string, model: string, error: ModelError): Promise<RecordedWindow | undefined>;
  /** The manager's own listener. */
  emit(event: AuthProfilesEvent): void;
}

/** The loop guard: clamp(24 + 8 x profiles, 32, 160) attempts per run. */
function defaultMaxAttempts(profileCount: number): number {
  return Math.min(160, Math.max(32, 24 + 8 * profileCount));
}

/** Turns what an attempt reported (a ModelError, a failed assistant message, anything thrown) into a `ModelError`. */
export function toAttemptError(
  error: unknown,
  context: { signal?: AbortSignal; provider?: string; model?: string } = {},
): ModelError {
  if (error instanceof ModelError) return error;
  if (isAssistantMessage(error)) {
    return (
      ModelError.fromAssistantMessage(error) ??
      new ModelError(
        'unknown',
        'The attempt reported a failure with an assistant message that did not fail.',
        {
          provider: context.provider,
          model: context.model,
        },
      )
    );
  }
  return toModelError(error, context);
}

/**
 * The outcome of an attempt that ran the agent: a failed assistant message (stop reason
 * `error` or `aborted`) is a failure carrying its `ModelError`; anything else succeeded.
 */
export function outcomeFromAssistantMessage(message: AssistantMessage): AttemptOutcome<AssistantMessage> {
  const error = ModelError.fromAssistantMessage(message);
  return error === undefined ? { ok: true, value: message } : { ok: false, error };
}

function isAssistantMessage(value: unknown): value is AssistantMessage {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { role?: unknown }).role === 'assistant' &&
    typeof (value as { stopReason?: unknown }).stopReason === 'string'
  );
}

interface CandidateState extends ModelCandidate {
  readonly index: number;
  /** More candidates follow (fallback is possible). */
  readonly hasMore: boolean;
  /** A user pin on this provider: only that key, never rotated. */
  readonly locked: boolean;
  /** The profiles this candidate may use (for its usable-again time). */
  readonly profileIds: readonly string[];
  tried: boolean;
  readonly profiles: CandidateProfileReport[];
}

type StopCode = 'AUTH_PROFILES_ABORTED' | 'AUTH_PROFILES_CONTEXT_OVERFLOW' | 'AUTH_PROFILES_REQUEST_REJECTED';

/** The classes capped by a rotation budget before model fallback. */
type CappedClass = 'rate_limit' | 'overloaded' | 'timeout';

/** The failures a run waits out (when nothing else is usable) instead of failing. */
type WaitReason = FailoverWait['reason'];

function isWaitReason(reason: string): reason is WaitReason {
  return reason === 'rate_limit' || reason === 'overloaded';
}

/** The candidate and key a run can wait for, and until when. */
interface WaitTarget {
  readonly candidate: ModelCandidate;
  readonly profileId: string | undefined;
  readonly until: number;
  readonly reason: WaitReason;
}

/** Runs one request; see `AuthProfileManager.runWithFailover`. */
export async function runFailover<T>(
  context: FailoverContext,
  request: FailoverRequest<T>,
): Promise<FailoverResult<T>> {
  if (typeof request?.attempt !== 'function') {
    throw new AuthProfilesError(
      'AUTH_PROFILES_INVALID_REQUEST',
      'runWithFailover: attempt must be a function',
      {
        details: { field: 'attempt' },
      },
    );
  }
  if (
    request.maxAttempts !== undefined &&
    !(Number.isInteger(request.maxAttempts) && request.maxAttempts >= 1)
  ) {
    throw new AuthProfilesError(
      'AUTH_PROFILES_INVALID_REQUEST',
      `runWithFailover: maxAttempts must be an integer >= 1, got ${String(request.maxAttempts)}`,
      { details: { field: 'maxAttempts' } },
    );
  }
  if (request.maxWaitMs !== undefined && !(Number.isFinite(request.maxWaitMs) && request.maxWaitMs >= 0)) {
    throw new AuthProfilesError(
      'AUTH_PROFILES_INVALID_REQUEST',
      `runWithFailover: maxWaitMs must be a number >= 0, got ${String(request.maxWaitMs)}`,
      { details: { field: 'maxWaitMs' } },
    );
  }
  const chain = buildCandidateChain({ ...request, defaultProvider: context.defaultProvider });
  return new FailoverRun(context, request, chain).run();
}

class FailoverRun<T> {
  readonly #context: FailoverContext;
  readonly #request: FailoverRequest<T>;
  readonly #chain: readonly ModelCandidate[];
  readonly #attempts: FailoverAttempt[] = [];
  /** The candidates of the current pass over the chain. */
  #candidates: CandidateState[] = [];
  readonly #maxAttempts: number;
  readonly #maxWaitMs: number;
  /** What the run has waited so far. */
  #waitedMs = 0;
  /**
   * Windows of provider keys (candidates without profiles) that were rate-limited or
   * overloaded in this run, by `provider/model`. Kept for the run only: nothing is stored
   * for a key the manager does not know.
   */
  readonly #providerKeyWindows = new Map<string, FailureWindow>();
  readonly #pin: SessionAuthPin | undefined;
  readonly #pinProvider: string | undefined;
  /** An auto pin whose session was compacted since it was made moves on to the next key. */
  readonly #advancePin: boolean;
  #lastError: ModelError | undefined;

  constructor(context: FailoverContext, request: FailoverRequest<T>, chain: readonly ModelCandidate[]) {
    this.#context = context;
    this.#request = request;
    this.#chain = chain;
    let pin = request.sessionPin;
    if (pin !== undefined) {
      const known = context.profile(pin.profileId);
      const reason =
        known === undefined
          ? 'the profile no longer exists'
          : known.credential === undefined
            ? 'the profile has no credential'
            : undefined;
      if (reason !== undefined) {
        this.#emit({ type: 'pin_dropped', profileId: pin.profileId, reason });
        pin = undefined;
      }
    }
    this.#pin = pin;
    this.#pinProvider = pin === undefined ? undefined : context.profile(pin.profileId)?.profile.provider;
    this.#advancePin =
      pin?.source === 'auto' &&
      request.compactionCount !== undefined &&
      pin.compactionCount !== undefined &&
      request.compactionCount > pin.compactionCount;
    const profileCount = chain.reduce(
      (sum, candidate) => sum + Math.max(1, context.eligible(candidate.provider).length),
      0,
    );
    this.#maxAttempts = request.maxAttempts ?? defaultMaxAttempts(profileCount);
    this.#maxWaitMs = request.maxWaitMs ?? 0;
  }

  /**
   * Passes over the chain until one answers. When a pass ends with every candidate blocked
   * and the soonest usable again is held by a rate limit or overload, the run waits for it
   * (within `maxWaitMs` in total) and passes again; otherwise it throws.
   */
  async run(): Promise<FailoverResult<T>> {
    for (;;) {
      const result = await this.#pass();
      if (result !== undefined) return result;
      const now = this.#context.now();
      const wait = this.#plannedWait(now, this.#attempts.length);
      if (wait === undefined) {
        const candidates = this.#reports();
        const soonest = soonestUsable(candidates, now);
        throw new AuthProfilesError('AUTH_PROFILES_EXHAUSTED', describeExhaustion(candidates, now), {
          attempts: this.#attempts,
          candidates,
          ...this.#lastErrorOptions(),
          retryAt: soonest?.at,
          retryAfterMs: soonest === undefined ? undefined : soonest.at - now,
        });
      }
      await this.#wait({
        waitMs: wait.waitMs,
        reason: wait.reason,
        provider: wait.candidate.provider,
        model: wait.candidate.model,
        profileId: wait.profileId,
        attempt: this.#attempts.length + 1,
      });
    }
  }

  /**
   * The wait that follows a pass without an answer, when there is one: the run has attempts
   * left, can wait for a rate limit or overload (see `#waitTarget`), and the wait fits in
   * what is left of `maxWaitMs`.
   */
  #plannedWait(now: number, attemptsSoFar: number): (WaitTarget & { readonly waitMs: number }) | undefined {
    if (attemptsSoFar >= this.#maxAttempts) return undefined;
    const target = this.#waitTarget(now);
    if (target === undefined) return undefined;
    const waitMs = target.until - now;
    return waitMs <= this.#maxWaitMs - this.#waitedMs ? { ...target, waitMs } : undefined;
  }

  /**
   * What the run can wait for: `undefined` when some candidate is usable now (it failed
   * in a way no wait helps with) or none is blocked by a rate limit or overload; else the
   * soonest candidate and key blocked by one.
   */
  #waitTarget(now: number): WaitTarget | undefined {
    let best: WaitTarget | undefined;
    for (const candidate of this.#candidates) {
      const windows: Array<{ profileId: string | undefined; window: FailureWindow | undefined }> =
        candidate.profileIds.length === 0
          ? [{ profileId: undefined, window: this.#providerKeyWindow(candidate, now) }]
          : candidate.profileIds.map((profileId) => ({
              profileId,
              window: blockingWindow(this.#context.states.get(profileId), candidate.model, now),
            }));
      for (const { profileId, window } of windows) {
        if (window === undefined) return undefined;
        if (!isWaitReason(window.reason)) continue;
        if (best === undefined || window.until < best.until) {
          best = { candidate, profileId, until: window.until, reason: window.reason };
        }
      }
    }
    return best;
  }

  /** Tells the listeners, then sleeps; an abort ends the sleep at once and stops the run. */
  async #wait(wait: FailoverWait): Promise<void> {
    this.#emit({ type: 'waiting', wait });
    try {
      this.#request.onWait?.(wait);
    } catch {
      // A broken listener must not break the run.
    }
    this.#waitedMs += wait.waitMs;
    try {
      await this.#context.sleep(wait.waitMs, this.#request.signal);
    } catch (error) {
      // A sleep that rejects on abort is fine: the abort is reported below.
      if (this.#request.signal?.aborted !== true) throw error;
    }
    const model = { provider: wait.provider, model: wait.model };
    this.#throwIfAborted(model, wait.profileId);
  }

  /** The window blocking a provider key (a candidate without profiles) in this run, if one is running. */
  #providerKeyWindow(candidate: ModelCandidate, now: number): FailureWindow | undefined {
    const window = this.#providerKeyWindows.get(formatModel(candidate));
    return window !== undefined && window.until > now ? window : undefined;
  }

  /** One pass over the chain: the result, or `undefined` when no candidate answered. */
  async #pass(): Promise<FailoverResult<T> | undefined> {
    this.#candidates = [];
    let lastTried: ModelCandidate | undefined;
    for (let index = 0; index < this.#chain.length; index += 1) {
      const model = this.#chain[index]!;
      this.#throwIfAborted(model, undefined);
      const candidate = this.#openCandidate(model, index);
      const queue = this.#queueFor(candidate);
      if (queue.length === 0) {
        this.#emit({
          type: 'candidate_skipped',
          provider: candidate.provider,
          model: candidate.model,
          usableAt: this.#usableAt(candidate),
          reason: candidate.profiles[0]?.reason,
        });
        continue;
      }
      if (lastTried !== undefined) this.#emit({ type: 'model_fallback', from: lastTried, to: model });
      lastTried = model;
      candidate.tried = true;
      const result = await this.#tryCandidate(candidate, queue);
      if (result !== undefined) return result;
    }
    return undefined;
  }

  #openCandidate(model: ModelCandidate, index: number): CandidateState {
    const eligible = this.#context.eligible(model.provider);
    const locked = this.#pin?.source === 'user' && this.#pinProvider === model.provider;
    const candidate: CandidateState = {
      ...model,
      index,
      hasMore: index < this.#chain.length - 1,
      locked,
      profileIds: locked ? [this.#pin!.profileId] : eligible,
      tried: false,
      profiles: [],
    };
    this.#candidates.push(candidate);
    return candidate;
  }

  /** The keys to try for a candidate, in order; blocked keys are noted on its report. */
  #queueFor(candidate: CandidateState): Array<string | undefined> {
    const now = this.#context.now();
    if (candidate.profileIds.length === 0) {
      // The provider's own key, unless this run saw it rate-limited a moment ago.
      const blocked = this.#providerKeyWindow(candidate, now);
      if (blocked === undefined) return [undefined];
      candidate.profiles.push({
        profileId: undefined,
        result: 'unavailable',
        reason: blocked.reason,
        until: blocked.until,
      });
      return [];
    }
    const pinned =
      this.#pin !== undefined && this.#pinProvider === candidate.provider ? this.#pin : undefined;
    if (candidate.locked && pinned !== undefined) {
      const blocked = blockingWindow(this.#context.states.get(pinned.profileId), candidate.model, now);
      if (blocked === undefined) return [pinned.profileId];
      candidate.profiles.push({
        profileId: pinned.profileId,
        result: 'unavailable',
        reason: blocked.reason,
        until: blocked.until,
      });
      return [];
    }
    const order = orderProfiles({
      provider: candidate.provider,
      model: candidate.model,
      now,
      profiles: this.#context.orderable(),
      explicitOrder: this.#context.explicitOrder(candidate.provider),
      states: this.#context.states,
      preferred: pinned?.profileId,
      advanceFrom: this.#advancePin ? pinned?.profileId : undefined,
    });
    for (const entry of order) {
      if (entry.usable) continue;
      candidate.profiles.push({
        profileId: entry.profileId,
        result: 'unavailable',
        reason: entry.blockedBy?.reason,
        until: entry.blockedBy?.until,
      });
    }
    return order.filter((entry) => entry.usable).map((entry) => entry.profileId);
  }

  /** Tries the candidate's keys; the result on success, `undefined` to move on to the next model. */
  async #tryCandidate(
    candidate: CandidateState,
    queue: ReadonlyArray<string | undefined>,
  ): Promise<FailoverResult<T> | undefined> {
    const rotations: Record<CappedClass, number> = { rate_limit: 0, overloaded: 0, timeout: 0 };
    for (let position = 0; position < queue.length; position += 1) {
      const profileId = queue[position];
      if (profileId !== undefined && position > 0) {
        // A concurrent run may have blocked this key since the queue was made.
        const blocked = blockingWindow(
          this.#context.states.get(profileId),
          candidate.model,
          this.#context.now(),
        );
        if (blocked !== undefined) {
          candidate.profiles.push({
            profileId,
            result: 'unavailable',
            reason: blocked.reason,
            until: blocked.until,
          });
          continue;
        }
      }
      const outcome = await this.#tryProfile(candidate, profileId);
      if (outcome.ok) return outcome.result;
      const { error, level } = outcome;
      if (!error.isFailover) {
        this.#recordAttempt(candidate, profileId, level, error, 'stop');
        throw this.#stop('AUTH_PROFILES_REQUEST_REJECTED', error, candidate, profileId);
      }
      const recorded =
        profileId === undefined
          ? this.#recordProviderKeyFailure(candidate, error)
          : await this.#context.recordFailure(profileId, candidate.model, error);
      if (profileId !== undefined && recorded !== undefined) {
        this.#emit({ type: 'failure_recorded', profileId, model: candidate.model, window: recorded });
      }
      const rotate = this.#shouldRotate(candidate, profileId, error, position + 1 < queue.length, rotations);
      // Without a rotation on the last candidate the pass ends: the run waits (see `run`) or stops.
      const action: AttemptAction = rotate
        ? 'rotate'
        : candidate.hasMore
          ? 'next_model'
          : this.#plannedWait(this.#context.now(), this.#attempts.length + 1) === undefined
            ? 'stop'
            : 'wait';
      this.#recordAttempt(candidate, profileId, level, error, action, recorded);
      candidate.profiles.push({
        profileId,
        result: error.errorClass,
        reason: recorded?.reason,
        until: recorded?.until,
        message: error.message,
      });
      if (!rotate) return undefined;
      if (error.errorClass === 'overloaded' && this.#context.settings.overloadedBackoffMs > 0) {
        await this.#context.sleep(this.#context.settings.overloadedBackoffMs, this.#request.signal);
      }
    }
    return undefined;
  }

  /**
   * Blocks a provider key (no profile) within this run after a rate limit or overload, as
   * long as a profile would be: the provider's retry-after, else the schedule (escalating
   * with each such failure of the run).
   */
  #recordProviderKeyFailure(candidate: ModelCandidate, error: ModelError): RecordedWindow | undefined {
    const reason = error.errorClass;
    if (!isWaitReason(reason)) return undefined;
    const key = formatModel(candidate);
    const now = this.#context.now();
    const previous = this.#providerKeyWindows.get(key);
    const step = previous === undefined ? 1 : previous.step + 1;
    const until =
      now +
      windowDurationMs(reason, step, this.#context.settings, {
        provider: candidate.provider,
        retryAfterMs: error.retryAfterMs,
      });
    this.#providerKeyWindows.set(key, { reason, since: now, until, step });
    return { lane: 'cooldown', reason, until, step, opened: true };
  }

  /**
   * Whether to try the candidate's next key after this failure:
   * - never under a user pin or without profiles;
   * - never for `no_credentials`: nothing was sent, and no other key of the provider exists
   *   (keys without a secret are not eligible); the next model, of another provider, may have one;
   * - a model that is not found, or an unknown failure without an HTTP status, is about the
   *   model: the next model first, other keys only when no model is left;
   * - rate limits, overload and timeouts rotate at most their budget (1 by default) while
   *   fallback models remain, through every key when none does;
   * - auth, billing and unknown HTTP failures rotate through every key.
   */
  #shouldRotate(
    candidate: CandidateState,
    profileId: string | undefined,
    error: ModelError,
    hasNextKey: boolean,
    rotations: Record<CappedClass, number>,
  ): boolean {
    if (candidate.locked || profileId === undefined || !hasNextKey) return false;
    const errorClass = error.errorClass;
    if (errorClass === 'no_credentials') return false;
    if (errorClass === 'model_not_found' || (errorClass === 'unknown' && error.status === undefined)) {
      return !candidate.hasMore;
    }
    if (errorClass === 'rate_limit' || errorClass === 'overloaded' || errorClass === 'timeout') {
      const settings = this.#context.settings;
      const budget =
        errorClass === 'rate_limit'
          ? settings.rateLimitedProfileRotations
          : errorClass === 'overloaded'
            ? settings.overloadedProfileRotations
            : settings.timeoutProfileRotations;
      if (candidate.hasMore && rotations[errorClass] >= budget) return false;
      rotations[errorClass] += 1;
      return true;
    }
    return true;
  }

  /**
   * Attempts one key, lowering the thinking level as long as the model rejects it. Throws
   * for aborts and context overflow; returns the success or the failure to decide on.
   */
  async #tryProfile(
    candidate: CandidateState,
    profileId: string | undefined,
  ): Promise<
    | { readonly ok: true; readonly result: FailoverResult<T> }
    | { readonly ok: false; readonly error: ModelError; readonly level: ThinkingLevel | undefined }
  > {
    const known = profileId === undefined ? undefined : this.#context.profile(profileId);
    const signal = this.#request.signal;
    let level = this.#request.thinkingLevel;
    const triedLevels = new Set<ThinkingLevel>([level ?? 'off']);
    for (;;) {
      this.#throwIfAborted(candidate, profileId);
      if (this.#attempts.length >= this.#maxAttempts) {
        const candidates = this.#reports();
        throw new AuthProfilesError(
          'AUTH_PROFILES_ATTEMPT_LIMIT',
          describeExhaustion(candidates, this.#context.now(), { attemptLimit: this.#maxAttempts }),
          { attempts: this.#attempts, candidates, ...this.#lastErrorOptions() },
        );
      }
      const attempt: AttemptCandidate = {
        provider: candidate.provider,
        model: candidate.model,
        profileId,
        profile: known?.profile,
        credential: known?.credential,
        thinkingLevel: level,
        attempt: this.#attempts.length + 1,
        candidateIndex: candidate.index,
        isFallback: candidate.index > 0,
        signal,
      };
      const { credential: _credential, signal: _signal, ...visible } = attempt;
      this.#emit({ type: 'attempt_start', candidate: visible });
      let outcome: AttemptOutcome<T>;
      try {
        outcome = await this.#request.attempt(attempt);
      } catch (thrown) {
        outcome = { ok: false, error: thrown };
      }
      if (outcome.ok) {
        if (profileId !== undefined) await this.#context.recordSuccess(profileId, candidate.model);
        const succeeded: FailoverAttempt = {
          provider: candidate.provider,
          model: candidate.model,
          attempt: attempt.attempt,
          profileId,
          thinkingLevel: level,
          ok: true,
        };
        this.#attempts.push(succeeded);
        this.#emit({ type: 'succeeded', attempt: succeeded });
        return {
          ok: true,
          result: {
            value: outcome.value,
            provider: candidate.provider,
            model: candidate.model,
            profileId,
            thinkingLevel: level,
            fellBack: candidate.index > 0,
            attempts: this.#attempts,
            sessionPin: this.#nextPin(profileId),
          },
        };
      }
      const error = toAttemptError(outcome.error, {
        signal,
        provider: candidate.provider,
        model: candidate.model,
      });
      this.#lastError = error;
      if (error.errorClass === 'aborted' || signal?.aborted === true) {
        this.#recordAttempt(candidate, profileId, level, error, 'stop');
        throw this.#stop('AUTH_PROFILES_ABORTED', error, candidate, profileId);
      }
      if (error.errorClass === 'context_overflow') {
        this.#recordAttempt(candidate, profileId, level, error, 'stop');
        throw this.#stop('AUTH_PROFILES_CONTEXT_OVERFLOW', error, candidate, profileId);
      }
      const lower = pickThinkingDowngrade(error.message, level, triedLevels);
      if (lower === undefined) return { ok: false, error, level };
      this.#recordAttempt(candidate, profileId, level, error, 'retry_thinking');
      this.#emit({
        type: 'thinking_downgrade',
        provider: candidate.provider,
        model: candidate.model,
        profileId,
        from: level,
        to: lower,
      });
      triedLevels.add(lower);
      level = lower;
    }
  }

  /** The pin to store on the session after a success: a user pin stays, else the key that answered. */
  #nextPin(profileId: string | undefined): SessionAuthPin | undefined {
    if (this.#pin?.source === 'user' || profileId === undefined) return this.#pin;
    const compactionCount = this.#request.compactionCount;
    return { profileId, source: 'auto', compactionCount };
  }

  #recordAttempt(
    candidate: ModelCandidate,
    profileId: string | undefined,
    level: ThinkingLevel | undefined,
    error: ModelError,
    action: AttemptAction,
    recorded?: RecordedWindow,
  ): void {
    const entry: FailoverAttempt = {
      provider: candidate.provider,
      model: candidate.model,
      attempt: this.#attempts.length + 1,
      profileId,
      thinkingLevel: level,
      ok: false,
      errorClass: error.errorClass,
      status: error.status,
      message: error.message,
      action,
      recorded,
    };
    this.#attempts.push(entry);
    this.#emit({ type: 'attempt_failed', attempt: entry, error });
  }

  #throwIfAborted(candidate: ModelCandidate, profileId: string | undefined): void {
    if (this.#request.signal?.aborted !== true) return;
    const error = new ModelError('aborted', 'Request was aborted', {
      provider: candidate.provider,
      model: candidate.model,
    });
    throw this.#stop('AUTH_PROFILES_ABORTED', error, candidate, profileId);
  }

  #stop(
    code: StopCode,
    error: ModelError,
    candidate: ModelCandidate,
    profileId: string | undefined,
  ): AuthProfilesError {
    const where = `${formatModel(candidate)}${profileId === undefined ? '' : ` (${profileId})`}`;
    const message =
      code === 'AUTH_PROFILES_ABORTED'
        ? `The run was aborted on ${where}.`
        : code === 'AUTH_PROFILES_CONTEXT_OVERFLOW'
          ? `The conversation does not fit ${where}: ${error.message}`
          : `${where} rejected the request: ${error.message}`;
    return new AuthProfilesError(code, message, {
      cause: error,
      modelError: error,
      attempts: this.#attempts,
      candidates: this.#reports(),
      candidate: {
        provider: candidate.provider,
        model: candidate.model,
        profileId,
      },
    });
  }

  #lastErrorOptions(): { cause?: ModelError; modelError?: ModelError } {
    return this.#lastError === undefined ? {} : { cause: this.#lastError, modelError: this.#lastError };
  }

  /**
   * The per-model reports, with usable-again times taken now: a later candidate's failures
   * may have blocked keys an earlier candidate could still have used.
   */
  #reports(): FailoverCandidateReport[] {
    return this.#candidates.map((candidate) => ({
      provider: candidate.provider,
      model: candidate.model,
      tried: candidate.tried,
      profiles: [...candidate.profiles],
      usableAt: this.#usableAt(candidate),
    }));
  }

  /**
   * When some key can serve the candidate's model again; `undefined` when one can now. A
   * provider key (no profiles) is blocked only by this run's own rate limits.
   */
  #usableAt(candidate: CandidateState): number | undefined {
    const now = this.#context.now();
    if (candidate.profileIds.length === 0) return this.#providerKeyWindow(candidate, now)?.until;
    let soonest: number | undefined;
    for (const profileId of candidate.profileIds) {
      const window = blockingWindow(this.#context.states.get(profileId), candidate.model, now);
      if (window === undefined) return undefined;
      if (soonest === undefined || window.until < soonest) soonest = window.until;
    }
    return soonest;
  }

  #emit(event: AuthProfilesEvent): void {
    try {
      this.#request.onEvent?.(event);
    } catch {
      // A broken listener must not break the run.
    }
    this.#context.emit(event);
  }
}
