// The Responses provider (`api: "openai-responses"`): OpenAI's reasoning models with streamed
// output items, function calls, reasoning summaries and usage.

import {
  AssistantMessageEventStream,
  type LlmContext,
  type Model,
  ModelError,
  type ModelProvider,
  type StreamOptions,
  toModelError,
} from '@switchboard/core-loop';
import type {
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import { resolveCompat } from './compat.ts';
import { outputLimit, reasoningEffortFor } from './completions.ts';
import { openAIResponsesApi } from './models.ts';
import type { ResponseBuilder } from './response-builder.ts';
import { toResponsesInput } from './responses-messages.ts';
import {
  type CallSetup,
  ClientCache,
  type OpenAIProviderOptions,
  runOpenAICall,
  streamCut,
  validateProviderOptions,
} from './stream-run.ts';
import { cleanToolSchema } from './tool-schema.ts';

/** The streaming request body for one call. */
function responsesRequest(
  model: Model,
  context: LlmContext,
  call: StreamOptions,
  baseUrl: string,
): ResponseCreateParamsStreaming {
  const compat = resolveCompat(model, baseUrl);
  const params: ResponseCreateParamsStreaming = {
    model: model.id,
    input: toResponsesInput(context, model),
    stream: true,
    store: false,
    max_output_tokens: outputLimit(model, call.maxTokens),
  };
  if (context.systemPrompt !== undefined && context.systemPrompt !== '')
    params.instructions = context.systemPrompt;
  if (compat.supportsTools && context.tools !== undefined && context.tools.length > 0) {
    params.tools = context.tools.map(
      (tool): FunctionTool => ({
        type: 'function',
        name: tool.name,
        description: tool.description,
        parameters: cleanToolSchema(tool.parameters, compat.toolSchemaProfile),
        strict: false,
      }),
    );
  }
  if (model.thinking !== undefined) {
    const effort = reasoningEffortFor(call.thinkingLevel);
    params.reasoning = { summary: 'auto', effort };
    // Stateless (`store: false`): the encrypted reasoning comes back and is replayed later.
    params.include = ['reasoning.encrypted_content'];
  }
  return params;
}

/** Applies Responses stream events to the builder. */
class ResponsesEventReader {
  readonly #builder: ResponseBuilder;
  readonly #push: CallSetup['push'];
  /** output_index → content index, per kind of block. */
  readonly #text = new Map<number, number>();
  readonly #thinking = new Map<number, number>();
  readonly #tools = new Map<number, number>();
  /** Summary part index last seen per reasoning output, to separate parts. */
  readonly #summaryParts = new Map<number, number>();
  status: string | undefined;
  incompleteReason: string | undefined;

  constructor(builder: ResponseBuilder, push: CallSetup['push']) {
    this.#builder = builder;
    this.#push = push;
  }

  #thinkingIndex(outputIndex: number): number {
    let index = this.#thinking.get(outputIndex);
    if (index === undefined) {
      const started = this.#builder.startThinking();
      index = started.index;
      this.#thinking.set(outputIndex, index);
      this.#push(started.event);
    }
    return index;
  }

  read(event: ResponseStreamEvent): void {
    const builder = this.#builder;
    switch (event.type) {
      case 'response.created':
        builder.responseId = event.response.id;
        return;
      case 'response.output_item.added': {
        const item = event.item;
        if (item.type === 'function_call') {
          const started = builder.startToolCall(item.call_id, item.name);
          this.#tools.set(event.output_index, started.index);
          this.#push(started.event);
          if (item.arguments !== '') this.#push(builder.appendToolArguments(started.index, item.arguments));
        } else if (item.type === 'reasoning') this.#thinkingIndex(event.output_index);
        return;
      }
      case 'response.output_text.delta': {
        let index = this.#text.get(event.output_index);
        if (index === undefined) {
          const started = builder.startText();
          index = started.index;
          this.#text.set(event.output_index, index);
          this.#push(started.event);
        }
        this.#push(builder.appendText(index, event.delta));
        return;
      }
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta': {
        const index = this.#thinkingIndex(event.output_index);
        const part = 'summary_index' in event ? event.summary_index : 0;
        const previous = this.#summaryParts.get(event.output_index);
        this.#summaryParts.set(event.output_index, part);
        const separator = previous !== undefined && previous !== part ? '\n\n' : '';
        this.#push(builder.appendThinking(index, separator + event.delta));
        return;
      }
      case 'response.function_call_arguments.delta': {
        const index = this.#tools.get(event.output_index);
        if (index !== undefined) this.#push(builder.appendToolArguments(index, event.delta));
        return;
      }
      case 'response.output_item.done': {
        const item = event.item;
        const text = this.#text.get(event.output_index);
        if (item.type === 'message' && text !== undefined) this.#push(builder.endText(text));
        const thinking = this.#thinking.get(event.output_index);
        if (item.type === 'reasoning' && thinking !== undefined) {
          this.#push(builder.endThinking(thinking, JSON.stringify(item)));
        }
        const tool = this.#tools.get(event.output_index);
        if (item.type === 'function_call' && tool !== undefined) {
          this.#push(builder.endToolCall(tool, item.arguments));
        }
        return;
      }
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed': {
        const response = event.response;
        this.status = response.status ?? event.type.slice('response.'.length);
        this.incompleteReason = response.incomplete_details?.reason ?? undefined;
        if (response.usage !== undefined && response.usage !== null) {
          builder.usage.input = response.usage.input_tokens;
          builder.usage.output = response.usage.output_tokens;
          builder.usage.cacheRead = response.usage.input_tokens_details?.cached_tokens ?? 0;
        }
        if (event.type === 'response.failed') {
          const error = response.error;
          throw toModelError(
            new Error(`${error?.code ?? 'error'}: ${error?.message ?? 'The response failed.'}`),
          );
        }
        return;
      }
      default:
        return;
    }
  }
}

/**
 * The Responses provider, through the official `openai` SDK: streamed output items (text,
 * reasoning summaries as thinking, function calls with arguments in pieces), reasoning
 * effort from the thinking level, stateless reasoning replay (encrypted content kept as the
 * thinking block's signature), usage with cached tokens, abort down to the HTTP request.
 * Never throws: failures end the stream with an `error` message carrying the class.
 */
export function createOpenAIResponsesProvider(options: OpenAIProviderOptions = {}): ModelProvider {
  validateProviderOptions(options, 'OpenAI Responses');
  const clients = new ClientCache(options);
  return {
    api: openAIResponsesApi,
    stream(model: Model, context: LlmContext, call: StreamOptions): AssistantMessageEventStream {
      const stream = new AssistantMessageEventStream();
      void runOpenAICall(model, call, options, clients, stream, async (setup) => {
        const response = await setup.client.responses.create(
          responsesRequest(model, context, call, setup.baseUrl),
          {
            signal: setup.signal,
            ...(Object.keys(setup.headers).length === 0 ? {} : { headers: setup.headers }),
          },
        );
        setup.touch();
        setup.push(setup.builder.start());
        const reader = new ResponsesEventReader(setup.builder, setup.push);
        for await (const event of response) {
          setup.touch();
          reader.read(event);
        }
        if (setup.signal.aborted) throw new ModelError('aborted', 'Request was aborted');
        if (reader.status === undefined) throw streamCut(model, 'response.completed');
        if (reader.status === 'incomplete') {
          if (reader.incompleteReason === 'max_output_tokens') return 'length';
          throw toModelError(
            new Error(`The model declined to answer (incomplete: ${reader.incompleteReason ?? 'unknown'}).`),
          );
        }
        return setup.builder.content.some((block) => block.type === 'toolCall') ? 'toolUse' : 'stop';
      });
      return stream;
    },
  };
}
