import { type ErrorCodeTable, SwitchboardError, type SwitchboardErrorOptions } from '@switchboard/hooks';

/** The codes of {@link SlackChannelError}. */
export type SlackChannelErrorCode =
  | 'SLACK_AUTH_FAILED'
  | 'SLACK_RATE_LIMITED'
  | 'SLACK_SEND_REJECTED'
  | 'SLACK_API_UNAVAILABLE'
  | 'SLACK_API_ERROR'
  | 'SLACK_INVALID_TARGET'
  | 'SLACK_MEDIA_FAILED'
  | 'SLACK_SOCKET_FAILED'
  | 'SLACK_ACCOUNT_STOPPED';

/** Every code the Slack channel throws, with the sentence that documents it. */
export const slackChannelErrorCodes: Readonly<Record<SlackChannelErrorCode, string>> = {
  SLACK_AUTH_FAILED:
    'Slack refused a token of the account (invalid_auth, account_inactive, token_revoked, not_authed, …). Fatal for that account: it stops and is not restarted until the configuration is fixed.',
  SLACK_RATE_LIMITED:
    "Slack answered `ratelimited` (HTTP 429); `details.retryAfterMs` is its Retry-After. Retryable: the gateway retries a send within the account's sendRetry.",
  SLACK_SEND_REJECTED:
    'Slack refused the message itself (channel_not_found, not_in_channel, is_archived, msg_too_long, …); retrying the same message will not help.',
  SLACK_API_UNAVAILABLE: 'The Web API could not be reached or answered with an HTTP error (5xx); retryable.',
  SLACK_API_ERROR:
    'The Web API answered with an error not covered by the codes above; the message names the method and the error.',
  SLACK_INVALID_TARGET:
    'An outbound message, edit or typing target cannot be addressed on Slack (an edit id that is not `<channel>:<ts>`, an empty peer id).',
  SLACK_MEDIA_FAILED: 'An outbound attachment could not be read or fetched, or is larger than `mediaMaxMb`.',
  SLACK_SOCKET_FAILED:
    'The Socket Mode connection could not be opened (retryable; the gateway restarts the account).',
  SLACK_ACCOUNT_STOPPED: 'A send, edit or typing call reached an account that was already stopped.',
} satisfies ErrorCodeTable;

/** The error the Slack channel throws. `retryable` tells the gateway whether a later retry may work. */
export class SlackChannelError extends SwitchboardError<SlackChannelErrorCode> {
  constructor(code: SlackChannelErrorCode, message: string, options: SwitchboardErrorOptions = {}) {
    super(code, message, options);
  }
}
