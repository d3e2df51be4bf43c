import { GrammyError, HttpError } from 'grammy';
import { describe, expect, it } from 'vitest';
import { backoffDelay, classifyTelegramError, toChannelError, withRetry } from './api.ts';

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

describe('withRetry', () => {
  const run = async (failures: unknown[], policy = { attempts: 4, maxWaitSeconds: 60 }) => {
    const waits: number[] = [];
    let calls = 0;
    const result = withRetry(
      async () => {
        const failure = failures[calls];
        calls += 1;
        if (failure !== undefined) throw failure;
        return 'ok';
      },
      policy,
      { sleep: async (ms) => void waits.push(ms), signal: new AbortController().signal },
    );
    return { result: await result.catch((error: unknown) => error), waits, calls: () => calls };
  };

  it('waits retry_after on 429 and backs off on 5xx and refused connections', async () => {
    const outcome = await run([
      apiError(429, 'x', { retry_after: 2 }),
      apiError(500, 'x'),
      networkError('ECONNREFUSED'),
    ]);
    expect(outcome.result).toBe('ok');
    expect(outcome.waits).toEqual([2000, 1000, 2000]);
  });

  it('does not retry what a retry cannot fix, or what may have been delivered', async () => {
    for (const error of [
      apiError(400, 'Bad Request: chat not found'),
      apiError(403, 'x'),
      networkError('ECONNRESET'),
    ]) {
      const outcome = await run([error]);
      expect(outcome.result).toBe(error);
      expect(outcome.calls()).toBe(1);
    }
  });

  it('stops after the attempts and on a retry_after above the longest wait', async () => {
    const limited = apiError(429, 'x', { retry_after: 1 });
    const exhausted = await run([limited, limited, limited], { attempts: 3, maxWaitSeconds: 60 });
    expect([exhausted.result, exhausted.calls(), exhausted.waits]).toEqual([limited, 3, [1000, 1000]]);
    const long = apiError(429, 'x', { retry_after: 120 });
    const refused = await run([long]);
    expect([refused.result, refused.calls(), refused.waits]).toEqual([long, 1, []]);
  });
});

describe('backoffDelay', () => {
  it('doubles from the base to the cap with ±20 % jitter', () => {
    expect([1, 2, 3, 4, 9].map((failures) => backoffDelay(failures, 1000, 8000, () => 0.5))).toEqual([
      1000, 2000, 4000, 8000, 8000,
    ]);
    expect(backoffDelay(1, 1000, 8000, () => 0)).toBe(800);
    expect(backoffDelay(1, 1000, 8000, () => 0.999999)).toBe(1200);
  });
});
