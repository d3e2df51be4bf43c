// The low-level loop against agent-loop-cases.md: cases 1-9 (pi-mono agent-loop tests) and
// 31-50 (derived from the loop code), each named by its case number.
import type { AssistantMessage, Message, ToolResult, ToolResultMessage } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { skippedToolCallText } from '../src/agent-loop.ts';
import {
  type AgentContext,
  type AgentEvent,
  type AgentLoopConfig,
  type AgentMessage,
  type AnyAgentTool,
  agentLoop,
  agentLoopContinue,
  CoreLoopError,
  defaultConvertToLlm,
  defineTool,
  type StreamFunction,
} from '../src/index.ts';
import { collect, deferred, eventNames, scriptedModel, testModel, user } from './scripted-model.ts';

declare module '@switchboard/core-loop' {
  interface CustomAgentMessages {
    notification: { role: 'notification'; text: string; timestamp: number };
  }
}

const config: AgentLoopConfig = { model: testModel };

function echoTool(seen: unknown[] = []): AnyAgentTool {
  return defineTool({
    name: 'echo',
    description: 'Echo a value',
    parameters: z.object({ value: z.string() }),
    async execute(_id, args) {
      seen.push(args.value);
      return { content: [{ type: 'text', text: `echo: ${args.value}` }], details: { value: args.value } };
    },
  });
}

function run(
  prompts: AgentMessage[],
  context: Partial<AgentContext>,
  streamFn: StreamFunction,
  overrides: Partial<AgentLoopConfig> = {},
  signal?: AbortSignal,
) {
  return collect(
    agentLoop(
      prompts,
      { systemPrompt: 'sys', messages: [], ...context },
      { ...config, ...overrides },
      signal,
      streamFn,
    ),
  );
}

function toolEnds(events: AgentEvent[]) {
  return events.filter((event) => event.type === 'tool_execution_end');
}

describe('agent loop, cases 1-9 (pi-mono agent-loop tests)', () => {
  it('case 1: a plain prompt resolves with user + assistant and emits the lifecycle events', async () => {
    const model = scriptedModel({ text: 'hi there' });
    const { events, result } = await run([user('hello')], {}, model.streamFn);
    expect(result.map((message) => (message as Message).role)).toEqual(['user', 'assistant']);
    const names = new Set(events.map((event) => event.type));
    for (const type of [
      'agent_start',
      'turn_start',
      'message_start',
      'message_end',
      'turn_end',
      'agent_end',
    ]) {
      expect(names.has(type as AgentEvent['type'])).toBe(true);
    }
  });

  it('case 2: convertToLlm filters a custom notification message out of the model call', async () => {
    const model = scriptedModel({ text: 'ok' });
    const notification = { role: 'notification' as const, text: 'deployed', timestamp: 1 };
    await run([user('hello')], { messages: [notification] }, model.streamFn, {
      convertToLlm: (messages) => defaultConvertToLlm(messages),
    });
    expect(model.calls[0]?.context.messages).toHaveLength(1);
    expect(model.calls[0]?.context.messages[0]).toMatchObject({ role: 'user', content: 'hello' });
  });

  it('case 3: transformContext runs before convertToLlm on every call', async () => {
    const model = scriptedModel({ text: 'ok' });
    const order: string[] = [];
    let converted: readonly AgentMessage[] = [];
    const older = [user('one'), user('two'), user('three'), user('four')];
    await run([user('five')], { messages: older }, model.streamFn, {
      transformContext: async (messages) => {
        order.push('transform');
        return messages.slice(-2);
      },
      convertToLlm: (messages) => {
        order.push('convert');
        converted = messages;
        return defaultConvertToLlm(messages);
      },
    });
    expect(order).toEqual(['transform', 'convert']);
    expect(converted.map((message) => (message as { content: string }).content)).toEqual(['four', 'five']);
  });

  it('case 4: a tool call runs once with its arguments, then the model answers', async () => {
    const seen: unknown[] = [];
    const model = scriptedModel(
      { toolCalls: [{ name: 'echo', arguments: { value: 'hello' } }] },
      { text: 'done' },
    );
    const { events } = await run([user('go')], { tools: [echoTool(seen)] }, model.streamFn);
    expect(seen).toEqual(['hello']);
    expect(events.some((event) => event.type === 'tool_execution_start')).toBe(true);
    const end = toolEnds(events)[0];
    expect(end?.type === 'tool_execution_end' && end.isError).toBe(false);
    expect(model.calls).toHaveLength(2);
  });

  it('case 5: parallel tools overlap yet their results come in source order', async () => {
    const release = deferred();
    const started: string[] = [];
    let secondStartedBeforeFirstEnded = false;
    let firstDone = false;
    const slow = defineTool({
      name: 'slow',
      description: 'waits',
      parameters: z.object({}),
      async execute() {
        started.push('slow');
        await release.promise;
        firstDone = true;
        return { content: [{ type: 'text', text: 'slow done' }] };
      },
    });
    const fast = defineTool({
      name: 'fast',
      description: 'quick',
      parameters: z.object({}),
      async execute() {
        started.push('fast');
        secondStartedBeforeFirstEnded = !firstDone;
        setTimeout(() => release.resolve(), 20);
        return { content: [{ type: 'text', text: 'fast done' }] };
      },
    });
    const model = scriptedModel(
      {
        toolCalls: [
          { id: 'a', name: 'slow', arguments: {} },
          { id: 'b', name: 'fast', arguments: {} },
        ],
      },
      { text: 'ok' },
    );
    const { events } = await run([user('go')], { tools: [slow, fast] }, model.streamFn);
    expect(secondStartedBeforeFirstEnded).toBe(true);
    const resultEnds = events
      .filter((event) => event.type === 'message_end' && (event.message as Message).role === 'toolResult')
      .map((event) => (event as { message: ToolResultMessage }).message.toolCallId);
    expect(resultEnds).toEqual(['a', 'b']);
  });

  it('case 6: steering after the first tool skips the second and reaches the next call', async () => {
    const seen: unknown[] = [];
    const queue: AgentMessage[] = [];
    const tool = defineTool({
      name: 'echo',
      description: 'echo',
      parameters: z.object({ value: z.string() }),
      async execute(_id, args) {
        seen.push(args.value);
        if (args.value === 'first') queue.push(user('stop, do this instead'));
        return { content: [{ type: 'text', text: args.value }] };
      },
    });
    const model = scriptedModel(
      {
        toolCalls: [
          { name: 'echo', arguments: { value: 'first' } },
          { name: 'echo', arguments: { value: 'second' } },
        ],
      },
      { text: 'ok' },
    );
    const { events } = await run([user('go')], { tools: [tool] }, model.streamFn, {
      toolExecution: 'sequential',
      getSteeringMessages: () => queue.splice(0),
    });
    expect(seen).toEqual(['first']);
    const ends = toolEnds(events);
    expect(ends).toHaveLength(2);
    expect(ends[0]?.type === 'tool_execution_end' && ends[0].isError).toBe(false);
    const skipped = ends[1];
    expect(skipped?.type === 'tool_execution_end' && skipped.isError).toBe(true);
    expect(skipped?.type === 'tool_execution_end' && skipped.result.content[0]).toMatchObject({
      text: skippedToolCallText,
    });
    expect(
      events.some(
        (event) =>
          event.type === 'message_start' &&
          (event.message as { content?: unknown }).content === 'stop, do this instead',
      ),
    ).toBe(true);
    const secondCall = model.calls[1]?.context.messages ?? [];
    expect(secondCall.at(-1)).toMatchObject({ role: 'user', content: 'stop, do this instead' });
  });

  it('case 7: continue with an empty context throws synchronously', () => {
    const model = scriptedModel();
    expect(() => agentLoopContinue({ messages: [] }, config, undefined, model.streamFn)).toThrow(
      /no messages in context/,
    );
    try {
      agentLoopContinue({ messages: [] }, config, undefined, model.streamFn);
    } catch (error) {
      expect(error).toBeInstanceOf(CoreLoopError);
      expect((error as CoreLoopError).code).toBe('CORE_LOOP_NOTHING_TO_CONTINUE');
    }
    expect(model.calls).toHaveLength(0);
  });

  it('case 8: continue from a user tail emits no user message events', async () => {
    const model = scriptedModel({ text: 'answer' });
    const { events, result } = await collect(
      agentLoopContinue({ messages: [user('question')] }, config, undefined, model.streamFn),
    );
    expect(result).toHaveLength(1);
    expect((result[0] as Message).role).toBe('assistant');
    const ends = events.filter((event) => event.type === 'message_end');
    expect(ends).toHaveLength(1);
    expect((ends[0] as { message: Message }).message.role).toBe('assistant');
  });

  it('case 9: continue from a custom message tail works (the converter makes it a user message)', async () => {
    const model = scriptedModel({ text: 'noted' });
    const notification = { role: 'notification' as const, text: 'build failed', timestamp: 1 };
    const { result } = await collect(
      agentLoopContinue(
        { messages: [notification] },
        {
          ...config,
          convertToLlm: (messages) =>
            messages.map((message) =>
              message.role === 'notification' ? user(`[notification] ${message.text}`) : (message as Message),
            ),
        },
        undefined,
        model.streamFn,
      ),
    );
    expect(result).toHaveLength(1);
    expect(model.calls[0]?.context.messages[0]).toMatchObject({
      role: 'user',
      content: '[notification] build failed',
    });
  });
});

describe('agent loop, cases 31-50 (derived from the loop code)', () => {
  it('case 31: exact event order of a plain prompt, nothing after agent_end', async () => {
    const model = scriptedModel({ text: 'hello' });
    const { events } = await run([user('hi')], {}, model.streamFn);
    expect(eventNames(events)).toEqual([
      'agent_start',
      'turn_start',
      'message_start(user)',
      'message_end(user)',
      'message_start(assistant)',
      'message_update',
      'message_update',
      'message_update',
      'message_end(assistant)',
      'turn_end',
      'agent_end',
    ]);
  });

  it('case 32: one turn_start per model call; the first precedes the prompt events', async () => {
    const model = scriptedModel(
      { toolCalls: [{ name: 'echo', arguments: { value: 'a' } }] },
      { toolCalls: [{ name: 'echo', arguments: { value: 'b' } }] },
      { text: 'done' },
    );
    const { events } = await run([user('go')], { tools: [echoTool()] }, model.streamFn);
    const names = eventNames(events);
    expect(names.filter((name) => name === 'turn_start')).toHaveLength(3);
    expect(names.filter((name) => name === 'turn_end')).toHaveLength(3);
    expect(names.slice(0, 3)).toEqual(['agent_start', 'turn_start', 'message_start(user)']);
    expect(model.calls).toHaveLength(3);
    // Tool round order.
    const firstToolRound = names.slice(
      names.indexOf('tool_execution_start'),
      names.indexOf('tool_execution_start') + 6,
    );
    expect(firstToolRound).toEqual([
      'tool_execution_start',
      'tool_execution_end',
      'message_start(toolResult)',
      'message_end(toolResult)',
      'turn_end',
      'turn_start',
    ]);
  });

  it('case 33: an unknown tool yields "Tool X not found" and the loop calls the model again', async () => {
    const model = scriptedModel({ toolCalls: [{ name: 'nope', arguments: {} }] }, { text: 'sorry' });
    const { events } = await run([user('go')], { tools: [echoTool()] }, model.streamFn);
    const end = toolEnds(events)[0];
    expect(end?.type === 'tool_execution_end' && end.isError).toBe(true);
    expect(end?.type === 'tool_execution_end' && end.result.content[0]).toMatchObject({
      text: 'Tool nope not found',
    });
    expect(model.calls).toHaveLength(2);
  });

  it('case 34: invalid arguments list each failing path and echo the arguments; execute is not called', async () => {
    let executed = false;
    const tool = defineTool({
      name: 'add',
      description: 'adds',
      parameters: z.object({ a: z.number(), b: z.number(), label: z.enum(['x', 'y']) }),
      async execute() {
        executed = true;
        return { content: [] };
      },
    });
    const model = scriptedModel(
      { toolCalls: [{ name: 'add', arguments: { a: 'one', label: 'z' } }] },
      { text: 'ok' },
    );
    const { events } = await run([user('go')], { tools: [tool] }, model.streamFn);
    expect(executed).toBe(false);
    const end = toolEnds(events)[0];
    const text = end?.type === 'tool_execution_end' ? (end.result.content[0] as { text: string }).text : '';
    expect(end?.type === 'tool_execution_end' && end.isError).toBe(true);
    expect(text).toContain('- a:');
    expect(text).toContain('- b:');
    expect(text).toContain('- label:');
    expect(text).toContain('"a": "one"');
    expect(model.calls).toHaveLength(2);
  });

  it('case 35: "5" is coerced to 5 for the tool while the start event shows the raw arguments', async () => {
    const seen: unknown[] = [];
    const tool = defineTool({
      name: 'repeat',
      description: 'repeat',
      parameters: z.object({ times: z.number().int(), loud: z.boolean() }),
      async execute(_id, args) {
        seen.push(args);
        return { content: [{ type: 'text', text: 'ok' }] };
      },
    });
    const model = scriptedModel(
      { toolCalls: [{ name: 'repeat', arguments: { times: '5', loud: 'true' } }] },
      { text: 'ok' },
    );
    const { events } = await run([user('go')], { tools: [tool] }, model.streamFn);
    expect(seen).toEqual([{ times: 5, loud: true }]);
    const start = events.find((event) => event.type === 'tool_execution_start');
    expect(start?.type === 'tool_execution_start' && start.args).toEqual({ times: '5', loud: 'true' });
  });

  it('case 36: a thrown tool error becomes an error result with its text; the run continues', async () => {
    const tool = defineTool({
      name: 'boom',
      description: 'fails',
      parameters: z.object({}),
      async execute() {
        throw new Error('disk full');
      },
    });
    const model = scriptedModel({ toolCalls: [{ name: 'boom', arguments: {} }] }, { text: 'I see' });
    const { events, result } = await run([user('go')], { tools: [tool] }, model.streamFn);
    const end = toolEnds(events)[0];
    expect(end?.type === 'tool_execution_end' && end.isError).toBe(true);
    expect(end?.type === 'tool_execution_end' && end.result.content[0]).toMatchObject({ text: 'disk full' });
    expect((result.at(-1) as AssistantMessage).stopReason).toBe('stop');
  });

  it('case 37: beforeToolCall can block with a reason, or with the default text', async () => {
    const seen: unknown[] = [];
    const model = scriptedModel(
      {
        toolCalls: [
          { id: 'a', name: 'echo', arguments: { value: 'x' } },
          { id: 'b', name: 'echo', arguments: { value: 'y' } },
        ],
      },
      { text: 'ok' },
    );
    const { events } = await run([user('go')], { tools: [echoTool(seen)] }, model.streamFn, {
      beforeToolCall: ({ toolCall }) =>
        toolCall.id === 'a' ? { block: true, reason: 'not on Sundays' } : { block: true },
    });
    expect(seen).toEqual([]);
    const texts = toolEnds(events).map((event) =>
      event.type === 'tool_execution_end' ? (event.result.content[0] as { text: string }).text : '',
    );
    expect(texts).toEqual(['not on Sundays', 'Tool execution was blocked']);
  });

  it('case 37b: beforeToolCall can rewrite arguments (validated again); a throw blocks (fails closed)', async () => {
    const seen: unknown[] = [];
    const model = scriptedModel(
      {
        toolCalls: [
          { id: 'a', name: 'echo', arguments: { value: 'x' } },
          { id: 'b', name: 'echo', arguments: { value: 'y' } },
          { id: 'c', name: 'echo', arguments: { value: 'z' } },
        ],
      },
      { text: 'ok' },
    );
    const { events } = await run([user('go')], { tools: [echoTool(seen)] }, model.streamFn, {
      toolExecution: 'sequential',
      beforeToolCall: ({ toolCall }) => {
        if (toolCall.id === 'a') return { args: { value: 'rewritten' } };
        if (toolCall.id === 'b') return { args: { value: { not: 'a string' } } };
        throw new Error('policy engine down');
      },
    });
    expect(seen).toEqual(['rewritten']);
    const ends = toolEnds(events).map((event) =>
      event.type === 'tool_execution_end'
        ? [(event.result.content[0] as { text: string }).text, event.isError]
        : [],
    );
    expect(ends[0]).toEqual(['echo: rewritten', false]);
    expect(ends[1]?.[0]).toContain('beforeToolCall rewrote the arguments into invalid ones');
    expect(ends[2]).toEqual(['Tool call blocked: beforeToolCall failed: policy engine down', true]);
  });

  it('case 38: afterToolCall overrides field by field', async () => {
    const model = scriptedModel(
      {
        toolCalls: [
          { id: 'a', name: 'echo', arguments: { value: 'x' } },
          { id: 'b', name: 'echo', arguments: { value: 'y' } },
        ],
      },
      { text: 'ok' },
    );
    const { events } = await run([user('go')], { tools: [echoTool()] }, model.streamFn, {
      afterToolCall: ({ toolCall }) =>
        toolCall.id === 'a' ? { isError: true } : { content: [{ type: 'text', text: 'replaced' }] },
    });
    const [first, second] = toolEnds(events);
    expect(first?.type === 'tool_execution_end' && first.isError).toBe(true);
    expect(first?.type === 'tool_execution_end' && first.result).toEqual({
      content: [{ type: 'text', text: 'echo: x' }],
      details: { value: 'x' },
    });
    expect(second?.type === 'tool_execution_end' && second.isError).toBe(false);
    expect(second?.type === 'tool_execution_end' && second.result).toEqual({
      content: [{ type: 'text', text: 'replaced' }],
      details: { value: 'y' },
    });
  });

  it('case 39: progress updates all come before the tool end', async () => {
    const tool = defineTool({
      name: 'progress',
      description: 'reports',
      parameters: z.object({}),
      async execute(_id, _args, _signal, onUpdate) {
        onUpdate({ content: [{ type: 'text', text: '10%' }] });
        await Promise.resolve();
        onUpdate({ content: [{ type: 'text', text: '90%' }] });
        setTimeout(() => onUpdate({ content: [{ type: 'text', text: 'late' }] }), 0);
        return { content: [{ type: 'text', text: 'done' }] };
      },
    });
    const model = scriptedModel({ toolCalls: [{ name: 'progress', arguments: {} }] }, { text: 'ok' });
    const { events } = await run([user('go')], { tools: [tool] }, model.streamFn);
    const names = eventNames(events).filter((name) => name.startsWith('tool_execution'));
    expect(names).toEqual([
      'tool_execution_start',
      'tool_execution_update',
      'tool_execution_update',
      'tool_execution_end',
    ]);
  });

  it('case 40: parallel mode, steering during preflight: nothing executes, every call skipped, no duplicate start', async () => {
    const seen: unknown[] = [];
    const queue: AgentMessage[] = [];
    let polls = 0;
    const model = scriptedModel(
      {
        toolCalls: [
          { id: 'a', name: 'echo', arguments: { value: '1' } },
          { id: 'b', name: 'echo', arguments: { value: '2' } },
          { id: 'c', name: 'echo', arguments: { value: '3' } },
        ],
      },
      { text: 'ok' },
    );
    const { events } = await run([user('go')], { tools: [echoTool(seen)] }, model.streamFn, {
      toolExecution: 'parallel',
      getSteeringMessages: () => {
        polls += 1;
        // Poll 1 is before the first model call; poll 2 follows the first preparation.
        if (polls === 2) queue.push(user('wait'));
        return queue.splice(0);
      },
    });
    expect(seen).toEqual([]);
    const starts = events
      .filter((event) => event.type === 'tool_execution_start')
      .map((event) => (event as { toolCallId: string }).toolCallId);
    expect(starts).toEqual(['a', 'b', 'c']);
    const ends = toolEnds(events);
    expect(ends).toHaveLength(3);
    for (const end of ends) {
      expect(end.type === 'tool_execution_end' && end.isError).toBe(true);
      expect(end.type === 'tool_execution_end' && end.result.content[0]).toMatchObject({
        text: skippedToolCallText,
      });
    }
    expect(model.calls[1]?.context.messages.at(-1)).toMatchObject({ role: 'user', content: 'wait' });
  });

  it('case 41: parallel ordering caveat: an invalid call is reported during preflight, before an executed one', async () => {
    const model = scriptedModel(
      {
        toolCalls: [
          { id: 'valid', name: 'echo', arguments: { value: 'x' } },
          { id: 'invalid', name: 'echo', arguments: { value: ['not', 'a', 'string'] } },
        ],
      },
      { text: 'ok' },
    );
    const { events } = await run([user('go')], { tools: [echoTool()] }, model.streamFn, {
      toolExecution: 'parallel',
    });
    const order = toolEnds(events).map((event) => (event as { toolCallId: string }).toolCallId);
    expect(order).toEqual(['invalid', 'valid']);
    const turnEnd = events.find((event) => event.type === 'turn_end');
    expect(turnEnd?.type === 'turn_end' && turnEnd.toolResults.map((result) => result.toolCallId)).toEqual([
      'invalid',
      'valid',
    ]);
  });

  it('case 42: an error stop reason ends the run; a queued follow-up is not consumed', async () => {
    const followUps: AgentMessage[] = [user('later')];
    const model = scriptedModel({ error: { message: '529 overloaded_error: Overloaded' } });
    const { events } = await run([user('go')], {}, model.streamFn, {
      getFollowUpMessages: () => followUps.splice(0, 1),
    });
    const names = eventNames(events);
    expect(names.slice(-3)).toEqual(['message_end(assistant)', 'turn_end', 'agent_end']);
    const turnEnd = events.find((event) => event.type === 'turn_end');
    expect(turnEnd?.type === 'turn_end' && turnEnd.toolResults).toEqual([]);
    const end = events.at(-1);
    expect(end?.type === 'agent_end' && end.stopReason).toBe('error');
    expect(followUps).toHaveLength(1);
    // The loop classified the provider's unclassified error text.
    expect(turnEnd?.type === 'turn_end' && turnEnd.message.errorClass).toBe('overloaded');
  });

  it('case 43: a follow-up queued while tools run is delivered after the final text turn, in a new turn', async () => {
    const followUps: AgentMessage[] = [];
    const tool = defineTool({
      name: 'work',
      description: 'works',
      parameters: z.object({}),
      async execute() {
        followUps.push(user('and then this'));
        return { content: [{ type: 'text', text: 'worked' }] };
      },
    });
    const model = scriptedModel(
      { toolCalls: [{ name: 'work', arguments: {} }] },
      { text: 'first answer' },
      { text: 'second answer' },
    );
    const { events } = await run([user('go')], { tools: [tool] }, model.streamFn, {
      getFollowUpMessages: () => followUps.splice(0, 1),
    });
    expect(model.calls).toHaveLength(3);
    // The second call did not see the follow-up; the third did.
    expect(JSON.stringify(model.calls[1]?.context.messages)).not.toContain('and then this');
    expect(model.calls[2]?.context.messages.at(-1)).toMatchObject({ content: 'and then this' });
    const names = eventNames(events);
    const followUpStart = names.lastIndexOf('message_start(user)');
    expect(names.slice(followUpStart - 2, followUpStart + 3)).toEqual([
      'turn_end',
      'turn_start',
      'message_start(user)',
      'message_end(user)',
      'message_start(assistant)',
    ]);
  });

  it('case 44: steering queued before the run is injected right after the prompt, before the first call', async () => {
    const queue: AgentMessage[] = [user('also consider X')];
    const model = scriptedModel({ text: 'ok' });
    const { events } = await run([user('go')], {}, model.streamFn, {
      getSteeringMessages: () => queue.splice(0, 1),
    });
    expect(model.calls).toHaveLength(1);
    expect(
      model.calls[0]?.context.messages.map((message) => (message as { content: unknown }).content),
    ).toEqual(['go', 'also consider X']);
    expect(eventNames(events).slice(0, 6)).toEqual([
      'agent_start',
      'turn_start',
      'message_start(user)',
      'message_end(user)',
      'message_start(user)',
      'message_end(user)',
    ]);
  });

  it('case 45: steering mode "all" injects two queued messages in one call', async () => {
    const queue: AgentMessage[] = [];
    const model = scriptedModel(
      () => {
        queue.push(user('s1'), user('s2'));
        return { text: 'first' };
      },
      { text: 'second' },
    );
    await run([user('go')], {}, model.streamFn, { getSteeringMessages: () => queue.splice(0) });
    expect(model.calls).toHaveLength(2);
    expect(
      model.calls[1]?.context.messages.slice(-2).map((message) => (message as { content: unknown }).content),
    ).toEqual(['s1', 's2']);
  });

  it('case 46: a provider without a start event still gets message_start right before message_end', async () => {
    const model = scriptedModel({ text: 'quiet', noStart: true });
    const { events } = await run([user('hi')], {}, model.streamFn);
    expect(eventNames(events).slice(-5)).toEqual([
      'message_end(user)',
      'message_start(assistant)',
      'message_end(assistant)',
      'turn_end',
      'agent_end',
    ]);
  });

  it('case 47 (loop level): a throwing convertToLlm ends the run with the error sequence, never a throw', async () => {
    const model = scriptedModel({ text: 'never' });
    const { events, result } = await run([user('hi')], {}, model.streamFn, {
      convertToLlm: () => {
        throw new Error('converter exploded');
      },
    });
    expect(model.calls).toHaveLength(0);
    expect(eventNames(events).slice(-4)).toEqual([
      'message_start(assistant)',
      'message_end(assistant)',
      'turn_end',
      'agent_end',
    ]);
    const last = result.at(-1) as AssistantMessage;
    expect(last.stopReason).toBe('error');
    expect(last.errorCode).toBe('CORE_LOOP_STAGE_FAILED');
    expect(last.errorMessage).toContain('converter exploded');
  });

  it('case 47b: a stream function that throws synchronously, or rejects, ends the run as an error', async () => {
    for (const streamFn of [
      (() => {
        throw new Error('No API key for provider: anthropic');
      }) as StreamFunction,
      (async () => {
        throw new Error('socket hang up');
      }) as StreamFunction,
    ]) {
      const { events, result } = await run([user('hi')], {}, streamFn);
      const last = result.at(-1) as AssistantMessage;
      expect(last.stopReason).toBe('error');
      expect(eventNames(events).slice(-3)).toEqual(['message_end(assistant)', 'turn_end', 'agent_end']);
      expect(['auth', 'timeout']).toContain(last.errorClass);
    }
  });

  it('case 47c: a throwing steering poll after a turn still ends with turn_start ... turn_end, agent_end', async () => {
    let polls = 0;
    const model = scriptedModel(
      { toolCalls: [{ name: 'echo', arguments: { value: 'x' } }] },
      { text: 'never' },
    );
    const { events } = await run([user('hi')], { tools: [echoTool()] }, model.streamFn, {
      toolExecution: 'sequential',
      getSteeringMessages: () => {
        polls += 1;
        if (polls === 2) throw new Error('queue store offline');
        return [];
      },
    });
    const names = eventNames(events);
    expect(names.filter((name) => name === 'agent_end')).toHaveLength(1);
    expect(names.filter((name) => name === 'turn_start').length).toBe(
      names.filter((name) => name === 'turn_end').length,
    );
    const end = events.at(-1);
    expect(end?.type === 'agent_end' && end.stopReason).toBe('error');
    expect(model.calls).toHaveLength(1);
  });

  it('case 48: getApiKey is resolved once per model call', async () => {
    const asked: string[] = [];
    let counter = 0;
    const model = scriptedModel({ toolCalls: [{ name: 'echo', arguments: { value: 'x' } }] }, { text: 'ok' });
    await run([user('go')], { tools: [echoTool()] }, model.streamFn, {
      getApiKey: async (provider) => {
        asked.push(provider);
        counter += 1;
        return `key-${counter}`;
      },
    });
    expect(asked).toEqual(['anthropic', 'anthropic']);
    expect(model.calls.map((call) => call.options.apiKey)).toEqual(['key-1', 'key-2']);
  });

  it('case 48b: a credential from getApiKey replaces the static one of streamOptions', async () => {
    const model = scriptedModel({ text: 'ok' });
    await run([user('go')], {}, model.streamFn, {
      streamOptions: { apiKey: 'static-key', baseUrl: 'http://127.0.0.1:9' },
      getApiKey: () => ({ authToken: 'fresh-oauth-token' }),
    });
    expect(model.calls[0]?.options).toMatchObject({
      apiKey: undefined,
      authToken: 'fresh-oauth-token',
      baseUrl: 'http://127.0.0.1:9',
    });
  });

  it('case 50: abort during a tool: the tool sees the signal, the run ends aborted with turn_end/agent_end', async () => {
    const controller = new AbortController();
    let toolSawAbort = false;
    const tool = defineTool({
      name: 'long',
      description: 'runs until aborted',
      parameters: z.object({}),
      execute(_id, _args, signal) {
        return new Promise<ToolResult>((resolve) => {
          signal.addEventListener('abort', () => {
            toolSawAbort = true;
            resolve({ content: [{ type: 'text', text: 'interrupted' }], isError: true });
          });
          queueMicrotask(() => controller.abort());
        });
      },
    });
    const model = scriptedModel({ toolCalls: [{ name: 'long', arguments: {} }] }, { text: 'never' });
    const { events, result } = await run(
      [user('go')],
      { tools: [tool] },
      model.streamFn,
      {},
      controller.signal,
    );
    expect(toolSawAbort).toBe(true);
    const last = result.at(-1) as AssistantMessage;
    expect(last.stopReason).toBe('aborted');
    expect(last.errorClass).toBe('aborted');
    expect(eventNames(events).slice(-3)).toEqual(['message_end(assistant)', 'turn_end', 'agent_end']);
    const end = events.at(-1);
    expect(end?.type === 'agent_end' && end.stopReason).toBe('aborted');
    // The recorded tool result is the tool's own (it honoured the signal).
    expect(result.find((message) => (message as Message).role === 'toolResult')).toMatchObject({
      isError: true,
    });
  });
});

describe('agent loop, budget and never-throw guarantees', () => {
  it('ends a looping run with stopReason budget_exhausted after maxModelCalls calls', async () => {
    const looping = () => ({ toolCalls: [{ name: 'echo', arguments: { value: 'again' } }] });
    const model = scriptedModel(looping, looping, looping, looping, looping);
    const steering: AgentMessage[] = [user('queued while looping')];
    let polls = 0;
    const { events, result } = await run([user('go')], { tools: [echoTool()] }, model.streamFn, {
      maxModelCalls: 3,
      getSteeringMessages: () => {
        polls += 1;
        return polls < 3 ? [] : steering.splice(0, 0);
      },
    });
    expect(model.calls).toHaveLength(3);
    const end = events.at(-1);
    expect(end?.type === 'agent_end' && end.stopReason).toBe('budget_exhausted');
    expect(eventNames(events).slice(-2)).toEqual(['turn_end', 'agent_end']);
    // The last turn's tools ran; the history ends with their results.
    expect((result.at(-1) as Message).role).toBe('toolResult');
    expect(steering).toHaveLength(1);
  });

  it('defaults the budget to 50 model calls', async () => {
    const model = scriptedModel();
    for (let index = 0; index < 60; index += 1)
      model.push({ toolCalls: [{ name: 'echo', arguments: { value: 'x' } }] });
    const { events } = await run([user('go')], { tools: [echoTool()] }, model.streamFn);
    expect(model.calls).toHaveLength(50);
    const end = events.at(-1);
    expect(end?.type === 'agent_end' && end.stopReason).toBe('budget_exhausted');
  });

  it('rejects a bad budget and duplicate tool names synchronously, before any event', () => {
    const model = scriptedModel();
    expect(() =>
      agentLoop([user('x')], { messages: [] }, { ...config, maxModelCalls: 0 }, undefined, model.streamFn),
    ).toThrow(/maxModelCalls must be a whole number of at least 1, got 0/);
    expect(() =>
      agentLoop(
        [user('x')],
        { messages: [], tools: [echoTool(), echoTool()] },
        config,
        undefined,
        model.streamFn,
      ),
    ).toThrow(/tools\[1\]: a tool named "echo" is already in the list/);
  });

  it('a consumer that stops iterating early does not stop the run; result() still resolves', async () => {
    const model = scriptedModel(
      { toolCalls: [{ name: 'echo', arguments: { value: 'x' } }] },
      { text: 'done' },
    );
    const stream = agentLoop(
      [user('go')],
      { messages: [], tools: [echoTool()] },
      config,
      undefined,
      model.streamFn,
    );
    for await (const event of stream) {
      if (event.type === 'turn_start') break;
    }
    const messages = await stream.result();
    expect(messages.map((message) => (message as Message).role)).toEqual([
      'user',
      'assistant',
      'toolResult',
      'assistant',
    ]);
  });

  it('a transformContext that throws after abort ends the run as aborted', async () => {
    const controller = new AbortController();
    const model = scriptedModel({ text: 'never' });
    const { result } = await run(
      [user('hi')],
      {},
      model.streamFn,
      {
        transformContext: async () => {
          controller.abort();
          throw new Error('cancelled');
        },
      },
      controller.signal,
    );
    const last = result.at(-1) as AssistantMessage;
    expect(last.stopReason).toBe('aborted');
    expect(last.errorClass).toBe('aborted');
  });

  it('sums usage over calls and takes the context size from the last call only', async () => {
    const model = scriptedModel(
      {
        toolCalls: [{ name: 'echo', arguments: { value: 'x' } }],
        usage: { input: 100, output: 10, cacheRead: 1000, cacheWrite: 50 },
      },
      { text: 'ok', usage: { input: 20, output: 5, cacheRead: 1150, cacheWrite: 0 } },
    );
    const { events } = await run([user('go')], { tools: [echoTool()] }, model.streamFn);
    const end = events.at(-1);
    if (end?.type !== 'agent_end') throw new Error('no agent_end');
    expect(end.usage.calls).toBe(2);
    expect(end.usage.input).toBe(120);
    expect(end.usage.output).toBe(15);
    expect(end.usage.cacheRead).toBe(2150);
    expect(end.usage.contextTokens).toBe(20 + 1150);
    // Sonnet prices: input $3, output $15, cache read $0.30, cache write $3.75 per million.
    expect(end.usage.cost.total).toBeCloseTo((120 * 3 + 15 * 15 + 2150 * 0.3 + 50 * 3.75) / 1_000_000, 12);
  });
});
