/**
 * The conversation model shared by the agent loop, the session store, compaction and
 * hooks: provider-neutral messages made of typed content blocks.
 */

export interface TextContent {
  readonly type: 'text';
  readonly text: string;
}

export interface ThinkingContent {
  readonly type: 'thinking';
  readonly thinking: string;
  /** The provider's signature; must be sent back unchanged on later turns. */
  readonly signature?: string;
  /** True when the provider returned the thinking encrypted (only `signature` is usable). */
  readonly redacted?: boolean;
}

export interface ImageContent {
  readonly type: 'image';
  /** e.g. `image/png` */
  readonly mediaType: string;
  /** Base64 data, without a data: prefix. */
  readonly data: string;
}

export interface ToolCallContent {
  readonly type: 'toolCall';
  readonly id: string;
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** Why a model response ended. */
export type StopReason = 'stop' | 'length' | 'toolUse' | 'error' | 'aborted';

export interface UsageCost {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly total: number;
}

/** Token usage of one model call (or a sum of calls, for cost). */
export interface Usage {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly totalTokens: number;
  readonly cost: UsageCost;
}

export interface UserMessage {
  readonly role: 'user';
  readonly content: string | ReadonlyArray<TextContent | ImageContent>;
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
}

/**
 * Why a model call failed, normalized across providers (core-loop's `ModelError` classes).
 * `context_overflow` is not a failover reason: it goes to compaction. `no_credentials` means
 * no API key or token was configured at all, so nothing was sent (unlike `auth`, a key the
 * provider rejected).
 */
export type ModelErrorClass =
  | 'auth'
  | 'auth_permanent'
  | 'no_credentials'
  | 'billing'
  | 'rate_limit'
  | 'overloaded'
  | 'timeout'
  | 'context_overflow'
  | 'format'
  | 'model_not_found'
  | 'aborted'
  | 'unknown';

/** Facts about a failed model call that retry, rotation and compaction decide on. */
export interface ModelErrorDetails {
  /** HTTP status of the failed response, when there was one. */
  readonly status?: number;
  /** How long the provider asked us to wait before retrying (rate limits, overload). */
  readonly retryAfterMs?: number;
  /** Prompt size the provider reported in a context-overflow error, when it said. */
  readonly observedTokens?: number;
  /** The provider's own error type (`overloaded_error`, …), for logs. */
  readonly providerType?: string;
  /** The provider's request id, for support tickets. */
  readonly requestId?: string;
}

export interface AssistantMessage {
  readonly role: 'assistant';
  readonly content: ReadonlyArray<TextContent | ThinkingContent | ToolCallContent>;
  /** Provider name (`anthropic`). */
  readonly provider: string;
  /** Model id (`claude-sonnet-4-6`). */
  readonly model: string;
  /** The provider's id for this response, when it gave one. */
  readonly responseId?: string;
  readonly usage: Usage;
  readonly stopReason: StopReason;
  /** Set when `stopReason` is `error` or `aborted`. */
  readonly errorMessage?: string;
  /**
   * The error code when `stopReason` is `error` or `aborted`: a core-loop `ModelError` code
   * (`MODEL_RATE_LIMIT`, …) or, for failures made by the loop itself, a `CORE_LOOP_*` code.
   */
  readonly errorCode?: string;
  /**
   * The normalized failure class of a failed model call. Absent when the loop itself failed
   * (a `CORE_LOOP_*` code: a throwing stage, no provider for the model).
   */
  readonly errorClass?: ModelErrorClass;
  /** Status, retry-after and observed token count of the failure, when known. */
  readonly errorDetails?: ModelErrorDetails;
  readonly timestamp: number;
}

export interface ToolResultMessage {
  readonly role: 'toolResult';
  readonly toolCallId: string;
  readonly toolName: string;
  readonly content: ReadonlyArray<TextContent | ImageContent>;
  /** Structured result for programs (not sent to the model). */
  readonly details?: unknown;
  readonly isError: boolean;
  readonly timestamp: number;
}

/** A message a model understands. */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** Zero usage, for messages that never reached a model. */
export const emptyUsage: Usage = Object.freeze({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: Object.freeze({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }),
});
