import { type ErrorCodeTable, SwitchboardError, type SwitchboardErrorOptions } from '@switchboard/hooks';

/** The codes of every {@link DiscordChannelError}. */
export type DiscordChannelErrorCode =
  | 'DISCORD_INVALID_TOKEN'
  | 'DISCORD_DUPLICATE_TOKEN'
  | 'DISCORD_DISALLOWED_INTENTS'
  | 'DISCORD_CONNECT_FAILED'
  | 'DISCORD_NOT_CONNECTED'
  | 'DISCORD_RATE_LIMITED'
  | 'DISCORD_SEND_REJECTED'
  | 'DISCORD_API_UNAVAILABLE'
  | 'DISCORD_INVALID_TARGET'
  | 'DISCORD_MEDIA_TOO_LARGE'
  | 'DISCORD_MEDIA_UNREADABLE';

/** Every error code this package throws, with the sentence that documents it. */
export const discordChannelErrorCodes: Readonly<Record<DiscordChannelErrorCode, string>> & ErrorCodeTable = {
  DISCORD_INVALID_TOKEN:
    'Discord rejected the bot token (HTTP 401 from the REST API or gateway close 4004). Fatal for the account: it is not retried until the token in channels.discord(.accounts.<id>).token is fixed.',
  DISCORD_DUPLICATE_TOKEN:
    'Two accounts of the channel use the same bot token; the second one is not started (one gateway session per token), and the message names both account ids.',
  DISCORD_DISALLOWED_INTENTS:
    'The gateway refused the intents even without the Message Content intent (close 4014/4013). Fatal for the account; the message says which portal switch to turn on.',
  DISCORD_CONNECT_FAILED:
    'The REST API or the gateway could not be reached while starting (network error, timeout, HTTP 5xx, rate limit, no READY in time). Retryable: the gateway restarts the account with backoff.',
  DISCORD_NOT_CONNECTED: 'A send, edit, typing or reaction was asked of an account that was already stopped.',
  DISCORD_RATE_LIMITED:
    'Discord answered 429, or the client would have to wait longer than rateLimit.maxWaitSeconds; `details.retryAfterMs` is the wait. Retryable: the gateway retries a send up to rateLimit.maxRetries times.',
  DISCORD_SEND_REJECTED:
    'Discord refused a send, edit, typing indicator or reaction for good (HTTP 400/403/404: missing permission, unknown channel or message, invalid body); the message carries Discord\u2019s own error code and text.',
  DISCORD_API_UNAVAILABLE:
    'A REST call failed with HTTP 5xx or a network error after the REST client\u2019s own retries. Retryable.',
  DISCORD_INVALID_TARGET:
    'The conversation a message was addressed to cannot receive messages (not a text channel, or a DM peer that is not a user id).',
  DISCORD_MEDIA_TOO_LARGE:
    'An outbound attachment is larger than mediaMaxMb; the message names the file and both sizes.',
  DISCORD_MEDIA_UNREADABLE:
    'An outbound attachment could not be read (a missing file, a URL that failed or is not http(s)); the message names the source.',
};

/** The error every failure of the Discord channel is thrown as. */
export class DiscordChannelError extends SwitchboardError<DiscordChannelErrorCode> {
  constructor(code: DiscordChannelErrorCode, message: string, options: SwitchboardErrorOptions = {}) {
    super(code, message, options);
  }
}
