// The fake driven by the real @anthropic-ai/sdk: streaming and non-streaming turns,
// count_tokens, the script (queue, functions, fallback), recording and lifecycle.
// Faults are in faults.test.ts.
import Anthropic, { InternalServerError } from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { TestkitError } from '../shared/errors.ts';
import { createFakeAnthropic, type FakeAnthropic, type FakeAnthropicOptions } from './fake-anthropic.ts';
import { estimateTokens } from './tokens.ts';
import { defaultThinkingSignature } from './turns.ts';

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
  messages: [{ role: 'user' as const, content: 'Hello there' }],
};

afterEach(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()));
});

/** Reads a raw SSE body into [event, data] pairs. */
function parseSse(text: string): Array<[string, string]> {
  return text
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => {
      const lines = frame.split('\n');
      return [lines[0]!.replace('event: ', ''), lines[1]!.replace('data: ', '')];
    });
}

describe('streaming through messages.stream()', () => {
  it('reassembles a text turn, with usage and stop reason, from text_delta events', async () => {
    const fake = await startFake();
    const text = 'Hello, world! This answer is longer than one sixteen-character delta.';
    fake.enqueue({ text });
    const stream = clientFor(fake).messages.stream(hello);
    const eventTypes: string[] = [];
    const deltas: string[] = [];
    stream.on('streamEvent', (event) => {
      eventTypes.push(event.type);
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
        deltas.push(event.delta.text);
    });
    const message = await stream.finalMessage();
    expect(message.content).toEqual([{ type: 'text', text }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.id).toBe('msg_fake_1');
    expect(message.model).toBe('claude-test-1');
    expect(message.usage.input_tokens).toBe(estimateTokens(hello));
    expect(message.usage.output_tokens).toBe(Math.ceil(text.length / 4));
    expect(deltas.length).toBe(Math.ceil(text.length / 16));
    expect(deltas.join('')).toBe(text);
    expect(eventTypes[0]).toBe('message_start');
    expect(eventTypes[1]).toBe('content_block_start');
    expect(eventTypes.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(stream.request_id).toBe('req_fake_1');
  });

  it('sends a ping after message_start and every frame as `event:` + `data:` (raw SSE)', async () => {
    const fake = await startFake();
    fake.enqueue({ text: 'ab' });
    const response = await fetch(`${fake.baseURL}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': 'k' },
      body: JSON.stringify({ ...hello, stream: true }),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const frames = parseSse(await response.text());
    expect(frames.map(([event]) => event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const [event, data] of frames) expect(JSON.parse(data).type).toBe(event);
    expect(JSON.parse(frames[5]![1])).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 1 },
    });
  });

  it('streams thinking deltas then one signature_delta, before the text block', async () => {
    const fake = await startFake();
    fake.enqueue({
      thinking: { text: 'The user greets me; greet back politely.', signature: 'sig-abc' },
      text: 'Hi!',
    });
    const stream = clientFor(fake).messages.stream({
      ...hello,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      max_tokens: 2048,
    });
    const thinkingDeltas: string[] = [];
    const signatures: string[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type !== 'content_block_delta') return;
      if (event.delta.type === 'thinking_delta') thinkingDeltas.push(event.delta.thinking);
      if (event.delta.type === 'signature_delta') signatures.push(event.delta.signature);
    });
    const message = await stream.finalMessage();
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'The user greets me; greet back politely.', signature: 'sig-abc' },
      { type: 'text', text: 'Hi!' },
    ]);
    expect(thinkingDeltas.length).toBe(3);
    expect(signatures).toEqual(['sig-abc']);
    expect(fake.lastRequest?.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
  });

  it('gives thinking without a signature the default signature', async () => {
    const fake = await startFake({ turns: [{ thinking: 'hmm', text: 'ok' }] });
    const message = await clientFor(fake).messages.stream(hello).finalMessage();
    expect(message.content[0]).toEqual({
      type: 'thinking',
      thinking: 'hmm',
      signature: defaultThinkingSignature,
    });
  });

  it('splits tool input JSON into input_json_delta pieces at arbitrary points; the SDK rebuilds the input', async () => {
    const fake = await startFake();
    const input = { path: 'notes/today.md', content: 'line "one"\nline two 😀', overwrite: true };
    fake.enqueue({ toolCalls: [{ name: 'write_file', input, inputChunks: 7 }] });
    const stream = clientFor(fake).messages.stream(hello);
    const pieces: string[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') {
        pieces.push(event.delta.partial_json);
      }
    });
    const message = await stream.finalMessage();
    expect(pieces).toHaveLength(7);
    expect(pieces.join('')).toBe(JSON.stringify(input));
    // At least one boundary falls inside a JSON string, not between tokens.
    expect(pieces.some((piece) => (piece.split('"').length - 1) % 2 === 1)).toBe(true);
    expect(message.content).toEqual([{ type: 'tool_use', id: 'toolu_fake_1_0', name: 'write_file', input }]);
    expect(message.stop_reason).toBe('tool_use');
  });

  it('by default sends an empty first JSON piece, then pieces of jsonChunkSize characters', async () => {
    const fake = await startFake({ jsonChunkSize: 5 });
    const input = { query: 'weather in Paris', days: 3 };
    fake.enqueue({
      text: 'Let me check.',
      toolCalls: [
        { name: 'search', input, id: 'toolu_custom' },
        { name: 'noop', input: {} },
      ],
    });
    const stream = clientFor(fake).messages.stream(hello);
    const pieces: string[] = [];
    stream.on('inputJson', (partial) => pieces.push(partial));
    const message = await stream.finalMessage();
    const json = JSON.stringify(input);
    expect(pieces.slice(0, 1 + Math.ceil(json.length / 5))).toEqual([
      '',
      ...Array.from({ length: Math.ceil(json.length / 5) }, (_, index) =>
        json.slice(index * 5, index * 5 + 5),
      ),
    ]);
    expect(message.content).toEqual([
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'toolu_custom', name: 'search', input },
      { type: 'tool_use', id: 'toolu_fake_1_2', name: 'noop', input: {} },
    ]);
  });

  it('honours an explicit content order, explicit deltas, redacted thinking, usage and stop fields', async () => {
    const fake = await startFake();
    fake.enqueue({
      content: [
        { type: 'redacted_thinking', data: 'opaque-blob' },
        { type: 'text', text: ['Hel', 'lo ', 'there'] },
        { type: 'tool_use', name: 'lookup', input: { a: 1 }, inputChunks: ['{"a"', ':1}'] },
        { type: 'text', text: 'after the tool' },
      ],
      stopReason: 'max_tokens',
      stopSequence: 'END',
      usage: {
        input_tokens: 1234,
        output_tokens: 56,
        cache_read_input_tokens: 1000,
        cache_creation_input_tokens: 7,
      },
      id: 'msg_custom',
      model: 'claude-other',
    });
    const stream = clientFor(fake).messages.stream(hello);
    const textDeltas: string[] = [];
    stream.on('text', (delta) => textDeltas.push(delta));
    const message = await stream.finalMessage();
    expect(textDeltas).toEqual(['Hel', 'lo ', 'there', 'after the tool']);
    expect(message).toMatchObject({
      id: 'msg_custom',
      model: 'claude-other',
      stop_reason: 'max_tokens',
      stop_sequence: 'END',
      usage: {
        input_tokens: 1234,
        output_tokens: 56,
        cache_read_input_tokens: 1000,
        cache_creation_input_tokens: 7,
      },
      content: [
        { type: 'redacted_thinking', data: 'opaque-blob' },
        { type: 'text', text: 'Hello there' },
        { type: 'tool_use', name: 'lookup', input: { a: 1 } },
        { type: 'text', text: 'after the tool' },
      ],
    });
  });

  it('never splits a surrogate pair across text deltas', async () => {
    const fake = await startFake({ textChunkSize: 3 });
    const text = 'ab😀cd😀😀e';
    fake.enqueue({ text });
    const stream = clientFor(fake).messages.stream(hello);
    const deltas: string[] = [];
    stream.on('text', (delta) => deltas.push(delta));
    await stream.finalMessage();
    expect(deltas.join('')).toBe(text);
    for (const delta of deltas) expect(delta).not.toMatch(/[\uD800-\uDBFF]$/);
  });
});

describe('non-streaming and count_tokens', () => {
  it('answers messages.create() with the same turn as JSON, with request-id', async () => {
    const fake = await startFake();
    fake.enqueue({
      thinking: { text: 'plan', signature: 's' },
      text: 'Answer',
      toolCalls: [{ name: 'go', input: { x: [1, 2] } }],
    });
    const message = await clientFor(fake).messages.create(hello);
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'plan', signature: 's' },
      { type: 'text', text: 'Answer' },
      { type: 'tool_use', id: 'toolu_fake_1_2', name: 'go', input: { x: [1, 2] } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toEqual({
      input_tokens: estimateTokens(hello),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: Math.ceil(('plan'.length + 'Answer'.length + '{"x":[1,2]}'.length) / 4),
    });
    expect(message._request_id).toBe('req_fake_1');
    expect(fake.lastRequest?.stream).toBe(false);
  });

  it('counts tokens as characters of every string in system, messages and tools / 4, rounded up', async () => {
    const fake = await startFake();
    const client = clientFor(fake);
    // 'abcd' (4) + 'user' (4) + 36 x's = 44 characters -> 11 tokens.
    const counted = await client.messages.countTokens({
      model: 'claude-test-1',
      system: 'abcd',
      messages: [{ role: 'user', content: 'x'.repeat(36) }],
    });
    expect(counted).toEqual({ input_tokens: 11 });
    expect(fake.lastRequest?.endpoint).toBe('count_tokens');
    expect(fake.lastRequest?.path).toBe('/v1/messages/count_tokens');
    // The same conversation reports the same input tokens when sent to /v1/messages.
    const message = await client.messages.create({
      model: 'claude-test-1',
      max_tokens: 10,
      system: 'abcd',
      messages: [{ role: 'user', content: 'x'.repeat(36) }],
    });
    expect(message.usage.input_tokens).toBe(11);
    expect(fake.pendingTurns).toBe(0);
  });

  it('uses a custom token counter when given one', async () => {
    const fake = await startFake({ countTokens: (body) => body.messages.length * 1000 });
    expect(await clientFor(fake).messages.countTokens({ model: 'm', messages: hello.messages })).toEqual({
      input_tokens: 1000,
    });
  });
});

describe('the script', () => {
  it('answers queued turns in order, then falls back to echoing the last user text', async () => {
    const fake = await startFake({ turns: [{ text: 'first' }] });
    fake.enqueue({ text: 'second' });
    const client = clientFor(fake);
    const texts: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const message = await client.messages.create({
        ...hello,
        messages: [
          { role: 'user', content: 'earlier' },
          { role: 'assistant', content: 'reply' },
          {
            role: 'user',
            content: [
              { type: 'text', text: `echo ` },
              { type: 'text', text: `number ${index}` },
            ],
          },
        ],
      });
      texts.push(message.content[0]?.type === 'text' ? message.content[0].text : '');
    }
    expect(texts).toEqual(['first', 'second', 'echo number 2']);
    expect(fake.requests.map((request) => request.response.source)).toEqual(['queue', 'queue', 'fallback']);
  });

  it('with fallback "fail", answers 500 without retry and records TESTKIT_SCRIPT_EXHAUSTED', async () => {
    const fake = await startFake({ fallback: 'fail' });
    const error = await clientFor(fake, { maxRetries: 2 })
      .messages.create(hello)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).status).toBe(500);
    expect((error as InternalServerError).message).toContain('TESTKIT_SCRIPT_EXHAUSTED');
    expect(fake.requests).toHaveLength(1);
    expect(fake.errors.map((recorded) => recorded.code)).toEqual(['TESTKIT_SCRIPT_EXHAUSTED']);
    expect(fake.requests[0]!.response.error?.code).toBe('TESTKIT_SCRIPT_EXHAUSTED');
  });

  it('lets a turn function branch on the request (sync and async)', async () => {
    const fake = await startFake({
      fallback: (request) =>
        request.toolNames.includes('calculator')
          ? { toolCalls: [{ name: 'calculator', input: { expression: request.lastUserText } }] }
          : { text: `no tools for: ${request.lastUserText}` },
    });
    fake.enqueue(async (request) => {
      await new Promise((resolve) => setImmediate(resolve));
      return { text: `async saw ${request.messages.length} message(s)` };
    });
    const client = clientFor(fake);
    const first = await client.messages.create(hello);
    expect(first.content).toEqual([{ type: 'text', text: 'async saw 1 message(s)' }]);
    const withTool = await client.messages.create({
      ...hello,
      messages: [{ role: 'user', content: '2+2' }],
      tools: [{ name: 'calculator', input_schema: { type: 'object', properties: {} } }],
    });
    expect(withTool.content).toEqual([
      { type: 'tool_use', id: 'toolu_fake_2_0', name: 'calculator', input: { expression: '2+2' } },
    ]);
    const plain = await client.messages.create(hello);
    expect(plain.content).toEqual([{ type: 'text', text: 'no tools for: Hello there' }]);
  });

  it('answers 500 and records TESTKIT_SCRIPT_FAILED when a turn function throws or returns a bad turn', async () => {
    const fake = await startFake();
    fake.enqueue(
      () => {
        throw new Error('boom in the script');
      },
      () => ({ txt: 'typo' }) as never,
    );
    const client = clientFor(fake);
    const thrown = await client.messages.create(hello).catch((caught: unknown) => caught);
    expect((thrown as InternalServerError).status).toBe(500);
    expect((thrown as InternalServerError).message).toContain('boom in the script');
    const invalid = await client.messages.create(hello).catch((caught: unknown) => caught);
    expect((invalid as InternalServerError).message).toContain(
      'turn function (request #2).txt is not a turn field',
    );
    expect(fake.errors.map((error) => error.code)).toEqual([
      'TESTKIT_SCRIPT_FAILED',
      'TESTKIT_SCRIPT_FAILED',
    ]);
  });

  it('rejects malformed turns and options at once, naming the field', () => {
    const fake = createFakeAnthropic();
    const attempt = (action: () => void): TestkitError => {
      try {
        action();
      } catch (error) {
        return error as TestkitError;
      }
      throw new Error('expected a throw');
    };
    const badName = attempt(() => fake.enqueue({ text: 'ok' }, { toolCalls: [{ name: '', input: {} }] }));
    expect(badName).toBeInstanceOf(TestkitError);
    expect(badName.code).toBe('TESTKIT_INVALID_TURN');
    expect(badName.message).toBe('enqueue(…)[1].toolCalls[0].name must be a non-empty string');
    expect(fake.pendingTurns).toBe(0);
    expect(attempt(() => fake.enqueue({ text: 'x', content: [] })).message).toContain('cannot be combined');
    expect(attempt(() => fake.enqueue({ fault: { type: 'explode' } as never })).message).toContain(
      'enqueue(…)[0].fault.type "explode" is not a fault',
    );
    expect(attempt(() => fake.enqueue({ usage: { output_tokens: -1 } })).message).toBe(
      'enqueue(…)[0].usage.output_tokens must be an integer >= 0',
    );
    const badOption = attempt(() => createFakeAnthropic({ turns: [{ text: 1 as never }] }));
    expect(badOption.code).toBe('TESTKIT_INVALID_OPTIONS');
    expect(badOption.message).toContain('options.turns[0].text must be a string or an array of strings');
    expect(attempt(() => createFakeAnthropic({ latency: { chunkMs: -5 } })).message).toBe(
      'options.latency.chunkMs must be a number of milliseconds >= 0',
    );
    expect(attempt(() => createFakeAnthropic({ fallback: 'loop' as never })).message).toContain(
      'options.fallback',
    );
    expect(attempt(() => fake.injectFault({ type: 'rate_limit' }, { times: 0 })).code).toBe(
      'TESTKIT_INVALID_OPTIONS',
    );
  });
});

describe('recording', () => {
  it('records the parsed body and the auth, version and beta headers', async () => {
    let clock = 1_000;
    const fake = await startFake({ now: () => (clock += 1) });
    const client = clientFor(fake, {
      defaultHeaders: { 'anthropic-beta': 'prompt-caching-2024-07-31, tools-2024' },
    });
    const tools = [
      {
        name: 'read_file',
        description: 'Read a file',
        input_schema: { type: 'object' as const, properties: {} },
      },
      { name: 'exec', input_schema: { type: 'object' as const, properties: {} } },
    ];
    const system = [
      { type: 'text' as const, text: 'You are Switchboard.' },
      { type: 'text' as const, text: 'Be brief.', cache_control: { type: 'ephemeral' as const } },
    ];
    await client.messages
      .stream({ ...hello, system, tools, temperature: 0.2, metadata: { user_id: 'u-1' } })
      .finalMessage();
    const request = fake.lastRequest!;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/v1/messages');
    expect(request.endpoint).toBe('messages');
    expect(request.model).toBe('claude-test-1');
    expect(request.maxTokens).toBe(256);
    expect(request.stream).toBe(true);
    expect(request.system).toEqual(system);
    expect(request.systemText).toBe('You are Switchboard.\n\nBe brief.');
    expect(request.tools).toEqual(tools);
    expect(request.toolNames).toEqual(['read_file', 'exec']);
    expect(request.messages).toEqual(hello.messages);
    expect(request.body?.temperature).toBe(0.2);
    expect(request.body?.metadata).toEqual({ user_id: 'u-1' });
    // This SDK version sends the API key as a bearer token.
    expect(request.bearerToken).toBe('sk-test-key');
    expect(request.credential).toBe('sk-test-key');
    expect(request.anthropicVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(request.betas).toEqual(['prompt-caching-2024-07-31', 'tools-2024']);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.receivedAt).toBe(1_001);
    expect(JSON.parse(request.rawBody)).toEqual(request.body);
    expect(request.response).toMatchObject({
      status: 200,
      finished: true,
      clientClosedEarly: false,
      eventsSent: 7,
    });
  });

  it('records an x-api-key header as the credential', async () => {
    const fake = await startFake();
    const client = clientFor(fake, { apiKey: null, defaultHeaders: { 'x-api-key': 'sk-header-key' } });
    await client.messages.create(hello);
    expect(fake.lastRequest?.apiKey).toBe('sk-header-key');
    expect(fake.lastRequest?.bearerToken).toBeUndefined();
    expect(fake.lastRequest?.credential).toBe('sk-header-key');
  });

  it('awaits the next request, a number of requests, and times out naming what arrived', async () => {
    const fake = await startFake({ waitTimeoutMs: 2_000 });
    const client = clientFor(fake);
    const next = fake.nextRequest();
    const nextCount = fake.nextRequest({ endpoint: 'count_tokens' });
    await client.messages.create(hello);
    await client.messages.countTokens({ model: 'm', messages: hello.messages });
    expect((await next).sequence).toBe(1);
    expect((await nextCount).sequence).toBe(2);
    const two = await fake.waitForRequests(2);
    expect(two.map((request) => request.endpoint)).toEqual(['messages', 'count_tokens']);
    expect(await fake.waitForRequests(1, { endpoint: 'count_tokens' })).toHaveLength(1);
    const timedOut = await fake.waitForRequests(3, { timeoutMs: 20 }).catch((error: unknown) => error);
    expect((timedOut as TestkitError).code).toBe('TESTKIT_WAIT_TIMEOUT');
    expect((timedOut as TestkitError).message).toContain('waited 20 ms for 3 requests, 2 arrived');
  });

  it('keeps only the newest requests under recordLimit, and reset() forgets everything', async () => {
    const fake = await startFake({ recordLimit: 2 });
    const client = clientFor(fake);
    for (let index = 0; index < 4; index += 1) await client.messages.create(hello);
    expect(fake.requests.map((request) => request.sequence)).toEqual([3, 4]);
    fake.enqueue({ text: 'unused' });
    fake.reset();
    expect(fake.requests).toHaveLength(0);
    expect(fake.pendingTurns).toBe(0);
    await client.messages.create(hello);
    expect(await fake.waitForRequests(1)).toHaveLength(1);
  });
});

describe('request validation', () => {
  it('rejects what the real API rejects: no anthropic-version, no max_tokens, not JSON, unknown route', async () => {
    const fake = await startFake();
    const post = async (path: string, headers: Record<string, string>, body: string) => {
      const response = await fetch(`${fake.baseURL}${path}`, { method: 'POST', headers, body });
      return { status: response.status, body: (await response.json()) as { error: { message: string } } };
    };
    const versioned = { 'anthropic-version': '2023-06-01', 'content-type': 'application/json' };
    expect(await post('/v1/messages', {}, JSON.stringify(hello))).toMatchObject({
      status: 400,
      body: {
        type: 'error',
        error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' },
      },
    });
    const { max_tokens: _, ...withoutMaxTokens } = hello;
    expect((await post('/v1/messages', versioned, JSON.stringify(withoutMaxTokens))).body.error.message).toBe(
      'max_tokens: Field required',
    );
    expect((await post('/v1/messages', versioned, '{not json')).status).toBe(400);
    expect(await post('/v1/complete', versioned, '{}')).toMatchObject({
      status: 404,
      body: { error: { type: 'not_found_error' }, request_id: 'req_fake_4' },
    });
    expect(fake.requests.map((request) => request.response.source)).toEqual([
      'rejected',
      'rejected',
      'rejected',
      'rejected',
    ]);
  });

  it('answers 413 request_too_large over maxBodyBytes', async () => {
    const fake = await startFake({ maxBodyBytes: 1024 });
    const error = await clientFor(fake)
      .messages.create({ ...hello, messages: [{ role: 'user', content: 'y'.repeat(4096) }] })
      .catch((caught: unknown) => caught);
    expect((error as { status: number }).status).toBe(413);
  });
});

describe('lifecycle', () => {
  it('refuses baseURL before start and start after close; close rejects pending waits', async () => {
    const fake = createFakeAnthropic();
    expect(() => fake.baseURL).toThrow(expect.objectContaining({ code: 'TESTKIT_NOT_STARTED' }));
    await fake.start();
    expect(fake.baseURL).toBe(`http://127.0.0.1:${fake.port}`);
    const pending = fake.nextRequest({ timeoutMs: 10_000 }).catch((error: unknown) => error);
    await fake.close();
    expect(((await pending) as TestkitError).code).toBe('TESTKIT_CLOSED');
    await expect(fake.start()).rejects.toMatchObject({ code: 'TESTKIT_CLOSED' });
  });

  it('closes on Symbol.asyncDispose, refusing further connections', async () => {
    let baseURL = '';
    {
      await using fake = await createFakeAnthropic().start();
      baseURL = fake.baseURL;
      expect((await clientFor(fake).messages.create(hello)).content).toEqual([
        { type: 'text', text: 'Hello there' },
      ]);
    }
    await expect(fetch(`${baseURL}/v1/messages`, { method: 'POST' })).rejects.toThrow();
  });
});
