import {
  type AssistantMessage,
  type ErrorCodeTable,
  SwitchboardError,
  type SwitchboardErrorOptions,
} from '@switchboard/hooks';
import { classifyModelFailure, type HeadersLike, isContextOverflowText } from './classify.ts';
import type { ModelErrorClass, ModelErrorDetails } from './model-error-types.ts';

// ---------------------------------------------------------------------------------------
// Loop errors

/** Codes of errors thrown by the loop and the Agent (never by a run once it started). */
export type CoreLoopErrorCode =
  | 'CORE_LOOP_BUSY'
  | 'CORE_LOOP_NOTHING_TO_CONTINUE'
  | 'CORE_LOOP_CANNOT_CONTINUE'
  | 'CORE_LOOP_STAGE_FAILED'
  | 'CORE_LOOP_INVALID_TOOL'
  | 'CORE_LOOP_INVALID_CONFIG'
  | 'CORE_LOOP_NO_PROVIDER';

/** Every `CoreLoopError` code with what it means. */
export const coreLoopErrorCodes: ErrorCodeTable & Readonly<Record<CoreLoopErrorCode, string>> = {
  CORE_LOOP_BUSY:
    'prompt() or continue() was called while a run is streaming; queue with steer() or followUp(), or wait.',
  CORE_LOOP_NOTHING_TO_CONTINUE: 'continue() was called on an empty history.',
  CORE_LOOP_CANNOT_CONTINUE:
    'continue() was called with an assistant message last and nothing queued to answer.',
  CORE_LOOP_STAGE_FAILED:
    'A stage of the run threw (transformContext, convertToLlm, getApiKey, a queue poll or the stream function); recorded on the assistant message that ended the run.',
  CORE_LOOP_INVALID_TOOL: 'A tool definition is unusable: duplicate name, or a schema that is not an object.',
  CORE_LOOP_INVALID_CONFIG: 'A loop or provider option is out of range (the message names the option).',
  CORE_LOOP_NO_PROVIDER: "No model provider is registered for the model's api (model.api).",
};

/** An error of the loop or the Agent, such as calling `prompt()` while streaming. */
export class CoreLoopError extends SwitchboardError<CoreLoopErrorCode> {}

// ---------------------------------------------------------------------------------------
// Model errors

/** The `ModelError` code of each failure class. */
export type ModelErrorCode =
  | 'MODEL_AUTH'
  | 'MODEL_AUTH_PERMANENT'
  | 'MODEL_CREDENTIALS_MISSING'
  | 'MODEL_BILLING'
  | 'MODEL_RATE_LIMIT'
  | 'MODEL_OVERLOADED'
  | 'MODEL_TIMEOUT'
  | 'MODEL_CONTEXT_OVERFLOW'
  | 'MODEL_FORMAT'
  | 'MODEL_NOT_FOUND'
  | 'MODEL_ABORTED'
  | 'MODEL_UNKNOWN';

/** Every `ModelError` code with what it means and what callers usually do. */
export const modelErrorCodes: ErrorCodeTable & Readonly<Record<ModelErrorCode, string>> = {
  MODEL_AUTH:
    'Credentials were rejected (401/403, invalid key or token, expired session). Refresh or rotate the auth profile.',
  MODEL_AUTH_PERMANENT:
    'The key or account is revoked, deactivated or not allowed for the organization. Disable the profile for a long time.',
  MODEL_CREDENTIALS_MISSING:
    'No API key or token is configured for the provider, so nothing was sent. Configure one; retrying, rotating or cooling down does not help (another provider may).',
  MODEL_BILLING:
    'Payment required or out of credits (402, insufficient balance). Disable the profile for hours.',
  MODEL_RATE_LIMIT:
    'Rate limited or a usage window is exhausted (429, quota, tokens per minute); retryAfterMs says how long to wait when the provider said.',
  MODEL_OVERLOADED:
    'The provider is overloaded (529, overloaded_error, high demand). Retry later or fall back.',
  MODEL_TIMEOUT:
    'The call timed out, the connection failed or the stream was cut, or the provider had a transient server error (408, 5xx).',
  MODEL_CONTEXT_OVERFLOW:
    "The prompt is larger than the model's context window; observedTokens holds the size the provider reported. Compact, never fall back.",
  MODEL_FORMAT: 'The provider rejected the request as malformed (400/422, bad tool ids, oversized images).',
  MODEL_NOT_FOUND: 'The model does not exist or is not available to this key (404).',
  MODEL_ABORTED: "The call was aborted by the caller's signal.",
  MODEL_UNKNOWN: 'The failure matched no known class.',
};

/** The `ModelError` code for each failure class. */
export const modelErrorCodeByClass: Readonly<Record<ModelErrorClass, ModelErrorCode>> = {
  auth: 'MODEL_AUTH',
  auth_permanent: 'MODEL_AUTH_PERMANENT',
  no_credentials: 'MODEL_CREDENTIALS_MISSING',
  billing: 'MODEL_BILLING',
  rate_limit: 'MODEL_RATE_LIMIT',
  overloaded: 'MODEL_OVERLOADED',
  timeout: 'MODEL_TIMEOUT',
  context_overflow: 'MODEL_CONTEXT_OVERFLOW',
  format: 'MODEL_FORMAT',
  model_not_found: 'MODEL_NOT_FOUND',
  aborted: 'MODEL_ABORTED',
  unknown: 'MODEL_UNKNOWN',
};

/** Every failure class, in the order of the table in the README. */
export const modelErrorClasses: readonly ModelErrorClass[] = Object.freeze(
  Object.keys(modelErrorCodeByClass) as ModelErrorClass[],
);

/**
 * Classes that justify rotating the auth profile or falling back to another model.
 * `context_overflow` (goes to compaction), `aborted` (the caller's intent) and `format`
 * (the request itself is wrong) are not among them. `no_credentials` is: a fallback model
 * of another provider may have a key (no other key of the same provider exists).
 */
export const failoverErrorClasses: ReadonlySet<ModelErrorClass> = new Set<ModelErrorClass>([
  'auth',
  'auth_permanent',
  'no_credentials',
  'billing',
  'rate_limit',
  'overloaded',
  'timeout',
  'model_not_found',
  'unknown',
]);

const retryableClasses: ReadonlySet<ModelErrorClass> = new Set<ModelErrorClass>([
  'rate_limit',
  'overloaded',
  'timeout',
]);

export interface ModelErrorOptions extends SwitchboardErrorOptions, ModelErrorDetails {
  /** Provider that failed (`anthropic`). */
  readonly provider?: string;
  /** Model that failed. */
  readonly model?: string;
}

/**
 * A failed model call, normalized: `errorClass` says what kind of failure it was (see
 * `modelErrorCodes`), `code` is `MODEL_<CLASS>`, and the facts callers decide on are
 * fields (`status`, `retryAfterMs`, `observedTokens`). `retryable` is true for rate limits,
 * overload and timeouts.
 */
export class ModelError extends SwitchboardError<ModelErrorCode> {
  readonly errorClass: ModelErrorClass;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  readonly observedTokens: number | undefined;
  readonly providerType: string | undefined;
  readonly requestId: string | undefined;
  readonly provider: string | undefined;
  readonly model: string | undefined;

  constructor(errorClass: ModelErrorClass, message: string, options: ModelErrorOptions = {}) {
    const facts = pickDetails(options);
    super(modelErrorCodeByClass[errorClass], message, {
      cause: options.cause,
      retryable: options.retryable ?? retryableClasses.has(errorClass),
      details: {
        errorClass,
        ...facts,
        provider: options.provider,
        model: options.model,
        ...options.details,
      },
    });
    this.errorClass = errorClass;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
    this.observedTokens = options.observedTokens;
    this.providerType = options.providerType;
    this.requestId = options.requestId;
    this.provider = options.provider;
    this.model = options.model;
  }

  /** True when this failure should lead to profile rotation or model fallback. */
  get isFailover(): boolean {
    return failoverErrorClasses.has(this.errorClass);
  }

  /** The facts as stored on an assistant message (`errorDetails`). */
  toDetails(): ModelErrorDetails {
    return pickDetails(this);
  }

  /**
   * Rebuilds the error an assistant message ended with; `undefined` when the message did
   * not fail (stopReason other than `error`/`aborted`).
   */
  static fromAssistantMessage(message: AssistantMessage): ModelError | undefined {
    if (message.stopReason !== 'error' && message.stopReason !== 'aborted') return undefined;
    const text = message.errorMessage ?? 'The model call failed.';
    const errorClass =
      message.errorClass ??
      (message.stopReason === 'aborted'
        ? 'aborted'
        : classifyModelFailure({
            message: text,
            status: message.errorDetails?.status,
          }).errorClass);
    return new ModelError(errorClass, text, {
      ...message.errorDetails,
      provider: message.provider,
      model: message.model,
    });
  }
}

// Keeps the spreads (decision 0028): only the facts that are present become keys, because
// the providers and `failedCallMessage` store `errorDetails` only when `Object.keys(details)`
// is non-empty.
function pickDetails(source: ModelErrorDetails): ModelErrorDetails {
  return {
    ...(source.status === undefined ? {} : { status: source.status }),
    ...(source.retryAfterMs === undefined ? {} : { retryAfterMs: source.retryAfterMs }),
    ...(source.observedTokens === undefined ? {} : { observedTokens: source.observedTokens }),
    ...(source.providerType === undefined ? {} : { providerType: source.providerType }),
    ...(source.requestId === undefined ? {} : { requestId: source.requestId }),
  };
}

/** Context for `toModelError`. */
export interface ToModelErrorOptions {
  /** When this signal has fired, the failure is `aborted` whatever the error says. */
  readonly signal?: AbortSignal;
  readonly provider?: string;
  readonly model?: string;
  readonly now?: () => number;
}

interface ApiErrorShape {
  readonly status?: unknown;
  readonly headers?: unknown;
  readonly apiMessage?: unknown;
  readonly type?: unknown;
  readonly requestID?: unknown;
  readonly name?: unknown;
  readonly message?: unknown;
}

/**
 * Turns anything a provider call threw into a `ModelError`: `ModelError`s pass through;
 * HTTP errors (any object with a numeric `status`, such as the Anthropic SDK's `APIError`)
 * are classified by status, provider type and message text; an abort (the signal fired, or
 * an `AbortError`) is `aborted`; anything else is classified by its text.
 */
export function toModelError(error: unknown, options: ToModelErrorOptions = {}): ModelError {
  const identity = {
    provider: options.provider,
    model: options.model,
  };
  if (error instanceof ModelError) return error;
  if (options.signal?.aborted === true) {
    return new ModelError('aborted', 'Request was aborted', { cause: error, ...identity });
  }
  const shape = (typeof error === 'object' && error !== null ? error : {}) as ApiErrorShape;
  const name = typeof shape.name === 'string' ? shape.name : '';
  const message =
    typeof shape.message === 'string' ? shape.message : typeof error === 'string' ? error : String(error);
  if (name === 'AbortError' || name === 'APIUserAbortError') {
    return new ModelError('aborted', 'Request was aborted', { cause: error, ...identity });
  }
  if (SwitchboardError.isInstance(error) && !(error instanceof ModelError)) {
    const classification = classifyModelFailure({ message });
    return new ModelError(classification.errorClass, message, {
      cause: error,
      ...identity,
      retryAfterMs: classification.retryAfterMs,
      observedTokens: classification.observedTokens,
    });
  }
  const status = typeof shape.status === 'number' ? shape.status : undefined;
  const providerType = typeof shape.type === 'string' ? shape.type : undefined;
  const apiMessage = typeof shape.apiMessage === 'string' ? shape.apiMessage : undefined;
  const requestId = typeof shape.requestID === 'string' ? shape.requestID : undefined;
  const headers = isHeadersLike(shape.headers) ? shape.headers : undefined;
  // The SDK's own message embeds the JSON body; the classifier reads both.
  const text = apiMessage === undefined ? message : `${apiMessage} ${message}`;
  const classification = classifyModelFailure({
    message: text,
    status,
    providerType,
    headers,
    now: options.now,
  });
  const readable =
    apiMessage === undefined
      ? message
      : status === undefined
        ? apiMessage
        : `${status} ${providerType ?? 'error'}: ${apiMessage}`;
  return new ModelError(classification.errorClass, readable, {
    cause: error,
    ...identity,
    status,
    providerType,
    requestId,
    retryAfterMs: classification.retryAfterMs,
    observedTokens: classification.observedTokens,
  });
}

function isHeadersLike(value: unknown): value is HeadersLike {
  return typeof value === 'object' && value !== null;
}

/**
 * The failure class of a `ModelError`, a failed assistant message, or anything thrown by a
 * provider call; `undefined` for an assistant message that did not fail.
 */
export function modelErrorClassOf(value: unknown): ModelErrorClass | undefined {
  if (value instanceof ModelError) return value.errorClass;
  if (isAssistantMessage(value)) return ModelError.fromAssistantMessage(value)?.errorClass;
  if (value === undefined || value === null) return undefined;
  return toModelError(value).errorClass;
}

/**
 * True when the value says the prompt did not fit the model's context window: a
 * `ModelError` or assistant message of class `context_overflow`, or any thrown error whose
 * status and text classify so. With `contextWindow`, an assistant message that ended
 * normally but reports more prompt tokens than the window (a provider that overflows
 * silently) also counts.
 */
export function isContextOverflow(value: unknown, contextWindow?: number): boolean {
  if (isAssistantMessage(value)) {
    if (value.stopReason === 'error') {
      if (value.errorClass !== undefined) return value.errorClass === 'context_overflow';
      return isContextOverflowText(value.errorMessage ?? '');
    }
    if (contextWindow !== undefined && value.stopReason === 'stop') {
      return value.usage.input + value.usage.cacheRead > contextWindow;
    }
    return false;
  }
  return modelErrorClassOf(value) === 'context_overflow';
}

function isAssistantMessage(value: unknown): value is AssistantMessage {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { role?: unknown }).role === 'assistant' &&
    typeof (value as { stopReason?: unknown }).stopReason === 'string'
  );
}
