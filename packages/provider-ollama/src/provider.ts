// The Ollama provider (`api: "ollama"`): the native `/api/chat` through the `ollama` library.
// Native rather than Ollama's `/v1` compatibility path, which loses tool calls when streaming
// and ignores `num_ctx`.
import { randomUUID } from 'node:crypto';
import {
  AssistantMessageEventStream,
  type AssistantStreamEvent,
  createUsage,
  defaultModelFetch,
  type LlmContext,
  type Model,
  ModelError,
  type ModelProvider,
  type StreamOptions,
  type ThinkingLevel,
  toModelError,
} from '@switchboard/core-loop';
import type {
  AssistantMessage,
  StopReason,
  TextContent,
  ThinkingContent,
  ToolCallContent,
} from '@switchboard/hooks';
import { type ChatRequest, type ChatResponse, Ollama } from 'ollama';
import { ProviderOllamaError } from './errors.ts';
import { estimatePromptTokens, toOllamaMessages, toOllamaTools } from './messages.ts';
import { ollamaApi, ollamaDefaultBaseUrl } from './models.ts';

/** Timers for the header and idle timeouts (injectable for tests). */
export interface ProviderTimers {
  setTimeout(callback: () => void, milliseconds: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Defaults of the Ollama provider; `StreamOptions` override them per call. */
export interface OllamaProviderOptions {
  /** Server address after the per-call and model values. Default `http://127.0.0.1:11434`. */
  readonly baseUrl?: string;
  /** Extra headers (a reverse proxy's auth); a per-call `apiKey` is sent as a bearer token. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Time allowed until response headers arrive (includes loading the model). Default 600 000 ms. */
  readonly timeoutMs?: number;
  /** Longest silence between two streamed lines. Default 120 000 ms; 0 disables. */
  readonly idleTimeoutMs?: number;
  readonly fetch?: typeof globalThis.fetch;
  readonly now?: () => number;
  readonly timers?: ProviderTimers;
  /** Ids for tool calls (Ollama sends none). Default `call_<random>`. */
  readonly createId?: () => string;
}

const defaultTimers: ProviderTimers = {
  setTimeout: (callback, milliseconds) => setTimeout(callback, milliseconds),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** The `think` value for a thinking level: effort names for gpt-oss, a switch for others. */
export function thinkFor(model: Model, level: ThinkingLevel | undefined): ChatRequest['think'] {
  if (model.thinking === undefined) return undefined;
  if (level === undefined || level === 'off') return false;
  if (/gpt-oss/i.test(model.id))
    return level === 'minimal' || level === 'low' ? 'low' : level === 'medium' ? 'medium' : 'high';
  return true;
}

type Block = TextContent | ThinkingContent | ToolCallContent;

class Builder {
  readonly content: Block[] = [];
  input = 0;
  output = 0;
  readonly #model: Model;
  readonly #timestamp: number;

  constructor(model: Model, timestamp: number) {
    this.#model = model;
    this.#timestamp = timestamp;
  }

  snapshot(stopReason: StopReason = 'stop', extra: Partial<AssistantMessage> = {}): AssistantMessage {
    return {
      role: 'assistant',
      content: this.content.slice(),
      provider: this.#model.provider,
      model: this.#model.id,
      usage: createUsage(
        { input: this.input, output: this.output, cacheRead: 0, cacheWrite: 0 },
        this.#model.cost,
      ),
      stopReason,
      timestamp: this.#timestamp,
      ...extra,
    };
  }
}

/** Streams one `/api/chat` response into events; returns the stop reason. */
async function readChat(
  chunks: AsyncIterable<ChatResponse>,
  builder: Builder,
  push: (event: AssistantStreamEvent) => void,
  touch: () => void,
  createId: () => string,
): Promise<{ doneReason: string | undefined; done: boolean }> {
  let open: { index: number; kind: 'text' | 'thinking' } | undefined;
  const close = (): void => {
    if (open === undefined) return;
    const block = builder.content[open.index] as Block;
    if (block.type === 'text')
      push({ type: 'text_end', contentIndex: open.index, content: block.text, partial: builder.snapshot() });
    else if (block.type === 'thinking') {
      push({
        type: 'thinking_end',
        contentIndex: open.index,
        content: block.thinking,
        partial: builder.snapshot(),
      });
    }
    open = undefined;
  };
  const append = (kind: 'text' | 'thinking', delta: string): void => {
    if (open?.kind !== kind) {
      close();
      const index =
        builder.content.push(
          kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '' },
        ) - 1;
      open = { index, kind };
      push({
        type: kind === 'text' ? 'text_start' : 'thinking_start',
        contentIndex: index,
        partial: builder.snapshot(),
      });
    }
    const block = builder.content[open.index] as Block;
    builder.content[open.index] =
      block.type === 'text'
        ? { type: 'text', text: block.text + delta }
        : { type: 'thinking', thinking: (block as ThinkingContent).thinking + delta };
    push({
      type: kind === 'text' ? 'text_delta' : 'thinking_delta',
      contentIndex: open.index,
      delta,
      partial: builder.snapshot(),
    });
  };
  for await (const chunk of chunks) {
    touch();
    const message = chunk.message;
    if (typeof message?.thinking === 'string' && message.thinking !== '')
      append('thinking', message.thinking);
    if (typeof message?.content === 'string' && message.content !== '') append('text', message.content);
    for (const call of message?.tool_calls ?? []) {
      close();
      const given = (call as { id?: unknown }).id;
      const id = typeof given === 'string' && given !== '' ? given : createId();
      const args = call.function.arguments ?? {};
      const index =
        builder.content.push({ type: 'toolCall', id, name: call.function.name, arguments: {} }) - 1;
      push({ type: 'toolcall_start', contentIndex: index, partial: builder.snapshot() });
      const json = JSON.stringify(args);
      builder.content[index] = { type: 'toolCall', id, name: call.function.name, arguments: args };
      push({ type: 'toolcall_delta', contentIndex: index, delta: json, partial: builder.snapshot() });
      const toolCall = builder.content[index] as ToolCallContent;
      push({ type: 'toolcall_end', contentIndex: index, toolCall, partial: builder.snapshot() });
    }
    if (chunk.done) {
      close();
      builder.input = chunk.prompt_eval_count ?? 0;
      builder.output = chunk.eval_count ?? 0;
      return { doneReason: chunk.done_reason, done: true };
    }
  }
  close();
  return { doneReason: undefined, done: false };
}

function validateOptions(options: OllamaProviderOptions): void {
  for (const [name, value] of [
    ['timeoutMs', options.timeoutMs],
    ['idleTimeoutMs', options.idleTimeoutMs],
  ] as const) {
    if (value !== undefined && (!Number.isFinite(value) || value < 0)) {
      throw new ProviderOllamaError(
        'PROVIDER_OLLAMA_INVALID_OPTIONS',
        `Ollama provider: ${name} must be a number >= 0, got ${String(value)}.`,
        { details: { option: name, value } },
      );
    }
  }
  if (options.baseUrl !== undefined && !/^https?:\/\//i.test(options.baseUrl)) {
    throw new ProviderOllamaError(
      'PROVIDER_OLLAMA_INVALID_OPTIONS',
      `Ollama provider: baseUrl must be an http(s) URL, got "${options.baseUrl}".`,
    );
  }
}

/** The `ModelError` of anything the library threw. */
function classify(
  thrown: unknown,
  model: Model,
  signal: AbortSignal | undefined,
  now: () => number,
): ModelError {
  const identity = { provider: model.provider, model: model.id };
  const shape = (typeof thrown === 'object' && thrown !== null ? thrown : {}) as {
    name?: unknown;
    status_code?: unknown;
    error?: unknown;
    message?: unknown;
  };
  if (shape.name === 'ResponseError' && typeof shape.status_code === 'number') {
    // The library keeps the status as `status_code`; the classifier reads `status`.
    const message = typeof shape.error === 'string' ? shape.error : String(shape.message);
    return toModelError(
      { status: shape.status_code, message: `${shape.status_code} ${message}` },
      { ...identity, now },
    );
  }
  const message = typeof shape.message === 'string' ? shape.message : String(thrown);
  if (signal?.aborted !== true && /did not receive done or success response in stream/i.test(message)) {
    return new ModelError(
      'timeout',
      'The response stream ended before its final line (the connection was cut mid-way).',
      { cause: thrown, ...identity },
    );
  }
  const error = toModelError(thrown, { signal, ...identity, now });
  // An error line inside a 200 stream: the server failed while answering; transient.
  return error.errorClass === 'unknown'
    ? new ModelError('timeout', error.message, { cause: thrown, ...identity })
    : error;
}

/**
 * The Ollama provider, through the `ollama` library against the native `/api/chat`: NDJSON
 * streaming of text, thinking and tool calls; `num_ctx` from the model's context window and
 * `num_predict` from the output limit; `think` from the thinking level; images in; usage
 * from the final line. Ollama truncates an oversized prompt silently, so a prompt whose
 * estimate exceeds the window is not sent: it ends as `context_overflow` for compaction.
 * Never throws: failures end the stream with an `error` message carrying the class.
 */
export function createOllamaProvider(options: OllamaProviderOptions = {}): ModelProvider {
  validateOptions(options);
  return {
    api: ollamaApi,
    stream(model: Model, context: LlmContext, call: StreamOptions): AssistantMessageEventStream {
      const stream = new AssistantMessageEventStream();
      void streamOllama(model, context, call, options, stream);
      return stream;
    },
  };
}

async function streamOllama(
  model: Model,
  context: LlmContext,
  call: StreamOptions,
  provider: OllamaProviderOptions,
  stream: AssistantMessageEventStream,
): Promise<void> {
  const now = provider.now ?? Date.now;
  const timers = provider.timers ?? defaultTimers;
  const builder = new Builder(model, now());
  const controller = new AbortController();
  const outerSignal = call.signal;
  const onAbort = (): void => controller.abort(outerSignal?.reason);
  outerSignal?.addEventListener('abort', onAbort, { once: true });
  const idleTimeoutMs = call.idleTimeoutMs ?? provider.idleTimeoutMs ?? 120_000;
  const timeoutMs = call.timeoutMs ?? provider.timeoutMs ?? 600_000;
  let timer: unknown;
  let timedOut: string | undefined;
  const arm = (milliseconds: number, what: string): void => {
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = undefined;
    if (milliseconds <= 0) return;
    timer = timers.setTimeout(() => {
      timedOut = `No ${what} from Ollama for ${milliseconds} ms; the call timed out.`;
      controller.abort(new Error(timedOut));
    }, milliseconds);
  };
  const identity = { provider: model.provider, model: model.id };
  try {
    if (outerSignal?.aborted === true) throw new ModelError('aborted', 'Request was aborted');
    const messages = toOllamaMessages(context, model);
    const tools = toOllamaTools(context);
    const estimated = estimatePromptTokens(messages, tools);
    if (estimated > model.contextWindow) {
      throw new ModelError(
        'context_overflow',
        `The prompt (about ${estimated} tokens) exceeds the context window of ${model.id} (${model.contextWindow} tokens, sent as num_ctx); Ollama would truncate it silently.`,
        { ...identity, observedTokens: estimated },
      );
    }
    const baseFetch = provider.fetch ?? defaultModelFetch();
    const apiKey = call.apiKey ?? call.authToken;
    const headers = {
      ...provider.headers,
      ...model.headers,
      ...call.headers,
      ...(apiKey === undefined || apiKey === '' ? {} : { authorization: `Bearer ${apiKey}` }),
    };
    const client = new Ollama({
      host: call.baseUrl ?? model.baseUrl ?? provider.baseUrl ?? ollamaDefaultBaseUrl,
      headers,
      // Our signal reaches the HTTP request, before and after the response headers.
      fetch: (input, init) =>
        baseFetch(input, {
          ...init,
          signal: init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal,
        }),
    });
    const maxTokens = Math.max(
      1,
      Math.min(call.maxTokens ?? Math.min(model.maxOutputTokens, 32_000), model.maxOutputTokens),
    );
    const think = thinkFor(model, call.thinkingLevel);
    arm(timeoutMs, 'response');
    const response = await client.chat({
      model: model.id,
      messages,
      stream: true,
      tools,
      think,
      options: { num_ctx: model.contextWindow, num_predict: maxTokens },
    });
    const touch = (): void => arm(idleTimeoutMs, 'data');
    touch();
    stream.push({ type: 'start', partial: builder.snapshot() });
    const createId = provider.createId ?? (() => `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`);
    const { doneReason } = await readChat(response, builder, (event) => stream.push(event), touch, createId);
    if (timedOut !== undefined) throw new ModelError('timeout', timedOut, identity);
    if (controller.signal.aborted) throw new ModelError('aborted', 'Request was aborted');
    const hasToolCalls = builder.content.some((block) => block.type === 'toolCall');
    const reason = doneReason === 'length' ? 'length' : hasToolCalls ? 'toolUse' : 'stop';
    stream.push({ type: 'done', reason, message: builder.snapshot(reason) });
  } catch (thrown) {
    const error =
      timedOut !== undefined
        ? new ModelError('timeout', timedOut, { cause: thrown, ...identity })
        : classify(thrown, model, outerSignal, now);
    const details = error.toDetails();
    stream.push({
      type: 'error',
      reason: error.errorClass === 'aborted' ? 'aborted' : 'error',
      error: builder.snapshot(error.errorClass === 'aborted' ? 'aborted' : 'error', {
        errorMessage: error.message,
        errorCode: error.code,
        errorClass: error.errorClass,
        ...(Object.keys(details).length === 0 ? {} : { errorDetails: details }),
      }),
    });
  } finally {
    if (timer !== undefined) timers.clearTimeout(timer);
    outerSignal?.removeEventListener('abort', onAbort);
  }
}
