// Failure classification, context-overflow detection (case 51) and the ModelError API.

import type { AssistantMessage } from '@switchboard/hooks';
import { emptyUsage, SwitchboardError } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { classifyModelFailure, parseObservedTokens, retryAfterFromHeaders } from './classify.ts';
import {
  failoverErrorClasses,
  isContextOverflow,
  ModelError,
  modelErrorClasses,
  modelErrorClassOf,
  modelErrorCodeByClass,
  modelErrorCodes,
  toModelError,
} from './errors.ts';

function failed(errorMessage: string, extra: Partial<AssistantMessage> = {}): AssistantMessage {
  return {
    role: 'assistant',
    content: [],
    provider: 'anthropic',
    model: 'm',
    usage: emptyUsage,
    stopReason: 'error',
    errorMessage,
    timestamp: 1,
    ...extra,
  };
}

describe('classifyModelFailure: status table', () => {
  const cases: Array<[number, string, string]> = [
    [402, 'Payment required', 'billing'],
    [402, 'Weekly limit reached, resets tomorrow', 'rate_limit'],
    [402, 'Your organization spending limit was hit', 'rate_limit'],
    [429, 'anything', 'rate_limit'],
    [401, 'invalid x-api-key', 'auth'],
    [403, 'This API key has been deactivated', 'auth_permanent'],
    [403, 'Your account has been disabled', 'auth_permanent'],
    [403, 'Request not allowed for this organization', 'auth_permanent'],
    [401, 'Key limit exceeded for this key', 'billing'],
    [408, 'Request Timeout', 'timeout'],
    [410, 'Gone', 'timeout'],
    [410, 'Your session has expired', 'auth'],
    [404, 'model: claude-x', 'model_not_found'],
    [404, 'prompt is too long: 300000 tokens > 200000 maximum', 'context_overflow'],
    [499, 'Client closed request', 'timeout'],
    [503, 'Service unavailable', 'timeout'],
    [503, 'The service is overloaded', 'overloaded'],
    [500, 'Internal server error', 'timeout'],
    [502, 'Bad gateway', 'timeout'],
    [504, 'Gateway timeout', 'timeout'],
    [529, 'Overloaded', 'overloaded'],
    [400, 'prompt is too long: 213462 tokens > 200000 maximum', 'context_overflow'],
    [400, 'messages.1.content.0.tool_use.id: String should match pattern', 'format'],
    [400, 'some unknown complaint', 'format'],
    [422, 'Unprocessable', 'format'],
    [400, '400 status code (no body)', 'context_overflow'],
    [413, '413 status code (no body)', 'context_overflow'],
    [413, 'Request too large: 30000 tokens per minute limit', 'rate_limit'],
  ];
  for (const [status, message, expected] of cases) {
    it(`${status} "${message}" → ${expected}`, () => {
      expect(classifyModelFailure({ status, message }).errorClass).toBe(expected);
    });
  }
});

describe('classifyModelFailure: message texts without a status', () => {
  const cases: Array<[string, string]> = [
    ['Image dimensions exceed max allowed size: 8000 pixels', 'format'],
    ['The model `gpt-9` does not exist', 'model_not_found'],
    ['Rate limit reached for requests', 'rate_limit'],
    ['Too many concurrent requests', 'rate_limit'],
    ['ThrottlingException: slow down', 'rate_limit'],
    ['You exceeded your current quota exceeded', 'rate_limit'],
    ['RESOURCE_EXHAUSTED', 'rate_limit'],
    ['overloaded_error: Overloaded', 'overloaded'],
    ['We are experiencing high demand', 'overloaded'],
    ['503 Service Unavailable', 'timeout'],
    ['529 Overloaded', 'overloaded'],
    ['Your credit balance is too low to access the API', 'billing'],
    ['Insufficient credits', 'billing'],
    ['API key revoked', 'auth_permanent'],
    ['Incorrect API key provided', 'auth'],
    ['No credentials found for profile', 'auth'],
    ['No API key or auth token for provider anthropic (model claude-sonnet-4-6).', 'no_credentials'],
    ['no API key is configured for anthropic: set ANTHROPIC_API_KEY', 'no_credentials'],
    ['OAuth token refresh failed', 'auth'],
    ['An unknown error occurred', 'timeout'],
    ['Internal server error', 'timeout'],
    ['Request timed out.', 'timeout'],
    ['read ECONNRESET', 'timeout'],
    ['socket hang up', 'timeout'],
    ['fetch failed', 'timeout'],
    ['terminated', 'timeout'],
    ['Unhandled stop reason: network_error', 'timeout'],
    ['something nobody has seen', 'unknown'],
  ];
  for (const [message, expected] of cases) {
    it(`"${message}" → ${expected}`, () => {
      expect(classifyModelFailure({ message }).errorClass).toBe(expected);
    });
  }

  it('uses the provider error type when the text says nothing', () => {
    expect(classifyModelFailure({ message: 'nope', providerType: 'overloaded_error' }).errorClass).toBe(
      'overloaded',
    );
    expect(classifyModelFailure({ message: 'nope', providerType: 'rate_limit_error' }).errorClass).toBe(
      'rate_limit',
    );
  });
});

describe('case 51: context overflow recognised for every provider phrasing', () => {
  const phrases: Array<[string, string]> = [
    ['Anthropic', 'prompt is too long: 213462 tokens > 200000 maximum'],
    ['Bedrock', 'input is too long for requested model'],
    [
      'OpenAI',
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
    ],
    ['OpenAI (responses)', 'Your input exceeds the context window of this model.'],
    ['Google', 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).'],
    ['xAI', "This model's maximum prompt length is 131072 but the request contains 140000 tokens."],
    ['Groq', 'Please reduce the length of the messages or completion.'],
    [
      'OpenRouter',
      "This endpoint's maximum context length is 32768 tokens. However, you requested about 40000 tokens",
    ],
    ['GitHub Copilot', 'prompt token count of 140000 exceeds the limit of 128000'],
    ['llama.cpp', 'the request exceeds the available context size, try increasing it'],
    [
      'LM Studio',
      'Trying to keep the first 9000 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough. Prompt is greater than the context length',
    ],
    ['MiniMax', 'invalid params, context window exceeds limit'],
    ['Kimi', 'Invalid request: Your request exceeded model token limit: 262144'],
    [
      'Mistral',
      'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length',
    ],
    ['z.ai', 'model_context_window_exceeded'],
    ['generic', 'context_length_exceeded'],
    ['generic', 'Context length exceeded'],
    ['generic', 'too many tokens in the request'],
    ['generic', 'token limit exceeded'],
    ['Chinese proxy', '请求失败：上下文长度超出模型限制'],
  ];
  for (const [provider, text] of phrases) {
    it(`${provider}: "${text.slice(0, 60)}"`, () => {
      expect(classifyModelFailure({ message: text }).errorClass).toBe('context_overflow');
      expect(isContextOverflow(failed(text))).toBe(true);
    });
  }

  it('does not mistake rate limits, TPM, billing or reasoning errors for overflow', () => {
    for (const text of [
      'Request too large for gpt-4o: Limit 30000 tokens per minute',
      'Rate limit reached: too many tokens per minute (TPM)',
      'Your credit balance is too low',
      'Reasoning is mandatory for this endpoint and cannot be disabled',
      'context window too small: minimum is 16000',
    ]) {
      expect(isContextOverflow(failed(text))).toBe(false);
    }
  });

  it('silent overflow: a normal stop with more prompt tokens than the window (given the window)', () => {
    const message: AssistantMessage = {
      ...failed('', { stopReason: 'stop' }),
      errorMessage: undefined,
      usage: { ...emptyUsage, input: 150_000, cacheRead: 60_000 },
    };
    expect(isContextOverflow(message, 200_000)).toBe(true);
    expect(isContextOverflow(message, 256_000)).toBe(false);
    expect(isContextOverflow(message)).toBe(false);
  });

  it('reads the observed token count', () => {
    expect(parseObservedTokens('prompt is too long: 213462 tokens > 200000 maximum')).toBe(213_462);
    expect(
      parseObservedTokens('maximum context length is 128,000 tokens; you requested 130,512 tokens'),
    ).toBe(130_512);
    expect(parseObservedTokens('context_length_exceeded')).toBeUndefined();
    expect(
      classifyModelFailure({ status: 400, message: 'prompt is too long: 250000 tokens > 200000 maximum' }),
    ).toEqual({
      errorClass: 'context_overflow',
      observedTokens: 250_000,
    });
  });

  it('is recognisable from the class alone, without any text', () => {
    expect(isContextOverflow(failed('opaque', { errorClass: 'context_overflow' }))).toBe(true);
    expect(isContextOverflow(failed('prompt is too long', { errorClass: 'rate_limit' }))).toBe(false);
    expect(isContextOverflow(new ModelError('context_overflow', 'x'))).toBe(true);
    expect(isContextOverflow(new Error('prompt is too long: 5 tokens > 4 maximum'))).toBe(true);
    expect(isContextOverflow(undefined)).toBe(false);
  });
});

describe('retry-after', () => {
  it('reads retry-after-ms, retry-after seconds and HTTP dates, and hints in the text', () => {
    expect(retryAfterFromHeaders({ 'retry-after-ms': '1500' })).toBe(1500);
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': '2.5' }))).toBe(2500);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterFromHeaders({ 'Retry-After': 'Thu, 01 Jan 2026 00:00:30 GMT' }, () => now)).toBe(30_000);
    expect(retryAfterFromHeaders({})).toBeUndefined();
    expect(
      classifyModelFailure({ status: 429, message: 'Rate limited, please try again in 20s' }).retryAfterMs,
    ).toBe(20_000);
    expect(
      classifyModelFailure({ status: 400, message: 'bad', headers: { 'retry-after': '3' } }).retryAfterMs,
    ).toBeUndefined();
  });
});

describe('ModelError', () => {
  it('documents every code, one per class, with retryable and failover sets', () => {
    expect(Object.keys(modelErrorCodes).sort()).toEqual(Object.values(modelErrorCodeByClass).sort());
    for (const text of Object.values(modelErrorCodes)) expect(text.length).toBeGreaterThan(20);
    expect(modelErrorClasses).toHaveLength(12);
    expect(new ModelError('rate_limit', 'x').retryable).toBe(true);
    expect(new ModelError('billing', 'x').retryable).toBe(false);
    expect(new ModelError('no_credentials', 'x')).toMatchObject({
      code: 'MODEL_CREDENTIALS_MISSING',
      retryable: false,
      isFailover: true,
    });
    expect(failoverErrorClasses.has('context_overflow')).toBe(false);
    expect(failoverErrorClasses.has('aborted')).toBe(false);
    expect(new ModelError('overloaded', 'x').isFailover).toBe(true);
  });

  it('is a SwitchboardError with code, class, facts and a JSON form', () => {
    const error = new ModelError('rate_limit', '429 rate_limit_error: slow down', {
      status: 429,
      retryAfterMs: 1000,
      provider: 'anthropic',
      model: 'claude',
    });
    expect(SwitchboardError.isInstance(error)).toBe(true);
    expect(error.code).toBe('MODEL_RATE_LIMIT');
    expect(error.errorClass).toBe('rate_limit');
    expect(error.toDetails()).toEqual({ status: 429, retryAfterMs: 1000 });
    expect(error.toJSON()).toMatchObject({
      name: 'ModelError',
      code: 'MODEL_RATE_LIMIT',
      retryable: true,
      details: { errorClass: 'rate_limit', status: 429, retryAfterMs: 1000, provider: 'anthropic' },
    });
  });

  it('rebuilds from an assistant message, classifying texts from providers that did not', () => {
    const error = ModelError.fromAssistantMessage(failed('529 Overloaded'));
    expect(error?.errorClass).toBe('overloaded');
    expect(ModelError.fromAssistantMessage(failed('x', { stopReason: 'aborted' }))?.errorClass).toBe(
      'aborted',
    );
    expect(ModelError.fromAssistantMessage({ ...failed('x'), stopReason: 'stop' })).toBeUndefined();
    expect(modelErrorClassOf(failed('x', { errorClass: 'billing' }))).toBe('billing');
  });

  it('toModelError: HTTP-shaped errors by status, aborts by name or signal, anything by text', () => {
    const http = Object.assign(new Error('429 {"type":"error"}'), {
      status: 429,
      apiMessage: 'slow down',
      type: 'rate_limit_error',
      headers: new Headers({ 'retry-after': '4' }),
      requestID: 'req_1',
    });
    const fromHttp = toModelError(http);
    expect(fromHttp).toMatchObject({
      errorClass: 'rate_limit',
      status: 429,
      retryAfterMs: 4000,
      requestId: 'req_1',
    });
    expect(fromHttp.message).toBe('429 rate_limit_error: slow down');
    const abort = Object.assign(new Error('This operation was aborted'), { name: 'AbortError' });
    expect(toModelError(abort).errorClass).toBe('aborted');
    const controller = new AbortController();
    controller.abort();
    expect(toModelError(new Error('socket hang up'), { signal: controller.signal }).errorClass).toBe(
      'aborted',
    );
    expect(toModelError('weird').errorClass).toBe('unknown');
    const same = new ModelError('format', 'x');
    expect(toModelError(same)).toBe(same);
  });
});
