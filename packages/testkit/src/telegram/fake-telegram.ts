// A fake Telegram Bot API on a real HTTP server (127.0.0.1, port 0). grammY (or any Bot API
// client) talks to it through `apiRoot`. It keeps Telegram's semantics where a bot can
// observe them: `getUpdates` is parked until an update arrives or its timeout passes, an
// `offset` confirms (drops) older updates, a second poller gets 409, webhooks are POSTed
// with the secret token and retried until answered 2xx, text is parsed as Telegram HTML
// and limited to 4,096 visible characters, uploads are multipart, files are served under
// `/file/bot<token>/<path>`. A driver API plays the users and injects faults.
//
// This module is the public handle; the parts live beside it: `http-server.ts` (routing,
// parameters, token, faults, records), `world.ts` (users, chats, messages, files),
// `methods.ts` (the Bot API methods), `delivery.ts` (polling and webhooks), `faults.ts`.
import { TestkitError } from '../shared/errors.ts';
import { addFaultRule } from '../shared/fault-rule.ts';
import { closeServer, listenOnLoopback } from '../shared/http-server.ts';
import { type ConditionWaiter, createConditionWaiter, whenTrue } from '../shared/waiter.ts';
import { UpdateDelivery } from './delivery.ts';
import type {
  FakeTelegramOptions,
  FakeWebhook,
  PushFileOptions,
  PushMessageOptions,
  RecordedChatAction,
  RecordedTelegramRequest,
  SentTelegramMessage,
  StoredTelegramFile,
  TelegramFault,
  TelegramFaultOptions,
  TelegramFaultRule,
  WebhookDelivery,
} from './fake-telegram-types.ts';
import { createFaultRule } from './faults.ts';
import { TelegramHttpServer } from './http-server.ts';
import { TelegramMethods } from './methods.ts';
import type {
  TelegramChat,
  TelegramFileObject,
  TelegramMessage,
  TelegramMessageEntity,
  TelegramPhotoSize,
  TelegramUpdate,
  TelegramUser,
} from './types.ts';
import { TelegramWorld } from './world.ts';

export type {
  FakeTelegramOptions,
  FakeWebhook,
  PushFileOptions,
  PushMessageOptions,
  RecordedChatAction,
  RecordedTelegramRequest,
  RecordedUpload,
  SentMedia,
  SentMessageEdit,
  SentTelegramMessage,
  StoredTelegramFile,
  TelegramFault,
  TelegramFaultOptions,
  TelegramFaultRule,
  WebhookDelivery,
} from './fake-telegram-types.ts';

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

/** The fake Telegram Bot API. Create it with {@link createFakeTelegram}. */
export class FakeTelegram implements AsyncDisposable {
  readonly #token: string;
  readonly #world: TelegramWorld;
  readonly #waiter: ConditionWaiter;
  readonly #delivery: UpdateDelivery;
  readonly #http: TelegramHttpServer;
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
    const bot: TelegramUser = {
      id: Number(token.split(':')[0]),
      is_bot: true,
      first_name: options.botName ?? 'Switchboard Test Bot',
      username: options.botUsername ?? 'switchboard_test_bot',
    };
    const now = options.now ?? Date.now;
    this.#world = new TelegramWorld(bot, now);
    this.#waiter = createConditionWaiter({
      subject: 'fake Telegram',
      defaultTimeoutMs: optionalInteger(options, 'waitTimeoutMs', 5000),
    });
    const notify = (): void => this.#waiter.notify();
    this.#delivery = new UpdateDelivery({
      now,
      webhookRetryMs: optionalInteger(options, 'webhookRetryMs', 100),
      notify,
      onWebhookReply: (text) => this.#http.recordWebhookReply(text),
    });
    this.#http = new TelegramHttpServer({
      token,
      maxBodyBytes: optionalInteger(options, 'maxBodyBytes', 50 * 1024 * 1024),
      world: this.#world,
      methods: new TelegramMethods(this.#world, this.#delivery),
      delivery: this.#delivery,
      notify,
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
    this.#starting ??= listenOnLoopback(this.#http.server).then((port) => {
      this.#port = port;
      return this;
    });
    return this.#starting;
  }

  /** Stops the server (open and parked connections are destroyed) and rejects pending waits. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#delivery.close();
    this.#waiter.close();
    await closeServer(this.#http.server);
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
    return this.#world.bot;
  }

  /** The bot's username, without the @. */
  get botUsername(): string {
    return this.#world.bot.username ?? '';
  }

  // -------------------------------------------------------------------------------------
  // Observation
  // -------------------------------------------------------------------------------------

  /** Every Bot API call, oldest first. */
  get requests(): readonly RecordedTelegramRequest[] {
    return this.#http.requests;
  }

  /** The calls of one method, oldest first. */
  requestsFor(method: string): RecordedTelegramRequest[] {
    return this.#http.requests.filter((request) => request.method === method);
  }

  /** Every message the bot sent, oldest first (edits update the entry). */
  get sentMessages(): readonly SentTelegramMessage[] {
    return this.#world.sent;
  }

  /** The messages the bot sent to one chat. */
  messagesIn(chatId: number | string): SentTelegramMessage[] {
    return this.#world.sentIn(chatId);
  }

  /** Every `sendChatAction` call. */
  get chatActions(): readonly RecordedChatAction[] {
    return this.#world.chatActions;
  }

  /** Updates not yet confirmed by an `offset` (polling) or a 2xx webhook answer. */
  get pendingUpdates(): readonly TelegramUpdate[] {
    return this.#delivery.updates;
  }

  /** The highest offset a poller confirmed (0 before any). */
  get confirmedOffset(): number {
    return this.#delivery.confirmedOffset;
  }

  /** True while a `getUpdates` call is parked waiting for updates. */
  get polling(): boolean {
    return this.#delivery.polling;
  }

  /** The webhook set with `setWebhook`, if any. */
  get webhook(): FakeWebhook | undefined {
    return this.#delivery.webhook;
  }

  /** Every attempt to POST an update to the webhook. */
  get webhookDeliveries(): readonly WebhookDelivery[] {
    return this.#delivery.webhookDeliveries;
  }

  /** A stored file by id. */
  file(fileId: string): StoredTelegramFile | undefined {
    return this.#world.file(fileId);
  }

  // -------------------------------------------------------------------------------------
  // Users, chats, files
  // -------------------------------------------------------------------------------------

  /** A user (remembered, so later calls with the id alone find it). */
  user(
    id: number,
    details: { firstName?: string; lastName?: string; username?: string; isBot?: boolean } = {},
  ): TelegramUser {
    return this.#world.user(id, details);
  }

  /** The private chat of a user with the bot. */
  privateChat(user: TelegramUser | number): TelegramChat {
    return this.#world.privateChat(user);
  }

  /** A group, supergroup (default) or forum supergroup the bot is in. */
  groupChat(options: {
    id: number;
    title?: string;
    type?: 'group' | 'supergroup';
    forum?: boolean;
  }): TelegramChat {
    return this.#world.groupChat(options);
  }

  /** A channel the bot administers. */
  channelChat(options: { id: number; title?: string; username?: string }): TelegramChat {
    return this.#world.channelChat(options);
  }

  /** Stores a file the bot can fetch with `getFile` and download. */
  addFile(
    bytes: Uint8Array,
    details: { mimeType?: string; fileName?: string; folder?: string; declareSize?: boolean } = {},
  ): StoredTelegramFile {
    return this.#world.addFile(bytes, details);
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
    const full = this.#delivery.push(update);
    this.#waiter.notify();
    return full;
  }

  /** A user writes a message. Resolves nothing: returns the queued update (its `message` included). */
  pushMessage(options: PushMessageOptions): TelegramUpdate {
    return this.pushUpdate({ message: this.#world.buildMessage(options) });
  }

  /** A user sends a photo (Telegram keeps two sizes; the larger is the original bytes). */
  pushPhoto(options: PushFileOptions): TelegramUpdate {
    const full = this.addFile(options.bytes, {
      folder: 'photos',
      mimeType: options.mimeType ?? 'image/jpeg',
      ...(options.declareSize === false ? { declareSize: false } : {}),
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
        ...(options.declareSize === false ? {} : { file_size: full.bytes.length }),
      },
    ];
    return this.pushMessage({ ...options, extra: { ...options.extra, photo: sizes } });
  }

  /** A user sends a file as a document. */
  pushDocument(options: PushFileOptions): TelegramUpdate {
    const file = this.addFile(options.bytes, {
      folder: 'documents',
      mimeType: options.mimeType,
      fileName: options.fileName,
      ...(options.declareSize === false ? { declareSize: false } : {}),
    });
    const document: TelegramFileObject = {
      file_id: file.fileId,
      file_unique_id: file.fileUniqueId,
      ...(options.declareSize === false ? {} : { file_size: file.bytes.length }),
      file_name: options.fileName,
      mime_type: options.mimeType,
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
      edit_date: Math.floor(this.#world.now() / 1000),
      // Kept (decision 0028, rule 1): spread over the message; an edit without entities keeps the old ones.
      ...(entities === undefined ? {} : { entities }),
    };
    this.#world.keepMessage(edited);
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
    this.#delivery.setWebhookOrigin(origin);
  }

  /** Fails the next matching calls with `fault`. */
  injectFault(fault: TelegramFault, options: TelegramFaultOptions = {}): TelegramFaultRule {
    return addFaultRule(this.#http.rules, createFaultRule(fault, options));
  }

  /** Removes every injected fault. */
  clearFaults(): void {
    this.#http.rules.length = 0;
  }

  /** The user of this private chat blocks the bot: sends there get 403. */
  blockBot(chatId: number | string): void {
    this.#world.block(chatId);
  }

  unblockBot(chatId: number | string): void {
    this.#world.unblock(chatId);
  }

  /** The token is revoked (every call gets 401) until {@link restoreToken}. */
  revokeToken(): void {
    this.#http.tokenRevoked = true;
  }

  restoreToken(): void {
    this.#http.tokenRevoked = false;
  }

  // -------------------------------------------------------------------------------------
  // Waiting
  // -------------------------------------------------------------------------------------

  /** Resolves once `check()` returns true (checked after every change the fake sees). */
  async waitFor(
    check: () => boolean,
    options: { timeoutMs?: number; description?: string } = {},
  ): Promise<void> {
    await this.#waiter.until({
      check: whenTrue(check),
      awaited: options.description ?? 'a condition',
      timeoutMs: options.timeoutMs,
    });
  }

  /** Resolves with the bot's messages in a chat once there are at least `count`. */
  waitForMessages(
    chatId: number | string,
    count: number,
    timeoutMs?: number,
  ): Promise<SentTelegramMessage[]> {
    return this.#waiter.until({
      check: () => {
        const messages = this.messagesIn(chatId);
        return messages.length >= count ? messages : undefined;
      },
      awaited: `${count} message(s) in chat ${chatId}`,
      arrived: () => `${this.messagesIn(chatId).length} sent`,
      timeoutMs,
    });
  }

  /** Resolves with the calls of a method once there are at least `count` answered ones. */
  waitForRequests(method: string, count: number, timeoutMs?: number): Promise<RecordedTelegramRequest[]> {
    const answered = () => this.requestsFor(method).filter((request) => request.status !== 0);
    return this.#waiter.until({
      check: () => {
        const requests = answered();
        return requests.length >= count ? requests : undefined;
      },
      awaited: `${count} answered ${method} call(s)`,
      arrived: () => `${answered().length} answered`,
      timeoutMs,
    });
  }
}

/** Creates a fake Telegram Bot API. Call `start()` before use. */
export function createFakeTelegram(options: FakeTelegramOptions = {}): FakeTelegram {
  return new FakeTelegram(options);
}
