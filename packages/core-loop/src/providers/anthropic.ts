import Anthropic from '@anthropic-ai/sdk';
import type { Stream } from '@anthropic-ai/sdk/core/streaming';
import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  RawMessageStreamEvent,
  TextBlockParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import type {
  AssistantMessage,
  ImageContent,
  Message,
  StopReason,
  TextContent,
  ThinkingContent,
  ToolCallContent,
} from '@switchboard/hooks';
import { CoreLoopError, ModelError, toModelError } from '../errors.ts';
import { type AssistantMessageEventStream, createAssistantMessageEventStream } from '../event-stream.ts';
import { anthropicMessagesApi } from '../models.ts';
import { parsePartialJson, parseToolArguments } from '../partial-json.ts';
import { prepareReplay } from '../replay.ts';
import type {
  AssistantStreamEvent,
  CacheRetention,
  LlmContext,
  Model,
  StreamOptions,
  ThinkingLevel,
} from '../types.ts';
import { createUsage } from '../usage.ts';
import { anthropicRequestBody } from './anthropic-request-body.ts';
import { defaultModelFetch } from './model-fetch.ts';
import type { ModelProvider } from './provider.ts';

/** The endpoint used when neither the call, the model nor the provider names one. */
export const anthropicDefaultBaseUrl = 'https://api.anthropic.com';

/** Thinking budget (tokens) per level for models with budget-based thinking. */
export const anthropicThinkingBudgets: Readonly<Record<Exclude<ThinkingLevel, 'off'>, number>> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16_384,
  xhigh: 16_384,
};

/** Timers the provider uses for the idle timeout (injectable for tests). */
export interface ProviderTimers {
  setTimeout(callback: () => void, milliseconds: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Defaults of the Anthropic provider; every field can be overridden per call (`StreamOptions`). */
export interface AnthropicProviderOptions {
  /** API key (a per-call `apiKey` or `authToken` wins). */
  readonly apiKey?: string;
  /** Bearer token, for OAuth and proxies. */
  readonly authToken?: string;
  /** Endpoint (after the per-call and model values). Default `https://api.anthropic.com`. */
  readonly baseUrl?: string;
  /** Extra headers sent with every call. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Time allowed until response headers arrive. Default 600 000 ms. */
  readonly timeoutMs?: number;
  /** Longest silence between two streamed events. Default 120 000 ms; 0 disables. */
  readonly idleTimeoutMs?: number;
  /**
   * Retries the SDK makes by itself on 408/409/429/5xx and connection errors. Default 0:
   * retry, profile rotation and fallback belong to the layers above, which see the class.
   */
  readonly maxRetries?: number;
  /** Default `short` (5-minute cache). */
  readonly cacheRetention?: CacheRetention;
  /** Custom fetch (proxies, instrumentation). Default: `defaultModelFetch()`. */
  readonly fetch?: typeof globalThis.fetch;
  /** SDK log level. Default `off` (errors are reported on the messages instead). */
  readonly logLevel?: 'off' | 'error' | 'warn' | 'info' | 'debug';
  /** Clock for message timestamps and retry-after dates. */
  readonly now?: () => number;
  readonly timers?: ProviderTimers;
}

const defaultTimers: ProviderTimers = {
  setTimeout: (callback, milliseconds) => setTimeout(callback, milliseconds),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * The Anthropic Messages provider (`api: "anthropic-messages"`), through the official SDK.
 * Streams text, thinking (signatures kept for later turns, redacted thinking preserved),
 * tool calls (arguments parsed as they stream) and usage; sends images; places prompt-cache
 * breakpoints on the system prompt and the last user message; maps thinking levels to
 * budgets or effort; applies replay hygiene; never throws: failures end the stream with an
 * `error` message carrying the `ModelError` class.
 */
export function createAnthropicProvider(options: AnthropicProviderOptions = {}): ModelProvider {
  for (const [name, value] of [
    ['timeoutMs', options.timeoutMs],
    ['idleTimeoutMs', options.idleTimeoutMs],
    ['maxRetries', options.maxRetries],
  ] as const) {
    if (value !== undefined && (!Number.isFinite(value) || value < 0)) {
      throw new CoreLoopError(
        'CORE_LOOP_INVALID_CONFIG',
        `Anthropic provider: ${name} must be a number >= 0, got ${String(value)}.`,
        { details: { option: name, value } },
      );
    }
  }
  const clients = new ClientCache(options);
  return {
    api: anthropicMessagesApi,
    stream(model: Model, context: LlmContext, callOptions: StreamOptions): AssistantMessageEventStream {
      const stream = createAssistantMessageEventStream();
      void streamAnthropic(model, context, callOptions, options, clients, stream);
      return stream;
    },
  };
}

// ---------------------------------------------------------------------------------------
// Clients

class ClientCache {
  readonly #options: AnthropicProviderOptions;
  readonly #clients = new Map<string, Anthropic>();

  constructor(options: AnthropicProviderOptions) {
    this.#options = options;
  }

  get(baseURL: string, credential: { apiKey: string } | { authToken: string }, timeoutMs: number): Anthropic {
    const secret = 'apiKey' in credential ? `k:${credential.apiKey}` : `t:${credential.authToken}`;
    const key = `${baseURL}\n${secret}\n${timeoutMs}`;
    const cached = this.#clients.get(key);
    if (cached !== undefined) return cached;
    const client = new Anthropic({
      ...('apiKey' in credential
        ? { apiKey: credential.apiKey, authToken: null }
        : { authToken: credential.authToken, apiKey: null }),
      baseURL,
      timeout: timeoutMs,
      maxRetries: this.#options.maxRetries ?? 0,
      logLevel: this.#options.logLevel ?? 'off',
      openTelemetry: false,
      fetch: this.#options.fetch ?? defaultModelFetch(),
    });
    if (this.#clients.size >= 32) {
      const oldest = this.#clients.keys().next().value;
      if (oldest !== undefined) this.#clients.delete(oldest);
    }
    this.#clients.set(key, client);
    return client;
  }
}

// ---------------------------------------------------------------------------------------
// Request building

/** The `max_tokens` and thinking parameters for one call. */
export function anthropicThinkingParameters(
  model: Model,
  level: ThinkingLevel | undefined,
  requestedMaxTokens: number | undefined,
): Pick<MessageCreateParamsStreaming, 'max_tokens' | 'thinking' | 'output_config'> {
  const base = Math.max(
    1,
    Math.min(requestedMaxTokens ?? Math.min(model.maxOutputTokens, 32_000), model.maxOutputTokens),
  );
  if (level === undefined || level === 'off' || model.thinking === undefined) return { max_tokens: base };
  if (model.thinking === 'adaptive') {
    const effort =
      level === 'minimal' || level === 'low'
        ? 'low'
        : level === 'medium'
          ? 'medium'
          : level === 'high'
            ? 'high'
            : /opus/i.test(model.id)
              ? 'max'
              : 'high';
    return { max_tokens: base, thinking: { type: 'adaptive' }, output_config: { effort } };
  }
  let budget = anthropicThinkingBudgets[level];
  const maxTokens = Math.min(base + budget, model.maxOutputTokens);
  if (maxTokens - budget < 1024) budget = maxTokens - 1024;
  if (budget < 1024) return { max_tokens: base };
  return { max_tokens: maxTokens, thinking: { type: 'enabled', budget_tokens: budget } };
}

function cacheControl(
  retention: CacheRetention,
  baseURL: string,
): { type: 'ephemeral'; ttl?: '1h' } | undefined {
  if (retention === 'none') return undefined;
  if (retention === 'long' && /^https:\/\/api\.anthropic\.com(?:\/|$)/.test(baseURL)) {
    return { type: 'ephemeral', ttl: '1h' };
  }
  return { type: 'ephemeral' };
}

const toolIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

/** Maps foreign tool-call ids to ones Anthropic accepts, consistently for calls and results. */
class ToolIdMap {
  readonly #map = new Map<string, string>();
  readonly #used = new Set<string>();

  get(id: string): string {
    const known = this.#map.get(id);
    if (known !== undefined) return known;
    let normalized = toolIdPattern.test(id) ? id : id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'tool';
    if (this.#used.has(normalized)) {
      let counter = 2;
      const stem = normalized.slice(0, 58);
      while (this.#used.has(`${stem}_${counter}`)) counter += 1;
      normalized = `${stem}_${counter}`;
    }
    this.#used.add(normalized);
    this.#map.set(id, normalized);
    return normalized;
  }
}

type AnthropicImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

function imageBlock(image: ImageContent, model: Model): ImageBlockParam | TextBlockParam {
  if (!model.input.includes('image')) {
    return { type: 'text', text: `(image omitted: ${model.id} does not accept images)` };
  }
  return {
    type: 'image',
    source: { type: 'base64', media_type: image.mediaType as AnthropicImageMediaType, data: image.data },
  };
}

function userContent(
  content: string | ReadonlyArray<TextContent | ImageContent>,
  model: Model,
): Array<TextBlockParam | ImageBlockParam> {
  if (typeof content === 'string') return content.trim() === '' ? [] : [{ type: 'text', text: content }];
  const blocks: Array<TextBlockParam | ImageBlockParam> = [];
  for (const block of content) {
    if (block.type === 'text') {
      if (block.text.trim() !== '') blocks.push({ type: 'text', text: block.text });
    } else blocks.push(imageBlock(block, model));
  }
  return blocks;
}

/**
 * Converts provider-neutral messages to Anthropic request messages: replay hygiene, tool-id
 * normalization, thinking replay rules (signed thinking from this provider goes back as
 * thinking, redacted thinking only to the same model, other thinking as plain text), tool
 * results merged into user messages, consecutive same-role messages merged, and the
 * cache breakpoint on the last block of the last user message.
 */
export function toAnthropicMessages(
  messages: readonly Message[],
  model: Model,
  cache: { type: 'ephemeral'; ttl?: '1h' } | undefined,
): MessageParam[] {
  const ids = new ToolIdMap();
  const result: Array<{ role: 'user' | 'assistant'; content: ContentBlockParam[] }> = [];
  const append = (role: 'user' | 'assistant', blocks: ContentBlockParam[]): void => {
    if (blocks.length === 0) return;
    const last = result.at(-1);
    if (last !== undefined && last.role === role) last.content.push(...blocks);
    else result.push({ role, content: blocks });
  };
  for (const message of prepareReplay(messages)) {
    if (message.role === 'user') {
      append('user', userContent(message.content, model));
    } else if (message.role === 'toolResult') {
      const content = userContent(message.content, model);
      const block: ToolResultBlockParam = {
        type: 'tool_result',
        tool_use_id: ids.get(message.toolCallId),
        ...(content.length === 0 ? {} : { content }),
        is_error: message.isError,
      };
      append('user', [block]);
    } else {
      const sameModel = message.provider === model.provider && message.model === model.id;
      const sameProvider = message.provider === model.provider;
      const blocks: ContentBlockParam[] = [];
      for (const block of message.content) {
        if (block.type === 'text') {
          if (block.text.trim() !== '') blocks.push({ type: 'text', text: block.text });
        } else if (block.type === 'thinking') {
          if (block.redacted === true) {
            if (sameModel && block.signature)
              blocks.push({ type: 'redacted_thinking', data: block.signature });
          } else if (sameProvider && block.signature) {
            blocks.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
          } else if (block.thinking.trim() !== '') {
            blocks.push({ type: 'text', text: block.thinking });
          }
        } else {
          blocks.push({ type: 'tool_use', id: ids.get(block.id), name: block.name, input: block.arguments });
        }
      }
      append('assistant', blocks);
    }
  }
  if (cache !== undefined) {
    for (let index = result.length - 1; index >= 0; index -= 1) {
      const message = result[index] as { role: string; content: ContentBlockParam[] };
      if (message.role !== 'user') continue;
      const last = message.content.at(-1);
      if (last !== undefined && last.type !== 'thinking' && last.type !== 'redacted_thinking') {
        (last as { cache_control?: unknown }).cache_control = cache;
      }
      break;
    }
  }
  return result;
}

// ---------------------------------------------------------------------------------------
// Streaming

type MutableBlock = TextContent | ThinkingContent | ToolCallContent;

class ResponseBuilder {
  readonly #model: Model;
  readonly #timestamp: number;
  readonly content: MutableBlock[] = [];
  /** Anthropic block index → position in `content` (blocks we do not model are absent). */
  readonly #positions = new Map<number, number>();
  readonly #jsonBuffers = new Map<number, string>();
  responseId: string | undefined;
  input = 0;
  output = 0;
  cacheRead = 0;
  cacheWrite = 0;
  stopReason: string | undefined;
  sawStop = false;
  started = false;

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
      responseId: this.responseId,
      usage: createUsage(
        { input: this.input, output: this.output, cacheRead: this.cacheRead, cacheWrite: this.cacheWrite },
        this.#model.cost,
      ),
      stopReason,
      timestamp: this.#timestamp,
      ...extra,
    };
  }

  /** Applies one SSE event; returns the stream events it produces. */
  apply(event: RawMessageStreamEvent): AssistantStreamEvent | undefined {
    switch (event.type) {
      case 'message_start': {
        this.responseId = event.message.id;
        const usage = event.message.usage;
        this.input = usage.input_tokens ?? 0;
        this.output = usage.output_tokens ?? 0;
        this.cacheRead = usage.cache_read_input_tokens ?? 0;
        this.cacheWrite = usage.cache_creation_input_tokens ?? 0;
        this.started = true;
        return { type: 'start', partial: this.snapshot() };
      }
      case 'content_block_start': {
        const block = event.content_block;
        const position = this.content.length;
        if (block.type === 'text') {
          this.content.push({ type: 'text', text: block.text ?? '' });
          this.#positions.set(event.index, position);
          return { type: 'text_start', contentIndex: position, partial: this.snapshot() };
        }
        if (block.type === 'thinking') {
          this.content.push({
            type: 'thinking',
            thinking: block.thinking ?? '',
            signature: block.signature ?? '',
          });
          this.#positions.set(event.index, position);
          return { type: 'thinking_start', contentIndex: position, partial: this.snapshot() };
        }
        if (block.type === 'redacted_thinking') {
          this.content.push({
            type: 'thinking',
            thinking: '[Reasoning redacted]',
            signature: block.data,
            redacted: true,
          });
          this.#positions.set(event.index, position);
          return { type: 'thinking_start', contentIndex: position, partial: this.snapshot() };
        }
        if (block.type === 'tool_use') {
          const input = block.input;
          this.content.push({
            type: 'toolCall',
            id: block.id,
            name: block.name,
            arguments:
              typeof input === 'object' && input !== null && !Array.isArray(input)
                ? (input as Record<string, unknown>)
                : {},
          });
          this.#positions.set(event.index, position);
          this.#jsonBuffers.set(event.index, '');
          return { type: 'toolcall_start', contentIndex: position, partial: this.snapshot() };
        }
        return undefined;
      }
      case 'content_block_delta': {
        const position = this.#positions.get(event.index);
        if (position === undefined) return undefined;
        const block = this.content[position] as MutableBlock;
        const delta = event.delta;
        if (delta.type === 'text_delta' && block.type === 'text') {
          this.content[position] = { type: 'text', text: block.text + delta.text };
          return { type: 'text_delta', contentIndex: position, delta: delta.text, partial: this.snapshot() };
        }
        if (delta.type === 'thinking_delta' && block.type === 'thinking') {
          this.content[position] = { ...block, thinking: block.thinking + delta.thinking };
          return {
            type: 'thinking_delta',
            contentIndex: position,
            delta: delta.thinking,
            partial: this.snapshot(),
          };
        }
        if (delta.type === 'signature_delta' && block.type === 'thinking') {
          this.content[position] = { ...block, signature: (block.signature ?? '') + delta.signature };
          return undefined;
        }
        if (delta.type === 'input_json_delta' && block.type === 'toolCall') {
          const buffer = (this.#jsonBuffers.get(event.index) ?? '') + delta.partial_json;
          this.#jsonBuffers.set(event.index, buffer);
          this.content[position] = { ...block, arguments: parseToolArguments(buffer) };
          return {
            type: 'toolcall_delta',
            contentIndex: position,
            delta: delta.partial_json,
            partial: this.snapshot(),
          };
        }
        return undefined;
      }
      case 'content_block_stop': {
        const position = this.#positions.get(event.index);
        if (position === undefined) return undefined;
        const block = this.content[position] as MutableBlock;
        if (block.type === 'text') {
          return { type: 'text_end', contentIndex: position, content: block.text, partial: this.snapshot() };
        }
        if (block.type === 'thinking') {
          return {
            type: 'thinking_end',
            contentIndex: position,
            content: block.thinking,
            partial: this.snapshot(),
          };
        }
        const buffer = this.#jsonBuffers.get(event.index) ?? '';
        this.#jsonBuffers.delete(event.index);
        const toolCall: ToolCallContent = {
          ...block,
          arguments: finalToolArguments(buffer, block.arguments),
        };
        this.content[position] = toolCall;
        return { type: 'toolcall_end', contentIndex: position, toolCall, partial: this.snapshot() };
      }
      case 'message_delta': {
        if (event.delta.stop_reason !== null && event.delta.stop_reason !== undefined) {
          this.stopReason = event.delta.stop_reason;
        }
        const usage = event.usage;
        if (usage !== null && usage !== undefined) {
          if (usage.input_tokens !== null && usage.input_tokens !== undefined)
            this.input = usage.input_tokens;
          if (usage.output_tokens !== null && usage.output_tokens !== undefined)
            this.output = usage.output_tokens;
          if (usage.cache_read_input_tokens !== null && usage.cache_read_input_tokens !== undefined) {
            this.cacheRead = usage.cache_read_input_tokens;
          }
          if (usage.cache_creation_input_tokens !== null && usage.cache_creation_input_tokens !== undefined) {
            this.cacheWrite = usage.cache_creation_input_tokens;
          }
        }
        return undefined;
      }
      case 'message_stop':
        this.sawStop = true;
        return undefined;
      default:
        return undefined;
    }
  }
}

function finalToolArguments(
  buffer: string,
  initial: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  if (buffer.trim() === '') return { ...initial };
  try {
    const value: unknown = JSON.parse(buffer);
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
    return {};
  } catch {
    try {
      const value = parsePartialJson(buffer);
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        return value as Record<string, unknown>;
      }
    } catch {
      // Not JSON at all.
    }
    return {};
  }
}

/** Maps Anthropic's stop reason; `undefined` for ones that must end as an error. */
export function mapAnthropicStopReason(
  reason: string | undefined,
): 'stop' | 'length' | 'toolUse' | undefined {
  switch (reason) {
    case undefined:
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'toolUse';
    default:
      return undefined;
  }
}

class IdleTimeout extends Error {
  constructor(milliseconds: number) {
    super(`No data from the model for ${milliseconds} ms (idle timeout); the stream timed out.`);
    this.name = 'IdleTimeout';
  }
}

async function streamAnthropic(
  model: Model,
  context: LlmContext,
  call: StreamOptions,
  provider: AnthropicProviderOptions,
  clients: ClientCache,
  stream: AssistantMessageEventStream,
): Promise<void> {
  const now = provider.now ?? Date.now;
  const timers = provider.timers ?? defaultTimers;
  const builder = new ResponseBuilder(model, now());
  const controller = new AbortController();
  const outerSignal = call.signal;
  const onAbort = (): void => controller.abort(outerSignal?.reason);
  outerSignal?.addEventListener('abort', onAbort, { once: true });
  const idleTimeoutMs = call.idleTimeoutMs ?? provider.idleTimeoutMs ?? 120_000;
  let idleTimer: unknown;
  let idleFired: IdleTimeout | undefined;
  const armIdle = (): void => {
    if (idleTimeoutMs <= 0) return;
    if (idleTimer !== undefined) timers.clearTimeout(idleTimer);
    idleTimer = timers.setTimeout(() => {
      idleFired = new IdleTimeout(idleTimeoutMs);
      controller.abort(idleFired);
    }, idleTimeoutMs);
  };
  try {
    if (outerSignal?.aborted === true) throw new ModelError('aborted', 'Request was aborted');
    const apiKey = call.apiKey ?? (call.authToken === undefined ? provider.apiKey : undefined);
    const authToken = call.authToken ?? (call.apiKey === undefined ? provider.authToken : undefined);
    const credential =
      apiKey !== undefined && apiKey !== ''
        ? { apiKey }
        : authToken !== undefined && authToken !== ''
          ? { authToken }
          : undefined;
    if (credential === undefined) {
      // Nothing to send: not a rejected key (`auth`), so nothing is retried or cooled down.
      throw new ModelError(
        'no_credentials',
        `No API key or auth token for provider ${model.provider} (model ${model.id}).`,
        { provider: model.provider, model: model.id },
      );
    }
    const baseURL = call.baseUrl ?? model.baseUrl ?? provider.baseUrl ?? anthropicDefaultBaseUrl;
    const timeoutMs = call.timeoutMs ?? provider.timeoutMs ?? 600_000;
    const retention = call.cacheRetention ?? provider.cacheRetention ?? 'short';
    const cache = cacheControl(retention, baseURL);
    const params: Omit<MessageCreateParamsStreaming, 'system' | 'tools'> = {
      model: model.id,
      messages: toAnthropicMessages(context.messages, model, cache),
      stream: true,
      ...anthropicThinkingParameters(model, call.thinkingLevel, call.maxTokens),
    };
    const system =
      context.systemPrompt !== undefined && context.systemPrompt !== ''
        ? { text: context.systemPrompt, cacheControl: cache }
        : undefined;
    const headers = { ...provider.headers, ...model.headers, ...call.headers };
    const client = clients.get(baseURL, credential, timeoutMs);
    // `messages.create` without its JSON.stringify of the whole body: the system prompt's and
    // the tools' JSON is kept between turns (anthropic-request-body.ts). The same endpoint,
    // headers, timeout and stream parsing; the body goes through the SDK verbatim.
    const response = await client.post<Stream<RawMessageStreamEvent>>('/v1/messages', {
      body: anthropicRequestBody(params, system, context.tools ?? []),
      headers: { 'content-type': 'application/json', ...headers },
      stream: true,
      signal: controller.signal,
    });
    armIdle();
    for await (const event of response) {
      armIdle();
      const produced = builder.apply(event);
      if (produced !== undefined) stream.push(produced);
    }
    if (idleFired !== undefined) throw idleFired;
    if (controller.signal.aborted) throw new ModelError('aborted', 'Request was aborted');
    if (!builder.sawStop) {
      throw new ModelError(
        'timeout',
        'The response stream ended before message_stop (the connection was cut mid-way).',
        {
          provider: model.provider,
          model: model.id,
        },
      );
    }
    const stopReason = mapAnthropicStopReason(builder.stopReason);
    if (stopReason === undefined) {
      const reason = builder.stopReason ?? 'unknown';
      const text =
        reason === 'refusal' || reason === 'sensitive'
          ? `The model declined to answer (stop reason: ${reason}).`
          : `Unhandled stop reason: ${reason}`;
      const error = toModelError(new Error(text), { provider: model.provider, model: model.id });
      stream.push({ type: 'error', reason: 'error', error: errorMessage(builder, error) });
      return;
    }
    stream.push({ type: 'done', reason: stopReason, message: builder.snapshot(stopReason) });
  } catch (thrown) {
    const identity = { provider: model.provider, model: model.id };
    const error =
      idleFired !== undefined
        ? new ModelError('timeout', idleFired.message, { cause: thrown, ...identity })
        : thrown instanceof SyntaxError && outerSignal?.aborted !== true
          ? // A malformed SSE frame: a transport glitch, retryable like a cut stream.
            new ModelError('timeout', `The model stream carried malformed data (${thrown.message}).`, {
              cause: thrown,
              ...identity,
            })
          : toModelError(thrown, {
              signal: outerSignal,
              provider: model.provider,
              model: model.id,
              now,
            });
    stream.push({
      type: 'error',
      reason: error.errorClass === 'aborted' ? 'aborted' : 'error',
      error: errorMessage(builder, error),
    });
  } finally {
    if (idleTimer !== undefined) timers.clearTimeout(idleTimer);
    outerSignal?.removeEventListener('abort', onAbort);
  }
}

function errorMessage(builder: ResponseBuilder, error: ModelError): AssistantMessage {
  const details = error.toDetails();
  return builder.snapshot(error.errorClass === 'aborted' ? 'aborted' : 'error', {
    errorMessage: error.message,
    errorCode: error.code,
    errorClass: error.errorClass,
    ...(Object.keys(details).length === 0 ? {} : { errorDetails: details }),
  });
}
