/**
 * What a failed `ChannelAccount.send` means for retrying. Channels classify; the gateway
 * alone retries, once, around `send` (decision 0023). A channel never retries a send itself.
 */
import { SwitchboardError } from './errors.ts';

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
