import type { AssistantStreamEvent, LlmContext, ThinkingLevel } from '@switchboard/core-loop';
import type { AssistantMessage, Message } from '@switchboard/hooks';
import { createFakeOllama, type FakeOllama } from '@switchboard/testkit/ollama';
import { afterEach, describe, expect, it } from 'vitest';
import { discoverOllamaModels } from '../src/discovery.ts';
import { ProviderOllamaError, providerOllamaErrorCodes } from '../src/errors.ts';
import { createOllamaModel } from '../src/models.ts';
import { createOllamaProvider } from '../src/provider.ts';

let fake: FakeOllama | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const tools = [
  {
    name: 'read_file',
    description: 'Reads a file',
    parameters: {
      $schema: 'x',
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
    },
  },
];

let counter = 0;
async function run(
  context: LlmContext,
  settings: {
    contextWindow?: number;
    reasoning?: boolean;
    thinkingLevel?: ThinkingLevel;
    id?: string;
    signal?: AbortSignal;
  } = {},
): Promise<{ events: AssistantStreamEvent[]; result: AssistantMessage }> {
  if (fake === undefined) throw new Error('start the fake first');
  const model = createOllamaModel({
    provider: 'ollama',
    id: settings.id ?? 'llama3.2:latest',
    baseUrl: fake.host,
    input: ['text', 'image'],
    contextWindow: settings.contextWindow,
    reasoning: settings.reasoning,
  });
  const provider = createOllamaProvider({ createId: () => `call_${++counter}` });
  const stream = provider.stream(model, context, {
    thinkingLevel: settings.thinkingLevel,
    signal: settings.signal,
  });
  const events: AssistantStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return { events, result: await stream.result() };
}

describe('ollama provider', () => {
  it('streams thinking, text and two tool calls, sends num_ctx and think, and replays the round-trip', async () => {
    fake = await createFakeOllama().start();
    counter = 0;
    fake.enqueue({
      reasoning: 'Read both files.',
      text: 'Reading them now.',
      toolCalls: [
        { name: 'read_file', arguments: { path: 'a.txt' } },
        { name: 'read_file', arguments: { path: 'b.txt' } },
      ],
      usage: { promptTokens: 80, completionTokens: 12 },
    });
    const first = await run(
      {
        systemPrompt: 'You read files.',
        messages: [{ role: 'user', content: 'Read a and b', timestamp: 1 }],
        tools,
      },
      { contextWindow: 16_384, reasoning: true, thinkingLevel: 'low' },
    );
    expect(first.result.stopReason).toBe('toolUse');
    expect(first.result.content).toEqual([
      { type: 'thinking', thinking: 'Read both files.' },
      { type: 'text', text: 'Reading them now.' },
      { type: 'toolCall', id: 'call_1', name: 'read_file', arguments: { path: 'a.txt' } },
      { type: 'toolCall', id: 'call_2', name: 'read_file', arguments: { path: 'b.txt' } },
    ]);
    expect(first.result.usage).toMatchObject({ input: 80, output: 12 });
    expect(first.events.filter((event) => event.type === 'text_delta').length).toBeGreaterThan(1);
    expect(first.events.filter((event) => event.type === 'toolcall_end')).toHaveLength(2);
    const request = fake.chatRequests[0]?.body as Record<string, unknown>;
    expect(request).toMatchObject({
      stream: true,
      think: true,
      options: { num_ctx: 16_384, num_predict: 8192 },
    });
    expect(
      (request.tools as Array<{ function: { parameters: Record<string, unknown> } }>)[0]?.function.parameters,
    ).toEqual({
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
    });

    fake.enqueue({ text: 'Both read.' });
    const history: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Read a and b' },
          { type: 'image', mediaType: 'image/png', data: 'QUJD' },
        ],
        timestamp: 1,
      },
      first.result,
      {
        role: 'toolResult',
        toolCallId: 'call_1',
        toolName: 'read_file',
        content: [{ type: 'text', text: 'A' }],
        isError: false,
        timestamp: 2,
      },
      {
        role: 'toolResult',
        toolCallId: 'call_2',
        toolName: 'read_file',
        content: [{ type: 'text', text: 'B' }],
        isError: false,
        timestamp: 2,
      },
    ];
    const second = await run({ messages: history, tools }, { reasoning: true, thinkingLevel: 'off' });
    expect(second.result.content).toEqual([{ type: 'text', text: 'Both read.' }]);
    const replay = fake.chatRequests[1]?.body as {
      messages: Array<Record<string, unknown>>;
      think?: unknown;
    };
    expect(replay.think).toBe(false);
    expect(replay.messages).toEqual([
      { role: 'user', content: 'Read a and b', images: ['QUJD'] },
      {
        role: 'assistant',
        content: 'Reading them now.',
        thinking: 'Read both files.',
        tool_calls: [
          { function: { name: 'read_file', arguments: { path: 'a.txt' } } },
          { function: { name: 'read_file', arguments: { path: 'b.txt' } } },
        ],
      },
      { role: 'tool', content: 'A', tool_name: 'read_file' },
      { role: 'tool', content: 'B', tool_name: 'read_file' },
    ]);
  });

  it('refuses a prompt larger than the window (Ollama would truncate it) as a context overflow', async () => {
    fake = await createFakeOllama().start();
    const { result } = await run(
      { messages: [{ role: 'user', content: 'x'.repeat(4000), timestamp: 1 }] },
      { contextWindow: 500 },
    );
    expect(result.errorClass).toBe('context_overflow');
    expect(result.errorDetails?.observedTokens).toBe(1000);
    expect(fake.chatRequests).toHaveLength(0);
  });

  it.each([
    [{ type: 'model_not_found' }, 'model_not_found', 404],
    [{ type: 'server' }, 'timeout', 500],
    [{ type: 'overloaded' }, 'timeout', 503],
    [{ type: 'rate_limit', retryAfterSeconds: 3 }, 'rate_limit', 429],
    [{ type: 'authentication' }, 'auth', 401],
  ] as const)('classifies %j as %s', async (fault, errorClass, status) => {
    fake = await createFakeOllama().start();
    fake.injectFault(fault);
    const { result, events } = await run({ messages: [{ role: 'user', content: 'hi', timestamp: 1 }] });
    expect(events.at(-1)?.type).toBe('error');
    expect(result.errorClass).toBe(errorClass);
    expect(result.errorDetails?.status).toBe(status);
  });

  it('treats a cut stream and an error line as retryable timeouts, and honours abort', async () => {
    fake = await createFakeOllama().start();
    fake.enqueue({ text: 'some long text here', fault: { type: 'stream_cut', afterEvents: 1 } });
    expect((await run({ messages: [{ role: 'user', content: 'hi', timestamp: 1 }] })).result.errorClass).toBe(
      'timeout',
    );
    fake.enqueue({ text: 'some long text here', fault: { type: 'stream_error' } });
    const broken = await run({ messages: [{ role: 'user', content: 'hi', timestamp: 1 }] });
    expect(broken.result.errorClass).toBe('timeout');
    expect(broken.result.errorMessage).toMatch(/unexpected EOF/);
    const controller = new AbortController();
    controller.abort();
    const aborted = await run(
      { messages: [{ role: 'user', content: 'hi', timestamp: 1 }] },
      { signal: controller.signal },
    );
    expect(aborted.result.stopReason).toBe('aborted');
  });

  it('classifies an unreachable server as a timeout (failover), not a crash', async () => {
    fake = await createFakeOllama().start();
    const host = fake.host;
    await fake.close();
    const model = createOllamaModel({ provider: 'ollama', id: 'llama3.2', baseUrl: host });
    const result = await createOllamaProvider()
      .stream(model, { messages: [{ role: 'user', content: 'hi', timestamp: 1 }] }, {})
      .result();
    expect(result.errorClass).toBe('timeout');
    fake = undefined;
  });
});

describe('ollama discovery', () => {
  it('lists chat models with context length and capabilities, skipping embedding models', async () => {
    fake = await createFakeOllama({
      models: [
        {
          name: 'qwen3:8b',
          family: 'qwen3',
          contextLength: 40_960,
          capabilities: ['completion', 'tools', 'thinking'],
        },
        { name: 'llava:7b', family: 'llama', contextLength: 4096, capabilities: ['completion', 'vision'] },
        { name: 'nomic-embed-text:latest', family: 'nomic-bert', capabilities: ['embedding'] },
      ],
    }).start();
    const models = await discoverOllamaModels({ baseUrl: fake.host });
    expect(
      models.map((model) => [model.id, model.contextWindow, model.tools, model.vision, model.thinking]),
    ).toEqual([
      ['qwen3:8b', 40_960, true, false, true],
      ['llava:7b', 4096, false, true, false],
    ]);
  });

  it('names the server when it cannot be asked', async () => {
    fake = await createFakeOllama().start();
    const host = fake.host;
    await fake.close();
    fake = undefined;
    const failure = discoverOllamaModels({ baseUrl: host });
    await expect(failure).rejects.toThrow(ProviderOllamaError);
    await expect(failure).rejects.toThrow(new RegExp(`Ollama server at ${host.replaceAll('.', '\\.')}`));
    for (const text of Object.values(providerOllamaErrorCodes)) expect(text.length).toBeGreaterThan(20);
  });
});
