import {
  type ChannelAccount,
  type ChannelAccountStatus,
  classifySendFailure,
  defaultSendRetry,
  type HookRunner,
  type Logger,
  type OutboundMessage,
  type OutboundScope,
  type SendResult,
  type SendRetryPolicy,
  type Sleep,
  sendWithRetry,
} from '@switchboard/hooks';
import type { SessionStore } from '@switchboard/sessions';
import { GatewayError } from '../gateway-error.ts';
import { crashPoint } from './crash-points.ts';

export type OutboundResult =
  | { readonly status: 'sent'; readonly messageIds: readonly string[] }
  /** A receipt shows this exact delivery already happened (a retry or a crash replay). */
  | { readonly status: 'already-sent'; readonly messageIds: readonly string[] }
  | { readonly status: 'cancelled'; readonly reason: string };

export interface OutboundOptions {
  /** Makes the delivery exactly-once: a second send with the same key is not sent again. */
  readonly idempotencyKey?: string;
  readonly scope?: OutboundScope;
  readonly signal?: AbortSignal;
}

export type SendOutbound = (message: OutboundMessage, options?: OutboundOptions) => Promise<OutboundResult>;

/**
 * What the outbound path needs of the channel manager: the account a message goes out on.
 * Contract: `running` is set once the account's `start` resolved and cleared when it stops;
 * `status` is its latest snapshot (named in the error when it is not running).
 */
interface OutboundAccounts {
  account(
    channel: string,
    accountId: string,
  ): { readonly running: ChannelAccount | undefined; readonly status: ChannelAccountStatus } | undefined;
}

export interface OutboundDependencies {
  /** Waits between send attempts; injectable so tests do not sleep. Must reject when the signal aborts. */
  readonly sleep?: Sleep;
  /**
   * Attempts per send when the channel's error is retryable and the account has no
   * `sendRetry` of its own (Telegram's `sendRetry.attempts`, Discord's `rateLimit.maxRetries`). Default 3.
   */
  readonly maxSendAttempts?: number;
  readonly hooks: HookRunner;
  /** Where the running accounts are: the channel manager. */
  readonly channels: OutboundAccounts;
  readonly store: SessionStore;
  /**
   * Called right before each send attempt; a rejection fails the send without calling the
   * channel (not retried). Replicas use it so that a replica resumed after a pause does not
   * send what another replica has taken over (decision 0021). Absent on one host.
   */
  readonly confirmSendAllowed?: (channel: string, accountId: string) => Promise<void>;
  readonly logger: Logger;
  readonly now: () => number;
}

/**
 * Every message the gateway sends to a platform goes through here, composed once around the
 * channel's `send` (as grammY composes API transformers): `message_sending` (may rewrite or
 * cancel), a delivery receipt claimed under the idempotency key, the send with retries, the
 * receipt recorded with the platform's id, then `message_sent`.
 *
 * This is the only place a send is retried (decision 0023): channels make one attempt and
 * classify the failure; `sendWithRetry` tries a retryable one again, at most the account's
 * `sendRetry.attempts` times in all, after the platform's retry-after or a backoff. A channel
 * classifies a failure retryable only when the platform certainly did not post the message,
 * so this never double-posts.
 */
export function createOutbound(dependencies: OutboundDependencies): SendOutbound {
  const { hooks, channels, store, logger, now } = dependencies;
  const fallbackPolicy: SendRetryPolicy =
    dependencies.maxSendAttempts === undefined
      ? defaultSendRetry
      : { ...defaultSendRetry, attempts: dependencies.maxSendAttempts };

  const { confirmSendAllowed } = dependencies;
  /** Errors of `confirmSendAllowed`: never retried, whatever the channel's classification says. */
  const refusals = new WeakSet<object>();
  /** The account with `confirmSendAllowed` run before each attempt's send. */
  function guarded(account: ChannelAccount): Parameters<typeof sendWithRetry>[0] {
    if (confirmSendAllowed === undefined) return account;
    return {
      sendRetry: account.sendRetry,
      async send(message) {
        try {
          await confirmSendAllowed(message.channel, message.accountId);
        } catch (error) {
          if (typeof error === 'object' && error !== null) refusals.add(error);
          throw error;
        }
        return account.send(message);
      },
      classifySendFailure(error) {
        if (typeof error === 'object' && error !== null && refusals.has(error)) return { kind: 'permanent' };
        return account.classifySendFailure?.(error) ?? classifySendFailure(error);
      },
    };
  }

  function retrying(
    account: ChannelAccount,
    message: OutboundMessage,
    signal: AbortSignal | undefined,
  ): Promise<SendResult> {
    const where = { channel: message.channel, accountId: message.accountId };
    return sendWithRetry(guarded(account), message, {
      fallbackPolicy,
      sleep: dependencies.sleep,
      signal,
      onRetry: (event) =>
        logger.warn('send failed, retrying', {
          ...where,
          attempt: event.attempt,
          attempts: event.attempts,
          delayMs: event.delayMs,
          retryAfter: event.retryAfter,
          error: event.error instanceof Error ? event.error.message : String(event.error),
        }),
      onRetryAfterTooLong: (retryAfterMs, policy) =>
        logger.warn('send rate limited for longer than the retry policy waits; not retrying now', {
          ...where,
          retryAfterMs,
          maxWaitMs: policy.maxWaitMs,
        }),
    });
  }
  return async (original, options = {}) => {
    let message = original;
    const scope = options.scope ?? {};
    if (hooks.has('message_sending')) {
      const outcome = await hooks.run('message_sending', { ...scope, message });
      if (outcome.cancel)
        return { status: 'cancelled', reason: outcome.reason ?? `cancelled by ${outcome.plugin}` };
      message = outcome.message;
    }
    const account = channels.account(message.channel, message.accountId);
    if (account?.running === undefined) {
      throw new GatewayError(
        'CONFLICT',
        `channel ${message.channel} account ${message.accountId} is not running (${account?.status.state ?? 'not configured'})`,
        { retryable: true },
      );
    }
    const key = options.idempotencyKey;
    if (key !== undefined) {
      const claim = await store.claimDelivery(key, {
        channel: message.channel,
        accountId: message.accountId,
        to: message.peer.id,
        // Keeps the spread (decision 0028, rule 1): a reclaim merges these details over the stored ones.
        ...(scope.runId === undefined ? {} : { runId: scope.runId }),
      });
      if (claim.status === 'already-sent') {
        const id = claim.receipt.platformMessageId;
        return { status: 'already-sent', messageIds: id === undefined ? [] : [id] };
      }
      if (claim.status === 'in-progress')
        return { status: 'cancelled', reason: 'the same delivery is in progress elsewhere' };
    }
    const started = now();
    const running = account.running;
    try {
      const result = await retrying(running, message, options.signal);
      if (key !== undefined) {
        await store.recordDelivery(key, result.messageIds.join(',') || 'sent');
        crashPoint('after-chunk-recorded');
      }
      if (hooks.has('message_sent')) {
        await hooks.run('message_sent', {
          ...scope,
          message,
          result: { ok: true, messageIds: result.messageIds },
          durationMs: now() - started,
        });
      }
      return { status: 'sent', messageIds: result.messageIds };
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      if (key !== undefined) await store.failDelivery(key, text).catch(() => undefined);
      logger.warn('send failed', { channel: message.channel, accountId: message.accountId, error: text });
      if (hooks.has('message_sent')) {
        await hooks.run('message_sent', {
          ...scope,
          message,
          result: { ok: false, error: text },
          durationMs: now() - started,
        });
      }
      throw error;
    }
  };
}
