import { type AssistantStreamEvent, type LlmContext, ModelError } from '@switchboard/core-loop';
import type { AssistantMessage, Message } from '@switchboard/hooks';
import { createFakeOpenAI, type FakeOpenAI, type ServerFamily } from '@switchboard/testkit/openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAICompletionsProvider } from '../src/completions.ts';
import { createOpenAIModel } from '../src/models.ts';

const fakes: FakeOpenAI[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

async function startFake(family: ServerFamily = 'openai'): Promise<FakeOpenAI> {
  const fake = await createFakeOpenAI({ family }).start();
  fakes.push(fake);
  return fake;
}

const tools = [
  {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { city: { type: 'string', pattern: '^[A-Z]', maxLength: 40 } },
      required: ['city'],
    },
  },
];

function userMessage(text: string): Message {
  return { role: 'user', content: text, timestamp: 1 };
}

async function run(
  fake: FakeOpenAI,
  context: LlmContext,
  options: {
    apiKey?: string;
    signal?: AbortSignal;
    compat?: Record<string, unknown>;
    reasoning?: boolean;
    thinking?: 'high';
  } = {},
): Promise<{ events: AssistantStreamEvent[]; result: AssistantMessage }> {
  const provider = createOpenAICompletionsProvider();
  const model = createOpenAIModel({
    api: 'openai-completions',
    provider: 'local',
    id: 'gpt-fake',
    baseUrl: fake.baseURL,
    input: ['text', 'image'],
    reasoning: options.reasoning,
    compat: options.compat,
  });
  const stream = provider.stream(model, context, {
    apiKey: options.apiKey ?? 'sk-test',
    signal: options.signal,
    thinkingLevel: options.thinking,
  });
  const events: AssistantStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return { events, result: await stream.result() };
}

describe('openai-completions provider', () => {
  it('streams reasoning, text and two parallel tool calls whose arguments arrive in pieces', async () => {
    const fake = await startFake();
    fake.enqueue({
      reasoning: 'Two cities, two calls.',
      text: 'Checking both cities.',
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris' }, argumentChunks: 4 },
        { name: 'get_weather', arguments: { city: 'Oslo' }, argumentChunks: 4 },
      ],
      usage: { promptTokens: 120, completionTokens: 30, cachedTokens: 100 },
    });
    const { events, result } = await run(fake, {
      systemPrompt: 'Be brief.',
      messages: [userMessage('Weather?')],
      tools,
    });
    expect(result.stopReason).toBe('toolUse');
    expect(result.content).toEqual([
      { type: 'thinking', thinking: 'Two cities, two calls.' },
      { type: 'text', text: 'Checking both cities.' },
      { type: 'toolCall', id: 'call_1_0', name: 'get_weather', arguments: { city: 'Paris' } },
      { type: 'toolCall', id: 'call_1_1', name: 'get_weather', arguments: { city: 'Oslo' } },
    ]);
    expect(events.filter((event) => event.type === 'text_delta').length).toBeGreaterThan(1);
    expect(events.filter((event) => event.type === 'toolcall_delta').length).toBeGreaterThanOrEqual(6);
    expect(events.filter((event) => event.type === 'toolcall_end')).toHaveLength(2);
    expect(events.at(-1)?.type).toBe('done');
    // Cached prompt tokens are reported apart from the uncached input.
    expect(result.usage).toMatchObject({ input: 20, output: 30, cacheRead: 100 });
    const body = fake.modelRequests[0]?.body as Record<string, unknown>;
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.max_tokens).toBe(8192);
    expect((body.messages as Array<{ role: string }>)[0]).toEqual({ role: 'system', content: 'Be brief.' });
    // The full profile keeps validation keywords and drops only $schema.
    const sent = (body.tools as Array<{ function: { parameters: Record<string, unknown> } }>)[0]?.function
      .parameters;
    expect(sent).toEqual({
      type: 'object',
      properties: { city: { type: 'string', pattern: '^[A-Z]', maxLength: 40 } },
      required: ['city'],
    });
  });

  it('replays a tool round-trip with images, and applies compat flags', async () => {
    const fake = await startFake();
    fake.enqueue({ text: 'Done.' });
    const history: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look' },
          { type: 'image', mediaType: 'image/png', data: 'AAAA' },
        ],
        timestamp: 1,
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'private', signature: 'sig' },
          {
            type: 'toolCall',
            id: 'toolu_01:anthropic/id',
            name: 'get_weather',
            arguments: { city: 'Paris' },
          },
        ],
        provider: 'anthropic',
        model: 'claude-sonnet-4-6',
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
      },
      {
        role: 'toolResult',
        toolCallId: 'toolu_01:anthropic/id',
        toolName: 'get_weather',
        content: [{ type: 'text', text: 'sunny' }],
        isError: false,
        timestamp: 3,
      },
    ];
    const { result } = await run(
      fake,
      { messages: history, tools },
      {
        compat: {
          requiresToolResultName: true,
          maxTokensField: 'max_completion_tokens',
          toolSchemaProfile: 'llama-cpp',
        },
      },
    );
    expect(result.stopReason).toBe('stop');
    const body = fake.modelRequests[0]?.body as Record<string, unknown>;
    expect(body.max_completion_tokens).toBe(8192);
    expect(body.max_tokens).toBeUndefined();
    const messages = body.messages as Array<Record<string, unknown>>;
    expect(messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Look' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      ],
    });
    // Anthropic's thinking is dropped; the foreign id is normalized the same for call and result.
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'toolu_01_anthropic_id',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
        },
      ],
    });
    expect(messages[2]).toEqual({
      role: 'tool',
      tool_call_id: 'toolu_01_anthropic_id',
      content: 'sunny',
      name: 'get_weather',
    });
    const sent = (body.tools as Array<{ function: { parameters: Record<string, unknown> } }>)[0]?.function
      .parameters;
    expect(sent).toEqual({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });
  });

  it('sends reasoning_effort only to a reasoning model whose server supports it', async () => {
    const fake = await startFake();
    fake.enqueue({ text: 'a' }, { text: 'b' });
    await run(fake, { messages: [userMessage('hi')] }, { reasoning: true, thinking: 'high' });
    await run(
      fake,
      { messages: [userMessage('hi')] },
      {
        reasoning: true,
        thinking: 'high',
        compat: { supportsReasoningEffort: true, supportsDeveloperRole: true },
      },
    );
    expect(fake.modelRequests[0]?.body?.reasoning_effort).toBeUndefined();
    expect(fake.modelRequests[1]?.body?.reasoning_effort).toBe('high');
  });

  it.each([
    [
      'openai',
      { type: 'rate_limit', retryAfterSeconds: 7 },
      'rate_limit',
      { status: 429, retryAfterMs: 7000 },
    ],
    ['openai', { type: 'quota' }, 'billing', { status: 429 }],
    ['openai', { type: 'authentication' }, 'auth', { status: 401 }],
    ['openai', { type: 'server' }, 'timeout', { status: 500 }],
    ['openai', { type: 'overloaded' }, 'overloaded', { status: 503 }],
    ['openai', { type: 'model_not_found' }, 'model_not_found', { status: 404 }],
    [
      'openai',
      { type: 'context_overflow', tokens: 130_000, maximum: 128_000 },
      'context_overflow',
      { observedTokens: 130_000 },
    ],
    [
      'vllm',
      { type: 'context_overflow', tokens: 40_000, maximum: 32_768 },
      'context_overflow',
      { observedTokens: 40_000 },
    ],
    ['llama-cpp', { type: 'context_overflow' }, 'context_overflow', { status: 400 }],
    ['llama-cpp', { type: 'authentication' }, 'auth', { status: 401 }],
    [
      'vllm',
      {
        type: 'http',
        status: 400,
        body: '{"object":"error","message":"tools.0.function.parameters: invalid schema","type":"BadRequestError","param":null,"code":400}',
      },
      'format',
      { status: 400 },
    ],
  ] as const)('classifies %s %j as %s', async (family, fault, errorClass, details) => {
    const fake = await startFake(family);
    fake.injectFault(fault);
    const { result, events } = await run(fake, { messages: [userMessage('hi')] });
    expect(events.at(-1)?.type).toBe('error');
    expect(result.stopReason).toBe('error');
    expect(result.errorClass).toBe(errorClass);
    expect(result.errorDetails).toMatchObject(details);
  });

  it('classifies a cut stream and a mid-stream error as retryable timeouts, keeping the partial text', async () => {
    const fake = await startFake();
    fake.enqueue({ text: 'a long answer that is cut', fault: { type: 'stream_cut', afterEvents: 3 } });
    const cut = await run(fake, { messages: [userMessage('hi')] });
    expect(cut.result.errorClass).toBe('timeout');
    expect(cut.result.content).toEqual([{ type: 'text', text: 'a long answer th' }]);
    fake.enqueue({
      text: 'partial',
      fault: { type: 'stream_error', message: 'The server had an error while processing your request.' },
    });
    const broken = await run(fake, { messages: [userMessage('hi')] });
    expect(broken.result.errorClass).toBe('timeout');
  });

  it('aborts down to the HTTP request', async () => {
    const fake = await startFake();
    const controller = new AbortController();
    controller.abort();
    const { result } = await run(fake, { messages: [userMessage('hi')] }, { signal: controller.signal });
    expect(result.stopReason).toBe('aborted');
    expect(result.errorClass).toBe('aborted');
    expect(fake.modelRequests).toHaveLength(0);
  });

  it('calls a loopback server without a key, but never a remote one', async () => {
    const fake = await startFake();
    fake.enqueue({ text: 'local ok' });
    const provider = createOpenAICompletionsProvider();
    const local = createOpenAIModel({
      api: 'openai-completions',
      provider: 'local',
      id: 'm',
      baseUrl: fake.baseURL,
    });
    const localResult = await provider.stream(local, { messages: [userMessage('hi')] }, {}).result();
    expect(localResult.content).toEqual([{ type: 'text', text: 'local ok' }]);
    const remote = createOpenAIModel({ api: 'openai-completions', provider: 'openai', id: 'gpt-5' });
    const remoteResult = await provider.stream(remote, { messages: [userMessage('hi')] }, {}).result();
    expect(remoteResult.errorClass).toBe('no_credentials');
    expect(ModelError.fromAssistantMessage(remoteResult)?.isFailover).toBe(true);
  });
});
