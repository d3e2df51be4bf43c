import { type ErrorCodeTable, SwitchboardError, type SwitchboardErrorOptions } from '@switchboard/hooks';

/** The codes of {@link TelegramChannelError}. */
export type TelegramChannelErrorCode =
  | 'TELEGRAM_INVALID_TOKEN'
  | 'TELEGRAM_DUPLICATE_TOKEN'
  | 'TELEGRAM_CONFLICT'
  | 'TELEGRAM_RATE_LIMITED'
  | 'TELEGRAM_FORBIDDEN'
  | 'TELEGRAM_BAD_REQUEST'
  | 'TELEGRAM_SERVER_ERROR'
  | 'TELEGRAM_NETWORK_ERROR'
  | 'TELEGRAM_API_ERROR'
  | 'TELEGRAM_INVALID_TARGET'
  | 'TELEGRAM_UNSUPPORTED_MEDIA'
  | 'TELEGRAM_MEDIA_DOWNLOAD_FAILED'
  | 'TELEGRAM_NOT_RUNNING';

/**
 * Every code the Telegram channel throws or reports, with the sentence that documents it.
 * A test checks that each code used in the package appears here.
 */
export const telegramChannelErrorCodes: Readonly<Record<TelegramChannelErrorCode, string>> = {
  TELEGRAM_INVALID_TOKEN:
    'The Bot API answered 401 Unauthorized: the bot token is wrong or was revoked. Fatal for the account; fix botToken and restart.',
  TELEGRAM_DUPLICATE_TOKEN:
    'Two accounts of the channel use the same bot token; Telegram allows one poller per token, so the second account is not started.',
  TELEGRAM_CONFLICT:
    'The Bot API answered 409 Conflict: another process polls with the same token, or a webhook is set while polling.',
  TELEGRAM_RATE_LIMITED:
    'The Bot API answered 429 Too Many Requests and the retry budget (attempts, longest wait) was used up; retryable later.',
  TELEGRAM_FORBIDDEN:
    'The Bot API answered 403 Forbidden: the user blocked the bot, or the bot was removed from the chat. Recorded; not retried.',
  TELEGRAM_BAD_REQUEST:
    'The Bot API answered 400 Bad Request for a reason a retry cannot fix (chat not found, message too long, ...).',
  TELEGRAM_SERVER_ERROR: 'The Bot API answered with a 5xx status after the retries; retryable later.',
  TELEGRAM_NETWORK_ERROR:
    'The Bot API could not be reached (connection refused, DNS, timeout, reset); retryable later.',
  TELEGRAM_API_ERROR: 'The Bot API answered with an error status this channel does not classify (404, ...).',
  TELEGRAM_INVALID_TARGET:
    'An outbound peer, thread or message id is not a Telegram id (chat ids are integers or @channelusername, message ids integers).',
  TELEGRAM_UNSUPPORTED_MEDIA: 'An outbound attachment has a source or kind the channel cannot send.',
  TELEGRAM_MEDIA_DOWNLOAD_FAILED:
    'An inbound file could not be downloaded for a reason that may pass (network, 5xx); the update is not acknowledged, so Telegram delivers it again.',
  TELEGRAM_NOT_RUNNING: 'A send, edit or typing call reached an account that was already stopped.',
} satisfies ErrorCodeTable;

/** The error the Telegram channel throws. `retryable` says whether the same call may succeed later. */
export class TelegramChannelError extends SwitchboardError<TelegramChannelErrorCode> {
  constructor(code: TelegramChannelErrorCode, message: string, options: SwitchboardErrorOptions = {}) {
    super(code, message, options);
  }
}
