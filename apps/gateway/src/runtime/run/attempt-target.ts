import type { ThinkingLevel } from '@switchboard/core-loop';
import type { ModelTarget } from '../models.ts';

/** The model, credential and thinking level of one attempt. */
export interface AttemptTarget {
  readonly target: ModelTarget;
  readonly apiKey?: string;
  readonly authToken?: string;
  readonly thinkingLevel?: ThinkingLevel;
  /** The credential profile, for status and cooldowns. */
  readonly profileId?: string;
}

/** The stream options that carry an attempt's credential (its profile's, else its provider's). */
export function credentialsOf(attempt: AttemptTarget): {
  apiKey?: string;
  authToken?: string;
  baseUrl?: string;
} {
  const apiKey = attempt.apiKey ?? attempt.target.apiKey;
  const authToken = attempt.authToken ?? attempt.target.authToken;
  return {
    // Keeps the spreads (decision 0028, rule 1): the result is spread over the stream options.
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(authToken === undefined || apiKey !== undefined ? {} : { authToken }),
    ...(attempt.target.baseUrl === undefined ? {} : { baseUrl: attempt.target.baseUrl }),
  };
}
