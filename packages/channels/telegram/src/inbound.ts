// A Telegram message as the gateway sees it: chat type, peer, sender, thread (forum
// topics), whether the bot was mentioned (an @mention, a /command@bot, a reply to the bot,
// a configured pattern), the reply it quotes, and the files to download. Pure: no I/O.
import type { InboundMessage, MediaKind } from '@switchboard/hooks';
import type { Message, MessageEntity } from 'grammy/types';

/** What the mapping needs to know about the account. */
export interface InboundMappingContext {
  readonly accountId: string;
  readonly botId: number;
  /** The bot's username without the @. */
  readonly botUsername: string;
  readonly mentionPatterns: readonly RegExp[];
}

/** A file of an inbound message, still on Telegram's servers. */
export interface MediaReference {
  readonly kind: MediaKind;
  readonly fileId: string;
  readonly fileUniqueId: string;
  readonly mimeType?: string;
  readonly fileName?: string;
  readonly sizeBytes?: number;
}

/** An inbound message to hand over once its media is downloaded, or why it is skipped. */
export type MappedMessage =
  | { readonly kind: 'message'; readonly message: InboundMessage; readonly media: readonly MediaReference[] }
  | { readonly kind: 'skip'; readonly reason: string };

/** How an update carried the message. */
export type MessageSource = 'message' | 'edited_message' | 'channel_post' | 'edited_channel_post';

/**
 * Telegram's stand-ins for anonymous senders: GroupAnonymousBot (an anonymous group admin)
 * and Channel_Bot (a post "on behalf of" a channel). The real sender is `sender_chat`.
 */
const anonymousSenderIds = new Set([1087968824, 136817688]);

/** Refers to a message within the account: message ids are only unique per chat. */
export function messageRef(chatId: number | string, messageId: number): string {
  return `${chatId}:${messageId}`;
}

function entityText(text: string, entity: MessageEntity): string {
  return text.slice(entity.offset, entity.offset + entity.length);
}

function displayName(first: string | undefined, last: string | undefined): string | undefined {
  const name = [first, last].filter((part) => part !== undefined && part !== '').join(' ');
  return name === '' ? undefined : name;
}

/** The files of a message, the largest photo size only. */
export function mediaReferences(message: Message): MediaReference[] {
  const references: MediaReference[] = [];
  const add = (
    kind: MediaKind,
    file: { file_id: string; file_unique_id: string; file_size?: number },
    extra: { mimeType?: string | undefined; fileName?: string | undefined },
  ) => {
    references.push({
      kind,
      fileId: file.file_id,
      fileUniqueId: file.file_unique_id,
      mimeType: extra.mimeType,
      fileName: extra.fileName,
      sizeBytes: file.file_size,
    });
  };
  const largest = message.photo?.at(-1);
  if (largest !== undefined) add('image', largest, { mimeType: 'image/jpeg' });
  if (message.document !== undefined) {
    const mimeType = message.document.mime_type;
    add(mimeType?.startsWith('image/') === true ? 'image' : 'document', message.document, {
      mimeType,
      fileName: message.document.file_name,
    });
  }
  if (message.voice !== undefined)
    add('voice', message.voice, { mimeType: message.voice.mime_type ?? 'audio/ogg' });
  if (message.audio !== undefined) {
    add('audio', message.audio, { mimeType: message.audio.mime_type, fileName: message.audio.file_name });
  }
  if (message.video !== undefined) {
    add('video', message.video, { mimeType: message.video.mime_type, fileName: message.video.file_name });
  }
  if (message.video_note !== undefined) add('video', message.video_note, { mimeType: 'video/mp4' });
  if (message.animation !== undefined && message.document === undefined) {
    add('video', message.animation, {
      mimeType: message.animation.mime_type,
      fileName: message.animation.file_name,
    });
  }
  if (message.sticker !== undefined && !message.sticker.is_animated && !message.sticker.is_video) {
    add('sticker', message.sticker, { mimeType: 'image/webp' });
  }
  return references;
}

/** A placeholder line for content the bot cannot use as text or a file. */
function placeholder(message: Message): string | undefined {
  if (message.sticker !== undefined && (message.sticker.is_animated || message.sticker.is_video)) {
    return `<media:sticker${message.sticker.emoji === undefined ? '' : ` ${message.sticker.emoji}`}>`;
  }
  if (message.location !== undefined) {
    return `<location: ${message.location.latitude}, ${message.location.longitude}>`;
  }
  if (message.contact !== undefined) {
    return `<contact: ${displayName(message.contact.first_name, message.contact.last_name) ?? ''} ${message.contact.phone_number}>`;
  }
  if (message.poll !== undefined) return `<poll: ${message.poll.question}>`;
  return undefined;
}

interface CommandInfo {
  /** The text with `@botname` removed from the command. */
  readonly text: string;
  /** The command names this bot. */
  readonly addressedToBot: boolean;
  /** The command names another bot. */
  readonly addressedToOther: boolean;
}

function commandInfo(text: string, entities: readonly MessageEntity[], botUsername: string): CommandInfo {
  const command = entities.find((entity) => entity.type === 'bot_command' && entity.offset === 0);
  if (command === undefined) return { text, addressedToBot: false, addressedToOther: false };
  const raw = entityText(text, command);
  const at = raw.indexOf('@');
  if (at === -1) return { text, addressedToBot: false, addressedToOther: false };
  const target = raw.slice(at + 1);
  if (target.toLowerCase() !== botUsername.toLowerCase()) {
    return { text, addressedToBot: false, addressedToOther: true };
  }
  return {
    text: raw.slice(0, at) + text.slice(command.offset + command.length),
    addressedToBot: true,
    addressedToOther: false,
  };
}

/**
 * Maps a Telegram message to the gateway's model. Edits (`edited_message`) get the id
 * `<chat>:<message>:edit:<edit_date>` so each distinct edit is its own message.
 */
export function mapMessage(
  message: Message,
  source: MessageSource,
  context: InboundMappingContext,
): MappedMessage {
  const chat = message.chat;
  if (message.from?.id === context.botId) return { kind: 'skip', reason: 'own message' };
  const media = mediaReferences(message);
  const rawText = message.text ?? message.caption ?? '';
  const entities = message.entities ?? message.caption_entities ?? [];
  const note = placeholder(message);
  if (rawText.trim() === '' && media.length === 0 && note === undefined) {
    return { kind: 'skip', reason: 'no text or media (service message)' };
  }
  const isGroup = chat.type === 'group' || chat.type === 'supergroup';
  const command = commandInfo(rawText, entities, context.botUsername);
  if (command.addressedToOther && chat.type !== 'private') {
    return { kind: 'skip', reason: 'a command for another bot' };
  }
  let text = command.text;
  if (note !== undefined) text = text === '' ? note : `${text}\n${note}`;

  const edited = source === 'edited_message' || source === 'edited_channel_post';
  const baseId = messageRef(chat.id, message.message_id);
  const messageId = edited ? `${baseId}:edit:${message.edit_date ?? message.date}` : baseId;
  const timestamp = (edited ? (message.edit_date ?? message.date) : message.date) * 1000;

  // The sender. Anonymous admins and channel-linked posts are sent as sender_chat.
  const from = message.from;
  const senderChat = message.sender_chat;
  let sender: InboundMessage['sender'];
  if (senderChat !== undefined && (from === undefined || anonymousSenderIds.has(from.id))) {
    sender = {
      id: String(senderChat.id),
      ...('title' in senderChat && senderChat.title !== undefined ? { name: senderChat.title } : {}),
      ...('username' in senderChat && senderChat.username !== undefined
        ? { username: senderChat.username }
        : {}),
    };
  } else if (from !== undefined) {
    const name = displayName(from.first_name, from.last_name);
    sender = {
      id: String(from.id),
      name,
      username: from.username,
      isBot: from.is_bot,
    };
  } else {
    return { kind: 'skip', reason: 'no sender' };
  }

  // A forum topic message replies to the topic's creation message: that is not a reply.
  const reply = message.reply_to_message;
  const realReply =
    reply !== undefined &&
    !(message.is_topic_message === true && reply.message_id === message.message_thread_id)
      ? reply
      : undefined;
  const replyText = realReply?.text ?? realReply?.caption;
  const replyTo =
    realReply === undefined
      ? undefined
      : {
          messageId: messageRef(chat.id, realReply.message_id),
          text: replyText,
          senderId: realReply.from === undefined ? undefined : String(realReply.from.id),
        };
  const thread =
    message.is_topic_message === true && message.message_thread_id !== undefined
      ? { id: String(message.message_thread_id) }
      : undefined;

  const core = {
    channel: 'telegram',
    accountId: context.accountId,
    messageId,
    sender,
    text,
    timestamp,
    thread,
    replyTo,
    raw: message,
  };

  if (chat.type === 'private') {
    return {
      kind: 'message',
      message: { ...core, chatType: 'direct', peer: { kind: 'direct', id: String(chat.id) } },
      media,
    };
  }

  // Mentions: @bot, a text_mention of the bot, /command@bot, a reply to the bot, a pattern.
  const mentionedIds = new Set<string>();
  let wasMentioned = command.addressedToBot;
  const botHandle = `@${context.botUsername.toLowerCase()}`;
  for (const entity of entities) {
    if (entity.type === 'mention' && entityText(rawText, entity).toLowerCase() === botHandle) {
      wasMentioned = true;
      mentionedIds.add(String(context.botId));
    } else if (entity.type === 'text_mention' && entity.user !== undefined) {
      mentionedIds.add(String(entity.user.id));
      if (entity.user.id === context.botId) wasMentioned = true;
    }
  }
  if (realReply?.from?.id === context.botId) wasMentioned = true;
  if (!wasMentioned && context.mentionPatterns.some((pattern) => pattern.test(rawText))) wasMentioned = true;
  if (wasMentioned) mentionedIds.add(String(context.botId));

  const name = 'title' in chat ? chat.title : undefined;
  const kind = isGroup ? 'group' : 'channel';
  return {
    kind: 'message',
    message: {
      ...core,
      chatType: kind,
      peer: { kind, id: String(chat.id), name },
      wasMentioned,
      ...(mentionedIds.size === 0 ? {} : { mentions: [...mentionedIds] }),
    },
    media,
  };
}

/** Compiles `mentionPatterns` (validated by the config schema) case-insensitively. */
export function compileMentionPatterns(patterns: readonly string[]): RegExp[] {
  return patterns.map((pattern) => new RegExp(pattern, 'iu'));
}
