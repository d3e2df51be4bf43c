// One test per fault, each asserting what the real @anthropic-ai/sdk surfaces: error class,
// status, type, texts, headers, and its retry behaviour.
import Anthropic, {
  AnthropicError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  NotFoundError,
  OverloadedError,
  PaymentRequiredError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
} from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createFakeAnthropic,
  type FakeAnthropic,
  type FakeAnthropicOptions,
  type FakeTimers,
} from './fake-anthropic.ts';
import { anthropicFaultDefaults } from './faults.ts';
import { estimateTokens } from './tokens.ts';

const started: FakeAnthropic[] = [];

async function startFake(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const fake = await createFakeAnthropic(options).start();
  started.push(fake);
  return fake;
}

function clientFor(fake: FakeAnthropic, options: ConstructorParameters<typeof Anthropic>[0] = {}): Anthropic {
  return new Anthropic({
    baseURL: fake.baseURL,
    apiKey: 'sk-test-key',
    maxRetries: 0,
    logLevel: 'off',
    ...options,
  });
}

const hello = {
  model: 'claude-test-1',
  max_tokens: 256,
  messages: [{ role: 'user' as const, content: 'Hello there, please write a long answer.' }],
};

const longText = 'This is a long answer that is streamed in many small text deltas, one after another.';

afterEach(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()));
});

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the SDK call to fail');
}

describe('HTTP faults surface as the SDK error class for their status', () => {
  it('401 authentication_error → AuthenticationError', async () => {
    const fake = await startFake();
    fake.injectFault({ type: 'authentication' });
    const error = (await failure(clientFor(fake).messages.create(hello))) as AuthenticationError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.status).toBe(401);
    expect(error.type).toBe('authentication_error');
    expect(error.apiMessage).toBe('invalid x-api-key');
    expect(error.requestID).toBe('req_fake_1');
    expect(error.error).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
      request_id: 'req_fake_1',
    });
  });

  it('403 permission_error → PermissionDeniedError', async () => {
    const fake = await startFake();
    fake.injectFault({ type: 'permission' });
    const error = (await failure(clientFor(fake).messages.create(hello))) as PermissionDeniedError;
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error.status).toBe(403);
    expect(error.type).toBe('permission_error');
  });

  it('402 billing_error with the credit-balance text → PaymentRequiredError', async () => {
    const fake = await startFake();
    fake.injectFault({ type: 'billing' });
    const error = (await failure(clientFor(fake).messages.create(hello))) as PaymentRequiredError;
    expect(error).toBeInstanceOf(PaymentRequiredError);
    expect(error.status).toBe(402);
    expect(error.type).toBe('billing_error');
    expect(error.apiMessage).toMatch(/^Your credit balance is too low/);
    // The SDK's message carries the whole body, so text classifiers see the phrase.
    expect(error.message).toContain('credit balance is too low');
  });

  it('the billing text can come with another status (the API has sent it as 400)', async () => {
    const fake = await startFake();
    fake.injectFault({ type: 'billing', status: 400 });
    const error = (await failure(clientFor(fake).messages.create(hello))) as BadRequestError;
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.apiMessage).toBe(anthropicFaultDefaults.billing.message);
  });

  it('429 rate_limit_error → RateLimitError carrying retry-after (default 1 s, or as set)', async () => {
    const fake = await startFake();
    fake.injectFault({ type: 'rate_limit' });
    fake.injectFault({ type: 'rate_limit', retryAfterSeconds: 30 });
    const client = clientFor(fake);
    const first = (await failure(client.messages.create(hello))) as RateLimitError;
    expect(first).toBeInstanceOf(RateLimitError);
    expect(first.status).toBe(429);
    expect(first.type).toBe('rate_limit_error');
    expect(first.headers.get('retry-after')).toBe('1');
    const second = (await failure(client.messages.create(hello))) as RateLimitError;
    expect(second.headers.get('retry-after')).toBe('30');
    // maxRetries: 0, so nothing was retried.
    expect(fake.requests).toHaveLength(2);
  });

  it('500 api_error → InternalServerError', async () => {
    const fake = await startFake();
    fake.injectFault({ type: 'server' });
    const error = (await failure(clientFor(fake).messages.create(hello))) as InternalServerError;
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.status).toBe(500);
    expect(error.type).toBe('api_error');
  });

  it('529 overloaded_error → OverloadedError', async () => {
    const fake = await startFake();
    fake.enqueue({ text: 'never sent', fault: { type: 'overloaded' } });
    const error = (await failure(clientFor(fake).messages.stream(hello).finalMessage())) as OverloadedError;
    expect(error).toBeInstanceOf(OverloadedError);
    expect(error.status).toBe(529);
    expect(error.type).toBe('overloaded_error');
    expect(error.apiMessage).toBe('Overloaded');
  });

  it('400 "prompt is too long: N tokens > M maximum" → BadRequestError with parseable numbers', async () => {
    const fake = await startFake();
    fake.injectFault({ type: 'prompt_too_long' });
    fake.injectFault({ type: 'prompt_too_long', tokens: 250_123, maximum: 200_000 });
    const client = clientFor(fake);
    const defaulted = (await failure(client.messages.create(hello))) as BadRequestError;
    expect(defaulted).toBeInstanceOf(BadRequestError);
    expect(defaulted.type).toBe('invalid_request_error');
    expect(defaulted.apiMessage).toBe(
      `prompt is too long: ${Math.max(estimateTokens(hello), 200_001)} tokens > 200000 maximum`,
    );
    const explicit = (await failure(client.messages.create(hello))) as BadRequestError;
    const match = /prompt is too long: (\d+) tokens > (\d+) maximum/.exec(explicit.message);
    expect(match?.slice(1)).toEqual(['250123', '200000']);
  });

  it('404 not_found_error "model: <name>" → NotFoundError', async () => {
    const fake = await startFake();
    fake.injectFault({ type: 'model_not_found' });
    const error = (await failure(
      clientFor(fake).messages.create({ ...hello, model: 'claude-does-not-exist' }),
    )) as NotFoundError;
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.status).toBe(404);
    expect(error.type).toBe('not_found_error');
    expect(error.apiMessage).toBe('model: claude-does-not-exist');
  });

  it('any other status with the generic "http" fault (503 → ServiceUnavailableError)', async () => {
    const fake = await startFake();
    fake.injectFault({ type: 'http', status: 503, errorType: 'api_error', message: 'upstream unavailable' });
    const error = (await failure(clientFor(fake).messages.create(hello))) as ServiceUnavailableError;
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error.apiMessage).toBe('upstream unavailable');
  });
});

describe('retries', () => {
  it('a retried 529 succeeds on the next scripted turn, waiting retry-after instead of the default backoff', async () => {
    const fake = await startFake({ now: () => performance.now() });
    fake.injectFault({ type: 'overloaded', retryAfterSeconds: 0.01 });
    fake.enqueue({ text: 'recovered' });
    const message = await clientFor(fake, { maxRetries: 2 }).messages.stream(hello).finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: 'recovered' }]);
    const [first, retry] = fake.requests;
    expect([first?.response.status, retry?.response.status]).toEqual([529, 200]);
    expect(retry!.headers['x-stainless-retry-count']).toBe('1');
    // The SDK's own first backoff is 375–500 ms; retry-after 0.01 s was honoured instead.
    expect(retry!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(9);
    expect(retry!.receivedAt - first!.receivedAt).toBeLessThan(300);
  });

  it('x-should-retry: false stops the SDK retrying a 529 it would otherwise retry', async () => {
    const fake = await startFake();
    fake.injectFault({ type: 'overloaded', shouldRetry: false });
    const error = await failure(clientFor(fake, { maxRetries: 2 }).messages.create(hello));
    expect(error).toBeInstanceOf(OverloadedError);
    expect(fake.requests).toHaveLength(1);
  });

  it('injectFault({ times }) fails exactly that many requests, counting hits', async () => {
    const fake = await startFake();
    const rule = fake.injectFault({ type: 'server' }, { times: 2 });
    const client = clientFor(fake);
    await failure(client.messages.create(hello));
    await failure(client.messages.create(hello));
    expect((await client.messages.create(hello)).content[0]).toMatchObject({ type: 'text' });
    expect(rule.hits).toBe(2);
    expect(rule.remaining).toBe(0);
  });
});

describe('faults keyed to a credential', () => {
  it('key A gets 429 while key B succeeds (faultsByCredential)', async () => {
    const fake = await startFake({
      faultsByCredential: { 'sk-key-a': { type: 'rate_limit', retryAfterSeconds: 60 } },
    });
    const clientA = clientFor(fake, { apiKey: 'sk-key-a' });
    const clientB = clientFor(fake, { apiKey: 'sk-key-b' });
    expect(await failure(clientA.messages.create(hello))).toBeInstanceOf(RateLimitError);
    expect((await clientB.messages.create(hello)).content).toEqual([
      { type: 'text', text: hello.messages[0]!.content },
    ]);
    expect(await failure(clientA.messages.create(hello))).toBeInstanceOf(RateLimitError);
    expect(fake.requests.map((request) => [request.credential, request.response.status])).toEqual([
      ['sk-key-a', 429],
      ['sk-key-b', 200],
      ['sk-key-a', 429],
    ]);
  });

  it('injectFault({ credential, match }) and acceptedCredentials', async () => {
    const fake = await startFake({ acceptedCredentials: ['sk-good', 'sk-billing'] });
    fake.injectFault({ type: 'billing' }, { credential: 'sk-billing', times: Number.POSITIVE_INFINITY });
    fake.injectFault({ type: 'overloaded' }, { match: (request) => request.model === 'claude-busy' });
    expect(await failure(clientFor(fake, { apiKey: 'sk-unknown' }).messages.create(hello))).toBeInstanceOf(
      AuthenticationError,
    );
    expect(await failure(clientFor(fake, { apiKey: 'sk-billing' }).messages.create(hello))).toBeInstanceOf(
      PaymentRequiredError,
    );
    const good = clientFor(fake, { apiKey: 'sk-good' });
    expect((await good.messages.create(hello)).type).toBe('message');
    expect(await failure(good.messages.create({ ...hello, model: 'claude-busy' }))).toBeInstanceOf(
      OverloadedError,
    );
  });

  it('faults on count_tokens when asked to', async () => {
    const fake = await startFake();
    fake.injectFault({ type: 'rate_limit' }, { endpoint: 'count_tokens' });
    const client = clientFor(fake);
    expect((await client.messages.create(hello)).type).toBe('message');
    expect(
      await failure(client.messages.countTokens({ model: 'm', messages: hello.messages })),
    ).toBeInstanceOf(RateLimitError);
  });
});

describe('stream faults', () => {
  it('a stream cut mid-way (socket destroyed after K events) rejects with "terminated" after partial text', async () => {
    const fake = await startFake();
    fake.enqueue({ text: longText, fault: { type: 'stream_cut', afterEvents: 5 } });
    const stream = clientFor(fake).messages.stream(hello);
    const seen: string[] = [];
    stream.on('text', (delta) => seen.push(delta));
    const error = (await failure(stream.finalMessage())) as AnthropicError;
    expect(error).toBeInstanceOf(AnthropicError);
    expect(error.message).toBe('terminated');
    // message_start, ping, content_block_start, then two text deltas.
    expect(seen).toEqual([longText.slice(0, 16), longText.slice(16, 32)]);
    const request = fake.lastRequest!;
    await request.settled();
    expect(request.response).toMatchObject({ eventsSent: 5, finished: false, clientClosedEarly: false });
  });

  it('a stream cut by default half-way; a non-streaming body cut the same way rejects too', async () => {
    const fake = await startFake();
    fake.injectFault({ type: 'stream_cut' }, { times: 2 });
    fake.enqueue({ text: longText }, { text: longText });
    const client = clientFor(fake);
    await failure(client.messages.stream(hello).finalMessage());
    const total = 2 + 1 + Math.ceil(longText.length / 16) + 1 + 2;
    expect(fake.requests[0]!.response.eventsSent).toBe(Math.floor(total / 2));
    const error = (await failure(client.messages.create(hello))) as Error;
    expect(error.message).toBe('terminated');
    expect(fake.pendingTurns).toBe(0);
  });

  it('a stream that ends cleanly but early (no message_stop) is refused by the stream helper', async () => {
    const fake = await startFake();
    fake.enqueue({ text: longText, fault: { type: 'stream_cut', afterEvents: 4, mode: 'end' } });
    const error = (await failure(clientFor(fake).messages.stream(hello).finalMessage())) as AnthropicError;
    expect(error).toBeInstanceOf(AnthropicError);
    expect(error.message).toBe('stream ended without producing a Message with role=assistant');
  });

  it('an SSE `event: error` mid-stream → APIError without status, typed by the frame', async () => {
    const fake = await startFake();
    fake.enqueue({ text: longText, fault: { type: 'stream_error', afterEvents: 4 } });
    fake.enqueue({
      text: longText,
      fault: {
        type: 'stream_error',
        afterEvents: 3,
        errorType: 'api_error',
        message: 'Internal server error',
      },
    });
    const client = clientFor(fake);
    const stream = client.messages.stream(hello);
    const seen: string[] = [];
    stream.on('text', (delta) => seen.push(delta));
    const overloaded = (await failure(stream.finalMessage())) as APIError;
    expect(overloaded).toBeInstanceOf(APIError);
    expect(overloaded.status).toBeUndefined();
    expect(overloaded.type).toBe('overloaded_error');
    expect(overloaded.message).toContain('"overloaded_error"');
    expect(seen).toEqual([longText.slice(0, 16)]);
    const apiError = (await failure(client.messages.stream(hello).finalMessage())) as APIError;
    expect(apiError.type).toBe('api_error');
    expect(apiError.apiMessage).toBe('Internal server error');
  });

  it('a stream_error on a non-streaming request becomes the HTTP error of that type', async () => {
    const fake = await startFake();
    fake.enqueue({ text: 'x', fault: { type: 'stream_error' } });
    expect(await failure(clientFor(fake).messages.create(hello))).toBeInstanceOf(OverloadedError);
  });

  it('a malformed SSE data line → the SDK rejects with the JSON SyntaxError as cause', async () => {
    const fake = await startFake();
    fake.enqueue({ text: longText, fault: { type: 'malformed_json', afterEvents: 3 } });
    const error = (await failure(clientFor(fake).messages.stream(hello).finalMessage())) as AnthropicError;
    expect(error).toBeInstanceOf(AnthropicError);
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  it('a malformed non-streaming JSON body → SyntaxError from the SDK', async () => {
    const fake = await startFake();
    fake.enqueue({ text: 'hello', fault: { type: 'malformed_json' } });
    const error = await failure(clientFor(fake).messages.create(hello));
    expect(error).toBeInstanceOf(SyntaxError);
    expect(fake.lastRequest?.response.status).toBe(200);
  });
});

describe('latency, hangs and aborts', () => {
  it('waits firstByteMs before the headers and chunkMs between events (real timers)', async () => {
    const fake = await startFake({ latency: { firstByteMs: 40, chunkMs: 10 } });
    fake.enqueue({ text: 'abcdefghijklmnopqrstuvwxyz0123456789' });
    const stream = clientFor(fake).messages.stream(hello);
    const started = performance.now();
    const arrivals: number[] = [];
    stream.on('streamEvent', () => arrivals.push(performance.now() - started));
    await stream.finalMessage();
    // The SDK hides the ping, so the server sent arrivals.length + 1 events, 10 ms apart,
    // after a 40 ms first byte: nothing can arrive earlier than that (lower bounds only, so
    // a loaded machine cannot make this fail).
    expect(arrivals).toHaveLength(8);
    expect(arrivals[0]).toBeGreaterThanOrEqual(39);
    expect(arrivals.at(-1)).toBeGreaterThanOrEqual(40 + 10 * arrivals.length - 1);
  });

  it('schedules every delay through the injected timers, per turn when the turn says so', async () => {
    const delays: number[] = [];
    const timers: FakeTimers = {
      setTimeout: (callback, milliseconds) => {
        delays.push(milliseconds);
        return setImmediate(callback);
      },
      clearTimeout: (handle) => clearImmediate(handle as NodeJS.Immediate),
    };
    const fake = await startFake({ timers, latency: { chunkMs: 5 } });
    fake.enqueue({ text: 'two deltas, 1 2 3 4', latency: { firstByteMs: 250, chunkMs: 30 } }, { text: 'x' });
    const client = clientFor(fake);
    await client.messages.stream(hello).finalMessage();
    // message_start ping block_start delta delta block_stop message_delta message_stop: 7 gaps.
    expect(delays).toEqual([250, 30, 30, 30, 30, 30, 30, 30]);
    delays.length = 0;
    await client.messages.stream(hello).finalMessage();
    expect(delays).toEqual([5, 5, 5, 5, 5, 5]);
  });

  it('a hang never answers; the SDK timeout fires and the fake sees the client leave', async () => {
    const fake = await startFake();
    fake.injectFault({ type: 'hang' });
    const error = await failure(clientFor(fake, { timeout: 100 }).messages.create(hello));
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    const response = await fake.lastRequest!.settled();
    expect(response).toMatchObject({ status: undefined, clientClosedEarly: true, fault: { type: 'hang' } });
  });

  it('an AbortSignal mid-stream rejects with APIUserAbortError and the fake records the early close', async () => {
    const fake = await startFake({ latency: { chunkMs: 40 } });
    fake.enqueue({ text: longText });
    const totalEvents = 2 + 1 + Math.ceil(longText.length / 16) + 1 + 2;
    const controller = new AbortController();
    const stream = clientFor(fake).messages.stream(hello, { signal: controller.signal });
    stream.on('text', () => controller.abort());
    const error = await failure(stream.finalMessage());
    expect(error).toBeInstanceOf(APIUserAbortError);
    const response = await fake.lastRequest!.settled();
    expect(response.clientClosedEarly).toBe(true);
    expect(response.finished).toBe(false);
    expect(response.eventsSent).toBeLessThan(totalEvents);
  });
});
