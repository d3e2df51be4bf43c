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

export interface AssistantMessage {
  readonly role: 'assistant';
  readonly content: ReadonlyArray<TextContent | ThinkingContent | ToolCallContent>;
  readonly provider: string;
  readonly model: string;
  readonly usage: Usage;
  readonly stopReason: StopReason;
  /** Set when `stopReason` is `error` or `aborted`. */
  readonly errorMessage?: string;
  /** The normalized error code when `stopReason` is `error` (see core-loop's model errors). */
  readonly errorCode?: string;
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
