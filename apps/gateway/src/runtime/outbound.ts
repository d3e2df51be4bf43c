import {
  type HookRunner,
  type Logger,
  type OutboundMessage,
  type OutboundScope,
  SwitchboardError,
} from '@switchboard/hooks';
import type { SessionStore } from '@switchboard/sessions';
import { GatewayError } from '../protocol/errors.ts';
import type { ChannelManager } from './channels.ts';
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

export interface OutboundDependencies {
  /** Waits between send attempts; injectable so tests do not sleep. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Attempts per send when the channel's error is retryable. Default 3. */
  readonly maxSendAttempts?: number;
  readonly hooks: HookRunner;
  readonly channels: ChannelManager;
  readonly store: SessionStore;
  readonly logger: Logger;
  readonly now: () => number;
}

/**
 * Every message the gateway sends to a platform goes through here: `message_sending` (may
 * rewrite or cancel), a delivery receipt claimed under the idempotency key, the channel's
 * `send`, the receipt recorded with the platform's id, then `message_sent`.
 */
export function createOutbound(dependencies: OutboundDependencies): SendOutbound {
  const { hooks, channels, store, logger, now } = dependencies;
  const sleep =
    dependencies.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const maxAttempts = dependencies.maxSendAttempts ?? 3;

  /**
   * Retries a send the channel refused with a retryable error (a 5xx, a rate limit it did not
   * wait out), with backoff or the platform's retry-after. Channels mark an error retryable only
   * when the platform certainly did not post the message, so this never double-posts.
   */
  async function sendWithRetry<T>(attempt: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    for (let number = 1; ; number += 1) {
      try {
        return await attempt();
      } catch (error) {
        const retryable = SwitchboardError.isInstance(error) && error.retryable;
        if (!retryable || number >= maxAttempts || signal?.aborted === true) throw error;
        const hinted = Number((error.details as { retryAfterMs?: unknown } | undefined)?.retryAfterMs);
        const delay =
          Number.isFinite(hinted) && hinted > 0 ? Math.min(hinted, 30_000) : 500 * 3 ** (number - 1);
        logger.warn('send failed, retrying', { attempt: number, delayMs: delay, error: error.message });
        await sleep(delay);
      }
    }
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
      const result = await sendWithRetry(() => running.send(message), options.signal);
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
