// What a rate-limited WhatsApp send means for the gateway's retry (decision 0023): the channel
// makes one attempt and reports the wait; the gateway retries within the account's sendRetry.
import type { SendRetryPolicy } from '@switchboard/hooks';
import { WhatsAppError } from './errors.ts';

/** How a failed platform call is classified for retrying. */
export interface RateLimitVerdict {
  readonly rateLimited: boolean;
  /** How long the platform asked to wait, when it said. */
  readonly retryAfterMs?: number;
}

/** How the gateway retries a rate-limited send of a WhatsApp account. */
export interface RateLimitRetryPolicy {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  /** The wait reported when the platform did not say how long. */
  readonly defaultWaitMs: number;
  /** Waits longer than this are not waited out: the send fails (retryable). */
  readonly maxWaitMs: number;
}

export const defaultRateLimitRetry: RateLimitRetryPolicy = {
  maxAttempts: 4,
  defaultWaitMs: 1_000,
  maxWaitMs: 30_000,
};

/** The account's `sendRetry`: the policy as the gateway's retry reads it. */
export function sendRetryOf(policy: RateLimitRetryPolicy): SendRetryPolicy {
  return { attempts: policy.maxAttempts, maxWaitMs: policy.maxWaitMs };
}

/**
 * Runs `operation` once. A rate limit (as `classify` reads it) becomes `WHATSAPP_RATE_LIMITED`,
 * retryable, with the wait in `details.retryAfterMs` (the platform's, or `defaultWaitMs`) and
 * the original error as cause; other errors pass through.
 */
export async function classifyingRateLimits<T>(
  operation: () => Promise<T>,
  classify: (error: unknown) => RateLimitVerdict,
  options: { policy: RateLimitRetryPolicy; what: string },
): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    const verdict = classify(error);
    if (!verdict.rateLimited) throw error;
    const waitMs = verdict.retryAfterMs ?? options.policy.defaultWaitMs;
    throw new WhatsAppError(
      'WHATSAPP_RATE_LIMITED',
      `WhatsApp rate-limited ${options.what} (asked to wait ${Math.ceil(waitMs / 1000)} s)`,
      { retryable: true, cause: error, details: { retryAfterMs: waitMs } },
    );
  }
}

/**
 * Runs the sends of one outbound message. When one fails after others already posted
 * (`delivered` is not empty), the failure is made permanent: a retry of the whole message
 * would post those parts twice.
 */
export async function permanentAfterPartialDelivery<T>(
  delivered: readonly string[],
  task: () => Promise<T>,
): Promise<T> {
  try {
    return await task();
  } catch (error) {
    if (delivered.length === 0 || !WhatsAppError.isInstance(error)) throw error;
    const failed = error as WhatsAppError;
    throw new WhatsAppError(
      failed.code,
      `${failed.message} (after ${delivered.length} part(s) of the message were posted; not retried, so they are not posted twice)`,
      { cause: error, details: { ...failed.details, deliveredMessageIds: [...delivered] } },
    );
  }
}
