// The Anthropic provider through the real @anthropic-ai/sdk against testkit's fake Messages
// API on 127.0.0.1: streaming, thinking, tools, images, stop reasons, usage, caching,
// endpoints and credentials, thinking levels, timeouts, replay hygiene (cases 49, 53, 30),
// every fault class, aborts (case 52) and cut streams.
import type { AssistantMessage, Message, ToolResultMessage } from '@switchboard/hooks';
import {
  createFakeAnthropic,
  type FakeAnthropic,
  type FakeAnthropicOptions,
} from '@switchboard/testkit/anthropic';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AnthropicProviderOptions, createAnthropicProvider } from '../src/anthropic.ts';
import {
  type AssistantStreamEvent,
  anthropicModel,
  createStreamFunction,
  defineTool,
  isContextOverflow,
  type LlmContext,
  type Model,
  ModelError,
  type StreamOptions,
  toolSpec,
} from '../src/index.ts';
import { collectStream } from './scripted-model.ts';

const started: FakeAnthropic[] = [];

async function startFake(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const fake = await createFakeAnthropic(options).start();
  started.push(fake);
  return fake;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()));
});

// Haiku 4.5: budget-based thinking, 64k output, $1 / $5 / $0.10 / $1.25 per million tokens.
const haiku = anthropicModel('claude-haiku-4-5');

function call(
  fake: FakeAnthropic,
  context: LlmContext,
  options: StreamOptions = {},
  providerOptions: AnthropicProviderOptions = {},
  model: Model = haiku,
) {
  const provider = createAnthropicProvider({ apiKey: 'sk-test', baseUrl: fake.baseURL, ...providerOptions });
  return collectStream(provider.stream(model, context, options));
}

const hello: LlmContext = {
  systemPrompt: 'Be brief.',
  messages: [{ role: 'user', content: 'Hello', timestamp: 1 }],
};

function types(events: readonly AssistantStreamEvent[]): string[] {
  return events.map((event) => event.type);
}

describe('Anthropic provider: streaming', () => {
  it('streams text with start/delta/end events, usage, response id and the request it sent', async () => {
    const fake = await startFake({ textChunkSize: 8 });
    fake.enqueue({ text: 'Hello from the fake API!', usage: { input_tokens: 12, output_tokens: 7 } });
    const { events, message } = await call(fake, hello);
    expect(types(events)).toEqual([
      'start',
      'text_start',
      'text_delta',
      'text_delta',
      'text_delta',
      'text_end',
      'done',
    ]);
    expect(message.content).toEqual([{ type: 'text', text: 'Hello from the fake API!' }]);
    expect(message.stopReason).toBe('stop');
    expect(message.responseId).toBe('msg_fake_1');
    expect(message.usage).toMatchObject({
      input: 12,
      output: 7,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 19,
    });
    const request = fake.lastRequest!;
    expect(request.model).toBe('claude-haiku-4-5');
    expect(request.maxTokens).toBe(32_000);
    expect(request.stream).toBe(true);
    expect(request.credential).toBe('sk-test');
    expect(request.system).toEqual([
      { type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } },
    ]);
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Hello', cache_control: { type: 'ephemeral' } }] },
    ]);
    expect(request.thinking).toBeUndefined();
  });

  it('keeps thinking with its signature and replays it on the next turn; redacted only to the same model', async () => {
    const fake = await startFake();
    fake.enqueue({
      content: [
        { type: 'thinking', thinking: 'Let me think.', signature: 'sig-abc' },
        { type: 'redacted_thinking', data: 'opaque-blob' },
        { type: 'text', text: 'Answer.' },
      ],
    });
    const first = await call(fake, hello);
    expect(types(first.events)).toContain('thinking_delta');
    expect(first.message.content).toEqual([
      { type: 'thinking', thinking: 'Let me think.', signature: 'sig-abc' },
      { type: 'thinking', thinking: '[Reasoning redacted]', signature: 'opaque-blob', redacted: true },
      { type: 'text', text: 'Answer.' },
    ]);
    const history: Message[] = [
      ...hello.messages,
      first.message,
      { role: 'user', content: 'More?', timestamp: 2 },
    ];
    fake.enqueue({ text: 'Sure.' }, { text: 'Sure.' });
    await call(fake, { messages: history });
    expect(fake.lastRequest!.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Let me think.', signature: 'sig-abc' },
        { type: 'redacted_thinking', data: 'opaque-blob' },
        { type: 'text', text: 'Answer.' },
      ],
    });
    // Another Anthropic model: signed thinking goes back, redacted thinking does not.
    await call(fake, { messages: history }, {}, {}, anthropicModel('claude-opus-4-5'));
    expect(fake.lastRequest!.messages[1]?.content).toEqual([
      { type: 'thinking', thinking: 'Let me think.', signature: 'sig-abc' },
      { type: 'text', text: 'Answer.' },
    ]);
  });

  it('parses tool input JSON while it streams (partial arguments) and sends tools as JSON Schema', async () => {
    const fake = await startFake();
    const input = { path: 'src/index.ts', lines: [1, 2, 3], options: { follow: true } };
    fake.enqueue({ toolCalls: [{ id: 'toolu_1', name: 'read_file', input, inputChunks: 9 }] });
    const tool = defineTool({
      name: 'read_file',
      description: 'Read a file',
      parameters: z.object({
        path: z.string().describe('workspace path'),
        lines: z.array(z.number()).optional(),
      }),
      execute: async () => ({ content: [] }),
    });
    const { events, message } = await call(fake, { ...hello, tools: [toolSpec(tool)] });
    const deltas = events.filter((event) => event.type === 'toolcall_delta');
    expect(deltas.length).toBeGreaterThanOrEqual(8);
    // Each partial is a best-effort object that only grows.
    const partials = deltas.map((event) =>
      JSON.stringify((event.partial.content[0] as { arguments: unknown }).arguments),
    );
    expect(partials.some((partial) => partial !== '{}' && partial !== JSON.stringify(input))).toBe(true);
    const end = events.find((event) => event.type === 'toolcall_end');
    expect(end?.type === 'toolcall_end' && end.toolCall).toEqual({
      type: 'toolCall',
      id: 'toolu_1',
      name: 'read_file',
      arguments: input,
    });
    expect(message.stopReason).toBe('toolUse');
    expect(fake.lastRequest!.tools).toEqual([
      {
        name: 'read_file',
        description: 'Read a file',
        input_schema: {
          type: 'object',
          properties: {
            path: { type: 'string', description: 'workspace path' },
            lines: { type: 'array', items: { type: 'number' } },
          },
          required: ['path'],
        },
      },
    ]);
  });

  it('sends images as base64 blocks, and a placeholder to a text-only model', async () => {
    const fake = await startFake();
    const image: LlmContext = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
          ],
          timestamp: 1,
        },
      ],
    };
    await call(fake, image);
    expect(fake.lastRequest!.messages[0]?.content).toEqual([
      { type: 'text', text: 'What is this?' },
      {
        type: 'image',
        source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
        cache_control: { type: 'ephemeral' },
      },
    ]);
    await call(fake, image, {}, {}, anthropicModel('text-only', { input: ['text'] }));
    expect(fake.lastRequest!.messages[0]?.content).toEqual([
      { type: 'text', text: 'What is this?' },
      {
        type: 'text',
        text: '(image omitted: text-only does not accept images)',
        cache_control: { type: 'ephemeral' },
      },
    ]);
  });

  it('maps every stop reason', async () => {
    const fake = await startFake();
    const cases: Array<[string, string]> = [
      ['end_turn', 'stop'],
      ['stop_sequence', 'stop'],
      ['pause_turn', 'stop'],
      ['max_tokens', 'length'],
      ['model_context_window_exceeded', 'length'],
      ['tool_use', 'toolUse'],
      ['refusal', 'error'],
      ['something_new', 'error'],
    ];
    for (const [anthropic] of cases) fake.enqueue({ text: 'x', stopReason: anthropic });
    const results: string[] = [];
    for (const _ of cases) results.push((await call(fake, hello)).message.stopReason);
    expect(results).toEqual(cases.map(([, mapped]) => mapped));
    fake.enqueue({ text: 'x', stopReason: 'refusal' }, { text: 'x', stopReason: 'something_new' });
    const refusal = (await call(fake, hello)).message;
    expect(refusal.errorMessage).toBe('The model declined to answer (stop reason: refusal).');
    expect(refusal.content).toEqual([{ type: 'text', text: 'x' }]);
    expect((await call(fake, hello)).message.errorMessage).toBe('Unhandled stop reason: something_new');
  });

  it('case 54: reports usage with cache read and write; totalTokens is the sum; cost from prices', async () => {
    const fake = await startFake();
    fake.enqueue({
      text: 'cached',
      usage: {
        input_tokens: 10,
        output_tokens: 20,
        cache_read_input_tokens: 3000,
        cache_creation_input_tokens: 400,
      },
    });
    const { message } = await call(fake, hello);
    expect(message.usage).toMatchObject({
      input: 10,
      output: 20,
      cacheRead: 3000,
      cacheWrite: 400,
      totalTokens: 3430,
    });
    expect(message.usage.cost.total).toBeCloseTo((10 * 1 + 20 * 5 + 3000 * 0.1 + 400 * 1.25) / 1_000_000, 12);
  });

  it('cache retention: none sends no breakpoints; long adds a 1h TTL only on api.anthropic.com', async () => {
    const fake = await startFake();
    await call(fake, hello, { cacheRetention: 'none' });
    expect(fake.lastRequest!.system).toEqual([{ type: 'text', text: 'Be brief.' }]);
    expect(fake.lastRequest!.messages[0]?.content).toEqual([{ type: 'text', text: 'Hello' }]);
    await call(fake, hello, { cacheRetention: 'long' });
    expect(fake.lastRequest!.system).toEqual([
      { type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('per-call endpoint, bearer token and headers override the provider defaults', async () => {
    const first = await startFake();
    const second = await startFake();
    await call(first, hello, {
      baseUrl: second.baseURL,
      authToken: 'oauth-token',
      headers: { 'x-trace': 'abc' },
    });
    expect(first.requests).toHaveLength(0);
    const request = second.lastRequest!;
    expect(request.bearerToken).toBe('oauth-token');
    expect(request.headers['x-trace']).toBe('abc');
    // Provider-level header and model-level header both arrive; the call's own wins.
    await call(
      first,
      hello,
      { apiKey: 'sk-call', headers: { 'x-level': 'call' } },
      { headers: { 'x-provider': 'p', 'x-level': 'provider' } },
      anthropicModel('claude-haiku-4-5', { headers: { 'x-model': 'm' } }),
    );
    const withHeaders = first.lastRequest!;
    expect(withHeaders.credential).toBe('sk-call');
    expect(withHeaders.headers).toMatchObject({ 'x-provider': 'p', 'x-model': 'm', 'x-level': 'call' });
  });

  it('maps thinking levels to budgets (budget models) or effort (adaptive models)', async () => {
    const fake = await startFake();
    await call(fake, hello, { thinkingLevel: 'medium' });
    expect(fake.lastRequest!.thinking).toEqual({ type: 'enabled', budget_tokens: 8192 });
    expect(fake.lastRequest!.maxTokens).toBe(32_000 + 8192);
    await call(fake, hello, { thinkingLevel: 'high', maxTokens: 4096 });
    expect(fake.lastRequest!.thinking).toEqual({ type: 'enabled', budget_tokens: 16_384 });
    expect(fake.lastRequest!.maxTokens).toBe(4096 + 16_384);
    await call(fake, hello, { thinkingLevel: 'xhigh' }, {}, anthropicModel('claude-opus-4-6'));
    expect(fake.lastRequest!.thinking).toEqual({ type: 'adaptive' });
    expect(fake.lastRequest!.body?.output_config).toEqual({ effort: 'max' });
    await call(fake, hello, { thinkingLevel: 'off' });
    expect(fake.lastRequest!.thinking).toBeUndefined();
    // A small model cannot fit the budget plus 1024 output tokens: thinking is left off.
    await call(fake, hello, { thinkingLevel: 'low' }, {}, anthropicModel('tiny', { maxOutputTokens: 2000 }));
    expect(fake.lastRequest!.thinking).toBeUndefined();
  });
});

describe('Anthropic provider: replay hygiene (cases 49, 53, 30)', () => {
  it('case 49/53: drops an aborted reply and gives a dangling tool call a synthetic "No result provided"', async () => {
    const fake = await startFake();
    const aborted: AssistantMessage = {
      role: 'assistant',
      content: [{ type: 'text', text: 'half an ans' }],
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: 'aborted',
      errorMessage: 'Request was aborted',
      timestamp: 2,
    };
    const dangling: AssistantMessage = {
      ...aborted,
      content: [{ type: 'toolCall', id: 'toolu_dangling', name: 'search', arguments: { q: 'x' } }],
      stopReason: 'toolUse',
      errorMessage: undefined,
    };
    const messages: Message[] = [
      { role: 'user', content: 'first', timestamp: 1 },
      aborted,
      { role: 'user', content: 'second', timestamp: 3 },
      dangling,
      { role: 'user', content: 'third', timestamp: 4 },
    ];
    const { message } = await call(fake, { messages });
    expect(message.stopReason).toBe('stop');
    expect(fake.lastRequest!.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'first' },
          { type: 'text', text: 'second' },
        ],
      },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_dangling', name: 'search', input: { q: 'x' } }],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_dangling',
            content: [{ type: 'text', text: 'No result provided' }],
            is_error: true,
          },
          { type: 'text', text: 'third', cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
  });

  it('case 30: a tool call from another provider gets an Anthropic id (results remapped); its thinking becomes text', async () => {
    const fake = await startFake();
    const foreign: AssistantMessage = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'I should multiply.' },
        { type: 'toolCall', id: 'call_abc|item/1', name: 'calculator', arguments: { expression: '2*4' } },
      ],
      provider: 'openai',
      model: 'gpt-x',
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: 'toolUse',
      timestamp: 2,
    };
    const result: ToolResultMessage = {
      role: 'toolResult',
      toolCallId: 'call_abc|item/1',
      toolName: 'calculator',
      content: [{ type: 'text', text: '8' }],
      isError: false,
      timestamp: 3,
    };
    fake.enqueue((request) => {
      const toolResult = request.messages[2]?.content as unknown as Array<{
        content: Array<{ text: string }>;
      }>;
      return { text: `The answer is ${toolResult[0]?.content[0]?.text}.` };
    });
    const { message } = await call(fake, {
      messages: [{ role: 'user', content: 'What is 2*4?', timestamp: 1 }, foreign, result],
    });
    expect(fake.lastRequest!.messages[1]?.content).toEqual([
      { type: 'text', text: 'I should multiply.' },
      { type: 'tool_use', id: 'call_abc_item_1', name: 'calculator', input: { expression: '2*4' } },
    ]);
    expect(
      (fake.lastRequest!.messages[2]!.content as unknown as Array<{ tool_use_id: string }>)[0]?.tool_use_id,
    ).toBe('call_abc_item_1');
    expect(message.content).toEqual([{ type: 'text', text: 'The answer is 8.' }]);
  });
});

describe('Anthropic provider: every fault class', () => {
  const faults: Array<[string, Parameters<FakeAnthropic['injectFault']>[0], string, Partial<ModelError>?]> = [
    ['401 authentication_error', { type: 'authentication' }, 'auth', { status: 401 }],
    ['403 permission_error', { type: 'permission' }, 'auth', { status: 403 }],
    [
      '401 with a revoked key',
      {
        type: 'http',
        status: 401,
        errorType: 'authentication_error',
        message: 'This API key has been revoked.',
      },
      'auth_permanent',
    ],
    ['402 billing_error', { type: 'billing' }, 'billing', { status: 402 }],
    [
      '402 with a weekly usage window',
      {
        type: 'http',
        status: 402,
        errorType: 'billing_error',
        message: 'Weekly limit reached, resets on Monday.',
      },
      'rate_limit',
    ],
    [
      '429 rate_limit_error',
      { type: 'rate_limit', retryAfterSeconds: 2.5 },
      'rate_limit',
      { status: 429, retryAfterMs: 2500 },
    ],
    ['500 api_error', { type: 'server' }, 'timeout', { status: 500 }],
    [
      '503 without an overload hint',
      { type: 'http', status: 503, errorType: 'api_error', message: 'Service Unavailable' },
      'timeout',
    ],
    [
      '503 saying overloaded',
      { type: 'http', status: 503, errorType: 'overloaded_error', message: 'Overloaded' },
      'overloaded',
    ],
    ['529 overloaded_error', { type: 'overloaded' }, 'overloaded', { status: 529 }],
    [
      '400 prompt is too long',
      { type: 'prompt_too_long', tokens: 213_462, maximum: 200_000 },
      'context_overflow',
      { status: 400, observedTokens: 213_462 },
    ],
    ['404 model not found', { type: 'model_not_found' }, 'model_not_found', { status: 404 }],
    [
      '400 bad tool id',
      {
        type: 'http',
        status: 400,
        errorType: 'invalid_request_error',
        message: 'messages.1.content.0.tool_use.id: String should match pattern',
      },
      'format',
    ],
    [
      '408 request timeout',
      { type: 'http', status: 408, errorType: 'timeout_error', message: 'Request timeout' },
      'timeout',
    ],
  ];
  for (const [name, fault, errorClass, facts] of faults) {
    it(`${name} → ${errorClass}`, async () => {
      const fake = await startFake();
      fake.injectFault(fault);
      const { events, message } = await call(fake, hello);
      expect(types(events)).toEqual(['error']);
      expect(message.stopReason).toBe('error');
      expect(message.errorClass).toBe(errorClass);
      expect(message.errorCode).toBe(
        `MODEL_${errorClass === 'model_not_found' ? 'NOT_FOUND' : errorClass.toUpperCase()}`,
      );
      const error = ModelError.fromAssistantMessage(message)!;
      expect(error.errorClass).toBe(errorClass);
      for (const [key, value] of Object.entries(facts ?? {}))
        expect(error[key as keyof ModelError]).toEqual(value);
      expect(error.requestId).toMatch(/^req_fake_/);
      expect(isContextOverflow(message)).toBe(errorClass === 'context_overflow');
      // One request only: the SDK does not retry by itself (retries belong to the layers above).
      expect(fake.requests).toHaveLength(1);
    });
  }

  it('rate limit without a retry hint in seconds reads the default retry-after header', async () => {
    const fake = await startFake();
    fake.injectFault({ type: 'rate_limit' });
    const { message } = await call(fake, hello);
    expect(message.errorDetails?.retryAfterMs).toBe(1000);
  });

  it('an overloaded error mid-stream keeps the partial text', async () => {
    const fake = await startFake();
    fake.enqueue({
      text: 'a long answer that will be interrupted',
      fault: { type: 'stream_error', afterEvents: 5 },
    });
    const { events, message } = await call(fake, hello);
    expect(types(events).slice(0, 3)).toEqual(['start', 'text_start', 'text_delta']);
    expect(message.errorClass).toBe('overloaded');
    expect((message.content[0] as { text: string }).text.length).toBeGreaterThan(0);
  });

  it('a stream cut mid-way (socket reset) ends as timeout with the partial content kept', async () => {
    const fake = await startFake();
    fake.enqueue({
      text: 'one two three four five six seven eight nine ten',
      fault: { type: 'stream_cut', afterEvents: 5 },
    });
    const { message } = await call(fake, hello);
    expect(message.stopReason).toBe('error');
    expect(message.errorClass).toBe('timeout');
    expect((message.content[0] as { text: string }).text).toBe(
      'one two three four five six seven eight nine ten'.slice(0, 32),
    );
  });

  it('a stream that ends cleanly before message_stop is an error, not a silent success', async () => {
    const fake = await startFake();
    fake.enqueue({
      text: 'one two three four five six seven',
      fault: { type: 'stream_cut', afterEvents: 4, mode: 'end' },
    });
    const { message } = await call(fake, hello);
    expect(message.errorClass).toBe('timeout');
    expect(message.errorMessage).toContain('ended before message_stop');
  });

  it('malformed stream data ends as timeout', async () => {
    const fake = await startFake();
    fake.enqueue({
      text: 'one two three four five six seven',
      fault: { type: 'malformed_json', afterEvents: 3 },
    });
    const { message } = await call(fake, hello);
    expect(message.errorClass).toBe('timeout');
    expect(message.errorMessage).toContain('malformed');
  });

  it('a hang hits the request timeout; the fake sees the client leave', async () => {
    const fake = await startFake();
    fake.injectFault({ type: 'hang' });
    const { message } = await call(fake, hello, { timeoutMs: 100 });
    expect(message.errorClass).toBe('timeout');
    const response = await fake.lastRequest!.settled();
    expect(response.clientClosedEarly).toBe(true);
  });

  it('a stalled stream hits the idle timeout', async () => {
    const fake = await startFake();
    fake.enqueue({ text: 'slow words arrive one by one', latency: { chunkMs: 400 } });
    const { message } = await call(fake, hello, { idleTimeoutMs: 60 });
    expect(message.errorClass).toBe('timeout');
    expect(message.errorMessage).toContain('idle timeout');
  });

  it('no credential: a no_credentials error (not a rejected key), and no request is sent', async () => {
    const fake = await startFake();
    const provider = createAnthropicProvider({ baseUrl: fake.baseURL });
    const { message } = await collectStream(provider.stream(haiku, hello, {}));
    expect(message.errorClass).toBe('no_credentials');
    expect(message.errorCode).toBe('MODEL_CREDENTIALS_MISSING');
    expect(ModelError.fromAssistantMessage(message)?.retryable).toBe(false);
    expect(message.errorMessage).toBe(
      'No API key or auth token for provider anthropic (model claude-haiku-4-5).',
    );
    expect(fake.requests).toHaveLength(0);
  });

  it('a model whose api has no provider ends as CORE_LOOP_NO_PROVIDER', async () => {
    const streamFn = createStreamFunction([createAnthropicProvider({ apiKey: 'k' })]);
    const { message } = await collectStream(
      await streamFn(anthropicModel('x', { api: 'openai-completions' }), hello, {}),
    );
    expect(message.errorCode).toBe('CORE_LOOP_NO_PROVIDER');
    expect(message.errorMessage).toContain('No model provider for api "openai-completions"');
  });
});

describe('Anthropic provider: aborts (case 52)', () => {
  it('abort mid-stream: aborted message with the partial text; the HTTP request is closed', async () => {
    const fake = await startFake({ latency: { chunkMs: 15 }, textChunkSize: 4 });
    fake.enqueue({ text: 'a fairly long answer that streams slowly' });
    const controller = new AbortController();
    const provider = createAnthropicProvider({ apiKey: 'k', baseUrl: fake.baseURL });
    const stream = provider.stream(haiku, hello, { signal: controller.signal });
    const events: AssistantStreamEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === 'text_delta') controller.abort();
    }
    const message = await stream.result();
    expect(message.stopReason).toBe('aborted');
    expect(message.errorClass).toBe('aborted');
    expect(message.errorMessage).toBe('Request was aborted');
    expect((message.content[0] as { text: string }).text).toBe('a fa');
    const response = await fake.lastRequest!.settled();
    expect(response.clientClosedEarly).toBe(true);
    expect(response.finished).toBe(false);
  });

  it('an already-aborted signal: aborted at once, no request sent; then a new message works', async () => {
    const fake = await startFake();
    const controller = new AbortController();
    controller.abort();
    const { message } = await call(fake, hello, { signal: controller.signal });
    expect(message.stopReason).toBe('aborted');
    expect(fake.requests).toHaveLength(0);
    const history: Message[] = [...hello.messages, message, { role: 'user', content: 'again', timestamp: 3 }];
    fake.enqueue({ text: 'fine' });
    const next = await call(fake, { messages: history });
    expect(next.message.content).toEqual([{ type: 'text', text: 'fine' }]);
    expect(fake.lastRequest!.messages).toHaveLength(1);
  });

  it('abort while waiting for the headers', async () => {
    const fake = await startFake();
    fake.injectFault({ type: 'hang' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const { message } = await call(fake, hello, { signal: controller.signal });
    expect(message.stopReason).toBe('aborted');
    expect((await fake.lastRequest!.settled()).clientClosedEarly).toBe(true);
  });
});
