// The public types of the fake Telegram: its options, what it records (requests, sent
// messages, chat actions, webhook deliveries), the faults it injects and what the driver pushes.
import type { FaultRuleHandle } from '../shared/fault-rule.ts';
import type { TelegramChat, TelegramMessage, TelegramMessageEntity, TelegramUser } from './types.ts';

export interface FakeTelegramOptions {
  /** The bot token the fake accepts. Default `123456789:TEST-switchboard-token`. */
  readonly token?: string;
  /** The bot's username (without @). Default `switchboard_test_bot`. */
  readonly botUsername?: string;
  /** The bot's display name. Default `Switchboard Test Bot`. */
  readonly botName?: string;
  /** Clock for message dates and records. Default `Date.now`. */
  readonly now?: () => number;
  /** Default timeout of the `waitFor*` methods. Default 5000 ms. */
  readonly waitTimeoutMs?: number;
  /** Delay before a failed webhook delivery is tried again. Default 100 ms. */
  readonly webhookRetryMs?: number;
  /** Largest accepted request body. Default 50 MiB (the Bot API's upload limit). */
  readonly maxBodyBytes?: number;
}

/** A file part of a multipart request. */
export interface RecordedUpload {
  readonly fileName?: string;
  readonly contentType?: string;
  readonly bytes: Uint8Array;
}

/** One Bot API call the fake received. */
export interface RecordedTelegramRequest {
  readonly method: string;
  /** The parameters: query string, JSON, urlencoded or multipart fields (multipart values are strings). */
  readonly params: Readonly<Record<string, unknown>>;
  /** File parts of a multipart request, by part name. */
  readonly files: Readonly<Record<string, RecordedUpload>>;
  /** `http` for calls to the API, `webhook-reply` for a method answered in a webhook response. */
  readonly via: 'http' | 'webhook-reply';
  readonly receivedAt: number;
  /** The HTTP status answered; 0 while unanswered or when the connection was dropped. */
  readonly status: number;
  /** The error description, when the answer was an error. */
  readonly description?: string;
  /**
   * `downloadFile` only: the bytes of the file the server handed to the socket so far. The body
   * is written in 64 KiB chunks with backpressure and stops when the client goes away, so a
   * client that aborts a download early leaves this below the file's size.
   */
  readonly bytesSent?: number;
}

/** Media attached to a message the bot sent. */
export interface SentMedia {
  /** The Bot API field: `photo`, `document`, `voice`, `audio`, `video`, `animation`, `sticker`. */
  readonly kind: string;
  /** Uploaded bytes (multipart). */
  readonly bytes?: Uint8Array;
  readonly fileName?: string;
  readonly contentType?: string;
  /** A URL or file_id passed instead of an upload. */
  readonly reference?: string;
}

/** An edit of a message the bot sent. */
export interface SentMessageEdit {
  readonly text: string;
  readonly source: string;
  readonly parseMode?: string;
  readonly at: number;
}

/** A message the bot sent (sendMessage, sendPhoto, ...), as a user would see it. */
export interface SentTelegramMessage {
  readonly method: string;
  readonly chatId: number | string;
  readonly messageId: number;
  readonly date: number;
  /** The visible text (or caption) after Telegram parsed it; the latest edit wins. */
  readonly text: string;
  /** The text or caption as sent (HTML when `parseMode` is HTML). */
  readonly source: string;
  readonly parseMode?: string;
  readonly entities: readonly TelegramMessageEntity[];
  readonly replyToMessageId?: number;
  readonly threadId?: number;
  readonly disableNotification: boolean;
  readonly media?: SentMedia;
  readonly edits: readonly SentMessageEdit[];
}

/** A `sendChatAction` call. */
export interface RecordedChatAction {
  readonly chatId: number | string;
  readonly action: string;
  readonly threadId?: number;
  readonly at: number;
}

/** The webhook `setWebhook` registered. */
export interface FakeWebhook {
  readonly url: string;
  readonly secretToken?: string;
  readonly allowedUpdates?: readonly string[];
}

/** One attempt to POST an update to the webhook. */
export interface WebhookDelivery {
  readonly updateId: number;
  readonly url: string;
  /** The HTTP status the webhook answered; undefined when the request failed. */
  readonly status?: number;
  readonly error?: string;
  readonly at: number;
}

/** A fault the fake answers a Bot API call with. */
export type TelegramFault =
  /** 429 `Too Many Requests: retry after N` with `parameters.retry_after`. */
  | { readonly type: 'rate_limit'; readonly retryAfterSeconds?: number }
  /** 409 Conflict (another poller, or a webhook is set). */
  | { readonly type: 'conflict'; readonly description?: string }
  /** 401 Unauthorized (a wrong or revoked token). */
  | { readonly type: 'unauthorized' }
  /** 403 Forbidden (the user blocked the bot, the bot was kicked). */
  | { readonly type: 'forbidden'; readonly description?: string }
  /** 400 Bad Request with this description. */
  | { readonly type: 'bad_request'; readonly description: string }
  /** A 5xx answer (default 500). */
  | { readonly type: 'server'; readonly status?: number; readonly description?: string }
  /** The connection is destroyed without an answer. */
  | { readonly type: 'network' }
  /** No answer at all until the client gives up or the fake closes. */
  | { readonly type: 'hang' };

/** Which calls an injected fault applies to. */
export interface TelegramFaultOptions {
  /**
   * Bot API method name(s) (`sendMessage`); `downloadFile` stands for `GET /file/...`.
   * Default every method.
   */
  readonly method?: string | readonly string[];
  /** How many matching calls fail. Default 1; `Infinity` for all. */
  readonly times?: number;
  /** Only calls for which this returns true. */
  readonly match?: (request: RecordedTelegramRequest) => boolean;
}

/** A fault injected with `injectFault`. */
export type TelegramFaultRule = FaultRuleHandle<TelegramFault>;

/** A file the fake stores (uploaded by a user through the driver). */
export interface StoredTelegramFile {
  readonly fileId: string;
  readonly fileUniqueId: string;
  readonly filePath: string;
  readonly bytes: Uint8Array;
  readonly mimeType?: string;
  readonly fileName?: string;
  /**
   * False: Telegram does not say the size (`file_size` is optional in the Bot API): updates and
   * `getFile` leave it out and the download has no Content-Length. Default true.
   */
  readonly declareSize?: boolean;
}

/** A message a user writes, pushed with `pushMessage`. */
export interface PushMessageOptions {
  /** The chat (or its id: positive ids are private chats, negative ones supergroups, unless known). */
  readonly chat: TelegramChat | number;
  /** The author; defaults to the private chat's user. Required in groups. */
  readonly from?: TelegramUser | number;
  readonly text?: string;
  readonly entities?: readonly TelegramMessageEntity[];
  readonly caption?: string;
  readonly captionEntities?: readonly TelegramMessageEntity[];
  /** The message this one replies to (or its id in the same chat). */
  readonly replyTo?: TelegramMessage | number;
  /** A forum topic id: sets `message_thread_id` and `is_topic_message`. */
  readonly topicId?: number;
  readonly mediaGroupId?: string;
  /** Extra fields merged into the message (`photo`, `document`, `voice`, ...). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** A file a user sends, for `pushPhoto`, `pushDocument` and `pushVoice`. */
export interface PushFileOptions extends Omit<PushMessageOptions, 'text' | 'entities'> {
  readonly bytes: Uint8Array;
  readonly mimeType?: string;
  readonly fileName?: string;
  /** False: the update, `getFile` and the download do not state the file's size. Default true. */
  readonly declareSize?: boolean;
}
