import type { ThinkingLevel } from '@switchboard/core-loop';
import type { ChatType, ImageContent, InboundMedia, Peer } from '@switchboard/hooks';
import type { InboundRef, QueueMode } from '@switchboard/sessions';

/** The journal channel used for messages that arrive over the WebSocket protocol. */
export const rpcChannel = 'gateway';
export const rpcAccountId = 'default';

/**
 * One message queued for a session, whatever its origin. Stored as the journal payload, so
 * crash recovery rebuilds exactly this and runs it through the same path.
 */
export interface TurnInput {
  readonly kind: 'message' | 'compact';
  readonly ref: InboundRef;
  readonly origin: 'channel' | 'rpc';
  readonly text: string;
  readonly images?: readonly ImageContent[];
  /** Media of a channel message; images are given to the model, others described in text. */
  readonly media?: readonly InboundMedia[];
  readonly agentId: string;
  readonly sessionKey: string;
  readonly chatType: ChatType;
  /** The conversation's channel (`telegram`, ...), or `webchat` for protocol clients. */
  readonly channel: string;
  readonly accountId: string;
  /** Where a channel reply goes. */
  readonly peer?: Peer;
  readonly threadId?: string;
  /** Thread the reply to this platform message (groups). */
  readonly replyToMessageId?: string;
  readonly senderId?: string;
  /** Protocol runs: the run id (= idempotencyKey). */
  readonly runId?: string;
  /** Protocol runs: also send the reply to the session's last channel route. */
  readonly deliver?: boolean;
  readonly thinking?: ThinkingLevel;
  readonly timeoutMs?: number;
  /**
   * Protocol runs: how the message meets a busy session (`chat.send`'s `queueMode`); absent
   * is `followup`. Channel messages take `messages.queue` instead.
   */
  readonly queueMode?: QueueMode;
  /** Protocol runs: the dispatcher's global lane (`subagent`, `cron`); absent is `main`. */
  readonly lane?: string;
  readonly receivedAt: number;
  /** Set when the message is replayed from the journal after a restart. */
  readonly recovered?: boolean;
}

export function refKey(ref: InboundRef): string {
  return `${ref.channel}:${ref.accountId}:${ref.messageId}`;
}
