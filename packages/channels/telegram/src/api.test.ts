import { GrammyError, HttpError } from 'grammy';
import { describe, expect, it } from 'vitest';
import { classifyTelegramError, classifyTelegramSendFailure, toChannelError } from './api.ts';

function apiError(code: number, description: string, parameters: Record<string, number> = {}): GrammyError {
  return new GrammyError(
    `Call failed`,
    { ok: false, error_code: code, description, parameters },
    'sendMessage',
    {},
  );
}

function networkError(code: string): HttpError {
  return new HttpError(
    "Network request for 'sendMessage' failed!",
    Object.assign(new Error(`connect ${code}`), { code }),
  );
}

describe('classifyTelegramError', () => {
  it.each([
    [apiError(429, 'Too Many Requests: retry after 5', { retry_after: 5 }), 'rate_limit'],
    [apiError(401, 'Unauthorized'), 'unauthorized'],
    [apiError(403, 'Forbidden: bot was blocked by the user'), 'forbidden'],
    [apiError(409, 'Conflict: terminated by other getUpdates request'), 'conflict'],
    [apiError(400, "Bad Request: can't parse entities: Unsupported start tag"), 'parse_error'],
    [apiError(400, 'Bad Request: message is not modified: specified new message content'), 'not_modified'],
    [apiError(400, 'Bad Request: chat not found'), 'bad_request'],
    [apiError(502, 'Bad Gateway'), 'server'],
    [apiError(404, 'Not Found'), 'other'],
    [networkError('ECONNRESET'), 'network'],
  ])('classifies %s', (error, kind) => {
    expect(classifyTelegramError(error).kind).toBe(kind);
  });

  it('knows which network failures never reached the server', () => {
    expect(classifyTelegramError(networkError('ECONNREFUSED'))).toMatchObject({
      kind: 'network',
      neverSent: true,
    });
    expect(classifyTelegramError(networkError('ECONNRESET'))).toMatchObject({
      kind: 'network',
      neverSent: false,
    });
    expect(classifyTelegramError(apiError(429, 'x', { retry_after: 5 })).retryAfterSeconds).toBe(5);
  });

  it('turns failures into channel errors with the right retryability', () => {
    const cases: Array<[Parameters<typeof toChannelError>[0]['kind'], string, boolean]> = [
      ['unauthorized', 'TELEGRAM_INVALID_TOKEN', false],
      ['forbidden', 'TELEGRAM_FORBIDDEN', false],
      ['conflict', 'TELEGRAM_CONFLICT', true],
      ['rate_limit', 'TELEGRAM_RATE_LIMITED', true],
      ['bad_request', 'TELEGRAM_BAD_REQUEST', false],
      ['server', 'TELEGRAM_SERVER_ERROR', true],
      ['network', 'TELEGRAM_NETWORK_ERROR', true],
      ['other', 'TELEGRAM_API_ERROR', false],
    ];
    for (const [kind, code, retryable] of cases) {
      const error = toChannelError(
        { kind, description: 'd', neverSent: false },
        'sendMessage to chat 1',
        undefined,
      );
      expect([error.code, error.retryable]).toEqual([code, retryable]);
    }
  });
});

describe('classifyTelegramSendFailure', () => {
  const classify = (error: unknown) =>
    classifyTelegramSendFailure(toChannelError(classifyTelegramError(error), 'sendMessage to chat 1', error));

  it('makes a 429 retryable after its retry_after, and a 5xx and a refused connection retryable', () => {
    expect(classify(apiError(429, 'x', { retry_after: 2 }))).toEqual({
      kind: 'retryable',
      retryAfterMs: 2000,
    });
    expect(classify(apiError(500, 'x'))).toEqual({ kind: 'retryable' });
    expect(classify(networkError('ECONNREFUSED'))).toEqual({ kind: 'retryable' });
  });

  it('makes permanent what a retry cannot fix, or what may have been delivered', () => {
    for (const error of [
      apiError(400, 'Bad Request: chat not found'),
      apiError(403, 'x'),
      networkError('ECONNRESET'),
    ]) {
      expect(classify(error)).toEqual({ kind: 'permanent' });
    }
  });
});
