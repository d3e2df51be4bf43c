/** The inbound journal's state machine, shared by every backend. */
import { SessionsError } from './errors.ts';
import type { InboundRef, InboundState } from './types.ts';

/**
 * Allowed moves. Staying in the same state is always allowed (a no-op, so retried updates
 * are harmless). `running → queued` re-queues a message whose run was interrupted or whose
 * process died; `replied` and `failed` are final.
 */
export const inboundTransitions: Readonly<Record<InboundState, readonly InboundState[]>> = {
  received: ['queued', 'running', 'replied', 'failed'],
  queued: ['running', 'replied', 'failed'],
  running: ['queued', 'replied', 'failed'],
  replied: [],
  failed: [],
};

export const inboundStates: readonly InboundState[] = ['received', 'queued', 'running', 'replied', 'failed'];

/** Throws SESSIONS_JOURNAL_INVALID_TRANSITION unless `from → to` is allowed. */
export function assertInboundTransition(ref: InboundRef, from: InboundState, to: InboundState): void {
  if (from === to || inboundTransitions[from].includes(to)) return;
  throw new SessionsError(
    'SESSIONS_JOURNAL_INVALID_TRANSITION',
    `Inbound message ${describeInbound(ref)} cannot move from ${from} to ${to} (allowed from ${from}: ${
      inboundTransitions[from].join(', ') || 'none, it is final'
    }).`,
    { details: { ...ref, from, to } },
  );
}

/** `channel/accountId/messageId`, for messages. */
export function describeInbound(ref: InboundRef): string {
  return `${ref.channel}/${ref.accountId}/${ref.messageId}`;
}
