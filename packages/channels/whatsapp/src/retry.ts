import { WhatsAppError } from './errors.ts';
import { sleep, type Timers } from './timers.ts';

/** How a failed platform call is classified for retrying. */
export interface RateLimitVerdict {
  readonly rateLimited: boolean;
  /** How long the platform asked to wait, when it said. */
  readonly retryAfterMs?: number;
}

/** Retries of rate-limited sends inside one `send` call. */
export interface RateLimitRetryPolicy {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  /** The wait when the platform did not say how long. */
  readonly defaultWaitMs: number;
  /** Waits longer than this are not waited out here: the error goes to the gateway (retryable). */
  readonly maxWaitMs: number;
}

export const defaultRateLimitRetry: RateLimitRetryPolicy = {
  maxAttempts: 4,
  defaultWaitMs: 1_000,
  maxWaitMs: 30_000,
};

/**
 * Runs `operation`, waiting out rate limits the platform reports (as `classify` reads them)
 * and trying again, up to the policy. Other errors pass through at once. When the retries
 * run out, throws `WHATSAPP_RATE_LIMITED` (retryable) with the last error as cause.
 */
export async function withRateLimitRetry<T>(
  operation: () => Promise<T>,
  classify: (error: unknown) => RateLimitVerdict,
  options: { timers: Timers; policy: RateLimitRetryPolicy; signal?: AbortSignal; what: string },
): Promise<T> {
  const { policy } = options;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await operation();
    } catch (error) {
      const verdict = classify(error);
      if (!verdict.rateLimited) throw error;
      const waitMs = verdict.retryAfterMs ?? policy.defaultWaitMs * 2 ** (attempt - 1);
      if (attempt >= policy.maxAttempts || waitMs > policy.maxWaitMs) {
        throw new WhatsAppError(
          'WHATSAPP_RATE_LIMITED',
          `WhatsApp rate-limited ${options.what} (${attempt} attempt${attempt === 1 ? '' : 's'}; asked to wait ${Math.ceil(waitMs / 1000)} s)`,
          { retryable: true, cause: error, details: { attempts: attempt, retryAfterMs: waitMs } },
        );
      }
      await sleep(options.timers, waitMs, options.signal);
    }
  }
}
