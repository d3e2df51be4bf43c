// @switchboard/testkit/telegram: a fake Telegram Bot API for tests and benches, driven by
// grammY (or any Bot API client) through `apiRoot`, and the channel conformance driver.

export {
  createTelegramConformanceDriver,
  type TelegramConformanceDriver,
  type TelegramConformanceDriverOptions,
} from './conformance-driver.ts';
export {
  createFakeTelegram,
  type FakeTelegram,
  type FakeTelegramOptions,
  type FakeWebhook,
  type PushFileOptions,
  type PushMessageOptions,
  type RecordedChatAction,
  type RecordedTelegramRequest,
  type RecordedUpload,
  type SentMedia,
  type SentMessageEdit,
  type SentTelegramMessage,
  type StoredTelegramFile,
  type TelegramFault,
  type TelegramFaultOptions,
  type TelegramFaultRule,
  type WebhookDelivery,
} from './fake-telegram.ts';
export { parseTelegramHtml, type TelegramHtmlParseResult } from './html.ts';
export { type MultipartPart, multipartBoundary, parseMultipart } from './multipart.ts';
export type {
  TelegramChat,
  TelegramChatType,
  TelegramFile,
  TelegramFileObject,
  TelegramMessage,
  TelegramMessageEntity,
  TelegramPhotoSize,
  TelegramUpdate,
  TelegramUser,
} from './types.ts';
