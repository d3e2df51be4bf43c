import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type {
  AfterCompactionEvent,
  AfterToolCallEvent,
  AgentEndEvent,
  AsyncHookName,
  BeforeAgentStartEvent,
  BeforeAgentStartResult,
  BeforeCompactionEvent,
  BeforeMessageWriteEvent,
  BeforeMessageWriteOutcome,
  BeforeMessageWriteResult,
  BeforeModelResolveEvent,
  BeforeModelResolveResult,
  BeforePromptBuildEvent,
  BeforePromptBuildResult,
  BeforeResetEvent,
  BeforeToolCallEvent,
  BeforeToolCallOutcome,
  BeforeToolCallResult,
  ChannelAccessConfig,
  ChannelPairingRequestedEvent,
  ChannelPlugin,
  GatewayStartEvent,
  GatewayStopEvent,
  HookContext,
  HookEvent,
  HookKind,
  HookKindOf,
  HookName,
  HookOutcome,
  HookResult,
  HookRunner,
  InboundClaimEvent,
  InboundClaimOutcome,
  InboundClaimResult,
  InboundMessage,
  LlmInputEvent,
  LlmOutputEvent,
  MessageReceivedEvent,
  MessageSendingEvent,
  MessageSendingOutcome,
  MessageSendingResult,
  MessageSentEvent,
  PluginApi,
  PluginTool,
  SessionEndEvent,
  SessionStartEvent,
  SubagentEndedEvent,
  SubagentSpawnedEvent,
  SyncHookName,
  ToolResultMessage,
  ToolResultPersistEvent,
  ToolResultPersistOutcome,
  ToolResultPersistResult,
} from './index.ts';
import { defineChannelConfig, definePlugin, defineTool, hookDefinitions, hookNames } from './index.ts';

/** An observe hook: its handlers return nothing and the runner resolves with nothing. */
// biome-ignore lint/suspicious/noConfusingVoidType: void is exactly what observe hooks return.
type Observed<Event> = ['observe', Event, void, void];

/** The expected [kind, event, handler result, merged outcome] of every hook. */
interface Expected {
  gateway_start: Observed<GatewayStartEvent>;
  gateway_stop: Observed<GatewayStopEvent>;
  message_received: Observed<MessageReceivedEvent>;
  inbound_claim: ['claim', InboundClaimEvent, InboundClaimResult, InboundClaimOutcome];
  message_sending: ['gate', MessageSendingEvent, MessageSendingResult, MessageSendingOutcome];
  message_sent: Observed<MessageSentEvent>;
  before_model_resolve: [
    'modify',
    BeforeModelResolveEvent,
    BeforeModelResolveResult,
    BeforeModelResolveResult,
  ];
  before_prompt_build: ['modify', BeforePromptBuildEvent, BeforePromptBuildResult, BeforePromptBuildResult];
  before_agent_start: ['modify', BeforeAgentStartEvent, BeforeAgentStartResult, BeforeAgentStartResult];
  llm_input: Observed<LlmInputEvent>;
  llm_output: Observed<LlmOutputEvent>;
  before_tool_call: ['gate', BeforeToolCallEvent, BeforeToolCallResult, BeforeToolCallOutcome];
  after_tool_call: Observed<AfterToolCallEvent>;
  tool_result_persist: ['sync', ToolResultPersistEvent, ToolResultPersistResult, ToolResultPersistOutcome];
  before_message_write: [
    'sync',
    BeforeMessageWriteEvent,
    BeforeMessageWriteResult,
    BeforeMessageWriteOutcome,
  ];
  before_compaction: Observed<BeforeCompactionEvent>;
  after_compaction: Observed<AfterCompactionEvent>;
  before_reset: Observed<BeforeResetEvent>;
  session_start: Observed<SessionStartEvent>;
  session_end: Observed<SessionEndEvent>;
  agent_end: Observed<AgentEndEvent>;
  channel_pairing_requested: Observed<ChannelPairingRequestedEvent>;
  subagent_spawned: Observed<SubagentSpawnedEvent>;
  subagent_ended: Observed<SubagentEndedEvent>;
}

type Actual = {
  [Name in HookName]: [HookKindOf<Name>, HookEvent<Name>, HookResult<Name>, HookOutcome<Name>];
};

declare const api: PluginApi<{ readonly units: 'metric' | 'imperial' }>;
declare const runner: HookRunner;
declare const call: BeforeToolCallEvent;
declare const result: ToolResultMessage;
declare const message: InboundMessage;

describe('the hook map', () => {
  it('gives every hook exactly the expected kind, event, result and outcome', () => {
    expectTypeOf<keyof Expected>().toEqualTypeOf<HookName>();
    expectTypeOf<Actual>().toEqualTypeOf<Expected>();
    // Spot checks that the comparison above is not vacuous.
    expectTypeOf<HookEvent<'before_tool_call'>>().toEqualTypeOf<BeforeToolCallEvent>();
    expectTypeOf<HookEvent<'before_tool_call'>>().not.toEqualTypeOf<AfterToolCallEvent>();
    expectTypeOf<HookOutcome<'message_sending'>>().toEqualTypeOf<MessageSendingOutcome>();
    expectTypeOf<HookResult<'agent_end'>>().toEqualTypeOf<void>();
  });

  it('splits sync and async hooks', () => {
    expectTypeOf<SyncHookName>().toEqualTypeOf<'tool_result_persist' | 'before_message_write'>();
    expectTypeOf<AsyncHookName>().toEqualTypeOf<Exclude<HookName, SyncHookName>>();
  });

  it('keeps the runtime tables in step with the types', () => {
    expectTypeOf(hookNames).toEqualTypeOf<readonly HookName[]>();
    expectTypeOf(hookDefinitions.before_tool_call.kind).toEqualTypeOf<'gate'>();
    expectTypeOf(hookDefinitions.agent_end.kind).toEqualTypeOf<'observe'>();
    expectTypeOf<(typeof hookDefinitions)[HookName]['kind']>().toEqualTypeOf<HookKind>();
  });
});

describe('api.on', () => {
  it('types the event and context of each hook', () => {
    api.on('before_tool_call', (event, context) => {
      expectTypeOf(event).toEqualTypeOf<BeforeToolCallEvent>();
      expectTypeOf(context).toEqualTypeOf<HookContext<'before_tool_call'>>();
      expectTypeOf(context.signal).toEqualTypeOf<AbortSignal>();
      return { block: event.toolName === 'exec', blockReason: 'no shell' };
    });
    api.on('message_received', async (event) => {
      expectTypeOf(event.message).toEqualTypeOf<InboundMessage>();
    });
    api.on('tool_result_persist', (event) => ({ message: { ...event.message, isError: true } }));
    const remove = api.on('agent_end', () => {}, { priority: 10, timeoutMs: 5_000 });
    expectTypeOf(remove).toEqualTypeOf<() => void>();
  });

  it('rejects unknown hook names, wrong results and async sync-hook handlers', () => {
    // @ts-expect-error: not a hook name (typo).
    api.on('message_recieved', () => {});
    // @ts-expect-error: text must be a string.
    api.on('message_sending', () => ({ text: 5 }));
    // @ts-expect-error: before_model_resolve has no `block`.
    api.on('before_model_resolve', () => ({ block: true }));
    // @ts-expect-error: sync hooks must not return a promise.
    api.on('tool_result_persist', async (event) => ({ message: event.message }));
    // @ts-expect-error: the priority is a number.
    api.on('agent_end', () => {}, { priority: 'high' });
  });
});

describe('the runner', () => {
  it('returns each hook outcome, as a promise for async hooks and directly for sync ones', () => {
    expectTypeOf(runner.run('before_tool_call', call)).toEqualTypeOf<Promise<BeforeToolCallOutcome>>();
    expectTypeOf(runner.run('agent_end', {} as AgentEndEvent)).toEqualTypeOf<Promise<void>>();
    expectTypeOf(
      runner.runSync('tool_result_persist', { sessionKey: 's', agentId: 'a', message: result }),
    ).toEqualTypeOf<ToolResultPersistOutcome>();
    expectTypeOf(runner.has).parameter(0).toEqualTypeOf<HookName>();
  });

  it('refuses mismatched payloads, unknown hooks and the wrong runner', () => {
    // @ts-expect-error: the payload of before_tool_call is not that of message_sending.
    void runner.run('message_sending', call);
    // @ts-expect-error: unknown hook.
    void runner.run('before_tool_cal', call);
    // @ts-expect-error: sync hooks go through runSync.
    void runner.run('tool_result_persist', { sessionKey: 's', agentId: 'a', message: result });
    // @ts-expect-error: async hooks go through run.
    runner.runSync('before_tool_call', call);
    // @ts-expect-error: unknown hook.
    runner.has('nope');
  });
});

describe('definePlugin', () => {
  it('infers the config type from the schema', () => {
    definePlugin({
      name: 'weather',
      version: '1.0.0',
      specVersion: 1,
      configSchema: z.object({ units: z.enum(['metric', 'imperial']).default('metric'), apiKey: z.string() }),
      setup(pluginApi) {
        expectTypeOf(pluginApi.config).toEqualTypeOf<{ units: 'metric' | 'imperial'; apiKey: string }>();
      },
    });
    const plugin = definePlugin({
      name: 'bare',
      version: '1.0.0',
      specVersion: 1,
      async setup(pluginApi) {
        expectTypeOf(pluginApi.config).toEqualTypeOf<Record<string, never>>();
        return () => {};
      },
    });
    expectTypeOf(plugin.name).toEqualTypeOf<string>();
  });

  it('refuses an unsupported spec version and a missing setup', () => {
    definePlugin({
      name: 'future',
      version: '1.0.0',
      // @ts-expect-error: this package defines spec version 1.
      specVersion: 2,
      setup() {},
    });
    // @ts-expect-error: setup is required.
    definePlugin({ name: 'nothing', version: '1.0.0', specVersion: 1 });
  });
});

describe('tools', () => {
  it('infers tool arguments from the parameters schema', () => {
    api.registerTool({
      name: 'forecast',
      description: 'Weather forecast',
      parameters: z.object({ city: z.string(), days: z.number().int().default(1) }),
      async execute(_id, args, signal) {
        expectTypeOf(args).toEqualTypeOf<{ city: string; days: number }>();
        expectTypeOf(signal).toEqualTypeOf<AbortSignal>();
        return { content: [{ type: 'text', text: args.city }] };
      },
    });
    const tool = defineTool({
      name: 'echo',
      description: 'Echo',
      parameters: z.object({ text: z.string() }),
      async execute(_id, args) {
        return { content: [{ type: 'text', text: args.text }], details: { length: args.text.length } };
      },
    });
    expectTypeOf(tool).toExtend<PluginTool>();
  });

  it('accepts a structurally identical tool from another package (core-loop)', () => {
    interface CoreLoopTool {
      name: string;
      label?: string;
      description: string;
      parameters: z.ZodObject<{ city: z.ZodString }>;
      execute(
        toolCallId: string,
        args: { city: string },
        signal?: AbortSignal,
        onUpdate?: (partial: { content: readonly { type: 'text'; text: string }[] }) => void,
      ): Promise<{ content: { type: 'text'; text: string }[]; details?: unknown }>;
    }
    expectTypeOf<CoreLoopTool>().toExtend<PluginTool>();
  });
});

describe('channels', () => {
  it('types the account config a channel receives, access fields included', () => {
    const config = defineChannelConfig(
      z.object({ botToken: z.string(), apiRoot: z.string().default('https://x') }),
    );
    const channel: ChannelPlugin<{ botToken: string; apiRoot: string }> = {
      id: 'demo',
      label: 'Demo',
      capabilities: {
        chatTypes: ['direct'],
        threads: false,
        media: false,
        edits: false,
        typing: false,
        reactions: false,
        textLimit: 1000,
        markup: 'plain',
      },
      config,
      async start(context) {
        expectTypeOf(context.account.botToken).toEqualTypeOf<string>();
        expectTypeOf(context.account.dmPolicy).toEqualTypeOf<ChannelAccessConfig['dmPolicy']>();
        return { send: async () => ({ messageIds: ['1'] }), stop: async () => {} };
      },
    };
    api.registerChannel(channel);
  });

  it('keeps group-only facts off direct messages', () => {
    if (message.chatType === 'direct') {
      expectTypeOf(message.peer.kind).toEqualTypeOf<'direct'>();
      // @ts-expect-error: DMs have no mention flag.
      void message.wasMentioned;
    } else {
      expectTypeOf(message.wasMentioned).toEqualTypeOf<boolean>();
      expectTypeOf(message.guildId).toEqualTypeOf<string | undefined>();
    }
  });
});
