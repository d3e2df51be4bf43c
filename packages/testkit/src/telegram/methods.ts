// The Bot API methods the fake Telegram answers: getMe, the webhook methods, sendMessage,
// editMessageText, sendChatAction, getFile, deleteMessage and the media sends. Text is parsed
// as Telegram HTML and limited as Telegram limits it; an error is thrown as an ApiFailure.
import { ApiFailure, asArray, asBoolean, asInteger, asRecord, bad } from './api-values.ts';
import type { UpdateDelivery } from './delivery.ts';
import type { RecordedUpload, SentMedia } from './fake-telegram-types.ts';
import { parseTelegramHtml } from './html.ts';
import type { TelegramChat, TelegramFile, TelegramMessage, TelegramMessageEntity } from './types.ts';
import { type MutableSent, stripReply, type TelegramWorld } from './world.ts';

const sendMethods: Readonly<Record<string, string>> = {
  sendPhoto: 'photo',
  sendDocument: 'document',
  sendVoice: 'voice',
  sendAudio: 'audio',
  sendVideo: 'video',
  sendAnimation: 'animation',
  sendSticker: 'sticker',
};

const textLimit = 4096;
const captionLimit = 1024;

export class TelegramMethods {
  readonly #world: TelegramWorld;
  readonly #delivery: UpdateDelivery;

  constructor(world: TelegramWorld, delivery: UpdateDelivery) {
    this.#world = world;
    this.#delivery = delivery;
  }

  /** Runs one method; returns its `result` or throws an ApiFailure. */
  call(method: string, params: Record<string, unknown>, files: Record<string, RecordedUpload>): unknown {
    switch (method) {
      case 'getMe':
        return {
          ...this.#world.bot,
          can_join_groups: true,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
        };
      case 'setWebhook':
        return this.#delivery.setWebhook(params);
      case 'deleteWebhook':
        return this.#delivery.deleteWebhook(params);
      case 'getWebhookInfo':
        return this.#delivery.webhookInfo();
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

  #target(params: Record<string, unknown>): { chat: TelegramChat; chatId: number | string } {
    const raw = params.chat_id;
    const numeric = asInteger(raw);
    if (numeric === undefined && !(typeof raw === 'string' && /^@[A-Za-z0-9_]{4,}$/.test(raw))) {
      throw bad('chat_id is empty');
    }
    const chatId = numeric ?? (raw as string);
    if (this.#world.isBlocked(chatId)) {
      throw new ApiFailure(403, 'Forbidden: bot was blocked by the user');
    }
    return { chat: this.#world.chat(chatId), chatId };
  }

  #replyTarget(chat: TelegramChat, params: Record<string, unknown>): TelegramMessage | undefined | 'missing' {
    const parameters = asRecord(params.reply_parameters);
    const id = asInteger(parameters?.message_id) ?? asInteger(params.reply_to_message_id);
    if (id === undefined) return undefined;
    const message = this.#world.message(chat.id, id);
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
      from: this.#world.bot,
      ...(sent.threadId === undefined
        ? {}
        : { message_thread_id: sent.threadId, is_topic_message: true as const }),
      reply_to_message: reply === undefined ? undefined : stripReply(reply),
      ...extra,
    };
    this.#world.keepMessage(message);
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
      messageId: this.#world.nextMessageId(chat.id),
      date: Math.floor(this.#world.now() / 1000),
      text: parsed.text,
      source: params.text as string,
      ...(typeof params.parse_mode === 'string' ? { parseMode: params.parse_mode } : {}),
      entities: parsed.entities,
      ...(reply === undefined || reply === 'missing' ? {} : { replyToMessageId: reply.message_id }),
      threadId,
      disableNotification: asBoolean(params.disable_notification),
      edits: [],
    };
    this.#world.sent.push(sent);
    return this.#resultMessage(sent, chat, reply === 'missing' ? undefined : reply, {
      text: parsed.text,
      ...(parsed.entities.length === 0 ? {} : { entities: parsed.entities }),
    });
  }

  #editMessageText(params: Record<string, unknown>): TelegramMessage {
    const { chat, chatId } = this.#target(params);
    const messageId = asInteger(params.message_id);
    const sent = this.#world.sent.find(
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
      at: this.#world.now(),
    });
    const previous = this.#world.message(chat.id, sent.messageId);
    const edited: TelegramMessage = {
      ...(previous ?? { message_id: sent.messageId, date: sent.date, chat, from: this.#world.bot }),
      text: parsed.text,
      edit_date: Math.floor(this.#world.now() / 1000),
      ...(parsed.entities.length === 0 ? {} : { entities: parsed.entities }),
    };
    this.#world.keepMessage(edited);
    return edited;
  }

  #sendChatAction(params: Record<string, unknown>): true {
    const { chatId } = this.#target(params);
    const action = params.action;
    if (typeof action !== 'string' || action === '') throw bad('action is empty');
    const threadId = this.#threadId(params);
    this.#world.chatActions.push({
      chatId,
      action,
      threadId,
      at: this.#world.now(),
    });
    return true;
  }

  #getFile(params: Record<string, unknown>): TelegramFile {
    const fileId = params.file_id;
    const file = typeof fileId === 'string' ? this.#world.file(fileId) : undefined;
    if (file === undefined) throw bad('invalid file_id');
    return {
      file_id: file.fileId,
      file_unique_id: file.fileUniqueId,
      ...(file.declareSize === false ? {} : { file_size: file.bytes.length }),
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
        fileName: attached.fileName,
        contentType: attached.contentType,
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
      messageId: this.#world.nextMessageId(chat.id),
      date: Math.floor(this.#world.now() / 1000),
      text: parsed.text,
      source: typeof params.caption === 'string' ? params.caption : '',
      ...(typeof params.parse_mode === 'string' ? { parseMode: params.parse_mode } : {}),
      entities: parsed.entities,
      ...(reply === undefined || reply === 'missing' ? {} : { replyToMessageId: reply.message_id }),
      threadId,
      disableNotification: asBoolean(params.disable_notification),
      media,
      edits: [],
    };
    this.#world.sent.push(sent);
    const bytes = media.bytes ?? new Uint8Array();
    const stored = this.#world.addFile(bytes, {
      folder: kind === 'photo' ? 'photos' : `${kind}s`,
      mimeType: media.contentType,
      fileName: media.fileName,
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
            file_name: media.fileName,
          };
    return this.#resultMessage(sent, chat, reply === 'missing' ? undefined : reply, {
      [kind]: fileObject,
      ...(parsed.text === '' ? {} : { caption: parsed.text }),
      ...(parsed.entities.length === 0 ? {} : { caption_entities: parsed.entities }),
    });
  }
}
