// Sending: Markdown rendered to Telegram HTML and split at 4,096 visible characters; the
// first piece replies to the triggering message; a piece Telegram cannot parse is sent
// again as plain text; a 403 marks the chat as blocked so the gateway is told at once
// instead of hammering the API. Each Bot API call is made once: a 429 or 5xx leaves as a
// retryable error carrying `retryAfterMs`, and the gateway retries (decision 0023).
import { stat } from 'node:fs/promises';
import type {
  ConversationTarget,
  EditRequest,
  OutboundMedia,
  OutboundMediaMessage,
  OutboundMessage,
  OutboundTextMessage,
  SendResult,
} from '@switchboard/hooks';
import { type Api, InputFile } from 'grammy';
import type { Message } from 'grammy/types';
import { apiSignal, classifyTelegramError, toChannelError } from './api.ts';
import { TelegramChannelError } from './errors.ts';
import { messageRef } from './inbound.ts';
import {
  markdownToTelegramHtml,
  parseMarkdown,
  renderSpans,
  spansText,
  type TelegramHtmlChunk,
  telegramCaptionLimit,
  telegramTextLimit,
  truncateSpans,
} from './markdown.ts';

/** Chats whose user blocked the bot (403), with when it was noticed. */
export interface BlockedChats {
  /** True while the chat counts as blocked (within the cool-off after a 403). */
  isBlocked(chatId: string): boolean;
  block(chatId: string): void;
  /** The user wrote again: they unblocked the bot. */
  unblock(chatId: string): void;
  readonly size: number;
}

/** After a 403, sends to the chat fail at once for this long; then one send may try again. */
const blockedCoolOffMs: number = 10 * 60_000;

export function createBlockedChats(now: () => number, onChange: () => void): BlockedChats {
  const blocked = new Map<string, number>();
  return {
    isBlocked(chatId) {
      const since = blocked.get(chatId);
      return since !== undefined && now() - since < blockedCoolOffMs;
    },
    block(chatId) {
      blocked.set(chatId, now());
      onChange();
    },
    unblock(chatId) {
      if (blocked.delete(chatId)) onChange();
    },
    get size() {
      return blocked.size;
    },
  };
}

export interface OutboundOptions {
  readonly api: Api;
  readonly signal: AbortSignal;
  readonly linkPreview: boolean;
  readonly blocked: BlockedChats;
  /** Called after every message the platform accepted. */
  readonly onSent: () => void;
  /** Called when Telegram answers 401: the token is no longer valid. */
  readonly onUnauthorized: (error: TelegramChannelError) => void;
  /** Called when Telegram answers 429 (the gateway waits and retries). */
  readonly onRateLimited?: (retryAfterSeconds: number) => void;
}

export interface Outbound {
  send(message: OutboundMessage): Promise<SendResult>;
  edit(request: EditRequest): Promise<{ readonly messageId: string }>;
  typing(target: ConversationTarget): Promise<void>;
}

/** A Telegram chat id: an integer, or `@channelusername`. */
function parseChatId(value: string): number | string {
  const trimmed = value.trim();
  if (/^-?\d+$/.test(trimmed)) return Number(trimmed);
  if (/^@[A-Za-z0-9_]{4,}$/.test(trimmed)) return trimmed;
  throw new TelegramChannelError(
    'TELEGRAM_INVALID_TARGET',
    `"${value}" is not a Telegram chat id (an integer, or @channelusername)`,
    { details: { peer: value } },
  );
}

/** The message id inside a reference: `<chat>:<message>`, `<chat>:<message>:edit:<date>`, or a bare id. */
function parseMessageId(value: string): number {
  const parts = value.split(':');
  const candidate = parts.length >= 2 ? parts[1]! : parts[0]!;
  if (!/^\d+$/.test(candidate)) {
    throw new TelegramChannelError(
      'TELEGRAM_INVALID_TARGET',
      `"${value}" is not a Telegram message reference`,
      {
        details: { messageId: value },
      },
    );
  }
  return Number(candidate);
}

/** The topic to send into: the General topic (1) is left out, as Telegram requires. */
function threadParameter(threadId: string | undefined): { message_thread_id?: number } {
  if (threadId === undefined) return {};
  if (!/^\d+$/.test(threadId)) {
    throw new TelegramChannelError('TELEGRAM_INVALID_TARGET', `"${threadId}" is not a Telegram topic id`, {
      details: { threadId },
    });
  }
  const id = Number(threadId);
  return id === 1 ? {} : { message_thread_id: id };
}

const methodsByKind = {
  image: 'sendPhoto',
  sticker: 'sendSticker',
  voice: 'sendVoice',
  audio: 'sendAudio',
  video: 'sendVideo',
  document: 'sendDocument',
} as const;

export function createOutbound(options: OutboundOptions): Outbound {
  const { api, blocked } = options;
  const abort = apiSignal(options.signal);

  /** Runs one API call, once; failures become TelegramChannelErrors. */
  async function call<T>(what: string, chatKey: string, task: () => Promise<T>): Promise<T> {
    if (options.signal.aborted) {
      throw new TelegramChannelError('TELEGRAM_NOT_RUNNING', `${what}: the account is stopped`);
    }
    try {
      return await task();
    } catch (error) {
      if (error instanceof TelegramChannelError) throw error;
      const failure = classifyTelegramError(error);
      if (failure.kind === 'parse_error' || failure.kind === 'not_modified') throw error;
      if (failure.kind === 'rate_limit') options.onRateLimited?.(failure.retryAfterSeconds ?? 1);
      const converted = toChannelError(failure, what, error);
      if (failure.kind === 'forbidden') blocked.block(chatKey);
      if (failure.kind === 'unauthorized') options.onUnauthorized(converted);
      throw converted;
    }
  }

  function refuseBlocked(chatKey: string, what: string): void {
    if (blocked.isBlocked(chatKey)) {
      throw new TelegramChannelError(
        'TELEGRAM_FORBIDDEN',
        `${what}: chat ${chatKey} blocked the bot (403 Forbidden); not retrying until it writes again`,
        { details: { chatId: chatKey } },
      );
    }
  }

  function common(message: OutboundMessage): Record<string, unknown> {
    return {
      ...threadParameter(message.threadId),
      ...(message.silent === true ? { disable_notification: true } : {}),
    };
  }

  function replyParameters(message: OutboundMessage): Record<string, unknown> {
    if (message.replyToMessageId === undefined) return {};
    return {
      reply_parameters: {
        message_id: parseMessageId(message.replyToMessageId),
        allow_sending_without_reply: true,
      },
    };
  }

  /** Sends one rendered piece as HTML, or as plain text if Telegram cannot parse it. */
  async function sendPiece(
    chatId: number | string,
    chatKey: string,
    piece: TelegramHtmlChunk,
    extra: Record<string, unknown>,
  ): Promise<Message.TextMessage> {
    const what = `sendMessage to chat ${chatKey}`;
    try {
      return await call(what, chatKey, () =>
        api.sendMessage(chatId, piece.html, { ...extra, parse_mode: 'HTML' }, abort),
      );
    } catch (error) {
      if (classifyTelegramError(error).kind !== 'parse_error') throw error;
      return call(`${what} (as plain text)`, chatKey, () =>
        api.sendMessage(chatId, piece.text, extra, abort),
      );
    }
  }

  async function sendText(message: OutboundTextMessage): Promise<SendResult> {
    const chatId = parseChatId(message.peer.id);
    const chatKey = String(chatId);
    refuseBlocked(chatKey, `sendMessage to chat ${chatKey}`);
    const pieces = markdownToTelegramHtml(message.text, telegramTextLimit);
    const base = {
      ...common(message),
      ...(options.linkPreview ? {} : { link_preview_options: { is_disabled: true } }),
    };
    const ids: string[] = [];
    await keepingDelivered(ids, async () => {
      for (const [index, piece] of pieces.entries()) {
        const sent = await sendPiece(
          chatId,
          chatKey,
          piece,
          index === 0 ? { ...base, ...replyParameters(message) } : base,
        );
        ids.push(messageRef(sent.chat.id, sent.message_id));
        options.onSent();
      }
    });
    return { messageIds: ids };
  }

  async function inputFor(media: OutboundMedia): Promise<InputFile | string> {
    const source = media.source;
    switch (source.type) {
      case 'url':
        if (!/^https?:\/\//i.test(source.url)) {
          throw new TelegramChannelError(
            'TELEGRAM_UNSUPPORTED_MEDIA',
            `an attachment URL must be http(s) for Telegram to fetch it: ${source.url}`,
          );
        }
        return source.url;
      case 'path': {
        const info = await stat(source.path).catch(() => undefined);
        if (info === undefined || !info.isFile()) {
          throw new TelegramChannelError(
            'TELEGRAM_UNSUPPORTED_MEDIA',
            `the attachment file does not exist: ${source.path}`,
            {
              details: { path: source.path },
            },
          );
        }
        return new InputFile(source.path, media.fileName);
      }
      case 'bytes':
        return new InputFile(source.data, media.fileName ?? 'file');
    }
  }

  async function sendOneMedia(
    chatId: number | string,
    chatKey: string,
    media: OutboundMedia,
    caption: TelegramHtmlChunk | undefined,
    extra: Record<string, unknown>,
  ): Promise<Message> {
    const method = methodsByKind[media.kind];
    const what = `${method} to chat ${chatKey}`;
    const attempt = async (captionFields: Record<string, unknown>): Promise<Message> => {
      const file = await inputFor(media);
      const fields = { ...extra, ...captionFields };
      switch (method) {
        case 'sendPhoto':
          return api.sendPhoto(chatId, file, fields, abort);
        case 'sendSticker':
          return api.sendSticker(chatId, file, extra, abort);
        case 'sendVoice':
          return api.sendVoice(chatId, file, fields, abort);
        case 'sendAudio':
          return api.sendAudio(chatId, file, fields, abort);
        case 'sendVideo':
          return api.sendVideo(chatId, file, fields, abort);
        case 'sendDocument':
          return api.sendDocument(chatId, file, fields, abort);
      }
    };
    const htmlCaption = caption === undefined ? {} : { caption: caption.html, parse_mode: 'HTML' };
    try {
      // A fresh InputFile per attempt: a file stream can be read only once.
      return await call(what, chatKey, () => attempt(htmlCaption));
    } catch (error) {
      if (caption === undefined || classifyTelegramError(error).kind !== 'parse_error') throw error;
      return call(`${what} (plain caption)`, chatKey, () => attempt({ caption: caption.text }));
    }
  }

  async function sendMedia(message: OutboundMediaMessage): Promise<SendResult> {
    const chatId = parseChatId(message.peer.id);
    const chatKey = String(chatId);
    refuseBlocked(chatKey, `sending media to chat ${chatKey}`);
    if (message.media.length === 0) {
      throw new TelegramChannelError(
        'TELEGRAM_UNSUPPORTED_MEDIA',
        'a media message needs at least one attachment',
      );
    }
    // A caption that fits goes on the first attachment (stickers take none); otherwise it is sent as text after.
    const captionPieces =
      message.caption === undefined ? [] : markdownToTelegramHtml(message.caption, telegramCaptionLimit);
    const first = message.media[0]!;
    const inlineCaption =
      captionPieces.length === 1 && first.kind !== 'sticker' ? captionPieces[0] : undefined;
    const ids: string[] = [];
    const base = common(message);
    await keepingDelivered(ids, async () => {
      for (const [index, media] of message.media.entries()) {
        const extra = index === 0 ? { ...base, ...replyParameters(message) } : base;
        const sent = await sendOneMedia(
          chatId,
          chatKey,
          media,
          index === 0 ? inlineCaption : undefined,
          extra,
        );
        ids.push(messageRef(sent.chat.id, sent.message_id));
        options.onSent();
      }
      if (inlineCaption === undefined && message.caption !== undefined && captionPieces.length > 0) {
        const text = await sendText({
          ...message,
          kind: 'text',
          text: message.caption,
          replyToMessageId: undefined,
        });
        ids.push(...text.messageIds);
      }
    });
    return { messageIds: ids };
  }

  /**
   * Runs the calls of one send. When one fails after others already posted (`delivered` is not
   * empty), the failure is made permanent: a retry of the whole send would post those again.
   */
  async function keepingDelivered(delivered: readonly string[], task: () => Promise<void>): Promise<void> {
    try {
      await task();
    } catch (error) {
      if (delivered.length === 0) throw error;
      const converted =
        error instanceof TelegramChannelError
          ? error
          : toChannelError(classifyTelegramError(error), 'sending', error);
      throw new TelegramChannelError(
        converted.code,
        `${converted.message} (after ${delivered.length} part(s) of the message were posted; not retried, so they are not posted twice)`,
        { cause: error, details: { ...converted.details, deliveredMessageIds: [...delivered] } },
      );
    }
  }

  /** Whatever escapes (a raw grammY error) leaves as a TelegramChannelError. */
  async function guard<T>(what: string, task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } catch (error) {
      if (error instanceof TelegramChannelError) throw error;
      throw toChannelError(classifyTelegramError(error), what, error);
    }
  }

  return {
    send(message) {
      return guard(`sending to chat ${message.peer.id}`, () =>
        message.kind === 'text' ? sendText(message) : sendMedia(message),
      );
    },

    edit(request) {
      return guard(`editing message ${request.messageId}`, () => editMessage(request));
    },

    typing(target) {
      return guard(`typing in chat ${target.peer.id}`, () => sendTyping(target));
    },
  };

  async function editMessage(request: EditRequest): Promise<{ readonly messageId: string }> {
    const chatId = parseChatId(request.peer.id);
    const chatKey = String(chatId);
    const messageId = parseMessageId(request.messageId);
    const spans = truncateSpans(parseMarkdown(request.text), telegramTextLimit);
    const html = renderSpans(spans);
    const text = spansText(spans);
    const what = `editMessageText in chat ${chatKey}`;
    const edit = async (fields: Record<string, unknown>, body: string) => {
      try {
        await call(what, chatKey, () => api.editMessageText(chatId, messageId, body, fields, abort));
      } catch (error) {
        // Unchanged text is success for an edit.
        if (classifyTelegramError(error).kind !== 'not_modified') throw error;
      }
    };
    try {
      await edit({ parse_mode: 'HTML' }, html);
    } catch (error) {
      if (classifyTelegramError(error).kind !== 'parse_error') throw error;
      await edit({}, text);
    }
    return { messageId: messageRef(chatId, messageId) };
  }

  async function sendTyping(target: ConversationTarget): Promise<void> {
    const chatId = parseChatId(target.peer.id);
    const chatKey = String(chatId);
    if (blocked.isBlocked(chatKey)) return;
    // One attempt: the gateway refreshes typing every few seconds anyway.
    try {
      await api.sendChatAction(chatId, 'typing', threadParameter(target.threadId), abort);
    } catch (error) {
      const failure = classifyTelegramError(error);
      const converted = toChannelError(failure, `sendChatAction in chat ${chatKey}`, error);
      if (failure.kind === 'forbidden') blocked.block(chatKey);
      if (failure.kind === 'unauthorized') options.onUnauthorized(converted);
      throw converted;
    }
  }
}
