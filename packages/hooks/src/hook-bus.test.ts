import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRecordingLogger, type RecordingLogger } from '../test/recording-logger.ts';
import type { OutboundMessage } from './channel.ts';
import { createHookBus, type HookBus, type HookFailure } from './hook-bus.ts';
import type { HookContext, HookEvent } from './hook-types.ts';
import { emptyUsage, type ToolResultMessage } from './messages.ts';
import { PluginError } from './plugin-error.ts';

const run = { sessionKey: 'agent:main:main', agentId: 'main', runId: 'run-1' } as const;

const textMessage: OutboundMessage = {
  kind: 'text',
  channel: 'telegram',
  accountId: 'default',
  peer: { kind: 'direct', id: '42' },
  text: 'hello',
};

const toolResult: ToolResultMessage = {
  role: 'toolResult',
  toolCallId: 'call-1',
  toolName: 'weather',
  content: [{ type: 'text', text: 'sunny' }],
  isError: false,
  timestamp: 1,
};

const toolCall: HookEvent<'before_tool_call'> = {
  ...run,
  toolCallId: 'call-1',
  toolName: 'exec',
  params: { command: 'ls' },
};

function deferred<Value = void>(): { promise: Promise<Value>; resolve: (value: Value) => void } {
  let resolve!: (value: Value) => void;
  const promise = new Promise<Value>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('createHookBus', () => {
  let logger: RecordingLogger;
  let failures: HookFailure[];
  let bus: HookBus;

  beforeEach(() => {
    logger = createRecordingLogger();
    failures = [];
    bus = createHookBus({ logger, onFailure: (failure) => failures.push(failure) });
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  describe('registration', () => {
    it('knows cheaply whether a hook has listeners, and forgets removed ones', () => {
      expect(bus.has('message_sending')).toBe(false);
      const remove = bus.add('message_sending', () => undefined, { plugin: 'a' });
      bus.add('message_sending', () => undefined, { plugin: 'b' });
      expect(bus.has('message_sending')).toBe(true);
      expect(bus.has('message_sent')).toBe(false);
      remove();
      remove();
      expect(bus.handlers('message_sending').map((handler) => handler.plugin)).toEqual(['b']);
      expect(bus.removePlugin('b')).toBe(1);
      expect(bus.has('message_sending')).toBe(false);
    });

    it('removes exactly the handlers of one plugin', () => {
      bus.add('message_received', () => {}, { plugin: 'a' });
      bus.add('agent_end', () => {}, { plugin: 'a' });
      bus.add('agent_end', () => {}, { plugin: 'b' });
      expect(bus.removePlugin('a')).toBe(2);
      expect(bus.handlers().map((handler) => `${handler.plugin}:${handler.hook}`)).toEqual(['b:agent_end']);
    });

    it('rejects unknown hooks and non-function handlers with coded errors', () => {
      const unknownHook = () =>
        bus.add('message_recieved' as 'message_received', () => {}, { plugin: 'typo' });
      expect(unknownHook).toThrow(PluginError);
      expect(unknownHook).toThrow(/plugin "typo".*unknown hook "message_recieved"/i);
      try {
        bus.add('agent_end', 'nope' as unknown as () => void, { plugin: 'p' });
        expect.unreachable();
      } catch (error) {
        expect((error as PluginError).code).toBe('PLUGIN_INVALID_REGISTRATION');
      }
    });

    it('uses the hook default timeout unless one is given, and none for sync hooks', () => {
      bus.add('message_sending', () => undefined, { plugin: 'a' });
      bus.add('gateway_stop', () => {}, { plugin: 'a' });
      bus.add('channel_pairing_requested', () => {}, { plugin: 'a', timeoutMs: 700 });
      bus.add('tool_result_persist', () => undefined, { plugin: 'a', timeoutMs: 10 });
      expect(bus.handlers().map((handler) => [handler.hook, handler.timeoutMs])).toEqual([
        ['message_sending', 15_000],
        ['gateway_stop', 5_000],
        ['channel_pairing_requested', 700],
        ['tool_result_persist', undefined],
      ]);
    });
  });

  describe('observe hooks', () => {
    it('run every handler concurrently and resolve when all are done', async () => {
      const gate = deferred();
      const started: string[] = [];
      let finished = 0;
      for (const plugin of ['a', 'b', 'c']) {
        bus.add(
          'message_received',
          async () => {
            started.push(plugin);
            await gate.promise;
            finished++;
          },
          { plugin },
        );
      }
      const done = bus.run('message_received', { message: inbound() });
      // All three started before any could finish.
      expect(started).toEqual(['a', 'b', 'c']);
      expect(finished).toBe(0);
      gate.resolve();
      await expect(done).resolves.toBeUndefined();
      expect(finished).toBe(3);
    });

    it('log a failing handler with its plugin name and still run the others', async () => {
      const seen: string[] = [];
      bus.add(
        'agent_end',
        () => {
          throw new Error('boom');
        },
        { plugin: 'crashy' },
      );
      bus.add(
        'agent_end',
        async () => {
          throw new Error('async boom');
        },
        { plugin: 'crashy-async' },
      );
      bus.add('agent_end', (event) => void seen.push(event.runId), { plugin: 'fine' });
      await bus.run('agent_end', { ...run, messages: [], success: true, durationMs: 5, usage: emptyUsage });
      expect(seen).toEqual(['run-1']);
      const errors = logger.at('error');
      expect(errors.map((line) => line.fields.plugin)).toEqual(['crashy', 'crashy-async']);
      expect(errors[0]?.message).toContain('"crashy"');
      expect(errors[0]?.fields.hook).toBe('agent_end');
      expect(errors[0]?.fields.error).toEqual(new Error('boom'));
      expect(failures.map((failure) => failure.kind)).toEqual(['error', 'error']);
    });

    it('stop waiting for a handler at its timeout and abort its signal', async () => {
      vi.useFakeTimers();
      let signal: AbortSignal | undefined;
      bus.add(
        'gateway_stop',
        (_event, context) => {
          signal = context.signal;
          return new Promise<void>(() => {});
        },
        { plugin: 'slow' },
      );
      let lateReader: HookContext | undefined;
      bus.add(
        'gateway_stop',
        (_event, context) => {
          lateReader = context;
          return new Promise<void>(() => {});
        },
        { plugin: 'late-reader' },
      );
      let settled = false;
      const done = bus.run('gateway_stop', { reason: 'shutdown' }).then(() => {
        settled = true;
      });
      await vi.advanceTimersByTimeAsync(4_999);
      expect(settled).toBe(false);
      expect(signal?.aborted).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await done;
      expect(settled).toBe(true);
      expect(signal?.aborted).toBe(true);
      expect(signal?.reason).toMatchObject({ code: 'PLUGIN_HOOK_TIMEOUT' });
      // A handler that looks at its signal only after the timeout still sees it aborted.
      expect(lateReader?.signal.aborted).toBe(true);
      const warning = logger.at('warn')[0];
      expect(warning?.fields).toMatchObject({ plugin: 'slow', hook: 'gateway_stop', timeoutMs: 5_000 });
      expect(failures.map((failure) => `${failure.plugin}:${failure.kind}`)).toEqual([
        'slow:timeout',
        'late-reader:timeout',
      ]);
    });

    it('resolve at once when nobody listens', async () => {
      await expect(bus.run('session_start', { ...run, sessionId: 's1' })).resolves.toBeUndefined();
    });
  });

  describe('modify hooks', () => {
    it('run sequentially by priority, higher first, ties in registration order', async () => {
      const order: string[] = [];
      const slow = deferred();
      let active = 0;
      let maxActive = 0;
      const add = (plugin: string, priority: number | undefined) =>
        bus.add(
          'before_model_resolve',
          async () => {
            active++;
            maxActive = Math.max(maxActive, active);
            order.push(plugin);
            if (plugin === 'low-first') await slow.promise;
            active--;
            return undefined;
          },
          priority === undefined ? { plugin } : { plugin, priority },
        );
      add('low-first', -1);
      add('default-first', undefined);
      add('high', 10);
      add('default-second', 0);
      add('low-second', -1);
      const done = bus.run('before_model_resolve', {
        ...run,
        prompt: 'hi',
        provider: 'anthropic',
        model: 'm',
      });
      await vi.waitFor(() => expect(order).toContain('low-first'));
      expect(order).toEqual(['high', 'default-first', 'default-second', 'low-first']);
      slow.resolve();
      await done;
      expect(order).toEqual(['high', 'default-first', 'default-second', 'low-first', 'low-second']);
      expect(maxActive).toBe(1);
    });

    it('before_model_resolve: the first handler to set a field wins it', async () => {
      bus.add('before_model_resolve', () => ({ providerOverride: 'openai' }), { plugin: 'low', priority: 1 });
      bus.add('before_model_resolve', () => ({ modelOverride: 'fast' }), { plugin: 'high', priority: 5 });
      bus.add('before_model_resolve', () => ({ modelOverride: 'big', providerOverride: 'anthropic' }), {
        plugin: 'lowest',
      });
      const outcome = await bus.run('before_model_resolve', {
        ...run,
        prompt: 'hi',
        provider: 'anthropic',
        model: 'claude',
      });
      expect(outcome).toEqual({ modelOverride: 'fast', providerOverride: 'openai' });
    });

    it('before_prompt_build: systemPrompt first wins, contexts joined in priority order, events unchanged', async () => {
      const seen: string[] = [];
      const event: HookEvent<'before_prompt_build'> = {
        ...run,
        prompt: 'hi',
        messages: [],
        systemPrompt: 'base',
        provider: 'anthropic',
        model: 'claude',
      };
      bus.add(
        'before_prompt_build',
        (received) => {
          seen.push(received.systemPrompt);
          return { systemPrompt: 'second', prependContext: 'B', appendSystemContext: 'rules' };
        },
        { plugin: 'b' },
      );
      bus.add(
        'before_prompt_build',
        (received) => {
          seen.push(received.systemPrompt);
          return { systemPrompt: 'first', prependContext: 'A', appendContext: '' };
        },
        { plugin: 'a', priority: 1 },
      );
      const outcome = await bus.run('before_prompt_build', event);
      expect(outcome).toEqual({
        systemPrompt: 'first',
        prependContext: 'A\n\nB',
        appendSystemContext: 'rules',
      });
      expect(seen).toEqual(['base', 'base']);
    });

    it('before_agent_start merges model and prompt fields', async () => {
      bus.add('before_agent_start', () => ({ modelOverride: 'm1', appendContext: 'x' }), { plugin: 'a' });
      bus.add('before_agent_start', () => ({ modelOverride: 'm2', appendContext: 'y', systemPrompt: 's' }), {
        plugin: 'b',
      });
      const outcome = await bus.run('before_agent_start', { ...run, prompt: 'p', messages: [] });
      expect(outcome).toEqual({ modelOverride: 'm1', appendContext: 'x\n\ny', systemPrompt: 's' });
    });

    it('skip failing, timed-out and malformed handlers and keep the others results', async () => {
      vi.useFakeTimers();
      bus.add(
        'before_model_resolve',
        () => {
          throw new Error('nope');
        },
        { plugin: 'thrower', priority: 3 },
      );
      bus.add('before_model_resolve', () => new Promise(() => {}), {
        plugin: 'hanger',
        priority: 2,
        timeoutMs: 50,
      });
      bus.add('before_model_resolve', () => ({ modelOverride: 42 as unknown as string }), {
        plugin: 'wrong-type',
        priority: 1,
      });
      bus.add('before_model_resolve', () => ({ modelOverride: 'ok' }), { plugin: 'good' });
      const done = bus.run('before_model_resolve', { ...run, prompt: 'p', provider: 'x', model: 'y' });
      await vi.advanceTimersByTimeAsync(50);
      await expect(done).resolves.toEqual({ modelOverride: 'ok' });
      expect(failures.map((failure) => `${failure.plugin}:${failure.kind}`)).toEqual([
        'thrower:error',
        'hanger:timeout',
      ]);
      expect(logger.at('warn').some((line) => line.fields.plugin === 'wrong-type')).toBe(true);
    });

    it('resolve to an empty merge when nobody listens', async () => {
      await expect(
        bus.run('before_prompt_build', {
          ...run,
          prompt: 'p',
          messages: [],
          systemPrompt: 's',
          provider: 'x',
          model: 'y',
        }),
      ).resolves.toEqual({});
    });
  });

  describe('message_sending (gate, fails open)', () => {
    it('chains rewrites, last writer wins, and passes the message through untouched otherwise', async () => {
      const seen: string[] = [];
      bus.add(
        'message_sending',
        (event) => {
          seen.push(event.message.kind === 'text' ? event.message.text : '');
          return { text: 'translated' };
        },
        { plugin: 'translate', priority: 2 },
      );
      bus.add(
        'message_sending',
        (event) => {
          seen.push(event.message.kind === 'text' ? event.message.text : '');
          return event.message.kind === 'text' ? { text: `${event.message.text}!` } : undefined;
        },
        { plugin: 'shout', priority: 1 },
      );
      bus.add('message_sending', () => undefined, { plugin: 'quiet' });
      const outcome = await bus.run('message_sending', { message: textMessage, ...run });
      expect(seen).toEqual(['hello', 'translated']);
      expect(outcome).toEqual({ cancel: false, message: { ...textMessage, text: 'translated!' } });
      expect(textMessage.text).toBe('hello');
    });

    it('rewrites the caption of a media message', async () => {
      bus.add('message_sending', () => ({ text: 'new caption' }), { plugin: 'caption' });
      const media: OutboundMessage = {
        kind: 'media',
        channel: 'discord',
        accountId: 'default',
        peer: { kind: 'channel', id: 'c1' },
        media: [{ kind: 'image', source: { type: 'url', url: 'https://example.test/a.png' } }],
        caption: 'old',
      };
      const outcome = await bus.run('message_sending', { message: media });
      expect(outcome).toEqual({ cancel: false, message: { ...media, caption: 'new caption' } });
    });

    it('a cancel stops the chain and names the plugin', async () => {
      const later = vi.fn();
      bus.add('message_sending', () => ({ text: 'changed' }), { plugin: 'first', priority: 2 });
      bus.add('message_sending', () => ({ cancel: true, cancelReason: 'spam' }), {
        plugin: 'filter',
        priority: 1,
      });
      bus.add('message_sending', later, { plugin: 'never' });
      const outcome = await bus.run('message_sending', { message: textMessage });
      expect(outcome).toEqual({ cancel: true, plugin: 'filter', reason: 'spam' });
      expect(later).not.toHaveBeenCalled();
    });

    it('a failing or hanging handler is skipped, not treated as a cancel', async () => {
      vi.useFakeTimers();
      bus.add(
        'message_sending',
        () => {
          throw new Error('x');
        },
        { plugin: 'thrower', priority: 2 },
      );
      bus.add('message_sending', () => new Promise(() => {}), { plugin: 'hanger', priority: 1 });
      bus.add('message_sending', () => ({ text: 'still delivered' }), { plugin: 'ok' });
      const done = bus.run('message_sending', { message: textMessage });
      await vi.advanceTimersByTimeAsync(15_000);
      await expect(done).resolves.toEqual({
        cancel: false,
        message: { ...textMessage, text: 'still delivered' },
      });
    });
  });

  describe('before_tool_call (gate, fails closed)', () => {
    it('chains params and passes when nobody blocks', async () => {
      bus.add('before_tool_call', (event) => ({ params: { ...event.params, safe: true } }), {
        plugin: 'a',
        priority: 1,
      });
      bus.add(
        'before_tool_call',
        (event) => ({ params: { ...event.params, seen: Object.keys(event.params) } }),
        {
          plugin: 'b',
        },
      );
      const outcome = await bus.run('before_tool_call', toolCall);
      expect(outcome).toEqual({
        block: false,
        params: { command: 'ls', safe: true, seen: ['command', 'safe'] },
      });
    });

    it('a block stops the chain', async () => {
      const later = vi.fn();
      bus.add('before_tool_call', () => ({ block: true, blockReason: 'exec is not allowed' }), {
        plugin: 'policy',
        priority: 1,
      });
      bus.add('before_tool_call', later, { plugin: 'later' });
      await expect(bus.run('before_tool_call', toolCall)).resolves.toEqual({
        block: true,
        plugin: 'policy',
        reason: 'exec is not allowed',
      });
      expect(later).not.toHaveBeenCalled();
    });

    it('a throwing handler blocks the call', async () => {
      const later = vi.fn();
      bus.add(
        'before_tool_call',
        async () => {
          throw new Error('policy store down');
        },
        { plugin: 'policy', priority: 1 },
      );
      bus.add('before_tool_call', later, { plugin: 'later' });
      const outcome = await bus.run('before_tool_call', toolCall);
      expect(outcome).toMatchObject({ block: true, plugin: 'policy' });
      expect(outcome.block && outcome.reason).toContain('"policy"');
      expect(later).not.toHaveBeenCalled();
      expect(logger.at('error')[0]?.fields).toMatchObject({ plugin: 'policy', hook: 'before_tool_call' });
    });

    it('a handler that times out blocks the call', async () => {
      vi.useFakeTimers();
      bus.add('before_tool_call', () => new Promise(() => {}), { plugin: 'slow-policy', timeoutMs: 1_000 });
      let outcome: unknown;
      const done = bus.run('before_tool_call', toolCall).then((value) => {
        outcome = value;
      });
      await vi.advanceTimersByTimeAsync(999);
      expect(outcome).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      await done;
      expect(outcome).toMatchObject({ block: true, plugin: 'slow-policy' });
    });

    it('passes untouched when nobody listens', async () => {
      await expect(bus.run('before_tool_call', toolCall)).resolves.toEqual({
        block: false,
        params: toolCall.params,
      });
    });
  });

  describe('inbound_claim (claim)', () => {
    it('the first handled result wins and later handlers do not run', async () => {
      const calls: string[] = [];
      bus.add(
        'inbound_claim',
        () => {
          calls.push('not-mine');
          return { handled: false };
        },
        { plugin: 'not-mine', priority: 3 },
      );
      bus.add(
        'inbound_claim',
        () => {
          calls.push('broken');
          throw new Error('x');
        },
        { plugin: 'broken', priority: 2 },
      );
      bus.add(
        'inbound_claim',
        () => {
          calls.push('owner');
          return { handled: true, reply: 'got it' };
        },
        { plugin: 'owner', priority: 1 },
      );
      bus.add(
        'inbound_claim',
        () => {
          calls.push('late');
          return { handled: true };
        },
        { plugin: 'late' },
      );
      const outcome = await bus.run('inbound_claim', { message: inbound() });
      expect(outcome).toEqual({ handled: true, plugin: 'owner', reply: 'got it' });
      expect(calls).toEqual(['not-mine', 'broken', 'owner']);
    });

    it('is unhandled when nobody claims', async () => {
      bus.add('inbound_claim', () => undefined, { plugin: 'a' });
      await expect(bus.run('inbound_claim', { message: inbound() })).resolves.toEqual({ handled: false });
    });
  });

  describe('sync hooks', () => {
    it('tool_result_persist chains messages synchronously', () => {
      bus.add(
        'tool_result_persist',
        (event) => ({ message: { ...event.message, content: [{ type: 'text', text: 'redacted' }] } }),
        { plugin: 'redact', priority: 1 },
      );
      bus.add(
        'tool_result_persist',
        (event) => ({ message: { ...event.message, details: { seen: true } } }),
        {
          plugin: 'tag',
        },
      );
      const outcome = bus.runSync('tool_result_persist', {
        sessionKey: 's',
        agentId: 'a',
        message: toolResult,
      });
      expect(outcome).not.toBeInstanceOf(Promise);
      expect(outcome.message).toEqual({
        ...toolResult,
        content: [{ type: 'text', text: 'redacted' }],
        details: { seen: true },
      });
    });

    it('a handler returning a promise is ignored with a warning, and the chain goes on', async () => {
      const asyncHandler = async (): Promise<{ message: ToolResultMessage }> => ({
        message: { ...toolResult, content: [] },
      });
      bus.add('tool_result_persist', asyncHandler as unknown as () => undefined, {
        plugin: 'async-one',
        priority: 1,
      });
      bus.add('tool_result_persist', () => Promise.reject(new Error('late')) as unknown as undefined, {
        plugin: 'rejecting',
        priority: 1,
      });
      bus.add('tool_result_persist', (event) => ({ message: { ...event.message, isError: true } }), {
        plugin: 'sync-one',
      });
      const outcome = bus.runSync('tool_result_persist', {
        sessionKey: 's',
        agentId: 'a',
        message: toolResult,
      });
      expect(outcome.message).toEqual({ ...toolResult, isError: true });
      const warnings = logger.at('warn');
      expect(warnings.map((line) => line.fields.plugin)).toEqual(['async-one', 'rejecting']);
      expect(warnings[0]?.message).toContain('promise');
      expect(failures.map((failure) => failure.kind)).toEqual([
        'promise-in-sync-hook',
        'promise-in-sync-hook',
      ]);
      // The rejected promise was caught, so nothing leaks as an unhandled rejection.
      await new Promise((resolve) => setImmediate(resolve));
      expect(logger.at('debug').some((line) => line.fields.plugin === 'rejecting')).toBe(true);
    });

    it('ignores a replacement that changes the tool call it belongs to, and skips throwing handlers', () => {
      bus.add('tool_result_persist', () => ({ message: { ...toolResult, toolCallId: 'other' } }), {
        plugin: 'wrong-id',
        priority: 2,
      });
      bus.add(
        'tool_result_persist',
        () => {
          throw new Error('x');
        },
        { plugin: 'thrower', priority: 1 },
      );
      const outcome = bus.runSync('tool_result_persist', {
        sessionKey: 's',
        agentId: 'a',
        message: toolResult,
      });
      expect(outcome.message).toBe(toolResult);
      expect(logger.at('warn')[0]?.fields.plugin).toBe('wrong-id');
      expect(logger.at('error')[0]?.fields.plugin).toBe('thrower');
    });

    it('before_message_write: a block stops the chain; a role change is ignored', () => {
      const later = vi.fn();
      bus.add(
        'before_message_write',
        () => ({ message: { role: 'user', content: 'x', timestamp: 1 } as unknown as ToolResultMessage }),
        { plugin: 'role-changer', priority: 3 },
      );
      bus.add('before_message_write', (event) => ({ message: { ...event.message, timestamp: 99 } }), {
        plugin: 'stamp',
        priority: 2,
      });
      const passed = bus.runSync('before_message_write', {
        sessionKey: 's',
        agentId: 'a',
        message: toolResult,
      });
      expect(passed).toEqual({ block: false, message: { ...toolResult, timestamp: 99 } });

      bus.add('before_message_write', () => ({ block: true }), { plugin: 'blocker', priority: 1 });
      bus.add('before_message_write', later, { plugin: 'later' });
      const blocked = bus.runSync('before_message_write', {
        sessionKey: 's',
        agentId: 'a',
        message: toolResult,
      });
      expect(blocked).toEqual({ block: true, plugin: 'blocker' });
      expect(later).not.toHaveBeenCalled();
    });

    it('sync handlers get a signal that never aborts', () => {
      let context: HookContext | undefined;
      bus.add(
        'before_message_write',
        (_event, received) => {
          context = received;
        },
        { plugin: 'p' },
      );
      bus.runSync('before_message_write', { sessionKey: 's', agentId: 'a', message: toolResult });
      expect(context).toMatchObject({ hook: 'before_message_write', plugin: 'p' });
      expect(context?.signal.aborted).toBe(false);
    });
  });

  it('a run keeps the handler list it started with', async () => {
    const gate = deferred();
    const calls: string[] = [];
    bus.add(
      'before_prompt_build',
      async () => {
        calls.push('first');
        await gate.promise;
      },
      { plugin: 'first', priority: 1 },
    );
    const removeSecond = bus.add('before_prompt_build', () => void calls.push('second'), {
      plugin: 'second',
    });
    const done = bus.run('before_prompt_build', {
      ...run,
      prompt: 'p',
      messages: [],
      systemPrompt: 's',
      provider: 'x',
      model: 'y',
    });
    removeSecond();
    bus.add('before_prompt_build', () => void calls.push('third'), { plugin: 'third' });
    gate.resolve();
    await done;
    expect(calls).toEqual(['first', 'second']);
  });
});

function inbound(): HookEvent<'message_received'>['message'] {
  return {
    chatType: 'direct',
    channel: 'telegram',
    accountId: 'default',
    messageId: '1',
    peer: { kind: 'direct', id: '42' },
    sender: { id: '42', name: 'Ada' },
    text: 'hi',
    timestamp: 1,
  };
}
