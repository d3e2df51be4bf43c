import type { ModelError } from '@switchboard/core-loop';
import { type ErrorCodeTable, SwitchboardError, type SwitchboardErrorOptions } from '@switchboard/hooks';
import type { FailoverAttempt, FailoverCandidateReport } from './types.ts';

/** The codes of every `AuthProfilesError`. */
export type AuthProfilesErrorCode =
  | 'AUTH_PROFILES_INVALID_CONFIG'
  | 'AUTH_PROFILES_INVALID_REQUEST'
  | 'AUTH_PROFILES_INVALID_CREDENTIAL'
  | 'AUTH_PROFILES_UNKNOWN_PROFILE'
  | 'AUTH_PROFILES_EXHAUSTED'
  | 'AUTH_PROFILES_ATTEMPT_LIMIT'
  | 'AUTH_PROFILES_CONTEXT_OVERFLOW'
  | 'AUTH_PROFILES_ABORTED'
  | 'AUTH_PROFILES_REQUEST_REJECTED'
  | 'AUTH_PROFILES_STORAGE_FAILED';

/** Every error code this package throws or reports, with the sentence that documents it. */
export const authProfilesErrorCodes: Readonly<Record<AuthProfilesErrorCode, string>> & ErrorCodeTable = {
  AUTH_PROFILES_INVALID_CONFIG:
    'The auth part of the config (auth.profiles, auth.order, auth.cooldowns) does not have the expected shape; the message names each key path and what was expected there.',
  AUTH_PROFILES_INVALID_REQUEST:
    'runWithFailover was called with unusable input (an empty or malformed model reference, a bad maxAttempts or maxWaitMs); the message names the field.',
  AUTH_PROFILES_INVALID_CREDENTIAL:
    'A credential given to putCredential is unusable (no provider, a mode other than api_key or token, an empty secret); the message names the profile id and the field.',
  AUTH_PROFILES_UNKNOWN_PROFILE:
    'An operation named a profile id that is neither configured nor stored; the message names the id and lists the known ones.',
  AUTH_PROFILES_EXHAUSTED:
    'Every candidate model failed or had no usable key, and waiting for a rate limit to pass was not possible or would exceed maxWaitMs. The message is written for the user: which models were tried, why each failed, and when the soonest one is usable again; `attempts`, `candidates`, `retryAt` and `retryAfterMs` carry the same facts.',
  AUTH_PROFILES_ATTEMPT_LIMIT:
    'The run stopped after the maximum number of attempts (the loop guard, default clamp(24 + 8 x profiles, 32, 160)); the message lists what was tried.',
  AUTH_PROFILES_CONTEXT_OVERFLOW:
    'The prompt did not fit the model that was tried. Never a reason to rotate keys or fall back: compact the session and call again. `modelError` holds the observed token count, `candidate` the model that overflowed.',
  AUTH_PROFILES_ABORTED:
    'The run was aborted (the signal fired or the attempt reported an abort). Nothing was recorded against any key and no other model was tried.',
  AUTH_PROFILES_REQUEST_REJECTED:
    'The provider rejected the request itself (class format: bad tool ids, malformed content). Another key or model would get the same request, so nothing was rotated; `modelError` is the rejection.',
  AUTH_PROFILES_STORAGE_FAILED:
    'Reading or writing the runtime state (cooldowns, last use, stored credentials) failed. Loading fails the manager; a failed write is reported as a storage_error event and the run goes on with the in-memory state.',
};

/** One problem found in the auth config, with its key path (`auth.order.anthropic[1]`). */
export interface AuthConfigProblem {
  readonly path: string;
  readonly message: string;
}

/** Options of an `AuthProfilesError`, beyond the base ones. */
export interface AuthProfilesErrorOptions extends SwitchboardErrorOptions {
  readonly problems?: readonly AuthConfigProblem[];
  readonly attempts?: readonly FailoverAttempt[];
  readonly candidates?: readonly FailoverCandidateReport[];
  readonly modelError?: ModelError;
  readonly candidate?: { readonly provider: string; readonly model: string; readonly profileId?: string };
  readonly retryAt?: number;
  readonly retryAfterMs?: number;
}

/**
 * The error every auth-profiles failure is thrown as. Besides the code and message it
 * carries what the run did (`attempts`, per-model `candidates`), the model error that ended
 * it (`modelError`), and when trying again makes sense (`retryAt`, `retryAfterMs`).
 */
export class AuthProfilesError extends SwitchboardError<AuthProfilesErrorCode> {
  readonly problems: readonly AuthConfigProblem[];
  readonly attempts: readonly FailoverAttempt[];
  readonly candidates: readonly FailoverCandidateReport[];
  readonly modelError: ModelError | undefined;
  readonly candidate:
    | { readonly provider: string; readonly model: string; readonly profileId?: string }
    | undefined;
  readonly retryAt: number | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(code: AuthProfilesErrorCode, message: string, options: AuthProfilesErrorOptions = {}) {
    super(code, message, {
      cause: options.cause,
      retryable:
        options.retryable ?? (code === 'AUTH_PROFILES_EXHAUSTED' || code === 'AUTH_PROFILES_ATTEMPT_LIMIT'),
      details: {
        ...options.details,
        problems: options.problems,
        candidates: options.candidates,
        candidate: options.candidate,
        retryAt: options.retryAt,
        retryAfterMs: options.retryAfterMs,
        errorClass: options.modelError?.errorClass,
        modelErrorCode: options.modelError?.code,
      },
    });
    this.problems = options.problems ?? [];
    this.attempts = options.attempts ?? [];
    this.candidates = options.candidates ?? [];
    this.modelError = options.modelError;
    this.candidate = options.candidate;
    this.retryAt = options.retryAt;
    this.retryAfterMs = options.retryAfterMs;
  }
}
