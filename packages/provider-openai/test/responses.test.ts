import type { AssistantStreamEvent, LlmContext } from '@switchboard/core-loop';
import type { AssistantMessage, Message } from '@switchboard/hooks';
import { createFakeOpenAI, type FakeOpenAI } from '@switchboard/testkit/openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAIModel } from '../src/models.ts';
import { createOpenAIResponsesProvider } from '../src/responses.ts';

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const tools = [
  {
    name: 'lookup',
    description: 'Looks a word up',
    parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  },
];

async function run(
  context: LlmContext,
  thinkingLevel: 'off' | 'medium' = 'medium',
): Promise<{ events: AssistantStreamEvent[]; result: AssistantMessage }> {
  if (fake === undefined) throw new Error('start the fake first');
  const model = createOpenAIModel({
    api: 'openai-responses',
    provider: 'openai',
    id: 'gpt-5',
    baseUrl: fake.baseURL,
  });
  const stream = createOpenAIResponsesProvider().stream(model, context, { apiKey: 'sk-test', thinkingLevel });
  const events: AssistantStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return { events, result: await stream.result() };
}

describe('openai-responses provider', () => {
  it('streams a reasoning summary, text and two function calls, then replays them statelessly', async () => {
    fake = await createFakeOpenAI().start();
    fake.enqueue({
      reasoning: 'Need two lookups.',
      text: 'Looking up.',
      toolCalls: [
        { name: 'lookup', arguments: { word: 'alpha' } },
        { name: 'lookup', arguments: { word: 'beta' } },
      ],
      usage: { promptTokens: 50, completionTokens: 20, cachedTokens: 10 },
    });
    const first = await run({
      systemPrompt: 'You look things up.',
      messages: [{ role: 'user', content: 'Define two words', timestamp: 1 }],
      tools,
    });
    expect(first.result.stopReason).toBe('toolUse');
    expect(first.result.responseId).toBe('resp_fake_1');
    expect(first.result.usage).toMatchObject({ input: 40, output: 20, cacheRead: 10 });
    const [thinking, text, ...calls] = first.result.content;
    expect(thinking).toMatchObject({ type: 'thinking', thinking: 'Need two lookups.' });
    expect(JSON.parse((thinking as { signature: string }).signature)).toMatchObject({
      type: 'reasoning',
      id: 'rs_fake_1',
      encrypted_content: 'enc_fake_1',
    });
    expect(text).toEqual({ type: 'text', text: 'Looking up.' });
    expect(calls).toEqual([
      { type: 'toolCall', id: 'call_1_0', name: 'lookup', arguments: { word: 'alpha' } },
      { type: 'toolCall', id: 'call_1_1', name: 'lookup', arguments: { word: 'beta' } },
    ]);
    expect(first.events.filter((event) => event.type === 'thinking_delta').length).toBeGreaterThan(1);
    expect(first.events.filter((event) => event.type === 'toolcall_delta').length).toBeGreaterThanOrEqual(6);
    const request = fake.modelRequests[0]?.body as Record<string, unknown>;
    expect(request).toMatchObject({
      instructions: 'You look things up.',
      store: false,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'medium', summary: 'auto' },
    });

    fake.enqueue({ text: 'Alpha is first; beta second.' });
    const history: Message[] = [
      { role: 'user', content: 'Define two words', timestamp: 1 },
      first.result,
      ...calls.map(
        (call, index): Message => ({
          role: 'toolResult',
          toolCallId: (call as { id: string }).id,
          toolName: 'lookup',
          content: [{ type: 'text', text: `definition ${index}` }],
          isError: false,
          timestamp: 3,
        }),
      ),
    ];
    const second = await run({ messages: history, tools });
    expect(second.result.stopReason).toBe('stop');
    expect(second.result.content).toEqual([{ type: 'text', text: 'Alpha is first; beta second.' }]);
    const input = (fake.modelRequests[1]!.body as { input: Array<Record<string, unknown>> }).input;
    expect(input.map((item) => item.type ?? item.role)).toEqual([
      'user',
      'reasoning',
      'assistant',
      'function_call',
      'function_call',
      'function_call_output',
      'function_call_output',
    ]);
    expect(input[1]).toMatchObject({ id: 'rs_fake_1', encrypted_content: 'enc_fake_1' });
    expect(input[5]).toEqual({ type: 'function_call_output', call_id: 'call_1_0', output: 'definition 0' });
  });

  it('ends as length on max_output_tokens, and classifies failures and mid-stream errors', async () => {
    fake = await createFakeOpenAI().start();
    fake.enqueue({ text: 'trunc', finishReason: 'max_output_tokens' });
    expect((await run({ messages: [{ role: 'user', content: 'x', timestamp: 1 }] })).result.stopReason).toBe(
      'length',
    );
    fake.injectFault({ type: 'rate_limit', retryAfterSeconds: 2 });
    const limited = await run({ messages: [{ role: 'user', content: 'x', timestamp: 1 }] });
    expect(limited.result).toMatchObject({ errorClass: 'rate_limit', errorDetails: { retryAfterMs: 2000 } });
    fake.enqueue({ text: 'partial answer', fault: { type: 'stream_error' } });
    expect((await run({ messages: [{ role: 'user', content: 'x', timestamp: 1 }] })).result.errorClass).toBe(
      'timeout',
    );
    fake.enqueue({ text: 'partial answer', fault: { type: 'stream_cut', afterEvents: 2 } });
    expect((await run({ messages: [{ role: 'user', content: 'x', timestamp: 1 }] })).result.errorClass).toBe(
      'timeout',
    );
  });
});
