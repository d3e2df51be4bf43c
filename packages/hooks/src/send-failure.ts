/**
 * What a failed `ChannelAccount.send` means for retrying. Channels classify; the gateway
 * alone retries, once, around `send` (decision 0023). A channel never retries a send itself.
 */
import type { ChannelAccount, OutboundMessage, SendResult } from './channel.ts';
import { SwitchboardError } from './errors.ts';
import { backoffDelay, type Sleep, sleep } from './time.ts';

/**
 * The verdict on one failed send.
 * - `retryable`: the platform certainly did not post the message (a 429, a 5xx, a connection
 *   that never reached it), so sending the same message again cannot duplicate it.
 *   `retryAfterMs` is the wait the platform asked for, when it said.
 * - `permanent`: another attempt cannot help, or could post the message twice (part of a
 *   split message already went out).
 */
export type SendFailure =
  | { readonly kind: 'retryable'; readonly retryAfterMs?: number }
  | { readonly kind: 'permanent' };

/**
 * How the gateway retries one account's sends. A channel exposes its own (from its config,
 * such as Telegram's `sendRetry`); without one the gateway's default applies.
 */
export interface SendRetryPolicy {
  /** Attempts in all, the first included (≥ 1). */
  readonly attempts: number;
  /**
   * The longest platform retry-after the gateway waits out. A longer one fails the send at
   * once, still retryable, so a later delivery may succeed.
   */
  readonly maxWaitMs: number;
}

/**
 * The standard classification, for channels that throw `SwitchboardError`s: `retryable` on
 * the error means `retryable`, and `details.retryAfterMs` (a non-negative number) is the
 * platform's retry-after. Anything else (a foreign error, a Switchboard error without
 * `retryable`) is `permanent`: the gateway retries only what a channel vouched for.
 */
export function classifySendFailure(error: unknown): SendFailure {
  if (!SwitchboardError.isInstance(error) || !error.retryable) return { kind: 'permanent' };
  const hinted = error.details?.retryAfterMs;
  return typeof hinted === 'number' && Number.isFinite(hinted) && hinted >= 0
    ? { kind: 'retryable', retryAfterMs: hinted }
    : { kind: 'retryable' };
}

/** The account surface {@link sendWithRetry} drives. */
type RetriedAccount = Pick<ChannelAccount, 'send' | 'classifySendFailure' | 'sendRetry'>;

/** One wait before another attempt, reported to {@link SendWithRetryOptions.onRetry}. */
export interface SendRetryEvent {
  /** The attempt that failed (1 for the first). */
  readonly attempt: number;
  readonly attempts: number;
  readonly delayMs: number;
  /** True when the wait is the platform's retry-after, false for the backoff. */
  readonly retryAfter: boolean;
  readonly error: unknown;
}

/** Options of {@link sendWithRetry}. */
export interface SendWithRetryOptions {
  /** The policy when the account has no `sendRetry`. Default 3 attempts, retry-afters up to 30 s. */
  readonly fallbackPolicy?: SendRetryPolicy;
  /** Waits between attempts; must reject when the signal aborts. Default: the real clock. */
  readonly sleep?: Sleep;
  /** Stops retrying (the wait rejects with its reason). */
  readonly signal?: AbortSignal;
  /** Called before each wait, for logs and status. */
  onRetry?(event: SendRetryEvent): void;
  /** Called when a retryable failure asks for a longer wait than the policy allows; the send then fails. */
  onRetryAfterTooLong?(retryAfterMs: number, policy: SendRetryPolicy): void;
}

/** 3 attempts, retry-afters up to 30 s: the policy of an account that brings none. */
export const defaultSendRetry: SendRetryPolicy = { attempts: 3, maxWaitMs: 30_000 };

/** The wait after a retryable failure without a retry-after: 500 ms, 1 s, 2 s, … up to 30 s. */
const sendBackoff = { baseMs: 500, capMs: 30_000 } as const;

/**
 * The one send retry (decision 0023): calls `account.send`, and after a failure the account
 * classifies as retryable waits the platform's retry-after (or a backoff) and tries again, at
 * most `sendRetry.attempts` times in all. A permanent failure, the last attempt's failure, or
 * a retry-after above `sendRetry.maxWaitMs` is rethrown as the channel threw it. The gateway
 * composes this around every send; channel tests use it to check their classification. A
 * channel never calls it from its own code: that would nest the retries again.
 */
export async function sendWithRetry(
  account: RetriedAccount,
  message: OutboundMessage,
  options: SendWithRetryOptions = {},
): Promise<SendResult> {
  const policy = account.sendRetry ?? options.fallbackPolicy ?? defaultSendRetry;
  const wait = options.sleep ?? sleep;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await account.send(message);
    } catch (error) {
      const failure = account.classifySendFailure?.(error) ?? classifySendFailure(error);
      if (failure.kind === 'permanent' || attempt >= policy.attempts || options.signal?.aborted === true)
        throw error;
      const hinted = failure.retryAfterMs;
      if (hinted !== undefined && hinted > policy.maxWaitMs) {
        options.onRetryAfterTooLong?.(hinted, policy);
        throw error;
      }
      const delayMs = hinted ?? backoffDelay({ attempt, ...sendBackoff });
      options.onRetry?.({
        attempt,
        attempts: policy.attempts,
        delayMs,
        retryAfter: hinted !== undefined,
        error,
      });
      await wait(delayMs, options.signal);
    }
  }
}
