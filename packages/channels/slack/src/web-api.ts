// Calls to Slack's Web API through bolt's WebClient, with Slack's failures mapped onto
// SlackChannelError: a rate limit leaves as a retryable error carrying Slack's retry-after
// (the gateway retries sends; decision 0023), dead tokens are fatal for the account, the
// rest says whether a retry may help. Every call is made once.
import type { webApi } from '@slack/bolt';
import { type Logger, SwitchboardError } from '@switchboard/hooks';
import { SlackChannelError } from './errors.ts';

/** Slack errors meaning the token no longer works: the account cannot go on. */
const fatalAuthErrors: ReadonlySet<string> = new Set([
  'invalid_auth',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'not_authed',
  'team_disabled',
  'user_removed_from_team',
  'org_login_required',
  'ekm_access_denied',
]);

/** Slack errors about the message or its target: retrying the same call cannot work. */
const rejectedErrors = new Set([
  'channel_not_found',
  'not_in_channel',
  'is_archived',
  'msg_too_long',
  'msg_blocks_too_long',
  'no_text',
  'too_many_attachments',
  'restricted_action',
  'restricted_action_read_only_channel',
  'restricted_action_thread_only_channel',
  'restricted_action_non_threadable_channel',
  'cannot_reply_to_message',
  'thread_not_found',
  'message_not_found',
  'cant_update_message',
  'edit_window_closed',
  'invalid_blocks',
  'invalid_arguments',
  'user_not_found',
  'file_not_found',
  'duplicate_channel_not_found',
  'channel_is_archived',
]);

const unavailableErrors = new Set([
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

/** What a thrown WebClient error means. */
export type SlackFailure =
  | { readonly kind: 'rate-limited'; readonly retryAfterSeconds: number }
  | { readonly kind: 'error'; readonly error: SlackChannelError; readonly slackError?: string };

interface WebClientErrorShape {
  readonly code?: unknown;
  readonly retryAfter?: unknown;
  readonly statusCode?: unknown;
  readonly data?: {
    readonly error?: unknown;
    readonly response_metadata?: { readonly retryAfter?: unknown };
  };
  readonly message?: unknown;
}

/** Classifies an error thrown by the WebClient (checked by its `code`, so two copies of the library agree). */
export function classifySlackError(error: unknown, method: string, accountId: string): SlackFailure {
  if (SlackChannelError.isInstance(error)) return { kind: 'error', error: error as SlackChannelError };
  const shape = (typeof error === 'object' && error !== null ? error : {}) as WebClientErrorShape;
  const where = `Slack ${method} (account "${accountId}")`;
  switch (shape.code) {
    case 'slack_webapi_rate_limited_error':
      return { kind: 'rate-limited', retryAfterSeconds: toSeconds(shape.retryAfter) };
    case 'slack_webapi_platform_error': {
      const slackError = typeof shape.data?.error === 'string' ? shape.data.error : 'unknown_error';
      if (slackError === 'ratelimited' || slackError === 'rate_limited') {
        return {
          kind: 'rate-limited',
          retryAfterSeconds: toSeconds(shape.data?.response_metadata?.retryAfter),
        };
      }
      if (fatalAuthErrors.has(slackError)) {
        return {
          kind: 'error',
          slackError,
          error: new SlackChannelError(
            'SLACK_AUTH_FAILED',
            `${where} was refused with ${slackError}: the token is not valid for this workspace any more. Fix the token in channels.slack and restart the account.`,
            { details: { method, accountId, slackError }, cause: error },
          ),
        };
      }
      if (rejectedErrors.has(slackError)) {
        return {
          kind: 'error',
          slackError,
          error: new SlackChannelError('SLACK_SEND_REJECTED', `${where} was refused: ${slackError}`, {
            details: { method, accountId, slackError },
            cause: error,
          }),
        };
      }
      return {
        kind: 'error',
        slackError,
        error: new SlackChannelError(
          unavailableErrors.has(slackError) ? 'SLACK_API_UNAVAILABLE' : 'SLACK_API_ERROR',
          `${where} failed: ${slackError}${slackError === 'missing_scope' ? ' (add the scope to the Slack app and reinstall it)' : ''}`,
          {
            details: { method, accountId, slackError },
            retryable: unavailableErrors.has(slackError),
            cause: error,
          },
        ),
      };
    }
    case 'slack_webapi_http_error': {
      const status = typeof shape.statusCode === 'number' ? shape.statusCode : 0;
      const retryable = status >= 500 || status === 408 || status === 0;
      return {
        kind: 'error',
        error: new SlackChannelError(
          retryable ? 'SLACK_API_UNAVAILABLE' : 'SLACK_API_ERROR',
          `${where} failed with HTTP ${status}`,
          { details: { method, accountId, status }, retryable, cause: error },
        ),
      };
    }
    case 'slack_webapi_request_error':
      return {
        kind: 'error',
        error: new SlackChannelError(
          'SLACK_API_UNAVAILABLE',
          `${where} could not reach Slack: ${String(shape.message ?? 'request failed')}`,
          { details: { method, accountId }, retryable: true, cause: error },
        ),
      };
    default:
      if (SwitchboardError.isInstance(error)) {
        return {
          kind: 'error',
          error: new SlackChannelError('SLACK_API_ERROR', `${where} failed: ${error.message}`, {
            retryable: error.retryable,
            cause: error,
          }),
        };
      }
      return {
        kind: 'error',
        error: new SlackChannelError(
          'SLACK_API_ERROR',
          `${where} failed: ${error instanceof Error ? error.message : String(error)}`,
          { details: { method, accountId }, cause: error },
        ),
      };
  }
}

function toSeconds(value: unknown): number {
  const seconds = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : 1;
}

export interface SlackApiOptions {
  readonly client: webApi.WebClient;
  readonly accountId: string;
  readonly logger: Logger;
  /** Called when Slack refuses the token: the account is dead. */
  onAuthFailure(error: SlackChannelError): void;
  /** Called when Slack rate-limits a call (status updates). */
  onRateLimited?(method: string, retryAfterMs: number): void;
}

export interface SlackApi {
  /** One Web API method, called once. */
  call<Result extends Record<string, unknown> = Record<string, unknown>>(
    method: string,
    params: Record<string, unknown>,
  ): Promise<Result>;
  /** Runs a multi-call operation (files upload v2) once, with the same error mapping. */
  run<Result>(method: string, operation: () => Promise<Result>): Promise<Result>;
}

export function createSlackApi(options: SlackApiOptions): SlackApi {
  async function run<Result>(method: string, operation: () => Promise<Result>): Promise<Result> {
    try {
      return await operation();
    } catch (error) {
      const failure = classifySlackError(error, method, options.accountId);
      if (failure.kind === 'rate-limited') {
        const retryAfterMs = Math.max(100, Math.round(failure.retryAfterSeconds * 1000));
        options.logger.info('Slack rate limited a call', { method, retryAfterMs });
        options.onRateLimited?.(method, retryAfterMs);
        throw new SlackChannelError(
          'SLACK_RATE_LIMITED',
          `Slack ${method} (account "${options.accountId}") is rate limited (retry after ${failure.retryAfterSeconds} s)`,
          {
            retryable: true,
            details: { method, accountId: options.accountId, retryAfterMs },
            cause: error,
          },
        );
      }
      if (failure.error.code === 'SLACK_AUTH_FAILED') options.onAuthFailure(failure.error);
      throw failure.error;
    }
  }
  return {
    call: (method, params) =>
      run(method, async () => (await options.client.apiCall(method, params)) as never),
    run,
  };
}
