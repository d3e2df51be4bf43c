// The reply side of a turn: where it goes, the reply stream fed from the agent's events
// (chunk keys make a redelivery after a crash skip what was sent), typing, and re-delivering
// a stored reply (decision 0004).
import type { AgentEvent } from '@switchboard/core-loop';
import type { AssistantMessage, OutboundMessage } from '@switchboard/hooks';
import type { SessionEntry } from '@switchboard/sessions';
import { createReplyStream, loadFenceParser } from '../../delivery/index.ts';
import type { ReplyStream } from '../../delivery/reply-stream.ts';
import type { MessageTarget } from '../../extensions/tool-registry.ts';
import type { ChannelManager } from '../channels.ts';
import type { LiveConfig } from '../live-config.ts';
import type { SendOutbound } from '../outbound.ts';
import type { TurnInput } from '../turn-input.ts';
import { assistantText } from './messages.ts';

/** Where a turn's reply goes. */
export interface ReplyTarget {
  readonly channel: string;
  readonly accountId: string;
  readonly peer: OutboundMessage['peer'];
  readonly threadId?: string;
}

export interface RunScope {
  readonly sessionKey: string;
  readonly agentId: string;
  readonly runId: string;
}

/** The channel message's own chat, else (for `deliver: true` protocol runs) the session's last route. */
export function replyTarget(input: TurnInput, session: SessionEntry | undefined): ReplyTarget | undefined {
  if (input.origin === 'channel' && input.peer !== undefined) {
    return {
      channel: input.channel,
      accountId: input.accountId,
      peer: input.peer,
      threadId: input.threadId,
    };
  }
  const route = session?.lastRoute;
  if (input.deliver === true && route !== undefined) {
    return {
      channel: route.channel,
      accountId: route.accountId ?? 'default',
      peer: { kind: route.peerKind ?? 'direct', id: route.to },
      threadId: route.threadId,
    };
  }
  return undefined;
}

export interface ReplyBridgeServices {
  readonly config: LiveConfig;
  readonly channels: ChannelManager;
  readonly send: SendOutbound;
}

export interface ReplyBridge {
  /** Sends reply payloads for one turn under `<keyBase>:<kind>:<chunk>`; undefined without a target. */
  createReply(
    input: TurnInput,
    target: ReplyTarget | undefined,
    scope: RunScope,
    keyBase: string,
  ): ReplyStream | undefined;
  /** Shows typing in the target chat until the returned function is called. */
  startTyping(target: ReplyTarget | undefined): () => void;
  /** Sends stored reply texts again under their turn's delivery key: receipts skip what was sent. */
  redeliver(
    input: TurnInput,
    target: ReplyTarget | undefined,
    scope: RunScope,
    keyBase: string,
    replies: readonly string[],
  ): Promise<void>;
}

export function createReplyBridge(services: ReplyBridgeServices): ReplyBridge {
  const liveConfig = () => services.config.current();

  function createReply(
    input: TurnInput,
    target: ReplyTarget | undefined,
    scope: RunScope,
    keyBase: string,
  ): ReplyStream | undefined {
    if (target === undefined) return undefined;
    const capabilities = services.channels.account(target.channel, target.accountId)?.channel.capabilities;
    return createReplyStream({
      channel: {
        textChunkLimit: capabilities?.textLimit ?? 4000,
        maxLinesPerMessage: capabilities?.maxLinesPerMessage,
      },
      streaming: { mode: liveConfig().agents.defaults.blockStreaming },
      origin: {
        channel: target.channel,
        accountId: target.accountId,
        to: target.peer.id,
        threadId: target.threadId,
      },
      ...(input.chatType !== 'direct' && input.replyToMessageId !== undefined
        ? { replyToId: input.replyToMessageId }
        : {}),
      send: async (payload, context) => {
        const result = await services.send(
          {
            kind: 'text',
            channel: target.channel,
            accountId: target.accountId,
            peer: target.peer,
            threadId: target.threadId,
            replyToMessageId: payload.replyToId,
            text: payload.text,
          },
          { idempotencyKey: `${keyBase}:${payload.kind}:${context.index}`, scope, signal: context.signal },
        );
        return result.status === 'cancelled' ? { cancelled: true, reason: result.reason } : undefined;
      },
    });
  }

  function startTyping(target: ReplyTarget | undefined): () => void {
    if (target === undefined) return () => {};
    const account = services.channels.account(target.channel, target.accountId);
    const typing = account?.running?.typing;
    if (account === undefined || typing === undefined) return () => {};
    const conversation = {
      peer: target.peer,
      threadId: target.threadId,
    };
    const tick = () => {
      typing.call(account.running, conversation).catch(() => undefined);
    };
    tick();
    const timer = setInterval(tick, liveConfig().agents.defaults.typingIntervalSeconds * 1000);
    timer.unref();
    return () => {
      clearInterval(timer);
      account.running?.stopTyping?.(conversation).catch(() => undefined);
    };
  }

  async function redeliver(
    input: TurnInput,
    target: ReplyTarget | undefined,
    scope: RunScope,
    keyBase: string,
    replies: readonly string[],
  ): Promise<void> {
    await loadFenceParser();
    const reply = createReply(input, target, scope, keyBase);
    if (reply === undefined) return;
    for (const text of replies) {
      reply.onMessageStart();
      reply.onMessageEnd(text);
    }
    await reply.onRunEnd({});
  }

  return { createReply, startTyping, redeliver };
}

/** Feeds one agent event to the reply stream. */
export function feedReply(reply: ReplyStream, event: AgentEvent): void {
  switch (event.type) {
    case 'message_start':
      if (event.message.role === 'assistant') reply.onMessageStart();
      return;
    case 'message_update': {
      const update = event.assistantEvent;
      if (update.type === 'text_delta') reply.onTextDelta(update.delta);
      else if (update.type === 'text_end') reply.onTextEnd(update.content);
      return;
    }
    case 'message_end':
      if (event.message.role === 'assistant') {
        const message = event.message as AssistantMessage;
        if (message.stopReason !== 'error' && message.stopReason !== 'aborted')
          reply.onMessageEnd(assistantText(message));
      }
      return;
    case 'tool_execution_start':
      if (event.toolName === 'message') {
        const args = (event.args ?? {}) as {
          text?: string;
          channel?: string;
          to?: string;
          accountId?: string;
          threadId?: string;
        };
        reply.onMessageToolSend({
          toolCallId: event.toolCallId,
          text: args.text,
          ...(args.channel !== undefined && args.to !== undefined
            ? {
                target: {
                  channel: args.channel,
                  to: args.to,
                  accountId: args.accountId,
                },
              }
            : {}),
        });
      }
      void reply.onToolStart({ toolCallId: event.toolCallId, toolName: event.toolName });
      return;
    case 'tool_execution_end':
      reply.onToolEnd({ toolCallId: event.toolCallId, toolName: event.toolName, isError: event.isError });
      return;
    default:
      return;
  }
}

/**
 * The `message` tool's sender for one turn: to the named chat, else to the turn's own.
 * Errors are plain: the tool reports them to the model.
 */
export function createToolSender(
  send: SendOutbound,
  target: ReplyTarget | undefined,
  scope: RunScope,
): (
  text: string,
  messageTarget: MessageTarget | undefined,
  signal: AbortSignal,
) => Promise<readonly string[]> {
  return async (text, messageTarget, signal) => {
    const destination =
      messageTarget === undefined
        ? target
        : {
            channel: messageTarget.channel,
            accountId: messageTarget.accountId ?? 'default',
            peer: { kind: 'direct' as const, id: messageTarget.to },
            threadId: messageTarget.threadId,
          };
    if (destination === undefined)
      throw new Error('this conversation has no channel to send to; give channel and to');
    const result = await send(
      {
        kind: 'text',
        channel: destination.channel,
        accountId: destination.accountId,
        peer: destination.peer,
        threadId: destination.threadId,
        text,
      },
      { scope, signal },
    );
    if (result.status === 'cancelled') throw new Error(`the message was not sent: ${result.reason}`);
    return result.messageIds;
  };
}
