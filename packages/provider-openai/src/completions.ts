// The Chat Completions provider (`api: "openai-completions"`): OpenAI and every server that
// speaks its wire format (vLLM, llama.cpp, LM Studio, OpenRouter, Groq, DeepSeek, Mistral, …).

import {
  AssistantMessageEventStream,
  type LlmContext,
  type Model,
  ModelError,
  type ModelProvider,
  type StreamOptions,
  type ThinkingLevel,
  toModelError,
} from '@switchboard/core-loop';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ReasoningEffort } from 'openai/resources/shared';
import { type OpenAICompat, resolveCompat } from './compat.ts';
import { toCompletionsMessages } from './completions-messages.ts';
import { openAICompletionsApi } from './models.ts';
import type { ResponseBuilder } from './response-builder.ts';
import {
  type CallSetup,
  ClientCache,
  type OpenAIProviderOptions,
  runOpenAICall,
  streamCut,
  validateProviderOptions,
} from './stream-run.ts';
import { cleanToolSchema } from './tool-schema.ts';

/** The reasoning effort sent for a thinking level (`off` sends none). */
export function reasoningEffortFor(level: ThinkingLevel | undefined): ReasoningEffort | undefined {
  if (level === undefined || level === 'off') return undefined;
  return level;
}

/** The output limit: the call's, else min(model max output, 32000). */
export function outputLimit(model: Model, requested: number | undefined): number {
  return Math.max(1, Math.min(requested ?? Math.min(model.maxOutputTokens, 32_000), model.maxOutputTokens));
}

/** The streaming request body for one call. */
function completionsRequest(
  model: Model,
  context: LlmContext,
  call: StreamOptions,
  compat: OpenAICompat,
): ChatCompletionCreateParamsStreaming {
  const params: ChatCompletionCreateParamsStreaming = {
    model: model.id,
    messages: toCompletionsMessages(context, model, compat),
    stream: true,
    [compat.maxTokensField]: outputLimit(model, call.maxTokens),
  };
  if (compat.supportsUsageInStreaming) params.stream_options = { include_usage: true };
  if (compat.supportsTools && context.tools !== undefined && context.tools.length > 0) {
    params.tools = context.tools.map(
      (tool): ChatCompletionTool => ({
        type: 'function',
        function: {
          name: tool.name,
          description: tool.description,
          parameters: cleanToolSchema(tool.parameters, compat.toolSchemaProfile),
        },
      }),
    );
  }
  const effort = reasoningEffortFor(call.thinkingLevel);
  if (effort !== undefined && model.thinking !== undefined && compat.supportsReasoningEffort) {
    params.reasoning_effort = effort;
  }
  return params;
}

/** Maps `finish_reason`; `undefined` for a refusal or filter, which ends as an error. */
function mapCompletionsFinishReason(
  reason: string | null | undefined,
): 'stop' | 'length' | 'toolUse' | undefined {
  switch (reason) {
    case null:
    case undefined:
    case 'stop':
    case 'end_turn':
      return 'stop';
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'toolUse';
    default:
      return undefined;
  }
}

/** Extra delta fields compatible servers send reasoning in (not in OpenAI's types). */
interface ReasoningDelta {
  readonly reasoning_content?: string | null;
  readonly reasoning?: string | null;
}

/** Applies the chunks of one Chat Completions stream to the builder. */
class CompletionsChunkReader {
  readonly #builder: ResponseBuilder;
  readonly #push: CallSetup['push'];
  #textIndex: number | undefined;
  #thinkingIndex: number | undefined;
  /** Server tool-call index → content index. */
  readonly #toolIndexes = new Map<number, number>();
  #openTools: number[] = [];
  finishReason: string | null | undefined;
  sawFinish = false;

  constructor(builder: ResponseBuilder, push: CallSetup['push']) {
    this.#builder = builder;
    this.#push = push;
  }

  read(chunk: ChatCompletionChunk): void {
    const builder = this.#builder;
    builder.responseId ??= chunk.id;
    if (chunk.usage !== undefined && chunk.usage !== null) {
      builder.usage.input = chunk.usage.prompt_tokens ?? 0;
      builder.usage.output = chunk.usage.completion_tokens ?? 0;
      builder.usage.cacheRead = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
    }
    const choice = chunk.choices[0];
    if (choice === undefined) return;
    const delta = choice.delta as ChatCompletionChunk.Choice.Delta & ReasoningDelta;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === 'string' && reasoning !== '') {
      if (this.#thinkingIndex === undefined) {
        const started = builder.startThinking();
        this.#thinkingIndex = started.index;
        this.#push(started.event);
      }
      this.#push(builder.appendThinking(this.#thinkingIndex, reasoning));
    }
    if (typeof delta.content === 'string' && delta.content !== '') {
      this.#closeThinking();
      if (this.#textIndex === undefined) {
        const started = builder.startText();
        this.#textIndex = started.index;
        this.#push(started.event);
      }
      this.#push(builder.appendText(this.#textIndex, delta.content));
    }
    for (const toolDelta of delta.tool_calls ?? []) {
      this.#closeThinking();
      this.#closeText();
      const serverIndex = toolDelta.index ?? 0;
      let index = this.#toolIndexes.get(serverIndex);
      if (index === undefined) {
        const started = builder.startToolCall(
          toolDelta.id ?? `call_${serverIndex}`,
          toolDelta.function?.name ?? '',
        );
        index = started.index;
        this.#toolIndexes.set(serverIndex, index);
        this.#openTools.push(index);
        this.#push(started.event);
      } else if (toolDelta.id || toolDelta.function?.name) {
        builder.renameToolCall(index, toolDelta.id ?? undefined, toolDelta.function?.name ?? undefined);
      }
      const piece = toolDelta.function?.arguments;
      if (typeof piece === 'string' && piece !== '') this.#push(builder.appendToolArguments(index, piece));
    }
    if (choice.finish_reason !== null && choice.finish_reason !== undefined) {
      this.finishReason = choice.finish_reason;
      this.sawFinish = true;
      this.closeAll();
    }
  }

  #closeThinking(): void {
    if (this.#thinkingIndex === undefined) return;
    this.#push(this.#builder.endThinking(this.#thinkingIndex));
    this.#thinkingIndex = undefined;
  }

  #closeText(): void {
    if (this.#textIndex === undefined) return;
    this.#push(this.#builder.endText(this.#textIndex));
    this.#textIndex = undefined;
  }

  closeAll(): void {
    this.#closeThinking();
    this.#closeText();
    for (const index of this.#openTools) this.#push(this.#builder.endToolCall(index));
    this.#openTools = [];
  }
}

/**
 * The Chat Completions provider, through the official `openai` SDK: streamed text, tool
 * calls (parallel, arguments in pieces), images in, reasoning from `reasoning_content` /
 * `reasoning` as thinking, `reasoning_effort` from the thinking level, usage with cached
 * tokens from the last chunk, compat flags per model, abort down to the HTTP request. Never
 * throws: failures end the stream with an `error` message carrying the `ModelError` class.
 */
export function createOpenAICompletionsProvider(options: OpenAIProviderOptions = {}): ModelProvider {
  validateProviderOptions(options, 'OpenAI Completions');
  const clients = new ClientCache(options);
  return {
    api: openAICompletionsApi,
    stream(model: Model, context: LlmContext, call: StreamOptions): AssistantMessageEventStream {
      const stream = new AssistantMessageEventStream();
      void runOpenAICall(model, call, options, clients, stream, async (setup) => {
        const compat = resolveCompat(model, setup.baseUrl);
        const response = await setup.client.chat.completions.create(
          completionsRequest(model, context, call, compat),
          {
            signal: setup.signal,
            ...(Object.keys(setup.headers).length === 0 ? {} : { headers: setup.headers }),
          },
        );
        setup.touch();
        setup.push(setup.builder.start());
        const reader = new CompletionsChunkReader(setup.builder, setup.push);
        for await (const chunk of response) {
          setup.touch();
          reader.read(chunk);
        }
        if (setup.signal.aborted) throw new ModelError('aborted', 'Request was aborted');
        if (!reader.sawFinish) throw streamCut(model, 'a finish_reason');
        const stopReason = mapCompletionsFinishReason(reader.finishReason);
        if (stopReason === undefined) {
          // As for Anthropic's refusals: classified by its words, so a fallback model may answer.
          throw toModelError(
            new Error(`The model declined to answer (finish reason: ${String(reader.finishReason)}).`),
            { provider: model.provider, model: model.id },
          );
        }
        // A server that reports tool calls with finish_reason "stop" (several local ones do).
        if (stopReason === 'stop' && setup.builder.content.some((block) => block.type === 'toolCall')) {
          return 'toolUse';
        }
        return stopReason;
      });
      return stream;
    },
  };
}
