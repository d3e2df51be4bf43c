// What a failed Bot API call means, and the bounded retry every outbound call goes through.
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
        ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
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
    ...(failure.status === undefined ? {} : { status: failure.status }),
    ...(failure.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: failure.retryAfterSeconds }),
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

/** Waits, or rejects when `signal` aborts. */
export type Sleep = (milliseconds: number, signal?: AbortSignal) => Promise<void>;

/** How a call is retried. */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly attempts: number;
  /** A `retry_after` longer than this is not waited for. */
  readonly maxWaitSeconds: number;
}

export interface RetryEnvironment {
  readonly sleep: Sleep;
  readonly signal: AbortSignal;
  /** Called before each wait, for status and logs. */
  readonly onRetry?: (failure: TelegramFailure, waitMs: number, attempt: number) => void;
}

/**
 * Runs `task`, retrying a 429 after its `retry_after`, a 5xx, and a network failure that
 * never reached the server after a short backoff, at most `policy.attempts` times in all.
 * Anything else, or the last failure, is rethrown as grammY threw it.
 */
export async function withRetry<T>(
  task: () => Promise<T>,
  policy: RetryPolicy,
  environment: RetryEnvironment,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await task();
    } catch (error) {
      if (attempt >= policy.attempts || environment.signal.aborted) throw error;
      const failure = classifyTelegramError(error);
      let waitMs: number;
      if (failure.kind === 'rate_limit') {
        const seconds = failure.retryAfterSeconds ?? 1;
        if (seconds > policy.maxWaitSeconds) throw error;
        waitMs = seconds * 1000;
      } else if (failure.kind === 'server' || (failure.kind === 'network' && failure.neverSent)) {
        waitMs = Math.min(10_000, 500 * 2 ** (attempt - 1));
      } else {
        throw error;
      }
      environment.onRetry?.(failure, waitMs, attempt);
      await environment.sleep(waitMs, environment.signal);
    }
  }
}

/** Exponential backoff with ±20 % jitter: `base`, `2 base`, `4 base`, … capped at `cap`. */
export function backoffDelay(failures: number, baseMs: number, capMs: number, random: () => number): number {
  const raw = Math.min(capMs, baseMs * 2 ** Math.max(0, failures - 1));
  return Math.round(raw * (0.8 + 0.4 * random()));
}
