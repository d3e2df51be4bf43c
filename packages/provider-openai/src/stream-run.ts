// The part of a streamed call both OpenAI APIs share: credentials, the abort signal down to
// the HTTP request, the idle timeout, and turning every failure into one `error` event.

import {
  type AssistantMessageEventStream,
  defaultModelFetch,
  type Model,
  ModelError,
  type StreamOptions,
} from '@switchboard/core-loop';
import type { AssistantMessage } from '@switchboard/hooks';
import OpenAI from 'openai';
import { isLoopbackEndpoint, openAIDefaultBaseUrl } from './compat.ts';
import { withNormalizedErrorBodies } from './error-bodies.ts';
import { ProviderOpenAIError } from './errors.ts';
import { classifyOpenAIFailure } from './failures.ts';
import { ResponseBuilder } from './response-builder.ts';

/** Timers for the idle timeout (injectable for tests). */
export interface ProviderTimers {
  setTimeout(callback: () => void, milliseconds: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Defaults of an OpenAI provider; `StreamOptions` override them per call. */
export interface OpenAIProviderOptions {
  /** API key (a per-call `apiKey` or `authToken` wins). */
  readonly apiKey?: string;
  /** Endpoint after the per-call and model values. Default `https://api.openai.com/v1`. */
  readonly baseUrl?: string;
  /** Extra headers sent with every call. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Time allowed until response headers arrive. Default 600 000 ms. */
  readonly timeoutMs?: number;
  /** Longest silence between two streamed events. Default 120 000 ms; 0 disables. */
  readonly idleTimeoutMs?: number;
  /** Retries the SDK makes by itself. Default 0: rotation and fallback belong to the layers above. */
  readonly maxRetries?: number;
  /** Custom fetch (proxies, instrumentation). */
  readonly fetch?: typeof globalThis.fetch;
  /** Clock for message timestamps and retry-after dates. */
  readonly now?: () => number;
  readonly timers?: ProviderTimers;
}

const defaultTimers: ProviderTimers = {
  setTimeout: (callback, milliseconds) => setTimeout(callback, milliseconds),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Checks the numeric options; throws `PROVIDER_OPENAI_INVALID_OPTIONS` naming the bad one. */
export function validateProviderOptions(options: OpenAIProviderOptions, label: string): void {
  for (const [name, value] of [
    ['timeoutMs', options.timeoutMs],
    ['idleTimeoutMs', options.idleTimeoutMs],
    ['maxRetries', options.maxRetries],
  ] as const) {
    if (value !== undefined && (!Number.isFinite(value) || value < 0)) {
      throw new ProviderOpenAIError(
        'PROVIDER_OPENAI_INVALID_OPTIONS',
        `${label} provider: ${name} must be a number >= 0, got ${String(value)}.`,
        { details: { option: name, value } },
      );
    }
  }
}

/** SDK clients by endpoint, key and timeout (a changed key gets a new client). */
export class ClientCache {
  readonly #options: OpenAIProviderOptions;
  readonly #clients = new Map<string, OpenAI>();

  constructor(options: OpenAIProviderOptions) {
    this.#options = options;
  }

  get(baseURL: string, apiKey: string, timeoutMs: number): OpenAI {
    const key = `${baseURL}\n${apiKey}\n${timeoutMs}`;
    const cached = this.#clients.get(key);
    if (cached !== undefined) return cached;
    const client = new OpenAI({
      apiKey,
      baseURL,
      timeout: timeoutMs,
      maxRetries: this.#options.maxRetries ?? 0,
      logLevel: 'off',
      fetch: withNormalizedErrorBodies(this.#options.fetch ?? defaultModelFetch()),
    });
    if (this.#clients.size >= 32) {
      const oldest = this.#clients.keys().next().value;
      if (oldest !== undefined) this.#clients.delete(oldest);
    }
    this.#clients.set(key, client);
    return client;
  }
}

/** What the API-specific part of a call gets. */
export interface CallSetup {
  readonly client: OpenAI;
  readonly baseUrl: string;
  readonly signal: AbortSignal;
  readonly headers: Readonly<Record<string, string>>;
  readonly builder: ResponseBuilder;
  /** Call on every received event: restarts the idle timer. */
  readonly touch: () => void;
  readonly push: AssistantMessageEventStream['push'];
}

/** The API-specific part: sends the request, feeds the builder, returns the stop reason. */
export type CallBody = (setup: CallSetup) => Promise<'stop' | 'length' | 'toolUse'>;

class IdleTimeout extends Error {
  constructor(milliseconds: number) {
    super(`No data from the model for ${milliseconds} ms (idle timeout); the stream timed out.`);
    this.name = 'IdleTimeout';
  }
}

/**
 * Runs one call; never throws. The stream ends with `done` (the body's stop reason) or
 * `error` (a `ModelError`'s class, code and facts on the message).
 */
export async function runOpenAICall(
  model: Model,
  call: StreamOptions,
  provider: OpenAIProviderOptions,
  clients: ClientCache,
  stream: AssistantMessageEventStream,
  body: CallBody,
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
  const touch = (): void => {
    if (idleTimeoutMs <= 0) return;
    if (idleTimer !== undefined) timers.clearTimeout(idleTimer);
    idleTimer = timers.setTimeout(() => {
      idleFired = new IdleTimeout(idleTimeoutMs);
      controller.abort(idleFired);
    }, idleTimeoutMs);
  };
  const identity = { provider: model.provider, model: model.id };
  try {
    if (outerSignal?.aborted === true) throw new ModelError('aborted', 'Request was aborted');
    const baseUrl = call.baseUrl ?? model.baseUrl ?? provider.baseUrl ?? openAIDefaultBaseUrl;
    const given = call.apiKey ?? call.authToken ?? provider.apiKey;
    let apiKey = given !== undefined && given !== '' ? given : undefined;
    if (apiKey === undefined) {
      // A server on this machine (llama.cpp, vLLM, LM Studio) usually wants no key; anything
      // remote without one is not called at all (not a rejected key: nothing cools down).
      if (!isLoopbackEndpoint(baseUrl)) {
        throw new ModelError(
          'no_credentials',
          `No API key or auth token for provider ${model.provider} (model ${model.id}) at ${baseUrl}.`,
          identity,
        );
      }
      apiKey = 'no-key';
    }
    const timeoutMs = call.timeoutMs ?? provider.timeoutMs ?? 600_000;
    const headers = { ...provider.headers, ...model.headers, ...call.headers };
    const client = clients.get(baseUrl, apiKey, timeoutMs);
    const stopReason = await body({
      client,
      baseUrl,
      signal: controller.signal,
      headers,
      builder,
      touch,
      push: (event) => stream.push(event),
    });
    if (idleFired !== undefined) throw idleFired;
    if (controller.signal.aborted) throw new ModelError('aborted', 'Request was aborted');
    stream.push({ type: 'done', reason: stopReason, message: builder.snapshot(stopReason) });
  } catch (thrown) {
    const error =
      idleFired !== undefined
        ? new ModelError('timeout', idleFired.message, { cause: thrown, ...identity })
        : thrown instanceof SyntaxError && outerSignal?.aborted !== true
          ? new ModelError('timeout', `The model stream carried malformed data (${thrown.message}).`, {
              cause: thrown,
              ...identity,
            })
          : classifyOpenAIFailure(thrown, {
              ...identity,
              signal: outerSignal,
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

/** A cut stream: the connection ended before the API's final event. */
export function streamCut(model: Model, what: string): ModelError {
  return new ModelError(
    'timeout',
    `The response stream ended before ${what} (the connection was cut mid-way).`,
    { provider: model.provider, model: model.id },
  );
}
