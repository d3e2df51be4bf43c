// OpenAI-family failures in core-loop's classes. core-loop's classifier already knows the
// status codes and the overflow texts of OpenAI, vLLM and llama.cpp; what is specific here:
// a 429 that is an exhausted quota (`insufficient_quota`) is billing, not a rate limit, and a
// stream that ends without its final event was cut; an error event inside a stream carries
// only OpenAI's error type (`server_error` is a transient server failure).
import { ModelError, toModelError } from '@switchboard/core-loop';

interface OpenAIErrorShape {
  readonly status?: unknown;
  readonly code?: unknown;
  readonly type?: unknown;
  readonly message?: unknown;
}

const quotaExhausted = /insufficient_quota|exceeded your current quota|check your plan and billing/i;

/** The `ModelError` for anything an OpenAI SDK call threw. */
export function classifyOpenAIFailure(
  thrown: unknown,
  options: {
    readonly provider: string;
    readonly model: string;
    readonly signal?: AbortSignal;
    readonly now?: () => number;
  },
): ModelError {
  const shape = (typeof thrown === 'object' && thrown !== null ? thrown : {}) as OpenAIErrorShape;
  const identity = { provider: options.provider, model: options.model };
  const text = typeof shape.message === 'string' ? shape.message : String(thrown);
  if (
    options.signal?.aborted !== true &&
    (shape.code === 'insufficient_quota' || (shape.status === 429 && quotaExhausted.test(text)))
  ) {
    return new ModelError('billing', text, {
      cause: thrown,
      ...identity,
      ...(typeof shape.status === 'number' ? { status: shape.status } : {}),
      providerType: 'insufficient_quota',
    });
  }
  if (options.signal?.aborted !== true && typeof shape.status !== 'number') {
    // An error event inside a 200 stream: no status, only OpenAI's error type or code.
    const inStream =
      shape.type === 'server_error' || shape.code === 'server_error'
        ? 'timeout'
        : shape.code === 'rate_limit_exceeded'
          ? 'rate_limit'
          : undefined;
    if (inStream !== undefined) {
      return new ModelError(inStream, text, { cause: thrown, ...identity, providerType: String(shape.type) });
    }
  }
  return toModelError(thrown, {
    signal: options.signal,
    ...identity,
    now: options.now,
  });
}
