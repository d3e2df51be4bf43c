// The Agent class against agent-loop-cases.md: cases 10-21 (pi-mono agent tests), 47 (a
// throwing stage) and the applicable parts of 57 (concurrent prompt/steer/followUp).
import type { AssistantMessage, Message } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  type AgentEvent,
  anthropicModel,
  CoreLoopError,
  coreLoopErrorCodes,
  defaultModel,
  defineTool,
} from '../src/index.ts';
import { assistantText, deferred, eventNames, scriptedModel, testModel, user } from './scripted-model.ts';

function recorder(agent: Agent): AgentEvent[] {
  const events: AgentEvent[] = [];
  agent.subscribe((event) => events.push(event));
  return events;
}

async function rejection(promise: Promise<unknown>): Promise<CoreLoopError> {
  try {
    await promise;
  } catch (error) {
    return error as CoreLoopError;
  }
  throw new Error('expected a rejection');
}

describe('Agent, cases 10-21', () => {
  it('case 10: default state', () => {
    const agent = new Agent();
    const state = agent.state;
    expect(state.systemPrompt).toBe('');
    expect(state.model).toBe(defaultModel);
    expect(state.thinkingLevel).toBe('off');
    expect(state.tools).toEqual([]);
    expect(state.messages).toEqual([]);
    expect(state.isStreaming).toBe(false);
    expect(state.streamMessage).toBeUndefined();
    expect(state.pendingToolCalls.size).toBe(0);
    expect(state.error).toBeUndefined();
    expect(state.usage.calls).toBe(0);
  });

  it('case 11: custom initial state is kept (the model is the same object)', () => {
    const model = anthropicModel('claude-opus-4-6');
    const agent = new Agent({ systemPrompt: 'You are terse.', model, thinkingLevel: 'high' });
    expect(agent.state.systemPrompt).toBe('You are terse.');
    expect(agent.state.model).toBe(model);
    expect(agent.state.thinkingLevel).toBe('high');
  });

  it('case 12: subscribing and mutating emit nothing; unsubscribed listeners are not called', async () => {
    const scripted = scriptedModel({ text: 'a' }, { text: 'b' });
    const agent = new Agent({ model: testModel, streamFn: scripted.streamFn });
    const events: AgentEvent[] = [];
    const unsubscribe = agent.subscribe((event) => events.push(event));
    agent.setSystemPrompt('x');
    agent.setThinkingLevel('low');
    agent.appendMessage(user('manual'));
    agent.clearMessages();
    expect(events).toEqual([]);
    await agent.prompt('hello');
    const count = events.length;
    expect(count).toBeGreaterThan(0);
    unsubscribe();
    await agent.prompt('again');
    expect(events).toHaveLength(count);
  });

  it('case 13: mutators take effect; replaceMessages copies, appendMessage keeps the object', () => {
    const agent = new Agent();
    const model = anthropicModel('claude-haiku-4-5');
    const tools = [
      defineTool({
        name: 't',
        description: 'd',
        parameters: z.object({}),
        execute: async () => ({ content: [] }),
      }),
    ];
    agent.setSystemPrompt('p');
    agent.setModel(model);
    agent.setThinkingLevel('medium');
    agent.setTools(tools);
    expect(agent.state.systemPrompt).toBe('p');
    expect(agent.state.model).toBe(model);
    expect(agent.state.thinkingLevel).toBe('medium');
    expect(agent.state.tools).toBe(tools);
    const history = [user('one'), user('two')];
    agent.replaceMessages(history);
    expect(agent.state.messages).toEqual(history);
    expect(agent.state.messages).not.toBe(history);
    const extra = user('three');
    agent.appendMessage(extra);
    expect(agent.state.messages.at(-1)).toBe(extra);
    agent.clearMessages();
    expect(agent.state.messages).toEqual([]);
  });

  it('case 14: steer() queues without touching the history until a run delivers it', async () => {
    const scripted = scriptedModel({ text: 'ok' });
    const agent = new Agent({ model: testModel, streamFn: scripted.streamFn });
    agent.steer(user('steer me'));
    expect(agent.state.messages).toEqual([]);
    expect(agent.hasQueuedMessages()).toBe(true);
    await agent.prompt('go');
    expect(agent.state.messages.map((message) => (message as Message).role)).toEqual([
      'user',
      'user',
      'assistant',
    ]);
    expect(agent.hasQueuedMessages()).toBe(false);
  });

  it('case 15: followUp() queues without touching the history until the run would stop', async () => {
    const scripted = scriptedModel({ text: 'first' }, { text: 'second' });
    const agent = new Agent({ model: testModel, streamFn: scripted.streamFn });
    agent.followUp(user('then this'));
    expect(agent.state.messages).toEqual([]);
    await agent.prompt('go');
    expect(agent.state.messages.map((message) => (message as { content: unknown }).content)).toEqual([
      'go',
      [{ type: 'text', text: 'first' }],
      'then this',
      [{ type: 'text', text: 'second' }],
    ]);
  });

  it('case 16: abort() with nothing running does not throw', () => {
    const agent = new Agent();
    expect(() => agent.abort()).not.toThrow();
  });

  it('case 17: prompt() while streaming rejects telling to use steer() or followUp(); abort ends the run', async () => {
    const scripted = scriptedModel({ text: 'partial', waitForAbort: true });
    const agent = new Agent({ model: testModel, streamFn: scripted.streamFn });
    const first = agent.prompt('long task');
    expect(agent.state.isStreaming).toBe(true);
    const error = await rejection(agent.prompt('another'));
    expect(error).toBeInstanceOf(CoreLoopError);
    expect(error.code).toBe('CORE_LOOP_BUSY');
    expect(error.message).toContain('Use steer() or followUp()');
    agent.abort();
    await first;
    expect(agent.state.isStreaming).toBe(false);
    const last = agent.state.messages.at(-1) as AssistantMessage;
    expect(last.stopReason).toBe('aborted');
  });

  it('case 18: continue() while streaming rejects', async () => {
    const scripted = scriptedModel({ waitForAbort: true });
    const agent = new Agent({ model: testModel, streamFn: scripted.streamFn });
    const first = agent.prompt('x');
    const error = await rejection(agent.continue());
    expect(error.code).toBe('CORE_LOOP_BUSY');
    expect(error.message).toBe('Agent is already processing. Wait for completion before continuing.');
    agent.abort();
    await first;
  });

  it('case 19: continue() after an assistant turn processes a queued follow-up', async () => {
    const scripted = scriptedModel({ text: 'follow-up answer' });
    const agent = new Agent({
      model: testModel,
      streamFn: scripted.streamFn,
      messages: [user('q'), assistantText('a')],
    });
    agent.followUp(user('one more thing'));
    await agent.continue();
    const messages = agent.state.messages;
    expect(messages.some((message) => (message as { content?: unknown }).content === 'one more thing')).toBe(
      true,
    );
    expect((messages.at(-1) as AssistantMessage).content).toEqual([
      { type: 'text', text: 'follow-up answer' },
    ]);
  });

  it('case 20: continue() from an assistant tail keeps one-at-a-time steering (two calls, no batching)', async () => {
    const scripted = scriptedModel({ text: 'r1' }, { text: 'r2' });
    const agent = new Agent({
      model: testModel,
      streamFn: scripted.streamFn,
      messages: [user('q'), assistantText('a')],
    });
    agent.steer(user('s1'));
    agent.steer(user('s2'));
    await agent.continue();
    expect(scripted.calls).toHaveLength(2);
    const tail = agent.state.messages.slice(-4).map((message) => (message as Message).role);
    expect(tail).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(scripted.calls[0]?.context.messages.at(-1)).toMatchObject({ content: 's1' });
    expect(scripted.calls[1]?.context.messages.at(-1)).toMatchObject({ content: 's2' });
  });

  it('case 21: the session id reaches the stream function; the setter changes the next prompt', async () => {
    const scripted = scriptedModel({ text: 'a' }, { text: 'b' });
    const agent = new Agent({ model: testModel, streamFn: scripted.streamFn, sessionId: 'session-1' });
    await agent.prompt('x');
    agent.sessionId = 'session-2';
    await agent.prompt('y');
    expect(scripted.calls.map((call) => call.options.sessionId)).toEqual(['session-1', 'session-2']);
  });
});

describe('Agent, continue() and errors (cases 27-29 in-process, 47, 57)', () => {
  it('case 27: continue() on an empty history rejects "No messages to continue from"', async () => {
    const error = await rejection(new Agent().continue());
    expect(error.code).toBe('CORE_LOOP_NOTHING_TO_CONTINUE');
    expect(error.message).toMatch(/No messages to continue from/);
  });

  it('case 28: continue() from an assistant tail with nothing queued rejects', async () => {
    const agent = new Agent({ messages: [user('q'), assistantText('a')] });
    const error = await rejection(agent.continue());
    expect(error.code).toBe('CORE_LOOP_CANNOT_CONTINUE');
    expect(error.message).toMatch(/Cannot continue from message role: assistant/);
  });

  it('case 29: continue() answers a manually placed user message', async () => {
    const scripted = scriptedModel({ text: 'answer' });
    const agent = new Agent({ model: testModel, streamFn: scripted.streamFn });
    agent.appendMessage(user('question'));
    await agent.continue();
    expect(agent.state.messages.map((message) => (message as Message).role)).toEqual(['user', 'assistant']);
  });

  it('case 47: a converter that throws: synthetic error message, state.error, one agent_end, idle', async () => {
    const scripted = scriptedModel({ text: 'never' });
    const agent = new Agent({
      model: testModel,
      streamFn: scripted.streamFn,
      convertToLlm: () => {
        throw new Error('bad custom message');
      },
    });
    const events = recorder(agent);
    await agent.prompt('hi');
    await agent.waitForIdle();
    const last = agent.state.messages.at(-1) as AssistantMessage;
    expect(last.role).toBe('assistant');
    expect(last.stopReason).toBe('error');
    expect(last.content).toEqual([]);
    expect(last.usage.totalTokens).toBe(0);
    expect(agent.state.error).toBe(last.errorMessage);
    expect(agent.state.error).toContain('bad custom message');
    expect(agent.state.isStreaming).toBe(false);
    expect(events.filter((event) => event.type === 'agent_end')).toHaveLength(1);
  });

  it('case 24 (in-process): abort mid-run leaves the aborted message last and state.error set', async () => {
    const release = deferred();
    const tool = defineTool({
      name: 'step',
      description: 'one step',
      parameters: z.object({}),
      async execute() {
        await release.promise;
        return { content: [{ type: 'text', text: 'stepped' }] };
      },
    });
    const scripted = scriptedModel({ toolCalls: [{ name: 'step', arguments: {} }] }, { waitForAbort: true });
    const agent = new Agent({ model: testModel, streamFn: scripted.streamFn, tools: [tool] });
    agent.subscribe((event) => {
      if (event.type === 'tool_execution_start') release.resolve();
      if (event.type === 'turn_start' && scripted.calls.length === 1) queueMicrotask(() => agent.abort());
    });
    await agent.prompt('multi-step');
    const last = agent.state.messages.at(-1) as AssistantMessage;
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.messages.length).toBeGreaterThanOrEqual(2);
    expect(last.stopReason).toBe('aborted');
    expect(last.errorMessage).toBeDefined();
    expect(agent.state.error).toBe(last.errorMessage);
  });

  it('case 57: steer() and followUp() are allowed while streaming; prompt() works after completion', async () => {
    const gate = deferred();
    const scripted = scriptedModel(
      async () => {
        await gate.promise;
        return { text: 'first' };
      },
      { text: 'steered' },
      { text: 'followed' },
      { text: 'later' },
    );
    const agent = new Agent({ model: testModel, streamFn: scripted.streamFn });
    const events = recorder(agent);
    const run = agent.prompt('start');
    agent.steer(user('steer'));
    agent.followUp(user('follow'));
    gate.resolve();
    await run;
    expect(scripted.calls).toHaveLength(3);
    await agent.prompt('after');
    expect(scripted.calls).toHaveLength(4);
    expect(eventNames(events).filter((name) => name === 'agent_end')).toHaveLength(2);
  });

  it('a queued follow-up survives a model error and is delivered by continue()', async () => {
    const scripted = scriptedModel(
      { error: { message: '429 rate_limit_error: slow down' } },
      { text: 'recovered' },
    );
    const agent = new Agent({ model: testModel, streamFn: scripted.streamFn });
    agent.followUp(user('pending question'));
    await agent.prompt('hi');
    expect(agent.state.error).toContain('slow down');
    expect((agent.state.messages.at(-1) as AssistantMessage).errorClass).toBe('rate_limit');
    expect(agent.hasQueuedMessages()).toBe(true);
    await agent.continue();
    expect(agent.hasQueuedMessages()).toBe(false);
    expect((agent.state.messages.at(-1) as AssistantMessage).content).toEqual([
      { type: 'text', text: 'recovered' },
    ]);
  });

  it('tracks streamMessage and pendingToolCalls while a run is in flight', async () => {
    const seen: Array<{ type: string; streaming: boolean; pending: number }> = [];
    const tool = defineTool({
      name: 'noop',
      description: 'n',
      parameters: z.object({}),
      execute: async () => ({ content: [{ type: 'text', text: 'ok' }] }),
    });
    const scripted = scriptedModel({ toolCalls: [{ name: 'noop', arguments: {} }] }, { text: 'done' });
    const agent = new Agent({ model: testModel, streamFn: scripted.streamFn, tools: [tool] });
    agent.subscribe((event) => {
      seen.push({
        type: event.type,
        streaming: agent.state.streamMessage !== undefined,
        pending: agent.state.pendingToolCalls.size,
      });
    });
    await agent.prompt('go');
    expect(seen.find((entry) => entry.type === 'message_update')?.streaming).toBe(true);
    expect(seen.find((entry) => entry.type === 'tool_execution_start')?.pending).toBe(1);
    expect(seen.find((entry) => entry.type === 'tool_execution_end')?.pending).toBe(0);
    expect(seen.at(-1)).toEqual({ type: 'agent_end', streaming: false, pending: 0 });
    expect(agent.state.isStreaming).toBe(false);
  });

  it('isolates a throwing listener and reports it', async () => {
    const reported: string[] = [];
    const scripted = scriptedModel({ text: 'ok' });
    const agent = new Agent({
      model: testModel,
      streamFn: scripted.streamFn,
      onListenerError: (error, event) => reported.push(`${event.type}:${(error as Error).message}`),
    });
    const events = recorder(agent);
    agent.subscribe((event) => {
      if (event.type === 'turn_end') throw new Error('listener bug');
    });
    await agent.prompt('hi');
    expect(reported).toEqual(['turn_end:listener bug']);
    expect(events.at(-1)?.type).toBe('agent_end');
  });

  it('records the budget in state.error and continue() resumes', async () => {
    const tool = defineTool({
      name: 'again',
      description: 'a',
      parameters: z.object({}),
      execute: async () => ({ content: [{ type: 'text', text: 'ok' }] }),
    });
    const loop = { toolCalls: [{ name: 'again', arguments: {} }] };
    const scripted = scriptedModel(loop, loop, { text: 'finally' });
    const agent = new Agent({
      model: testModel,
      streamFn: scripted.streamFn,
      tools: [tool],
      maxModelCalls: 2,
    });
    await agent.prompt('go');
    expect(agent.state.error).toMatch(/budget \(maxModelCalls\)/);
    expect((agent.state.messages.at(-1) as Message).role).toBe('toolResult');
    await agent.continue();
    expect(agent.state.error).toBeUndefined();
    expect((agent.state.messages.at(-1) as AssistantMessage).content).toEqual([
      { type: 'text', text: 'finally' },
    ]);
  });

  it('reset() aborts a running run and clears history, queues and flags', async () => {
    const scripted = scriptedModel({ waitForAbort: true });
    const agent = new Agent({ model: testModel, streamFn: scripted.streamFn });
    const run = agent.prompt('x');
    agent.followUp(user('queued'));
    agent.reset();
    await run;
    expect(agent.state.messages).toEqual([]);
    expect(agent.hasQueuedMessages()).toBe(false);
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.error).toBeUndefined();
  });

  it('prompt() with images sends text plus image blocks', async () => {
    const scripted = scriptedModel({ text: 'a cat' });
    const agent = new Agent({ model: testModel, streamFn: scripted.streamFn });
    await agent.prompt('what is this?', [{ type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' }]);
    expect(scripted.calls[0]?.context.messages[0]).toMatchObject({
      role: 'user',
      content: [
        { type: 'text', text: 'what is this?' },
        { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
      ],
    });
  });

  it('rejects duplicate tool names and a bad budget at construction', () => {
    const tool = defineTool({
      name: 'x',
      description: 'x',
      parameters: z.object({}),
      execute: async () => ({ content: [] }),
    });
    expect(() => new Agent({ tools: [tool, tool] })).toThrow(
      /tools\[1\]: a tool named "x" is already in the list/,
    );
    expect(() => new Agent({ maxModelCalls: 2.5 })).toThrow(
      /maxModelCalls must be a whole number of at least 1, got 2.5/,
    );
  });

  it('documents every CoreLoopError code', () => {
    const codes: CoreLoopError['code'][] = [
      'CORE_LOOP_BUSY',
      'CORE_LOOP_NOTHING_TO_CONTINUE',
      'CORE_LOOP_CANNOT_CONTINUE',
      'CORE_LOOP_STAGE_FAILED',
      'CORE_LOOP_INVALID_TOOL',
      'CORE_LOOP_INVALID_CONFIG',
      'CORE_LOOP_NO_PROVIDER',
    ];
    expect(Object.keys(coreLoopErrorCodes).sort()).toEqual([...codes].sort());
    for (const code of codes) expect(coreLoopErrorCodes[code].length).toBeGreaterThan(20);
  });
});
