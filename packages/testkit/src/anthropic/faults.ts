// Fault defaults and validation. The status codes, error types and texts are those the
// real API returns for each failure class (and that Switchboard's failure classifier keys
// on: "credit balance", "prompt is too long: N tokens > M maximum", overloaded_error, …).
import { TestkitError, type TestkitErrorCode } from '../shared/errors.ts';
import type { FakeFault, HttpFault, HttpFaultType } from './types.ts';

/** Status, `error.type` and `error.message` each named HTTP fault sends unless overridden. */
export interface HttpFaultDefaults {
  readonly status: number;
  readonly errorType: string;
  readonly message: string;
}

/**
 * The default answer of each named HTTP fault. `prompt_too_long` and `model_not_found`
 * fill their message from the request (`prompt is too long: 200001 tokens > 200000 maximum`,
 * `model: claude-x`); the texts here show the pattern.
 */
export const anthropicFaultDefaults: Readonly<Record<Exclude<HttpFaultType, 'http'>, HttpFaultDefaults>> = {
  authentication: { status: 401, errorType: 'authentication_error', message: 'invalid x-api-key' },
  permission: {
    status: 403,
    errorType: 'permission_error',
    message: 'Your API key does not have permission to use the specified resource.',
  },
  billing: {
    status: 402,
    errorType: 'billing_error',
    message:
      'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
  },
  rate_limit: {
    status: 429,
    errorType: 'rate_limit_error',
    message:
      'This request would exceed the rate limit for your organization of 50 requests per minute. Please try again later.',
  },
  server: { status: 500, errorType: 'api_error', message: 'Internal server error' },
  overloaded: { status: 529, errorType: 'overloaded_error', message: 'Overloaded' },
  prompt_too_long: {
    status: 400,
    errorType: 'invalid_request_error',
    message: 'prompt is too long: <tokens> tokens > <maximum> maximum',
  },
  model_not_found: { status: 404, errorType: 'not_found_error', message: 'model: <model>' },
};

/** Seconds in `retry-after` of a `rate_limit` fault that does not set `retryAfterSeconds`. */
export const defaultRateLimitRetryAfterSeconds = 1;

/** Default context maximum in the `prompt_too_long` text. */
export const defaultContextMaximum = 200_000;

/** HTTP status of each error type, used when a stream fault hits a non-streaming request. */
const statusOfErrorType: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

export function statusForErrorType(errorType: string): number {
  return statusOfErrorType[errorType] ?? 500;
}

/** An HTTP error answer, fully resolved. */
export interface ResolvedHttpFault {
  readonly status: number;
  readonly errorType: string;
  readonly message: string;
  readonly headers: Readonly<Record<string, string>>;
}

export function resolveHttpFault(
  fault: HttpFault,
  context: { readonly model: string | undefined; readonly estimatedTokens: number },
): ResolvedHttpFault {
  let status: number;
  let errorType: string;
  let message: string;
  if (fault.type === 'http') {
    status = fault.status;
    errorType = fault.errorType;
    message = fault.message ?? `fake ${errorType}`;
  } else {
    const defaults = anthropicFaultDefaults[fault.type];
    status = fault.status ?? defaults.status;
    errorType = defaults.errorType;
    if (fault.message !== undefined) message = fault.message;
    else if (fault.type === 'prompt_too_long') {
      const maximum = fault.maximum ?? defaultContextMaximum;
      const tokens = fault.tokens ?? Math.max(context.estimatedTokens, maximum + 1);
      message = `prompt is too long: ${tokens} tokens > ${maximum} maximum`;
    } else if (fault.type === 'model_not_found') {
      message = `model: ${fault.model ?? context.model ?? 'unknown'}`;
    } else message = defaults.message;
  }
  const headers: Record<string, string> = {};
  const retryAfter =
    fault.retryAfterSeconds ?? (fault.type === 'rate_limit' ? defaultRateLimitRetryAfterSeconds : undefined);
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  if (fault.shouldRetry !== undefined) headers['x-should-retry'] = String(fault.shouldRetry);
  if (fault.headers !== undefined) Object.assign(headers, fault.headers);
  return { status, errorType, message, headers };
}

/** The JSON error body the real API sends. */
export function errorBody(errorType: string, message: string, requestId: string): string {
  return `{"type":"error","error":${JSON.stringify({ type: errorType, message })},"request_id":"${requestId}"}`;
}

const httpFaultTypes = new Set<string>([...Object.keys(anthropicFaultDefaults), 'http']);
const streamFaultTypes = new Set<string>(['stream_cut', 'stream_error', 'malformed_json']);

export function isHttpFault(fault: FakeFault): fault is HttpFault {
  return httpFaultTypes.has(fault.type);
}

/** Checks a fault written by a test; throws a TestkitError naming `path` when it is malformed. */
export function validateFault(value: unknown, path: string, code: TestkitErrorCode): FakeFault {
  const fail = (what: string): never => {
    throw new TestkitError(code, `${path}${what}`, { details: { path } });
  };
  if (value === null || typeof value !== 'object')
    return fail(' must be a fault object like { type: "overloaded" }');
  const fault = value as Record<string, unknown>;
  const type = fault.type;
  if (typeof type !== 'string') return fail('.type must be a string');
  if (httpFaultTypes.has(type)) {
    if (type === 'http') {
      if (!isStatus(fault.status)) fail('.status must be an HTTP status between 400 and 599 for type "http"');
      if (typeof fault.errorType !== 'string') fail('.errorType must be a string for type "http"');
    } else if (fault.status !== undefined && !isStatus(fault.status)) {
      fail('.status must be an HTTP status between 400 and 599');
    }
    if (fault.message !== undefined && typeof fault.message !== 'string') fail('.message must be a string');
    if (fault.retryAfterSeconds !== undefined && !isNonNegative(fault.retryAfterSeconds)) {
      fail('.retryAfterSeconds must be a number >= 0');
    }
    if (fault.shouldRetry !== undefined && typeof fault.shouldRetry !== 'boolean') {
      fail('.shouldRetry must be a boolean');
    }
    if (fault.headers !== undefined) {
      if (fault.headers === null || typeof fault.headers !== 'object') fail('.headers must be an object');
      for (const [name, header] of Object.entries(fault.headers as object)) {
        if (typeof header !== 'string') fail(`.headers.${name} must be a string`);
      }
    }
    if (type === 'prompt_too_long') {
      if (fault.tokens !== undefined && !isNonNegativeInteger(fault.tokens))
        fail('.tokens must be an integer >= 0');
      if (fault.maximum !== undefined && !isNonNegativeInteger(fault.maximum)) {
        fail('.maximum must be an integer >= 0');
      }
    }
    if (type === 'model_not_found' && fault.model !== undefined && typeof fault.model !== 'string') {
      fail('.model must be a string');
    }
    return value as FakeFault;
  }
  if (streamFaultTypes.has(type)) {
    if (fault.afterEvents !== undefined && !isNonNegativeInteger(fault.afterEvents)) {
      fail('.afterEvents must be an integer >= 0');
    }
    if (
      type === 'stream_cut' &&
      fault.mode !== undefined &&
      fault.mode !== 'destroy' &&
      fault.mode !== 'end'
    ) {
      fail('.mode must be "destroy" or "end"');
    }
    if (type === 'stream_error') {
      if (fault.errorType !== undefined && typeof fault.errorType !== 'string')
        fail('.errorType must be a string');
      if (fault.message !== undefined && typeof fault.message !== 'string') fail('.message must be a string');
    }
    return value as FakeFault;
  }
  if (type === 'hang') return value as FakeFault;
  return fail(
    `.type "${type}" is not a fault; expected one of ${[...httpFaultTypes, ...streamFaultTypes, 'hang'].join(', ')}`,
  );
}

function isStatus(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 400 && value <= 599;
}

function isNonNegative(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function isNonNegativeInteger(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
