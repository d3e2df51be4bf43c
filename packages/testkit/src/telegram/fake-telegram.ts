// A fake Telegram Bot API on a real HTTP server (127.0.0.1, port 0). grammY (or any Bot API
// client) talks to it through `apiRoot`. It keeps Telegram's semantics where a bot can
// observe them: `getUpdates` is parked until an update arrives or its timeout passes, an
// `offset` confirms (drops) older updates, a second poller gets 409, webhooks are POSTed
// with the secret token and retried until answered 2xx, text is parsed as Telegram HTML
// and limited to 4,096 visible characters, uploads are multipart, files are served under
// `/file/bot<token>/<path>`. A driver API plays the users and injects faults.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { TestkitError } from '../shared/errors.ts';
import { addFaultRule, type FaultRuleHandle } from '../shared/fault-rule.ts';
import { closeServer, listenOnLoopback } from '../shared/http-server.ts';
import { parseTelegramHtml } from './html.ts';
import { multipartBoundary, parseMultipart } from './multipart.ts';
import type {
  TelegramChat,
  TelegramFile,
  TelegramFileObject,
  TelegramMessage,
  TelegramMessageEntity,
  TelegramPhotoSize,
  TelegramUpdate,
  TelegramUser,
} from './types.ts';

// ---------------------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------------------

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
}

// ---------------------------------------------------------------------------------------
// Internals
// ---------------------------------------------------------------------------------------

interface MutableRequest {
  method: string;
  params: Record<string, unknown>;
  files: Record<string, RecordedUpload>;
  via: 'http' | 'webhook-reply';
  receivedAt: number;
  status: number;
  description?: string;
}

interface MutableSent {
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

interface MutableRule {
  readonly fault: TelegramFault;
  readonly methods: ReadonlySet<string> | undefined;
  readonly match: ((request: RecordedTelegramRequest) => boolean) | undefined;
  hits: number;
  remaining: number;
}

interface ParkedPoll {
  readonly respond: (updates: TelegramUpdate[]) => void;
  readonly fail: (status: number, description: string) => void;
  readonly limit: number;
  readonly timer: NodeJS.Timeout;
}

interface Waiter {
  readonly check: () => boolean;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/** An API error answer (`{ ok: false, error_code, description }`). */
class ApiFailure extends Error {
  readonly status: number;
  readonly parameters: Record<string, unknown> | undefined;
  constructor(status: number, description: string, parameters?: Record<string, unknown>) {
    super(description);
    this.status = status;
    this.parameters = parameters;
  }
}

const sendMethods: Readonly<Record<string, string>> = {
  sendPhoto: 'photo',
  sendDocument: 'document',
  sendVoice: 'voice',
  sendAudio: 'audio',
  sendVideo: 'video',
  sendAnimation: 'animation',
  sendSticker: 'sticker',
};

/** The update types Telegram sends when `allowed_updates` is empty. */
const defaultExcludedUpdates = new Set(['chat_member', 'message_reaction', 'message_reaction_count']);

const textLimit = 4096;
const captionLimit = 1024;

function updateType(update: TelegramUpdate): string {
  return Object.keys(update).find((key) => key !== 'update_id') ?? 'unknown';
}

function bad(description: string): ApiFailure {
  return new ApiFailure(400, `Bad Request: ${description}`);
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value);
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : undefined;
    } catch {
      return undefined;
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function asArray(value: unknown): unknown[] | undefined {
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value);
      return Array.isArray(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }
  return Array.isArray(value) ? value : undefined;
}

function asInteger(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value.trim());
  return undefined;
}

function asBoolean(value: unknown): boolean {
  return value === true || value === 'true';
}

function readRawBody(request: IncomingMessage, limit: number): Promise<Buffer | 'too_large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      if (!tooLarge) chunks.push(chunk);
    });
    request.on('end', () => resolve(tooLarge ? 'too_large' : Buffer.concat(chunks)));
    request.on('error', () => resolve('aborted'));
  });
}

function optionalInteger(
  options: FakeTelegramOptions,
  key: 'waitTimeoutMs' | 'webhookRetryMs' | 'maxBodyBytes',
  fallback: number,
): number {
  const value = options[key];
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) {
    throw new TestkitError('TESTKIT_INVALID_OPTIONS', `options.${key} must be a non-negative integer`, {
      details: { path: `options.${key}` },
    });
  }
  return value;
}

// ---------------------------------------------------------------------------------------
// The fake
// ---------------------------------------------------------------------------------------

/** The fake Telegram Bot API. Create it with {@link createFakeTelegram}. */
export class FakeTelegram implements AsyncDisposable {
  readonly #server: Server;
  readonly #token: string;
  readonly #bot: TelegramUser;
  readonly #now: () => number;
  readonly #waitTimeoutMs: number;
  readonly #webhookRetryMs: number;
  readonly #maxBodyBytes: number;
  readonly #updates: TelegramUpdate[] = [];
  readonly #requests: MutableRequest[] = [];
  readonly #sent: MutableSent[] = [];
  readonly #chatActions: RecordedChatAction[] = [];
  readonly #webhookDeliveries: WebhookDelivery[] = [];
  readonly #chats = new Map<string, TelegramChat>();
  readonly #users = new Map<number, TelegramUser>();
  readonly #messages = new Map<string, TelegramMessage>();
  readonly #messageCounters = new Map<string, number>();
  readonly #files = new Map<string, StoredTelegramFile>();
  readonly #filesByPath = new Map<string, StoredTelegramFile>();
  readonly #rules: MutableRule[] = [];
  readonly #blocked = new Set<string>();
  readonly #waiters: Waiter[] = [];
  #allowedUpdates: readonly string[] = [];
  #nextUpdateId = 1;
  #confirmedOffset = 0;
  #fileCounter = 0;
  #parked: ParkedPoll | undefined;
  #webhook: FakeWebhook | undefined;
  #webhookOrigin: string | undefined;
  #deliveryTimer: NodeJS.Timeout | undefined;
  #delivering = false;
  #deliveryAbort = new AbortController();
  #tokenRevoked = false;
  #port: number | undefined;
  #starting: Promise<FakeTelegram> | undefined;
  #closed = false;

  constructor(options: FakeTelegramOptions = {}) {
    const token = options.token ?? '123456789:TEST-switchboard-token';
    if (!/^\d+:[A-Za-z0-9_-]+$/.test(token)) {
      throw new TestkitError(
        'TESTKIT_INVALID_OPTIONS',
        `options.token must look like a bot token (digits, a colon, then letters, digits, _ or -); got ${JSON.stringify(token)}`,
        { details: { path: 'options.token' } },
      );
    }
    this.#token = token;
    this.#bot = {
      id: Number(token.split(':')[0]),
      is_bot: true,
      first_name: options.botName ?? 'Switchboard Test Bot',
      username: options.botUsername ?? 'switchboard_test_bot',
    };
    this.#now = options.now ?? Date.now;
    this.#waitTimeoutMs = optionalInteger(options, 'waitTimeoutMs', 5000);
    this.#webhookRetryMs = optionalInteger(options, 'webhookRetryMs', 100);
    this.#maxBodyBytes = optionalInteger(options, 'maxBodyBytes', 50 * 1024 * 1024);
    this.#server = createServer({ keepAliveTimeout: 10_000 }, (request, response) => {
      this.#handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) {
          response.writeHead(500, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({ ok: false, error_code: 500, description: `fake failure: ${String(error)}` }),
          );
        }
      });
    });
  }

  // -------------------------------------------------------------------------------------
  // Lifecycle
  // -------------------------------------------------------------------------------------

  /** Starts listening on 127.0.0.1 with an OS-assigned port. Resolves with the fake itself. */
  start(): Promise<FakeTelegram> {
    if (this.#closed) {
      return Promise.reject(new TestkitError('TESTKIT_CLOSED', 'fake Telegram: start() after close()'));
    }
    this.#starting ??= listenOnLoopback(this.#server).then((port) => {
      this.#port = port;
      return this;
    });
    return this.#starting;
  }

  /** Stops the server (open and parked connections are destroyed) and rejects pending waits. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#deliveryTimer !== undefined) clearTimeout(this.#deliveryTimer);
    this.#deliveryAbort.abort();
    if (this.#parked !== undefined) clearTimeout(this.#parked.timer);
    this.#parked = undefined;
    for (const waiter of this.#waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(new TestkitError('TESTKIT_CLOSED', 'fake Telegram closed while a wait was pending'));
    }
    await closeServer(this.#server);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** The port, once started. */
  get port(): number {
    if (this.#port === undefined) {
      throw new TestkitError('TESTKIT_NOT_STARTED', 'fake Telegram: port read before start() resolved');
    }
    return this.#port;
  }

  /** `http://127.0.0.1:<port>` (no trailing slash): grammY's `client.apiRoot`. */
  get apiRoot(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The token the fake accepts. */
  get token(): string {
    return this.#token;
  }

  /** The bot's own user (what `getMe` answers). */
  get bot(): TelegramUser {
    return this.#bot;
  }

  /** The bot's username, without the @. */
  get botUsername(): string {
    return this.#bot.username ?? '';
  }

  // -------------------------------------------------------------------------------------
  // Observation
  // -------------------------------------------------------------------------------------

  /** Every Bot API call, oldest first. */
  get requests(): readonly RecordedTelegramRequest[] {
    return this.#requests;
  }

  /** The calls of one method, oldest first. */
  requestsFor(method: string): RecordedTelegramRequest[] {
    return this.#requests.filter((request) => request.method === method);
  }

  /** Every message the bot sent, oldest first (edits update the entry). */
  get sentMessages(): readonly SentTelegramMessage[] {
    return this.#sent;
  }

  /** The messages the bot sent to one chat. */
  messagesIn(chatId: number | string): SentTelegramMessage[] {
    const key = String(chatId);
    return this.#sent.filter((message) => String(message.chatId) === key);
  }

  /** Every `sendChatAction` call. */
  get chatActions(): readonly RecordedChatAction[] {
    return this.#chatActions;
  }

  /** Updates not yet confirmed by an `offset` (polling) or a 2xx webhook answer. */
  get pendingUpdates(): readonly TelegramUpdate[] {
    return this.#updates;
  }

  /** The highest offset a poller confirmed (0 before any). */
  get confirmedOffset(): number {
    return this.#confirmedOffset;
  }

  /** True while a `getUpdates` call is parked waiting for updates. */
  get polling(): boolean {
    return this.#parked !== undefined;
  }

  /** The webhook set with `setWebhook`, if any. */
  get webhook(): FakeWebhook | undefined {
    return this.#webhook;
  }

  /** Every attempt to POST an update to the webhook. */
  get webhookDeliveries(): readonly WebhookDelivery[] {
    return this.#webhookDeliveries;
  }

  /** A stored file by id. */
  file(fileId: string): StoredTelegramFile | undefined {
    return this.#files.get(fileId);
  }

  // -------------------------------------------------------------------------------------
  // Users, chats, files
  // -------------------------------------------------------------------------------------

  /** A user (remembered, so later calls with the id alone find it). */
  user(
    id: number,
    details: { firstName?: string; lastName?: string; username?: string; isBot?: boolean } = {},
  ): TelegramUser {
    const user: TelegramUser = {
      id,
      is_bot: details.isBot ?? false,
      first_name: details.firstName ?? `User ${id}`,
      ...(details.lastName === undefined ? {} : { last_name: details.lastName }),
      ...(details.username === undefined ? {} : { username: details.username }),
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
      ...(resolved.username === undefined ? {} : { username: resolved.username }),
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
      ...(options.username === undefined ? {} : { username: options.username }),
    };
    this.#chats.set(String(chat.id), chat);
    return chat;
  }

  /** Stores a file the bot can fetch with `getFile` and download. */
  addFile(
    bytes: Uint8Array,
    details: { mimeType?: string; fileName?: string; folder?: string } = {},
  ): StoredTelegramFile {
    this.#fileCounter += 1;
    const extension = extensionFor(details.fileName, details.mimeType);
    const fileId = `fake-file-${this.#fileCounter}-${randomBytes(4).toString('hex')}`;
    const file: StoredTelegramFile = {
      fileId,
      fileUniqueId: `unique-${this.#fileCounter}`,
      filePath: `${details.folder ?? 'documents'}/file_${this.#fileCounter}${extension}`,
      bytes,
      ...(details.mimeType === undefined ? {} : { mimeType: details.mimeType }),
      ...(details.fileName === undefined ? {} : { fileName: details.fileName }),
    };
    this.#files.set(fileId, file);
    this.#filesByPath.set(file.filePath, file);
    return file;
  }

  /** `@<bot> <text>` with the mention entity Telegram would attach. */
  mentionBot(text: string): { text: string; entities: TelegramMessageEntity[] } {
    const mention = `@${this.botUsername}`;
    return { text: `${mention} ${text}`, entities: [{ type: 'mention', offset: 0, length: mention.length }] };
  }

  // -------------------------------------------------------------------------------------
  // Pushing updates (what users do)
  // -------------------------------------------------------------------------------------

  /** Queues a raw update (an `update_id` is assigned) for the poller or the webhook. */
  pushUpdate(update: Omit<TelegramUpdate, 'update_id'>): TelegramUpdate {
    const full = { update_id: this.#nextUpdateId, ...update } as TelegramUpdate;
    this.#nextUpdateId += 1;
    this.#updates.push(full);
    this.#answerParked();
    this.#scheduleDelivery(0);
    this.#notify();
    return full;
  }

  /** A user writes a message. Resolves nothing: returns the queued update (its `message` included). */
  pushMessage(options: PushMessageOptions): TelegramUpdate {
    return this.pushUpdate({ message: this.#buildMessage(options) });
  }

  /** A user sends a photo (Telegram keeps two sizes; the larger is the original bytes). */
  pushPhoto(options: PushFileOptions): TelegramUpdate {
    const full = this.addFile(options.bytes, {
      folder: 'photos',
      mimeType: options.mimeType ?? 'image/jpeg',
    });
    const thumbnail = this.addFile(options.bytes.subarray(0, Math.min(options.bytes.length, 16)), {
      folder: 'photos',
      mimeType: 'image/jpeg',
    });
    const sizes: TelegramPhotoSize[] = [
      {
        file_id: thumbnail.fileId,
        file_unique_id: thumbnail.fileUniqueId,
        width: 90,
        height: 90,
        file_size: thumbnail.bytes.length,
      },
      {
        file_id: full.fileId,
        file_unique_id: full.fileUniqueId,
        width: 800,
        height: 600,
        file_size: full.bytes.length,
      },
    ];
    return this.pushMessage({ ...options, extra: { ...options.extra, photo: sizes } });
  }

  /** A user sends a file as a document. */
  pushDocument(options: PushFileOptions): TelegramUpdate {
    const file = this.addFile(options.bytes, {
      folder: 'documents',
      ...(options.mimeType === undefined ? {} : { mimeType: options.mimeType }),
      ...(options.fileName === undefined ? {} : { fileName: options.fileName }),
    });
    const document: TelegramFileObject = {
      file_id: file.fileId,
      file_unique_id: file.fileUniqueId,
      file_size: file.bytes.length,
      ...(options.fileName === undefined ? {} : { file_name: options.fileName }),
      ...(options.mimeType === undefined ? {} : { mime_type: options.mimeType }),
    };
    return this.pushMessage({ ...options, extra: { ...options.extra, document } });
  }

  /** A user records a voice note (OGG/Opus). */
  pushVoice(options: PushFileOptions & { durationSeconds?: number }): TelegramUpdate {
    const file = this.addFile(options.bytes, { folder: 'voice', mimeType: options.mimeType ?? 'audio/ogg' });
    const voice: TelegramFileObject = {
      file_id: file.fileId,
      file_unique_id: file.fileUniqueId,
      file_size: file.bytes.length,
      duration: options.durationSeconds ?? 1,
      mime_type: options.mimeType ?? 'audio/ogg',
    };
    return this.pushMessage({ ...options, extra: { ...options.extra, voice } });
  }

  /** A user edits a message they wrote: an `edited_message` update with the new text. */
  pushEdit(
    message: TelegramMessage,
    text: string,
    entities?: readonly TelegramMessageEntity[],
  ): TelegramUpdate {
    const edited: TelegramMessage = {
      ...message,
      text,
      edit_date: Math.floor(this.#now() / 1000),
      ...(entities === undefined ? {} : { entities }),
    };
    this.#messages.set(`${message.chat.id}:${message.message_id}`, edited);
    return this.pushUpdate({ edited_message: edited });
  }

  /** The same message delivered again in a new update (what a platform retry looks like). */
  redeliver(update: TelegramUpdate): TelegramUpdate {
    const { update_id: _ignored, ...rest } = update;
    return this.pushUpdate(rest);
  }

  // -------------------------------------------------------------------------------------
  // Webhook target, faults, blocking
  // -------------------------------------------------------------------------------------

  /**
   * Delivers webhook updates to this origin (`http://127.0.0.1:PORT`) instead of the one in
   * the URL `setWebhook` registered; path and query are kept. For a gateway whose public
   * URL points elsewhere, or whose port changed after a restart. `undefined` undoes it.
   */
  setWebhookOrigin(origin: string | undefined): void {
    this.#webhookOrigin = origin?.replace(/\/+$/, '');
    this.#scheduleDelivery(0);
  }

  /** Fails the next matching calls with `fault`. */
  injectFault(fault: TelegramFault, options: TelegramFaultOptions = {}): TelegramFaultRule {
    const times = options.times ?? 1;
    if (!(times === Number.POSITIVE_INFINITY || (Number.isInteger(times) && times >= 1))) {
      throw new TestkitError(
        'TESTKIT_INVALID_OPTIONS',
        'injectFault options.times must be an integer >= 1 or Infinity',
        {
          details: { path: 'times' },
        },
      );
    }
    const validTypes = [
      'rate_limit',
      'conflict',
      'unauthorized',
      'forbidden',
      'bad_request',
      'server',
      'network',
      'hang',
    ];
    if (typeof fault !== 'object' || fault === null || !validTypes.includes(fault.type)) {
      throw new TestkitError(
        'TESTKIT_INVALID_OPTIONS',
        `injectFault: fault.type must be one of ${validTypes.join(', ')}`,
        { details: { path: 'fault.type' } },
      );
    }
    const methods =
      options.method === undefined
        ? undefined
        : new Set(typeof options.method === 'string' ? [options.method] : options.method);
    const rule: MutableRule = { fault, methods, match: options.match, hits: 0, remaining: times };
    return addFaultRule(this.#rules, rule);
  }

  /** Removes every injected fault. */
  clearFaults(): void {
    this.#rules.length = 0;
  }

  /** The user of this private chat blocks the bot: sends there get 403. */
  blockBot(chatId: number | string): void {
    this.#blocked.add(String(chatId));
  }

  unblockBot(chatId: number | string): void {
    this.#blocked.delete(String(chatId));
  }

  /** The token is revoked (every call gets 401) until {@link restoreToken}. */
  revokeToken(): void {
    this.#tokenRevoked = true;
  }

  restoreToken(): void {
    this.#tokenRevoked = false;
  }

  // -------------------------------------------------------------------------------------
  // Waiting
  // -------------------------------------------------------------------------------------

  /** Resolves once `check()` returns true (checked after every change the fake sees). */
  waitFor(check: () => boolean, options: { timeoutMs?: number; description?: string } = {}): Promise<void> {
    if (check()) return Promise.resolve();
    if (this.#closed) return Promise.reject(new TestkitError('TESTKIT_CLOSED', 'fake Telegram is closed'));
    const timeoutMs = options.timeoutMs ?? this.#waitTimeoutMs;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        check,
        resolve,
        reject,
        timer: setTimeout(() => {
          const index = this.#waiters.indexOf(waiter);
          if (index !== -1) this.#waiters.splice(index, 1);
          reject(
            new TestkitError(
              'TESTKIT_WAIT_TIMEOUT',
              `fake Telegram: timed out after ${timeoutMs} ms waiting for ${options.description ?? 'a condition'}`,
            ),
          );
        }, timeoutMs),
      };
      waiter.timer.unref();
      this.#waiters.push(waiter);
    });
  }

  /** Resolves with the bot's messages in a chat once there are at least `count`. */
  async waitForMessages(
    chatId: number | string,
    count: number,
    timeoutMs?: number,
  ): Promise<SentTelegramMessage[]> {
    await this.waitFor(() => this.messagesIn(chatId).length >= count, {
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      description: `${count} message(s) in chat ${chatId} (have ${this.messagesIn(chatId).length})`,
    });
    return this.messagesIn(chatId);
  }

  /** Resolves with the calls of a method once there are at least `count` answered ones. */
  async waitForRequests(
    method: string,
    count: number,
    timeoutMs?: number,
  ): Promise<RecordedTelegramRequest[]> {
    const answered = () => this.requestsFor(method).filter((request) => request.status !== 0);
    await this.waitFor(() => answered().length >= count, {
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      description: `${count} ${method} call(s) (have ${answered().length})`,
    });
    return answered();
  }

  #notify(): void {
    for (const waiter of this.#waiters.slice()) {
      if (!waiter.check()) continue;
      clearTimeout(waiter.timer);
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }

  // -------------------------------------------------------------------------------------
  // Building messages
  // -------------------------------------------------------------------------------------

  #chat(chat: TelegramChat | number | string): TelegramChat {
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

  #nextMessageId(chatId: number | string): number {
    const key = String(chatId);
    const next = (this.#messageCounters.get(key) ?? 0) + 1;
    this.#messageCounters.set(key, next);
    return next;
  }

  #buildMessage(options: PushMessageOptions): TelegramMessage {
    const chat = this.#chat(options.chat);
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
      replyTo = this.#messages.get(`${chat.id}:${options.replyTo}`);
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
      message_id: this.#nextMessageId(chat.id),
      date: Math.floor(this.#now() / 1000),
      chat,
      ...(from === undefined ? { sender_chat: chat } : { from }),
      ...(options.topicId === undefined
        ? {}
        : { message_thread_id: options.topicId, is_topic_message: true as const }),
      ...(replyTo === undefined ? {} : { reply_to_message: stripReply(replyTo) }),
      ...(options.mediaGroupId === undefined ? {} : { media_group_id: options.mediaGroupId }),
      ...(options.text === undefined ? {} : { text: options.text }),
      ...(options.entities === undefined ? {} : { entities: options.entities }),
      ...(options.caption === undefined ? {} : { caption: options.caption }),
      ...(options.captionEntities === undefined ? {} : { caption_entities: options.captionEntities }),
      ...options.extra,
    };
    this.#messages.set(`${chat.id}:${message.message_id}`, message);
    return message;
  }

  // -------------------------------------------------------------------------------------
  // HTTP
  // -------------------------------------------------------------------------------------

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const fileMatch = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (fileMatch !== null) {
      await this.#download(
        request,
        response,
        decodeURIComponent(fileMatch[1]!),
        decodeURIComponent(fileMatch[2]!),
      );
      return;
    }
    const match = /^\/bot([^/]+)\/(?:test\/)?([A-Za-z]+)$/.exec(url.pathname);
    if (match === null) {
      this.#send(response, 404, { ok: false, error_code: 404, description: 'Not Found' });
      return;
    }
    const token = decodeURIComponent(match[1]!);
    const method = match[2]!;
    const body = await readRawBody(request, this.#maxBodyBytes);
    if (body === 'aborted') return;
    const record: MutableRequest = {
      method,
      params: {},
      files: {},
      via: 'http',
      receivedAt: this.#now(),
      status: 0,
    };
    this.#requests.push(record);
    if (body === 'too_large') {
      this.#answer(response, record, new ApiFailure(413, 'Request Entity Too Large'));
      return;
    }
    try {
      this.#parseParams(request, url, body, record);
    } catch (error) {
      this.#answer(response, record, bad(`can't parse the request: ${(error as Error).message}`));
      return;
    }
    if (token !== this.#token || this.#tokenRevoked) {
      this.#answer(response, record, new ApiFailure(401, 'Unauthorized'));
      return;
    }
    if (this.#applyFault(request, response, record)) return;
    if (method === 'getUpdates') {
      this.#getUpdates(response, record);
      return;
    }
    try {
      const result = this.#call(method, record.params, record.files);
      this.#answer(response, record, result);
    } catch (error) {
      this.#answer(
        response,
        record,
        error instanceof ApiFailure ? error : new ApiFailure(500, String(error)),
      );
    }
  }

  #parseParams(request: IncomingMessage, url: URL, body: Buffer, record: MutableRequest): void {
    for (const [key, value] of url.searchParams) record.params[key] = value;
    if (body.length === 0) return;
    const contentType = request.headers['content-type'] ?? '';
    const boundary = multipartBoundary(contentType);
    if (boundary !== undefined) {
      const parts = parseMultipart(body, boundary);
      for (const part of parts) {
        if (part.fileName !== undefined) {
          record.files[part.name] = {
            bytes: new Uint8Array(part.data),
            ...(part.fileName === '' ? {} : { fileName: part.fileName }),
            ...(part.contentType === undefined ? {} : { contentType: part.contentType }),
          };
        } else {
          record.params[part.name] = part.data.toString('utf8');
        }
      }
      return;
    }
    if (/application\/x-www-form-urlencoded/i.test(contentType)) {
      for (const [key, value] of new URLSearchParams(body.toString('utf8'))) record.params[key] = value;
      return;
    }
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new Error('the JSON body is not an object');
    }
    Object.assign(record.params, parsed);
  }

  /** Answers with an injected fault if one matches; true when it did. */
  #applyFault(request: IncomingMessage, response: ServerResponse, record: MutableRequest): boolean {
    const rule = this.#rules.find(
      (candidate) =>
        candidate.remaining > 0 &&
        (candidate.methods === undefined || candidate.methods.has(record.method)) &&
        (candidate.match === undefined || candidate.match(record)),
    );
    if (rule === undefined) return false;
    rule.hits += 1;
    rule.remaining -= 1;
    if (rule.remaining <= 0) this.#rules.splice(this.#rules.indexOf(rule), 1);
    const fault = rule.fault;
    switch (fault.type) {
      case 'network':
        record.description = 'connection destroyed (injected)';
        request.socket.destroy();
        this.#notify();
        return true;
      case 'hang':
        record.description = 'no answer (injected)';
        return true;
      case 'rate_limit': {
        const retryAfter = fault.retryAfterSeconds ?? 1;
        this.#answer(
          response,
          record,
          new ApiFailure(429, `Too Many Requests: retry after ${retryAfter}`, { retry_after: retryAfter }),
        );
        return true;
      }
      case 'conflict':
        this.#answer(
          response,
          record,
          new ApiFailure(
            409,
            fault.description ??
              'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
          ),
        );
        return true;
      case 'unauthorized':
        this.#answer(response, record, new ApiFailure(401, 'Unauthorized'));
        return true;
      case 'forbidden':
        this.#answer(
          response,
          record,
          new ApiFailure(403, fault.description ?? 'Forbidden: bot was blocked by the user'),
        );
        return true;
      case 'bad_request':
        this.#answer(response, record, new ApiFailure(400, fault.description));
        return true;
      case 'server':
        this.#answer(
          response,
          record,
          new ApiFailure(fault.status ?? 500, fault.description ?? 'Internal Server Error'),
        );
        return true;
    }
  }

  #answer(response: ServerResponse, record: MutableRequest, outcome: unknown): void {
    if (outcome instanceof ApiFailure) {
      record.status = outcome.status;
      record.description = outcome.message;
      this.#send(response, outcome.status, {
        ok: false,
        error_code: outcome.status,
        description: outcome.message,
        ...(outcome.parameters === undefined ? {} : { parameters: outcome.parameters }),
      });
    } else {
      record.status = 200;
      this.#send(response, 200, { ok: true, result: outcome });
    }
    this.#notify();
  }

  #send(response: ServerResponse, status: number, body: unknown): void {
    if (response.headersSent || response.destroyed) return;
    const text = JSON.stringify(body);
    response.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    response.end(text);
  }

  async #download(
    request: IncomingMessage,
    response: ServerResponse,
    token: string,
    path: string,
  ): Promise<void> {
    const record: MutableRequest = {
      method: 'downloadFile',
      params: { file_path: path },
      files: {},
      via: 'http',
      receivedAt: this.#now(),
      status: 0,
    };
    this.#requests.push(record);
    if (token !== this.#token || this.#tokenRevoked) {
      this.#answer(response, record, new ApiFailure(401, 'Unauthorized'));
      return;
    }
    if (this.#applyFault(request, response, record)) return;
    const file = this.#filesByPath.get(path);
    if (file === undefined) {
      this.#answer(response, record, new ApiFailure(404, 'Not Found'));
      return;
    }
    record.status = 200;
    response.writeHead(200, {
      'content-type': file.mimeType ?? 'application/octet-stream',
      'content-length': file.bytes.length,
    });
    response.end(file.bytes);
    this.#notify();
  }

  // -------------------------------------------------------------------------------------
  // getUpdates and webhooks
  // -------------------------------------------------------------------------------------

  #confirm(offset: number): void {
    if (offset <= this.#confirmedOffset) return;
    this.#confirmedOffset = offset;
    while (this.#updates.length > 0 && this.#updates[0]!.update_id < offset) this.#updates.shift();
  }

  #deliverable(): TelegramUpdate[] {
    const allowed = this.#webhook?.allowedUpdates ?? this.#allowedUpdates;
    return this.#updates.filter((update) => {
      const type = updateType(update);
      return allowed.length === 0 ? !defaultExcludedUpdates.has(type) : allowed.includes(type);
    });
  }

  #getUpdates(response: ServerResponse, record: MutableRequest): void {
    if (this.#webhook !== undefined) {
      this.#answer(
        response,
        record,
        new ApiFailure(
          409,
          "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
        ),
      );
      return;
    }
    const params = record.params;
    const offset = asInteger(params.offset);
    if (offset !== undefined && offset > 0) this.#confirm(offset);
    const limit = Math.min(100, Math.max(1, asInteger(params.limit) ?? 100));
    const timeout = Math.max(0, Number(params.timeout ?? 0) || 0);
    const allowed = asArray(params.allowed_updates);
    if (allowed !== undefined) this.#allowedUpdates = allowed.map(String);
    // A newer poller terminates the parked one, as Telegram does.
    const previous = this.#parked;
    if (previous !== undefined) {
      this.#parked = undefined;
      clearTimeout(previous.timer);
      previous.fail(
        409,
        'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
      );
    }
    const available = this.#deliverable();
    if (available.length > 0 || timeout === 0) {
      this.#answer(response, record, available.slice(0, limit));
      return;
    }
    const parked: ParkedPoll = {
      limit,
      respond: (updates) => this.#answer(response, record, updates),
      fail: (status, description) => this.#answer(response, record, new ApiFailure(status, description)),
      timer: setTimeout(() => {
        if (this.#parked !== parked) return;
        this.#parked = undefined;
        this.#answer(response, record, []);
      }, timeout * 1000),
    };
    parked.timer.unref();
    this.#parked = parked;
    // The client went away (aborted its poll, or the process died): forget the poll.
    response.on('close', () => {
      if (this.#parked !== parked) return;
      clearTimeout(parked.timer);
      this.#parked = undefined;
      this.#notify();
    });
    this.#notify();
  }

  #answerParked(): void {
    const parked = this.#parked;
    if (parked === undefined) return;
    const available = this.#deliverable();
    if (available.length === 0) return;
    this.#parked = undefined;
    clearTimeout(parked.timer);
    parked.respond(available.slice(0, parked.limit));
  }

  #webhookTarget(url: string): string {
    if (this.#webhookOrigin === undefined) return url;
    const parsed = new URL(url);
    return `${this.#webhookOrigin}${parsed.pathname}${parsed.search}`;
  }

  #scheduleDelivery(delayMs: number): void {
    if (this.#closed || this.#webhook === undefined || this.#delivering) return;
    if (this.#deliveryTimer !== undefined) {
      if (delayMs > 0) return;
      clearTimeout(this.#deliveryTimer);
    }
    this.#deliveryTimer = setTimeout(() => {
      this.#deliveryTimer = undefined;
      void this.#deliver();
    }, delayMs);
    this.#deliveryTimer.unref();
  }

  /** POSTs pending updates to the webhook one at a time, in order; stops at the first failure and retries later. */
  async #deliver(): Promise<void> {
    if (this.#delivering) return;
    this.#delivering = true;
    let failed = false;
    try {
      while (!this.#closed) {
        const webhook = this.#webhook;
        const update = this.#deliverable()[0];
        if (webhook === undefined || update === undefined) break;
        const url = this.#webhookTarget(webhook.url);
        const at = this.#now();
        try {
          const answer = await fetch(url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              ...(webhook.secretToken === undefined
                ? {}
                : { 'x-telegram-bot-api-secret-token': webhook.secretToken }),
            },
            body: JSON.stringify(update),
            signal: AbortSignal.any([this.#deliveryAbort.signal, AbortSignal.timeout(60_000)]),
          });
          const text = await answer.text();
          this.#webhookDeliveries.push({ updateId: update.update_id, url, status: answer.status, at });
          if (!answer.ok) {
            failed = true;
            break;
          }
          const index = this.#updates.indexOf(update);
          if (index !== -1) this.#updates.splice(index, 1);
          this.#webhookReply(text);
        } catch (error) {
          this.#webhookDeliveries.push({ updateId: update.update_id, url, error: String(error), at });
          failed = true;
          break;
        } finally {
          this.#notify();
        }
      }
    } finally {
      this.#delivering = false;
    }
    if (this.#deliverable().length > 0) this.#scheduleDelivery(failed ? this.#webhookRetryMs : 0);
  }

  /** A webhook answer may carry one method call (`{ method, ...params }`), as Telegram allows. */
  #webhookReply(text: string): void {
    const body = asRecord(text);
    if (body === undefined || typeof body.method !== 'string') return;
    const { method, ...params } = body;
    const record: MutableRequest = {
      method,
      params,
      files: {},
      via: 'webhook-reply',
      receivedAt: this.#now(),
      status: 0,
    };
    this.#requests.push(record);
    try {
      this.#call(method, params, {});
      record.status = 200;
    } catch (error) {
      record.status = error instanceof ApiFailure ? error.status : 500;
      record.description = (error as Error).message;
    }
  }

  // -------------------------------------------------------------------------------------
  // Methods
  // -------------------------------------------------------------------------------------

  #call(method: string, params: Record<string, unknown>, files: Record<string, RecordedUpload>): unknown {
    switch (method) {
      case 'getMe':
        return {
          ...this.#bot,
          can_join_groups: true,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
        };
      case 'setWebhook':
        return this.#setWebhook(params);
      case 'deleteWebhook':
        this.#webhook = undefined;
        if (asBoolean(params.drop_pending_updates)) this.#updates.length = 0;
        return true;
      case 'getWebhookInfo':
        return {
          url: this.#webhook?.url ?? '',
          has_custom_certificate: false,
          pending_update_count: this.#updates.length,
          ...(this.#webhook?.allowedUpdates === undefined
            ? {}
            : { allowed_updates: this.#webhook.allowedUpdates }),
        };
      case 'sendMessage':
        return this.#sendMessage(params);
      case 'editMessageText':
        return this.#editMessageText(params);
      case 'sendChatAction':
        return this.#sendChatAction(params);
      case 'getFile':
        return this.#getFile(params);
      case 'deleteMessage':
        return true;
      default: {
        const kind = sendMethods[method];
        if (kind !== undefined) return this.#sendMedia(method, kind, params, files);
        throw new ApiFailure(404, 'Not Found: method not found');
      }
    }
  }

  #setWebhook(params: Record<string, unknown>): true {
    const url = typeof params.url === 'string' ? params.url : '';
    if (url === '') {
      this.#webhook = undefined;
      return true;
    }
    if (!/^https?:\/\//.test(url)) throw bad('bad webhook: An HTTPS URL must be provided for webhook');
    const secret = params.secret_token;
    if (secret !== undefined && (typeof secret !== 'string' || !/^[A-Za-z0-9_-]{1,256}$/.test(secret))) {
      throw bad('bad webhook: secret token contains unallowed characters');
    }
    const allowed = asArray(params.allowed_updates);
    this.#webhook = {
      url,
      ...(typeof secret === 'string' ? { secretToken: secret } : {}),
      ...(allowed === undefined ? {} : { allowedUpdates: allowed.map(String) }),
    };
    if (asBoolean(params.drop_pending_updates)) this.#updates.length = 0;
    // Telegram stops waiting pollers once a webhook is set.
    const parked = this.#parked;
    if (parked !== undefined) {
      this.#parked = undefined;
      clearTimeout(parked.timer);
      parked.fail(
        409,
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      );
    }
    this.#scheduleDelivery(0);
    return true;
  }

  #target(params: Record<string, unknown>): { chat: TelegramChat; chatId: number | string } {
    const raw = params.chat_id;
    const numeric = asInteger(raw);
    if (numeric === undefined && !(typeof raw === 'string' && /^@[A-Za-z0-9_]{4,}$/.test(raw))) {
      throw bad('chat_id is empty');
    }
    const chatId = numeric ?? (raw as string);
    if (this.#blocked.has(String(chatId))) {
      throw new ApiFailure(403, 'Forbidden: bot was blocked by the user');
    }
    return { chat: this.#chat(chatId), chatId };
  }

  #replyTarget(chat: TelegramChat, params: Record<string, unknown>): TelegramMessage | undefined | 'missing' {
    const parameters = asRecord(params.reply_parameters);
    const id = asInteger(parameters?.message_id) ?? asInteger(params.reply_to_message_id);
    if (id === undefined) return undefined;
    const message = this.#messages.get(`${chat.id}:${id}`);
    if (message !== undefined) return message;
    const allow =
      asBoolean(parameters?.allow_sending_without_reply) || asBoolean(params.allow_sending_without_reply);
    if (!allow) throw bad('message to be replied not found');
    return 'missing';
  }

  #parseText(
    raw: unknown,
    parseMode: unknown,
    entities: unknown,
    limit: number,
    kind: 'text' | 'caption',
  ): { text: string; entities: TelegramMessageEntity[] } {
    if (typeof raw !== 'string') {
      if (kind === 'text') throw bad('message text is empty');
      return { text: '', entities: [] };
    }
    let text = raw;
    let parsedEntities: TelegramMessageEntity[] =
      (asArray(entities) as TelegramMessageEntity[] | undefined) ?? [];
    if (typeof parseMode === 'string' && parseMode.toUpperCase() === 'HTML') {
      const parsed = parseTelegramHtml(raw);
      if (!parsed.ok) throw new ApiFailure(400, parsed.description);
      text = parsed.text;
      parsedEntities = parsed.entities;
    } else if (parseMode !== undefined && parseMode !== '') {
      if (!['markdown', 'markdownv2'].includes(String(parseMode).toLowerCase())) {
        throw bad(`unsupported parse_mode "${String(parseMode)}"`);
      }
    }
    if (kind === 'text' && text.trim() === '') throw bad('message text is empty');
    if (text.length > limit)
      throw bad(kind === 'text' ? 'message is too long' : 'message caption is too long');
    return { text, entities: parsedEntities };
  }

  #threadId(params: Record<string, unknown>): number | undefined {
    const thread = asInteger(params.message_thread_id);
    return thread === undefined || thread === 0 ? undefined : thread;
  }

  #resultMessage(
    sent: MutableSent,
    chat: TelegramChat,
    reply: TelegramMessage | undefined,
    extra: Record<string, unknown>,
  ): TelegramMessage {
    const message: TelegramMessage = {
      message_id: sent.messageId,
      date: sent.date,
      chat,
      from: this.#bot,
      ...(sent.threadId === undefined
        ? {}
        : { message_thread_id: sent.threadId, is_topic_message: true as const }),
      ...(reply === undefined ? {} : { reply_to_message: stripReply(reply) }),
      ...extra,
    };
    this.#messages.set(`${chat.id}:${sent.messageId}`, message);
    return message;
  }

  #sendMessage(params: Record<string, unknown>): TelegramMessage {
    const { chat, chatId } = this.#target(params);
    const parsed = this.#parseText(params.text, params.parse_mode, params.entities, textLimit, 'text');
    const reply = this.#replyTarget(chat, params);
    const threadId = this.#threadId(params);
    const sent: MutableSent = {
      method: 'sendMessage',
      chatId,
      messageId: this.#nextMessageId(chat.id),
      date: Math.floor(this.#now() / 1000),
      text: parsed.text,
      source: params.text as string,
      ...(typeof params.parse_mode === 'string' ? { parseMode: params.parse_mode } : {}),
      entities: parsed.entities,
      ...(reply === undefined || reply === 'missing' ? {} : { replyToMessageId: reply.message_id }),
      ...(threadId === undefined ? {} : { threadId }),
      disableNotification: asBoolean(params.disable_notification),
      edits: [],
    };
    this.#sent.push(sent);
    return this.#resultMessage(sent, chat, reply === 'missing' ? undefined : reply, {
      text: parsed.text,
      ...(parsed.entities.length === 0 ? {} : { entities: parsed.entities }),
    });
  }

  #editMessageText(params: Record<string, unknown>): TelegramMessage {
    const { chat, chatId } = this.#target(params);
    const messageId = asInteger(params.message_id);
    const sent = this.#sent.find(
      (candidate) => String(candidate.chatId) === String(chatId) && candidate.messageId === messageId,
    );
    if (sent === undefined) throw bad('message to edit not found');
    const parsed = this.#parseText(params.text, params.parse_mode, params.entities, textLimit, 'text');
    if (parsed.text === sent.text && JSON.stringify(parsed.entities) === JSON.stringify(sent.entities)) {
      throw bad(
        'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
      );
    }
    sent.text = parsed.text;
    sent.source = params.text as string;
    sent.entities = parsed.entities;
    sent.edits.push({
      text: parsed.text,
      source: params.text as string,
      ...(typeof params.parse_mode === 'string' ? { parseMode: params.parse_mode } : {}),
      at: this.#now(),
    });
    const previous = this.#messages.get(`${chat.id}:${sent.messageId}`);
    const edited: TelegramMessage = {
      ...(previous ?? { message_id: sent.messageId, date: sent.date, chat, from: this.#bot }),
      text: parsed.text,
      edit_date: Math.floor(this.#now() / 1000),
      ...(parsed.entities.length === 0 ? {} : { entities: parsed.entities }),
    };
    this.#messages.set(`${chat.id}:${sent.messageId}`, edited);
    return edited;
  }

  #sendChatAction(params: Record<string, unknown>): true {
    const { chatId } = this.#target(params);
    const action = params.action;
    if (typeof action !== 'string' || action === '') throw bad('action is empty');
    const threadId = this.#threadId(params);
    this.#chatActions.push({
      chatId,
      action,
      ...(threadId === undefined ? {} : { threadId }),
      at: this.#now(),
    });
    return true;
  }

  #getFile(params: Record<string, unknown>): TelegramFile {
    const fileId = params.file_id;
    const file = typeof fileId === 'string' ? this.#files.get(fileId) : undefined;
    if (file === undefined) throw bad('invalid file_id');
    return {
      file_id: file.fileId,
      file_unique_id: file.fileUniqueId,
      file_size: file.bytes.length,
      file_path: file.filePath,
    };
  }

  #sendMedia(
    method: string,
    kind: string,
    params: Record<string, unknown>,
    files: Record<string, RecordedUpload>,
  ): TelegramMessage {
    const { chat, chatId } = this.#target(params);
    const value = params[kind];
    let media: SentMedia;
    const attached =
      typeof value === 'string' && value.startsWith('attach://') ? files[value.slice(9)] : files[kind];
    if (attached !== undefined) {
      media = {
        kind,
        bytes: attached.bytes,
        ...(attached.fileName === undefined ? {} : { fileName: attached.fileName }),
        ...(attached.contentType === undefined ? {} : { contentType: attached.contentType }),
      };
    } else if (typeof value === 'string' && value !== '' && !value.startsWith('attach://')) {
      media = { kind, reference: value };
    } else {
      throw bad(`there is no ${kind} in the request`);
    }
    const parsed = this.#parseText(
      params.caption,
      params.parse_mode,
      params.caption_entities,
      captionLimit,
      'caption',
    );
    const reply = this.#replyTarget(chat, params);
    const threadId = this.#threadId(params);
    const sent: MutableSent = {
      method,
      chatId,
      messageId: this.#nextMessageId(chat.id),
      date: Math.floor(this.#now() / 1000),
      text: parsed.text,
      source: typeof params.caption === 'string' ? params.caption : '',
      ...(typeof params.parse_mode === 'string' ? { parseMode: params.parse_mode } : {}),
      entities: parsed.entities,
      ...(reply === undefined || reply === 'missing' ? {} : { replyToMessageId: reply.message_id }),
      ...(threadId === undefined ? {} : { threadId }),
      disableNotification: asBoolean(params.disable_notification),
      media,
      edits: [],
    };
    this.#sent.push(sent);
    const bytes = media.bytes ?? new Uint8Array();
    const stored = this.addFile(bytes, {
      folder: kind === 'photo' ? 'photos' : `${kind}s`,
      ...(media.contentType === undefined ? {} : { mimeType: media.contentType }),
      ...(media.fileName === undefined ? {} : { fileName: media.fileName }),
    });
    const fileObject =
      kind === 'photo'
        ? [
            {
              file_id: stored.fileId,
              file_unique_id: stored.fileUniqueId,
              width: 800,
              height: 600,
              file_size: bytes.length,
            },
          ]
        : {
            file_id: stored.fileId,
            file_unique_id: stored.fileUniqueId,
            file_size: bytes.length,
            ...(media.fileName === undefined ? {} : { file_name: media.fileName }),
          };
    return this.#resultMessage(sent, chat, reply === 'missing' ? undefined : reply, {
      [kind]: fileObject,
      ...(parsed.text === '' ? {} : { caption: parsed.text }),
      ...(parsed.entities.length === 0 ? {} : { caption_entities: parsed.entities }),
    });
  }
}

function stripReply(message: TelegramMessage): TelegramMessage {
  // Telegram does not nest replies more than one level.
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

/** Creates a fake Telegram Bot API. Call `start()` before use. */
export function createFakeTelegram(options: FakeTelegramOptions = {}): FakeTelegram {
  return new FakeTelegram(options);
}
