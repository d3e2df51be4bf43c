// From a discord.js Message to the gateway's InboundMessage: DMs, guild channels and threads
// (the thread is its own conversation, its parent channel the `parentPeer` routing falls back
// to), the sender's roles and guild for role-based routing, mentions of the bot (its user, its
// roles, or a reply to it) for mention gating, and attachments downloaded as media.
import type { GroupInboundMessage, InboundMedia, InboundMessage, ReplyReference } from '@switchboard/hooks';
import type { Message } from 'discord.js';
import { describeAttachments } from './media.ts';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Names the text needs to render mentions readably. */
export interface MentionNames {
  user(id: string): string | undefined;
  role(id: string): string | undefined;
  channel(id: string): string | undefined;
}

/**
 * The text the model sees: a leading mention of the bot (its user or one of its roles) is
 * removed, so `@Bot /new` is a command and `@Bot hi` reads `hi`; other mentions become
 * `@name`, `@role` and `#channel`; custom emoji become `:name:`.
 */
export function renderDiscordText(
  content: string,
  bot: { readonly userId: string; readonly roleIds: readonly string[] },
  names: MentionNames,
): string {
  const own = [`<@!?${escapeRegExp(bot.userId)}>`, ...bot.roleIds.map((id) => `<@&${escapeRegExp(id)}>`)];
  const withoutLeading = content.replace(new RegExp(`^\\s*(?:${own.join('|')})[\\s,:]*`), '');
  return withoutLeading
    .replace(/<@!?(\d+)>/g, (whole, id: string) => {
      const name = names.user(id);
      return name === undefined ? whole : `@${name}`;
    })
    .replace(/<@&(\d+)>/g, (whole, id: string) => {
      const name = names.role(id);
      return name === undefined ? whole : `@${name}`;
    })
    .replace(/<#(\d+)>/g, (whole, id: string) => {
      const name = names.channel(id);
      return name === undefined ? whole : `#${name}`;
    })
    .replace(/<a?:(\w+):\d+>/g, ':$1:');
}

export interface InboundContext {
  readonly channelId: string;
  readonly accountId: string;
  readonly botUserId: string;
}

/** The bot's own role ids in the message's guild (its managed role and any assigned ones). */
function botRoleIds(message: Message, botUserId: string): string[] {
  if (!message.inGuild()) return [];
  const guild = message.guild;
  const me = guild.members.me;
  if (me !== null) return [...me.roles.cache.keys()].filter((id) => id !== guild.id);
  const managed = guild.roles.cache.find((role) => role.tags?.botId === botUserId);
  return managed === undefined ? [] : [managed.id];
}

/** True when the message mentions the bot's user or one of its roles, or replies to the bot. */
function mentionsBot(message: Message, botUserId: string, roleIds: readonly string[]): boolean {
  if (message.mentions.users.has(botUserId)) return true;
  if (roleIds.some((id) => message.mentions.roles.has(id))) return true;
  return message.mentions.repliedUser?.id === botUserId;
}

function displayName(message: Message): string {
  return message.member?.displayName ?? message.author.globalName ?? message.author.username;
}

function replyReference(message: Message): ReplyReference | undefined {
  const messageId = message.reference?.messageId;
  if (messageId === undefined || message.reference?.channelId !== message.channelId) return undefined;
  const referenced = message.channel.messages.cache.get(messageId);
  const senderId = referenced?.author.id ?? message.mentions.repliedUser?.id;
  return {
    messageId,
    ...(referenced === undefined || referenced.content === '' ? {} : { text: referenced.content }),
    senderId,
  };
}

/**
 * Converts a message for the gateway. Resolves with `undefined` for messages with nothing
 * to answer (no text and no attachment, as guild messages look without the Message Content
 * intent). Attachments are downloaded first, so the journaled message is complete.
 */
export function toInboundMessage(message: Message, context: InboundContext): InboundMessage | undefined {
  const roles = botRoleIds(message, context.botUserId);
  const guild = message.inGuild() ? message.guild : undefined;
  const text = renderDiscordText(
    message.content,
    { userId: context.botUserId, roleIds: roles },
    {
      user: (id) => {
        const member = guild?.members.cache.get(id);
        if (member !== undefined) return member.displayName;
        const user = message.mentions.users.get(id) ?? message.client.users.cache.get(id);
        return user === undefined ? undefined : (user.globalName ?? user.username);
      },
      role: (id) => guild?.roles.cache.get(id)?.name,
      channel: (id) => {
        const channel = message.client.channels.cache.get(id);
        return channel !== undefined && 'name' in channel && typeof channel.name === 'string'
          ? channel.name
          : undefined;
      },
    },
  );
  // Described, not downloaded: the gateway fetches them for a message it admits (decision 0026).
  const media: InboundMedia[] = describeAttachments(
    [...message.attachments.values()].map((attachment) => ({
      id: attachment.id,
      name: attachment.name,
      url: attachment.url,
      size: attachment.size,
      contentType: attachment.contentType,
    })),
    { channelId: message.channelId, messageId: message.id, flags: message.flags.bitfield },
  );
  if (text.trim() === '' && media.length === 0) return undefined;
  const replyTo = replyReference(message);
  const core = {
    channel: context.channelId,
    accountId: context.accountId,
    messageId: message.id,
    sender: {
      id: message.author.id,
      name: displayName(message),
      username: message.author.username,
      ...(message.author.bot ? { isBot: true } : {}),
    },
    text,
    timestamp: message.createdTimestamp,
    replyTo,
    ...(media.length === 0 ? {} : { media }),
    raw: {
      id: message.id,
      channelId: message.channelId,
      guildId: message.guildId,
      type: message.type,
      flags: message.flags.bitfield,
    },
  };
  if (guild === undefined) {
    return {
      ...core,
      chatType: 'direct',
      peer: { kind: 'direct', id: message.author.id, name: displayName(message) },
    };
  }
  const channel = message.channel;
  const peer = {
    kind: 'channel' as const,
    id: channel.id,
    ...('name' in channel && typeof channel.name === 'string' ? { name: channel.name } : {}),
  };
  let thread: GroupInboundMessage['thread'];
  if (channel.isThread() && channel.parentId !== null) {
    const parent = channel.parent;
    thread = {
      id: channel.id,
      parentPeer: {
        kind: 'channel',
        id: channel.parentId,
        ...(parent === null ? {} : { name: parent.name }),
      },
    };
  }
  const memberRoleIds =
    message.member === null ? [] : [...message.member.roles.cache.keys()].filter((id) => id !== guild.id);
  return {
    ...core,
    chatType: 'channel',
    peer,
    thread,
    wasMentioned: mentionsBot(message, context.botUserId, roles),
    mentions: [...message.mentions.users.keys()],
    guildId: guild.id,
    memberRoleIds,
  };
}
