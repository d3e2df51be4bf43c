// The world the fake Telegram keeps: the bot, users, chats, the messages of each chat (users'
// and the bot's), stored files, what the bot sent and the chats that blocked it.
import { randomBytes } from 'node:crypto';
import { TestkitError } from '../shared/errors.ts';
import type {
  PushMessageOptions,
  RecordedChatAction,
  SentMedia,
  SentMessageEdit,
  StoredTelegramFile,
} from './fake-telegram-types.ts';
import type { TelegramChat, TelegramMessage, TelegramMessageEntity, TelegramUser } from './types.ts';

/** A message the bot sent, as the world keeps it (edits change it in place). */
export interface MutableSent {
  method: string;
  chatId: number | string;
  messageId: number;
  date: number;
  text: string;
  source: string;
  parseMode?: string;
  entities: TelegramMessageEntity[];
  replyToMessageId?: number;
  threadId?: number;
  disableNotification: boolean;
  media?: SentMedia;
  edits: SentMessageEdit[];
}

/** The state of the fake Telegram. It answers no requests and wakes no waits: its callers do. */
export class TelegramWorld {
  readonly bot: TelegramUser;
  readonly now: () => number;
  /** Every message the bot sent, oldest first. */
  readonly sent: MutableSent[] = [];
  readonly chatActions: RecordedChatAction[] = [];
  readonly #chats = new Map<string, TelegramChat>();
  readonly #users = new Map<number, TelegramUser>();
  readonly #messages = new Map<string, TelegramMessage>();
  readonly #messageCounters = new Map<string, number>();
  readonly #files = new Map<string, StoredTelegramFile>();
  readonly #filesByPath = new Map<string, StoredTelegramFile>();
  readonly #blocked = new Set<string>();
  #fileCounter = 0;

  constructor(bot: TelegramUser, now: () => number) {
    this.bot = bot;
    this.now = now;
  }

  /** A user (remembered, so later calls with the id alone find it). */
  user(
    id: number,
    details: { firstName?: string; lastName?: string; username?: string; isBot?: boolean } = {},
  ): TelegramUser {
    const user: TelegramUser = {
      id,
      is_bot: details.isBot ?? false,
      first_name: details.firstName ?? `User ${id}`,
      last_name: details.lastName,
      username: details.username,
    };
    this.#users.set(id, user);
    return user;
  }

  /** The private chat of a user with the bot. */
  privateChat(user: TelegramUser | number): TelegramChat {
    const resolved = typeof user === 'number' ? (this.#users.get(user) ?? this.user(user)) : user;
    const chat: TelegramChat = {
      id: resolved.id,
      type: 'private',
      first_name: resolved.first_name,
      username: resolved.username,
    };
    this.#chats.set(String(chat.id), chat);
    return chat;
  }

  /** A group, supergroup (default) or forum supergroup the bot is in. */
  groupChat(options: {
    id: number;
    title?: string;
    type?: 'group' | 'supergroup';
    forum?: boolean;
  }): TelegramChat {
    if (options.id >= 0) {
      throw new TestkitError(
        'TESTKIT_INVALID_OPTIONS',
        `groupChat: options.id must be negative (got ${options.id})`,
        {
          details: { path: 'options.id' },
        },
      );
    }
    const chat: TelegramChat = {
      id: options.id,
      type: options.type ?? 'supergroup',
      title: options.title ?? `Group ${-options.id}`,
      ...(options.forum === true ? { is_forum: true as const } : {}),
    };
    this.#chats.set(String(chat.id), chat);
    return chat;
  }

  /** A channel the bot administers. */
  channelChat(options: { id: number; title?: string; username?: string }): TelegramChat {
    const chat: TelegramChat = {
      id: options.id,
      type: 'channel',
      title: options.title ?? `Channel ${-options.id}`,
      username: options.username,
    };
    this.#chats.set(String(chat.id), chat);
    return chat;
  }

  /** A chat by object (remembered), or by id: a known chat, a user's private chat, else a supergroup. */
  chat(chat: TelegramChat | number | string): TelegramChat {
    if (typeof chat === 'object') {
      this.#chats.set(String(chat.id), chat);
      return chat;
    }
    const known = this.#chats.get(String(chat));
    if (known !== undefined) return known;
    const id = typeof chat === 'number' ? chat : Number(chat);
    if (Number.isInteger(id) && id > 0) return this.privateChat(id);
    return { id: Number.isInteger(id) ? id : 0, type: 'supergroup', title: String(chat) };
  }

  /** Stores a file the bot can fetch with `getFile` and download. */
  addFile(
    bytes: Uint8Array,
    details: { mimeType?: string; fileName?: string; folder?: string; declareSize?: boolean } = {},
  ): StoredTelegramFile {
    this.#fileCounter += 1;
    const extension = extensionFor(details.fileName, details.mimeType);
    const fileId = `fake-file-${this.#fileCounter}-${randomBytes(4).toString('hex')}`;
    const file: StoredTelegramFile = {
      fileId,
      fileUniqueId: `unique-${this.#fileCounter}`,
      filePath: `${details.folder ?? 'documents'}/file_${this.#fileCounter}${extension}`,
      bytes,
      mimeType: details.mimeType,
      fileName: details.fileName,
      ...(details.declareSize === false ? { declareSize: false } : {}),
    };
    this.#files.set(fileId, file);
    this.#filesByPath.set(file.filePath, file);
    return file;
  }

  file(fileId: string): StoredTelegramFile | undefined {
    return this.#files.get(fileId);
  }

  fileAtPath(path: string): StoredTelegramFile | undefined {
    return this.#filesByPath.get(path);
  }

  /** The next message id of a chat (ids count up per chat, as in Telegram). */
  nextMessageId(chatId: number | string): number {
    const key = String(chatId);
    const next = (this.#messageCounters.get(key) ?? 0) + 1;
    this.#messageCounters.set(key, next);
    return next;
  }

  /** A message of a chat, by id. */
  message(chatId: number | string, messageId: number | undefined): TelegramMessage | undefined {
    return this.#messages.get(`${chatId}:${messageId}`);
  }

  /** Stores (or replaces, for an edit) a message of its chat. */
  keepMessage(message: TelegramMessage): void {
    this.#messages.set(`${message.chat.id}:${message.message_id}`, message);
  }

  /** A message a user writes, kept in its chat. */
  buildMessage(options: PushMessageOptions): TelegramMessage {
    const chat = this.chat(options.chat);
    let from: TelegramUser | undefined;
    if (typeof options.from === 'object') {
      from = options.from;
      this.#users.set(from.id, from);
    } else if (typeof options.from === 'number') {
      from = this.#users.get(options.from) ?? this.user(options.from);
    } else if (chat.type === 'private') {
      from = this.#users.get(chat.id) ?? this.user(chat.id);
    } else if (chat.type !== 'channel') {
      throw new TestkitError(
        'TESTKIT_INVALID_OPTIONS',
        `pushMessage: options.from is required in ${chat.type} ${chat.id}`,
        {
          details: { path: 'options.from' },
        },
      );
    }
    let replyTo: TelegramMessage | undefined;
    if (typeof options.replyTo === 'number') {
      replyTo = this.message(chat.id, options.replyTo);
      if (replyTo === undefined) {
        throw new TestkitError(
          'TESTKIT_INVALID_OPTIONS',
          `pushMessage: options.replyTo ${options.replyTo} is not a message of chat ${chat.id}`,
          { details: { path: 'options.replyTo' } },
        );
      }
    } else {
      replyTo = options.replyTo;
    }
    const message: TelegramMessage = {
      message_id: this.nextMessageId(chat.id),
      date: Math.floor(this.now() / 1000),
      chat,
      ...(from === undefined ? { sender_chat: chat } : { from }),
      ...(options.topicId === undefined
        ? {}
        : { message_thread_id: options.topicId, is_topic_message: true as const }),
      reply_to_message: replyTo === undefined ? undefined : stripReply(replyTo),
      media_group_id: options.mediaGroupId,
      text: options.text,
      entities: options.entities,
      caption: options.caption,
      caption_entities: options.captionEntities,
      ...options.extra,
    };
    this.keepMessage(message);
    return message;
  }

  /** The messages the bot sent to one chat. */
  sentIn(chatId: number | string): MutableSent[] {
    const key = String(chatId);
    return this.sent.filter((message) => String(message.chatId) === key);
  }

  block(chatId: number | string): void {
    this.#blocked.add(String(chatId));
  }

  unblock(chatId: number | string): void {
    this.#blocked.delete(String(chatId));
  }

  isBlocked(chatId: number | string): boolean {
    return this.#blocked.has(String(chatId));
  }
}

/** A message as a `reply_to_message`: Telegram does not nest replies more than one level. */
export function stripReply(message: TelegramMessage): TelegramMessage {
  const { reply_to_message: _nested, ...rest } = message;
  return rest as TelegramMessage;
}

function extensionFor(fileName: string | undefined, mimeType: string | undefined): string {
  const fromName = fileName === undefined ? undefined : /\.[A-Za-z0-9]{1,8}$/.exec(fileName)?.[0];
  if (fromName !== undefined) return fromName.toLowerCase();
  switch (mimeType) {
    case 'image/jpeg':
      return '.jpg';
    case 'image/png':
      return '.png';
    case 'image/webp':
      return '.webp';
    case 'audio/ogg':
      return '.oga';
    case 'video/mp4':
      return '.mp4';
    case 'application/pdf':
      return '.pdf';
    default:
      return '';
  }
}
