// The e2e cases of agent-loop-cases.md (22-30): the Agent with the Anthropic provider and
// the real SDK against testkit's fake Messages API, which plays the model.
import type { AssistantMessage, Message, ToolResultMessage } from '@switchboard/hooks';
import {
  createFakeAnthropic,
  type FakeAnthropic,
  messageText,
  type RecordedRequest,
} from '@switchboard/testkit/anthropic';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAnthropicProvider } from '../src/anthropic.ts';
import { Agent, type AgentEvent, anthropicModel, createStreamFunction, defineTool } from '../src/index.ts';

const started: FakeAnthropic[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()));
});

async function setup(options: Parameters<typeof createFakeAnthropic>[0] = {}) {
  const fake = await createFakeAnthropic(options).start();
  started.push(fake);
  const streamFn = createStreamFunction([createAnthropicProvider({ baseUrl: fake.baseURL })]);
  return { fake, streamFn };
}

const model = anthropicModel('claude-sonnet-4-6');

/** The last tool_result text of a request, if any. */
function lastToolResult(request: RecordedRequest): string | undefined {
  for (const message of [...request.messages].reverse()) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type === 'tool_result') {
        const content = block.content as Array<{ text?: string }> | undefined;
        return content?.map((part) => part.text ?? '').join('') ?? '';
      }
    }
  }
  return undefined;
}

const calculator = defineTool({
  name: 'calculator',
  description: 'Evaluate a product of two integers',
  parameters: z.object({ a: z.number().int(), b: z.number().int() }),
  async execute(_id, { a, b }) {
    return { content: [{ type: 'text', text: String(a * b) }], details: { a, b } };
  },
});

describe('Agent end to end through the SDK and the fake API (cases 22-30)', () => {
  it('case 22: a basic text prompt leaves user + assistant, not streaming, the answer contains 4', async () => {
    const { fake, streamFn } = await setup();
    fake.enqueue((request) => ({ text: request.lastUserText === 'What is 2+2?' ? 'It is 4.' : 'no idea' }));
    const agent = new Agent({ model, streamFn, getApiKey: () => 'sk-e2e' });
    await agent.prompt('What is 2+2?');
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.messages.map((message) => (message as Message).role)).toEqual(['user', 'assistant']);
    const answer = agent.state.messages[1] as AssistantMessage;
    expect((answer.content[0] as { text: string }).text).toContain('4');
    expect(fake.lastRequest!.credential).toBe('sk-e2e');
  });

  it('case 23: tools run for real: 123 × 456 = 56088 reaches the model and the answer', async () => {
    const { fake, streamFn } = await setup();
    fake.enqueue({ toolCalls: [{ name: 'calculator', input: { a: 123, b: 456 } }] }, (request) => ({
      text: `123 × 456 = ${lastToolResult(request)}`,
    }));
    const agent = new Agent({ model, streamFn, tools: [calculator], getApiKey: () => 'k' });
    await agent.prompt('What is 123 × 456?');
    const messages = agent.state.messages;
    expect(messages.length).toBeGreaterThanOrEqual(3);
    const toolResult = messages.find(
      (message) => (message as Message).role === 'toolResult',
    ) as ToolResultMessage;
    expect((toolResult.content[0] as { text: string }).text).toContain('56088');
    const final = messages.at(-1) as AssistantMessage;
    expect((final.content[0] as { text: string }).text).toMatch(/56,?088/);
    expect(fake.requests[0]!.toolNames).toEqual(['calculator']);
  });

  it('case 24: abort during a multi-step run: aborted last, state.error set, the request closed', async () => {
    const { fake, streamFn } = await setup({ textChunkSize: 4 });
    fake.enqueue(
      { toolCalls: [{ name: 'calculator', input: { a: 2, b: 3 } }] },
      { text: 'working on the next step, slowly and carefully', latency: { chunkMs: 25 } },
    );
    const agent = new Agent({ model, streamFn, tools: [calculator], getApiKey: () => 'k' });
    agent.subscribe((event) => {
      if (event.type === 'message_update' && event.assistantEvent.type === 'text_delta') agent.abort();
    });
    await agent.prompt('Multi-step task');
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.messages.length).toBeGreaterThanOrEqual(2);
    const last = agent.state.messages.at(-1) as AssistantMessage;
    expect(last.stopReason).toBe('aborted');
    expect(last.errorMessage).toBeDefined();
    expect(agent.state.error).toBe(last.errorMessage);
    const response = await fake.lastRequest!.settled();
    expect(response.clientClosedEarly).toBe(true);
  });

  it('case 25: listeners see the lifecycle and message updates; history ends with 2 messages', async () => {
    const { fake, streamFn } = await setup({ textChunkSize: 5 });
    fake.enqueue({ text: 'streamed in several pieces' });
    const agent = new Agent({ model, streamFn, getApiKey: () => 'k' });
    const types: AgentEvent['type'][] = [];
    agent.subscribe((event) => types.push(event.type));
    await agent.prompt('Stream please');
    for (const type of ['agent_start', 'agent_end', 'message_start', 'message_end'] as const)
      expect(types).toContain(type);
    expect(types.filter((type) => type === 'message_update').length).toBeGreaterThan(1);
    expect(agent.state.messages).toHaveLength(2);
  });

  it('case 26: context carries across prompts (my name is Alice)', async () => {
    const { fake, streamFn } = await setup();
    fake.setFallback((request) => {
      const everything = request.messages.map(messageText).join(' ');
      const name = /my name is (\w+)/i.exec(everything)?.[1];
      return {
        text:
          request.lastUserText === 'What is my name?'
            ? `Your name is ${name ?? 'unknown'}.`
            : 'Nice to meet you.',
      };
    });
    const agent = new Agent({ model, streamFn, getApiKey: () => 'k' });
    await agent.prompt('My name is Alice');
    expect(agent.state.messages).toHaveLength(2);
    await agent.prompt('What is my name?');
    expect(agent.state.messages).toHaveLength(4);
    const answer = agent.state.messages[3] as AssistantMessage;
    expect((answer.content[0] as { text: string }).text.toLowerCase()).toContain('alice');
  });

  it('case 28/29: continue() refuses an assistant tail, and answers a manually placed user message', async () => {
    const { fake, streamFn } = await setup();
    fake.enqueue({ text: 'continued' });
    const agent = new Agent({ model, streamFn, getApiKey: () => 'k' });
    agent.appendMessage({ role: 'user', content: 'placed by hand', timestamp: 1 });
    await agent.continue();
    expect(agent.state.messages.map((message) => (message as Message).role)).toEqual(['user', 'assistant']);
    await expect(agent.continue()).rejects.toThrow(/Cannot continue from message role: assistant/);
  });

  it('case 30: continue() after a tool call made by another provider uses the result (mentions 8)', async () => {
    const { fake, streamFn } = await setup();
    fake.enqueue((request) => ({ text: `The result is ${lastToolResult(request)}.` }));
    const agent = new Agent({ model, streamFn, getApiKey: () => 'k' });
    agent.replaceMessages([
      { role: 'user', content: 'Compute 2*4 with the calculator', timestamp: 1 },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Use the tool.' },
          { type: 'toolCall', id: 'call_9f|fc_1', name: 'calculator', arguments: { a: 2, b: 4 } },
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
      },
      {
        role: 'toolResult',
        toolCallId: 'call_9f|fc_1',
        toolName: 'calculator',
        content: [{ type: 'text', text: '8' }],
        isError: false,
        timestamp: 3,
      },
    ]);
    await agent.continue();
    const last = agent.state.messages.at(-1) as AssistantMessage;
    expect((last.content[0] as { text: string }).text).toContain('8');
  });

  it('a model error from the API ends the run with its class; usage accumulates on the agent', async () => {
    const { fake, streamFn } = await setup();
    fake.enqueue({
      text: 'ok',
      usage: { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 500 },
    });
    fake.injectFault(
      { type: 'prompt_too_long', tokens: 250_000 },
      { match: (request) => request.sequence === 2 },
    );
    const agent = new Agent({ model, streamFn, getApiKey: () => 'k' });
    await agent.prompt('first');
    await agent.prompt('second');
    const last = agent.state.messages.at(-1) as AssistantMessage;
    expect(last.errorClass).toBe('context_overflow');
    expect(last.errorDetails?.observedTokens).toBe(250_000);
    expect(agent.state.usage.calls).toBe(1);
    expect(agent.state.usage.contextTokens).toBe(600);
  });

  it('the default stream function (lazy Anthropic provider) works with per-call endpoint options', async () => {
    const { fake } = await setup();
    fake.enqueue({ text: 'from the default provider' });
    const agent = new Agent({ model, streamOptions: { baseUrl: fake.baseURL, apiKey: 'sk-default' } });
    await agent.prompt('hi');
    const last = agent.state.messages.at(-1) as AssistantMessage;
    expect(last.content).toEqual([{ type: 'text', text: 'from the default provider' }]);
    expect(fake.lastRequest!.credential).toBe('sk-default');
  });
});
