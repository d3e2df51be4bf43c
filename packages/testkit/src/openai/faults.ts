// The error answers of each OpenAI-compatible server family, as they send them: the status,
// the body shape (OpenAI's `{ error: {…} }`, vLLM's older top-level `{ object: "error", … }`,
// llama.cpp's `{ error: { code, message, type, n_prompt_tokens, n_ctx } }`) and the words
// Switchboard's failure classifier keys on.
import type { ScriptedFault } from './scripted-server.ts';

/** Server families whose error answers the fake imitates. */
export type ServerFamily = 'openai' | 'vllm' | 'llama-cpp';

/** A resolved HTTP error answer. */
export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

interface ErrorFacts {
  readonly status: number;
  readonly message: string;
  readonly type: string;
  readonly code?: string | null;
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** Seconds in `retry-after` of a rate-limit fault that does not say. */
export const defaultRetryAfterSeconds = 1;

function facts(
  family: ServerFamily,
  fault: Exclude<ScriptedFault, { type: 'http' | 'stream_cut' | 'stream_error' }>,
  model: string,
  estimatedTokens: number,
): ErrorFacts {
  switch (fault.type) {
    case 'rate_limit': {
      const seconds = fault.retryAfterSeconds ?? defaultRetryAfterSeconds;
      return family === 'openai'
        ? {
            status: 429,
            type: 'requests',
            code: 'rate_limit_exceeded',
            message: `Rate limit reached for ${model} in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in ${seconds}s.`,
          }
        : {
            status: 429,
            type: 'rate_limit_error',
            code: null,
            message: 'Too Many Requests: rate limit exceeded',
          };
    }
    case 'quota':
      return {
        status: 429,
        type: 'insufficient_quota',
        code: 'insufficient_quota',
        message: 'You exceeded your current quota, please check your plan and billing details.',
      };
    case 'authentication':
      return family === 'llama-cpp'
        ? { status: 401, type: 'authentication_error', message: 'Invalid API Key' }
        : {
            status: 401,
            type: 'invalid_request_error',
            code: 'invalid_api_key',
            message:
              'Incorrect API key provided: sk-fake***. You can find your API key at https://platform.openai.com/account/api-keys.',
          };
    case 'server':
      return {
        status: fault.status ?? 500,
        type: 'server_error',
        message: 'The server had an error while processing your request. Sorry about that!',
      };
    case 'overloaded':
      return {
        status: 503,
        type: 'server_error',
        message: 'The engine is currently overloaded, please try again later',
      };
    case 'context_overflow': {
      const maximum = fault.maximum ?? 128_000;
      const tokens = fault.tokens ?? Math.max(estimatedTokens, maximum + 1);
      if (family === 'llama-cpp') {
        return {
          status: 400,
          type: 'exceed_context_size_error',
          message: 'the request exceeds the available context size, try increasing it',
          extra: { n_prompt_tokens: tokens, n_ctx: maximum },
        };
      }
      if (family === 'vllm') {
        return {
          status: 400,
          type: 'BadRequestError',
          message: `This model's maximum context length is ${maximum} tokens. However, you requested ${tokens} tokens (${tokens - 100} in the messages, 100 in the completion). Please reduce the length of the messages or completion.`,
        };
      }
      return {
        status: 400,
        type: 'invalid_request_error',
        code: 'context_length_exceeded',
        message: `This model's maximum context length is ${maximum} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
      };
    }
    case 'model_not_found':
      return {
        status: 404,
        type: family === 'openai' ? 'invalid_request_error' : 'NotFoundError',
        code: 'model_not_found',
        message: `The model \`${model}\` does not exist or you do not have access to it.`,
      };
  }
}

/** The HTTP answer of a fault for a server family. */
export function httpAnswer(
  family: ServerFamily,
  fault: Exclude<ScriptedFault, { type: 'stream_cut' | 'stream_error' }>,
  model: string,
  estimatedTokens: number,
): HttpAnswer {
  if (fault.type === 'http') {
    return {
      status: fault.status,
      body: fault.body,
      headers: { 'content-type': 'application/json', ...fault.headers },
    };
  }
  const error = facts(family, fault, model, estimatedTokens);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (fault.type === 'rate_limit')
    headers['retry-after'] = String(fault.retryAfterSeconds ?? defaultRetryAfterSeconds);
  let body: unknown;
  if (family === 'vllm') {
    // vLLM's older error shape: no `error` wrapper (the SDK alone cannot read its message).
    body = { object: 'error', message: error.message, type: error.type, param: null, code: error.status };
  } else if (family === 'llama-cpp') {
    body = { error: { code: error.status, message: error.message, type: error.type, ...error.extra } };
  } else {
    body = { error: { message: error.message, type: error.type, param: null, code: error.code ?? null } };
  }
  return { status: error.status, body: JSON.stringify(body), headers };
}
