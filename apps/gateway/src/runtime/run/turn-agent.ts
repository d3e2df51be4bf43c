// The agent of one turn: core-loop's Agent with the gateway's stream function (the current
// attempt's credentials, llm_input / llm_output hooks) and the tool hooks.
import {
  Agent,
  type AnyAgentTool,
  type Model,
  type StreamFunction,
  type ThinkingLevel,
} from '@switchboard/core-loop';
import type { HookRunner, Message } from '@switchboard/hooks';
import type { AttemptTarget } from './attempt-target.ts';
import { credentialsOf } from './attempt-target.ts';
import type { TurnScope } from './turn-context.ts';

export interface TurnAgentOptions {
  readonly services: {
    readonly hooks: HookRunner;
    readonly streamFn: StreamFunction;
    readonly now: () => number;
  };
  readonly scope: TurnScope;
  readonly systemPrompt: string;
  readonly model: Model;
  readonly thinkingLevel: ThinkingLevel;
  readonly tools: readonly AnyAgentTool[];
  readonly messages: readonly Message[];
  readonly maxModelCalls: number;
  readonly sessionId: string;
  /** The attempt running now: its credentials go with every model call. */
  readonly current: () => AttemptTarget;
}

export function createTurnAgent(options: TurnAgentOptions): Agent {
  const { hooks, now } = options.services;
  const { scope } = options;
  const toolStarts = new Map<string, number>();
  const streamFn: StreamFunction = async (model, llmContext, streamOptions) => {
    if (hooks.has('llm_input')) {
      void hooks.run('llm_input', {
        ...scope,
        provider: model.provider,
        model: model.id,
        systemPrompt: llmContext.systemPrompt ?? '',
        messages: llmContext.messages as readonly Message[],
        tools: (llmContext.tools ?? []).map((tool) => tool.name),
      });
    }
    const current = options.current();
    const stream = await options.services.streamFn(model, llmContext, {
      ...streamOptions,
      ...credentialsOf(current),
      // Keeps the spreads (decision 0028, rule 1): written over streamOptions, an absent value keeps the caller's.
      ...(current.target.headers === undefined ? {} : { headers: current.target.headers }),
      ...(current.target.timeoutMs === undefined ? {} : { timeoutMs: current.target.timeoutMs }),
    });
    if (hooks.has('llm_output')) {
      void stream.result().then((message) =>
        hooks.run('llm_output', {
          ...scope,
          provider: model.provider,
          model: model.id,
          message,
          usage: message.usage,
        }),
      );
    }
    return stream;
  };

  return new Agent({
    systemPrompt: options.systemPrompt,
    model: options.model,
    thinkingLevel: options.thinkingLevel,
    tools: [...options.tools],
    messages: options.messages,
    streamFn,
    maxModelCalls: options.maxModelCalls,
    sessionId: options.sessionId,
    now,
    beforeToolCall: async (toolContext) => {
      toolStarts.set(toolContext.toolCall.id, now());
      if (!hooks.has('before_tool_call')) return undefined;
      const outcome = await hooks.run('before_tool_call', {
        ...scope,
        toolCallId: toolContext.toolCall.id,
        toolName: toolContext.toolCall.name,
        params: (toolContext.args ?? {}) as Record<string, unknown>,
      });
      if (outcome.block) return { block: true, reason: outcome.reason };
      return { args: outcome.params };
    },
    afterToolCall: async (toolContext) => {
      if (hooks.has('after_tool_call')) {
        void hooks.run('after_tool_call', {
          ...scope,
          toolCallId: toolContext.toolCall.id,
          toolName: toolContext.toolCall.name,
          params: (toolContext.args ?? {}) as Record<string, unknown>,
          result: {
            role: 'toolResult',
            toolCallId: toolContext.toolCall.id,
            toolName: toolContext.toolCall.name,
            content: toolContext.result.content,
            details: toolContext.result.details,
            isError: toolContext.isError,
            timestamp: now(),
          },
          durationMs: now() - (toolStarts.get(toolContext.toolCall.id) ?? now()),
        });
      }
      return undefined;
    },
  });
}
