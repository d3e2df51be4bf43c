// The pure parts of inbound: what a message is journaled with, the turn input a channel
// message becomes, a protocol request's session, a channel's queue options, and the
// per-conversation ordering of admission work.
import type { ThinkingLevel } from '@switchboard/core-loop';
import type { ImageContent, InboundMessage } from '@switchboard/hooks';
import {
  DEFAULT_MAIN_KEY,
  normalizeAgentId,
  parseAgentSessionKey,
  type RoutingConfig,
  resolveDefaultAgentId,
} from '@switchboard/routing';
import type { InboundRecord, QueueMode } from '@switchboard/sessions';
import type { GatewayConfig } from '../config/schema.ts';
import type { RunOutcome } from './run/outcome.ts';
import type { TurnInput } from './turn-input.ts';

/** What a channel message is journaled with, so a restart can replay it. */
export interface ChannelJournalPayload {
  readonly kind: 'channel';
  readonly message: InboundMessage;
  readonly commandsAuthorized: boolean;
}

export interface RpcJournalPayload {
  readonly kind: 'rpc';
  readonly input: TurnInput;
}

export interface RpcSubmission {
  readonly message: string;
  readonly idempotencyKey: string;
  readonly sessionKey?: string;
  readonly agentId?: string;
  readonly thinking?: ThinkingLevel;
  readonly deliver?: boolean;
  readonly timeoutMs?: number;
  readonly images?: readonly ImageContent[];
  readonly queueMode?: QueueMode;
  /** The dispatcher's global lane (`subagent`, `cron`); absent is `main`. */
  readonly lane?: string;
  /** `webchat` for chat.send, else the protocol client. */
  readonly channel: string;
}

export type RpcAdmission =
  | {
      readonly status: 'accepted';
      readonly runId: string;
      readonly sessionKey: string;
      readonly agentId: string;
    }
  | {
      readonly status: 'in_flight';
      readonly runId: string;
      readonly sessionKey: string;
      readonly agentId: string;
    }
  | { readonly status: 'finished'; readonly runId: string; readonly outcome: RunOutcome }
  /** A directive (`/status`, `/new` …) answered at once. */
  | {
      readonly status: 'directive';
      readonly runId: string;
      readonly sessionKey: string;
      readonly agentId: string;
      readonly reply: string;
    };

/** Serializes work per conversation so messages are routed and queued in arrival order. */
export function createOrderedQueue(): (key: string, work: () => Promise<void>) => Promise<void> {
  const tails = new Map<string, Promise<void>>();
  return (key, work) => {
    const previous = tails.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const tail = next.catch(() => undefined);
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return next;
  };
}

/** `messages.queue` for a channel: its `byChannel` entry over the global settings. */
export function queueOptionsFor(
  config: GatewayConfig,
  channel: string,
): { mode?: QueueMode; debounceMs?: number; cap?: number; drop?: 'old' | 'new' | 'summarize' } {
  const global = config.messages.queue;
  const byChannel = global?.byChannel?.[channel];
  const pick = <K extends 'mode' | 'debounceMs' | 'cap' | 'drop'>(key: K) =>
    byChannel?.[key] ?? global?.[key];
  return {
    mode: pick('mode'),
    debounceMs: pick('debounceMs'),
    cap: pick('cap'),
    drop: pick('drop'),
  };
}

/** The turn input of a journaled channel message. */
export function channelTurnInput(
  record: InboundRecord,
  message: InboundMessage,
  agentId: string,
  sessionKey: string,
): TurnInput {
  return {
    kind: 'message',
    ref: { channel: record.channel, accountId: record.accountId, messageId: record.messageId },
    origin: 'channel',
    text: message.text,
    agentId,
    sessionKey,
    chatType: message.chatType,
    channel: message.channel,
    accountId: message.accountId,
    peer: message.peer,
    threadId: message.thread === undefined ? undefined : message.thread.id,
    replyToMessageId: message.messageId,
    senderId: message.sender.id,
    ...(message.media === undefined || message.media.length === 0 ? {} : { media: message.media }),
    receivedAt: record.receivedAt,
  };
}

/** The session key and agent of a protocol request (`main` and a bare key are the agent's). */
export function resolveRequestSession(
  current: GatewayConfig,
  requestedKey: string | undefined,
  requestedAgent: string | undefined,
): { sessionKey: string; agentId: string } {
  const mainKey = (current.session.mainKey ?? DEFAULT_MAIN_KEY).trim().toLowerCase() || DEFAULT_MAIN_KEY;
  if (requestedKey !== undefined && requestedKey.trim() !== '') {
    const trimmed = requestedKey.trim();
    const parsed = parseAgentSessionKey(trimmed);
    if (parsed !== null)
      return { sessionKey: trimmed.toLowerCase(), agentId: normalizeAgentId(parsed.agentId) };
    const agentId = normalizeAgentId(
      requestedAgent ?? resolveDefaultAgentId(current as unknown as RoutingConfig),
    );
    const rest = trimmed.toLowerCase() === 'main' ? mainKey : trimmed.toLowerCase();
    return { sessionKey: `agent:${agentId}:${rest}`, agentId };
  }
  const agentId = normalizeAgentId(
    requestedAgent ?? resolveDefaultAgentId(current as unknown as RoutingConfig),
  );
  return { sessionKey: `agent:${agentId}:${mainKey}`, agentId };
}
