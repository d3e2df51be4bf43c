// What a failed Bot API call means. The channel never retries a send: it classifies the failure
// and the gateway retries (decision 0023).

import { classifySendFailure, type SendFailure } from '@switchboard/hooks';
import { type Api, GrammyError, HttpError } from 'grammy';
import { TelegramChannelError } from './errors.ts';

/** The signal type grammY's methods declare (the `abort-controller` package's). */
export type ApiSignal = Parameters<Api['getMe']>[0];

/**
 * Node's AbortSignal as grammY's methods type it. grammY declares the `abort-controller`
 * package's signal type; at run time it only listens for `abort`, which Node's signal does.
 */
export function apiSignal(signal: AbortSignal): ApiSignal {
  return signal as unknown as ApiSignal;
}

/** A failed Bot API call, reduced to what the channel decides on. */
export interface TelegramFailure {
  readonly kind:
    | 'rate_limit'
    | 'parse_error'
    | 'not_modified'
    | 'unauthorized'
    | 'forbidden'
    | 'conflict'
    | 'bad_request'
    | 'server'
    | 'network'
    | 'other';
  /** The Bot API's error code, when it answered. */
  readonly status?: number;
  /** `parameters.retry_after` of a 429. */
  readonly retryAfterSeconds?: number;
  /** Telegram's description, or the network error's message. Never contains the token. */
  readonly description: string;
  /**
   * For network failures: true when the request certainly never reached the server
   * (connection refused, DNS), so sending it again cannot duplicate a message.
   */
  readonly neverSent: boolean;
}

const neverSentCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current =
      (current as { cause?: unknown; error?: unknown }).cause ?? (current as { error?: unknown }).error;
  }
  return undefined;
}

/** Classifies whatever a grammY API call threw. */
export function classifyTelegramError(error: unknown): TelegramFailure {
  if (error instanceof GrammyError) {
    const status = error.error_code;
    const description = error.description;
    const base = { status, description, neverSent: false };
    if (status === 429) {
      const retryAfter = error.parameters.retry_after;
      return {
        ...base,
        kind: 'rate_limit',
        retryAfterSeconds: retryAfter,
      };
    }
    if (status === 401) return { ...base, kind: 'unauthorized' };
    if (status === 403) return { ...base, kind: 'forbidden' };
    if (status === 409) return { ...base, kind: 'conflict' };
    if (
      status === 400 &&
      /can't parse entities|unsupported start tag|can't find end tag/i.test(description)
    ) {
      return { ...base, kind: 'parse_error' };
    }
    if (status === 400 && /message is not modified/i.test(description))
      return { ...base, kind: 'not_modified' };
    if (status === 400) return { ...base, kind: 'bad_request' };
    if (status >= 500) return { ...base, kind: 'server' };
    return { ...base, kind: 'other' };
  }
  if (error instanceof HttpError) {
    const code = networkCode(error.error);
    const cause = error.error instanceof Error ? error.error.message : String(error.error);
    return {
      kind: 'network',
      description: `${error.message} (${code ?? cause})`,
      neverSent: code !== undefined && neverSentCodes.has(code),
    };
  }
  const code = networkCode(error);
  return {
    kind: 'network',
    description: error instanceof Error ? error.message : String(error),
    neverSent: code !== undefined && neverSentCodes.has(code),
  };
}

/** Turns a failure into the channel's error, naming the call and the chat. */
export function toChannelError(failure: TelegramFailure, what: string, cause: unknown): TelegramChannelError {
  const details = {
    status: failure.status,
    retryAfterSeconds: failure.retryAfterSeconds,
    retryAfterMs: failure.retryAfterSeconds === undefined ? undefined : failure.retryAfterSeconds * 1000,
    ...(failure.kind === 'network' ? { neverSent: failure.neverSent } : {}),
  };
  const message = `${what} failed: ${failure.description}`;
  switch (failure.kind) {
    case 'unauthorized':
      return new TelegramChannelError(
        'TELEGRAM_INVALID_TOKEN',
        `${what} failed: Telegram rejected the bot token (401 Unauthorized); check botToken`,
        { cause, details },
      );
    case 'forbidden':
      return new TelegramChannelError('TELEGRAM_FORBIDDEN', message, { cause, details });
    case 'conflict':
      return new TelegramChannelError('TELEGRAM_CONFLICT', message, { cause, details, retryable: true });
    case 'rate_limit':
      return new TelegramChannelError('TELEGRAM_RATE_LIMITED', message, { cause, details, retryable: true });
    case 'parse_error':
    case 'not_modified':
    case 'bad_request':
      return new TelegramChannelError('TELEGRAM_BAD_REQUEST', message, { cause, details });
    case 'server':
      return new TelegramChannelError('TELEGRAM_SERVER_ERROR', message, { cause, details, retryable: true });
    case 'network':
      return new TelegramChannelError('TELEGRAM_NETWORK_ERROR', message, { cause, details, retryable: true });
    case 'other':
      return new TelegramChannelError('TELEGRAM_API_ERROR', message, { cause, details });
  }
}

/**
 * What a failed send means for the gateway's retry: a 429 (with its `retry_after`), a 5xx and
 * a connection that never reached Telegram are retryable; a network failure that may have
 * reached it (a timeout, a reset) is permanent, since Telegram may have posted the message.
 */
export function classifyTelegramSendFailure(error: unknown): SendFailure {
  if (error instanceof TelegramChannelError && error.code === 'TELEGRAM_NETWORK_ERROR')
    return error.details?.neverSent === true ? { kind: 'retryable' } : { kind: 'permanent' };
  return classifySendFailure(error);
}
