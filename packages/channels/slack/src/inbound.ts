// Slack `message` / `app_mention` events to the gateway's InboundMessage. Pure: names,
// conversation types and downloaded media are looked up by the caller and passed in.
import type { InboundMedia, InboundMessage, Sender } from '@switchboard/hooks';
import type { SlackFile } from './media.ts';
import { slackMentions, slackToText } from './mrkdwn.ts';

/** The kinds of Slack conversation (`channel_type`). */
export type SlackConversationType = 'im' | 'mpim' | 'channel' | 'group';

/** The fields of a Slack message event this channel reads. */
export interface SlackMessageEvent {
  readonly type: string;
  readonly subtype?: string;
  readonly channel?: string;
  readonly channel_type?: string;
  readonly user?: string;
  readonly bot_id?: string;
  readonly text?: string;
  readonly ts?: string;
  readonly thread_ts?: string;
  readonly parent_user_id?: string;
  readonly team?: string;
  readonly hidden?: boolean;
  readonly files?: readonly SlackFile[];
}

/** Message subtypes that carry something a person (or a bot) said. Others are edits, joins, … */
const conversationalSubtypes = new Set([
  undefined,
  'file_share',
  'thread_broadcast',
  'me_message',
  'bot_message',
]);

/** Why an event is not handed to the gateway, or `undefined` when it should be. */
export function skipReason(
  event: SlackMessageEvent,
  bot: { readonly userId: string; readonly botId: string },
): string | undefined {
  if (event.type !== 'message' && event.type !== 'app_mention') return `event type ${event.type}`;
  if (event.channel === undefined || event.ts === undefined) return 'no channel or ts';
  if (event.hidden === true) return 'hidden message';
  if (!conversationalSubtypes.has(event.subtype)) return `subtype ${event.subtype}`;
  if (event.user === bot.userId || (event.bot_id !== undefined && event.bot_id === bot.botId))
    return 'own message';
  if (event.user === undefined && event.bot_id === undefined) return 'no author';
  if (event.channel_type === 'app_home') return 'app home';
  return undefined;
}

/** The conversation type of an event: its `channel_type`, else guessed from the id prefix. */
export function conversationTypeOf(event: SlackMessageEvent): SlackConversationType | undefined {
  switch (event.channel_type) {
    case 'im':
    case 'mpim':
    case 'channel':
    case 'group':
      return event.channel_type;
  }
  const prefix = event.channel?.[0];
  if (prefix === 'D') return 'im';
  if (prefix === 'C') return 'channel';
  return undefined;
}

/** The gateway's message id of a Slack message: `<channel id>:<ts>` (a ts is unique only per channel). */
export function slackMessageId(channel: string, ts: string): string {
  return `${channel}:${ts}`;
}

/** Splits a message id made by {@link slackMessageId}; a bare ts gives no channel. */
export function parseSlackMessageId(messageId: string): { channel?: string; ts: string } {
  const colon = messageId.lastIndexOf(':');
  return colon === -1
    ? { ts: messageId }
    : { channel: messageId.slice(0, colon), ts: messageId.slice(colon + 1) };
}

export interface InboundContext {
  readonly accountId: string;
  /** The workspace the event came from (`team_id` of the callback). */
  readonly teamId: string | undefined;
  readonly botUserId: string;
  readonly conversationType: SlackConversationType;
  readonly conversationName?: string;
  readonly sender?: { readonly name?: string; readonly username?: string; readonly isBot?: boolean };
  readonly userName?: (userId: string) => string | undefined;
  readonly media?: readonly InboundMedia[];
  /** Lines appended to the text (files that could not be downloaded). */
  readonly notes?: readonly string[];
  /** The `event_id` of the callback, kept in `raw`. */
  readonly eventId?: string;
}

/** Builds the InboundMessage of an event that passed {@link skipReason}. */
export function toInboundMessage(event: SlackMessageEvent, context: InboundContext): InboundMessage {
  const channel = event.channel!;
  const ts = event.ts!;
  const authorId = event.user ?? event.bot_id!;
  const sender: Sender = {
    id: authorId,
    name: context.sender?.name,
    username: context.sender?.username,
    ...(event.bot_id !== undefined || event.subtype === 'bot_message' || context.sender?.isBot === true
      ? { isBot: true }
      : {}),
  };
  const rawText = event.text ?? '';
  const text = [
    slackToText(rawText, {
      botUserId: context.botUserId,
      userName: context.userName,
    }),
    ...(context.notes ?? []),
  ]
    .filter((part) => part !== '')
    .join('\n');
  const inThread = event.thread_ts !== undefined && event.thread_ts !== ts;
  const core = {
    channel: 'slack',
    accountId: context.accountId,
    messageId: slackMessageId(channel, ts),
    sender,
    text,
    timestamp: Math.round(Number.parseFloat(ts) * 1000),
    ...(inThread ? { thread: { id: event.thread_ts! } } : {}),
    ...(inThread
      ? {
          replyTo: {
            messageId: slackMessageId(channel, event.thread_ts!),
            senderId: event.parent_user_id,
          },
        }
      : {}),
    ...(context.media === undefined || context.media.length === 0 ? {} : { media: context.media }),
    raw: {
      event,
      teamId: context.teamId,
      eventId: context.eventId,
    },
  };
  if (context.conversationType === 'im') {
    return { ...core, chatType: 'direct', peer: { kind: 'direct', id: authorId } };
  }
  const mentions = slackMentions(rawText);
  const wasMentioned =
    event.type === 'app_mention' ||
    mentions.includes(context.botUserId) ||
    (inThread && event.parent_user_id === context.botUserId);
  const kind = context.conversationType === 'mpim' ? 'group' : 'channel';
  return {
    ...core,
    chatType: kind,
    peer: {
      kind,
      id: channel,
      name: context.conversationName,
    },
    wasMentioned,
    ...(mentions.length === 0 ? {} : { mentions }),
    teamId: context.teamId,
  };
}
