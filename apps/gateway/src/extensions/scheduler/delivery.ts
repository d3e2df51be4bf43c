// Where a scheduled run's reply goes and sending it through the gateway's outbound path, with
// one delivery receipt per chunk keyed on the run id: "delivered" means the platform took it,
// and a run resumed after a crash finds what was already sent instead of sending it again.
import { defaultAccountId, type PluginRegistry } from '@switchboard/hooks';
import type { Delivery, RunHistoryEntry } from '@switchboard/scheduler';
import type { DeliveryRoute, SessionStore } from '@switchboard/sessions';
import { chunkText, loadFenceParser } from '../../delivery/index.ts';
import { crashPoint } from '../../runtime/crash-points.ts';
import type { SendOutbound } from '../../runtime/outbound.ts';

export type ResolvedTarget =
  | { readonly kind: 'route'; readonly route: DeliveryRoute }
  | { readonly kind: 'none'; readonly reason: string };

/**
 * The chat a delivery names: `channel: "last"` is the last chat of `lastRouteSession` (the
 * session the job belongs to), else the channel with its `to`. Nothing when the mode is
 * `none`, or a reason when the target cannot be known (no last chat yet, no `to`).
 */
export async function resolveTarget(
  store: SessionStore,
  delivery: Delivery | undefined,
  lastRouteSession: string,
): Promise<ResolvedTarget> {
  if (delivery === undefined || delivery.mode === 'none')
    return { kind: 'none', reason: 'delivery mode is none' };
  if (delivery.channel === 'last') {
    const route = (await store.getSession(lastRouteSession))?.lastRoute;
    if (route === undefined) {
      return {
        kind: 'none',
        reason: `delivery channel "last": session ${lastRouteSession} has no last chat yet`,
      };
    }
    return {
      kind: 'route',
      route: {
        ...route,
        // Keeps the spreads (decision 0028, rule 1): spread over the session route, an absent value keeps its own.
        ...(delivery.to === undefined ? {} : { to: delivery.to }),
        ...(delivery.accountId === undefined ? {} : { accountId: delivery.accountId }),
      },
    };
  }
  if (delivery.to === undefined) {
    return { kind: 'none', reason: `delivery channel "${delivery.channel}" needs a "to" (the chat id)` };
  }
  return {
    kind: 'route',
    route: {
      channel: delivery.channel,
      accountId: delivery.accountId ?? defaultAccountId,
      to: delivery.to,
      threadId: delivery.threadId,
    },
  };
}

export interface DeliveryOutcome {
  readonly deliveryStatus: NonNullable<RunHistoryEntry['deliveryStatus']>;
  readonly messageIds: readonly string[];
  /** Why it was not delivered. */
  readonly error?: string;
}

export interface DeliverOptions {
  readonly send: SendOutbound;
  readonly plugins: PluginRegistry;
  readonly route: DeliveryRoute;
  readonly text: string;
  /** Receipts are `<key>:<chunk index>`. */
  readonly idempotencyKey: string;
  readonly scope: { readonly sessionKey: string; readonly agentId: string; readonly runId?: string };
}

/** Sends `text` to the route in chunks that fit the channel; each chunk at most once, ever. */
export async function deliverText(options: DeliverOptions): Promise<DeliveryOutcome> {
  const { route } = options;
  const limit = options.plugins.channel(route.channel)?.channel.capabilities.textLimit ?? 4000;
  await loadFenceParser();
  const chunks = chunkText(options.text, { limit });
  if (chunks.length === 0) return { deliveryStatus: 'nothing_to_deliver', messageIds: [] };
  crashPoint('cron-before-delivery');
  const messageIds: string[] = [];
  for (const [index, chunk] of chunks.entries()) {
    try {
      const result = await options.send(
        {
          kind: 'text',
          channel: route.channel,
          accountId: route.accountId ?? defaultAccountId,
          peer: { kind: route.peerKind ?? 'direct', id: route.to },
          threadId: route.threadId,
          text: chunk,
        },
        { idempotencyKey: `${options.idempotencyKey}:${index}`, scope: options.scope },
      );
      if (result.status === 'cancelled') {
        return { deliveryStatus: 'not_delivered', messageIds, error: `not sent: ${result.reason}` };
      }
      messageIds.push(...result.messageIds);
    } catch (error) {
      return {
        deliveryStatus: 'not_delivered',
        messageIds,
        error: `sending to ${route.channel} ${route.to} failed: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
  }
  return { deliveryStatus: 'delivered', messageIds };
}
