import type {
  AssistantMessage,
  ImageContent,
  Message,
  TextContent,
  ToolCallContent,
  ToolResult,
  ToolResultMessage,
  ToolUpdateCallback,
} from '@switchboard/hooks';
import type { z } from 'zod';
import type { AssistantMessageEventStream } from './event-stream.ts';
import type { ThinkingLevel } from './thinking.ts';
import type { RunUsage } from './usage.ts';

/**
 * App-specific message kinds, added through declaration merging:
 *
 * ```ts
 * declare module '@switchboard/core-loop' {
 *   interface CustomAgentMessages {
 *     compactionSummary: { role: 'compactionSummary'; summary: string; timestamp: number };
 *   }
 * }
 * ```
 *
 * Each kind needs a `role` that none of the built-in messages use. `convertToLlm` decides
 * what the model sees of them (the default drops them).
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in apps.
export interface CustomAgentMessages {}

/** A message in the agent's history: a model message or an app-defined kind. */
export type AgentMessage = Message | CustomAgentMessages[keyof CustomAgentMessages];

// Reasoning effort requested from models that think (`off` sends no thinking request).
export type { ThinkingLevel };

/** Prices in US dollars per million tokens. */
export interface ModelCost {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
}

/** A model the loop can call: which provider implementation speaks to it, and its limits. */
export interface Model {
  /** The id sent to the provider (`claude-sonnet-4-5`). */
  readonly id: string;
  /** Display name. */
  readonly name?: string;
  /** Provider name recorded on messages and passed to `getApiKey` (`anthropic`). */
  readonly provider: string;
  /** Which `ModelProvider` implementation streams this model (`anthropic-messages`). */
  readonly api: string;
  /** Default endpoint; a per-call `baseUrl` overrides it. */
  readonly baseUrl?: string;
  /** Context window in tokens. */
  readonly contextWindow: number;
  /** Largest `max_tokens` the model accepts. */
  readonly maxOutputTokens: number;
  /**
   * How the model thinks: `budget` (a token budget per level), `adaptive` (an effort
   * level), or absent when it cannot think (thinking levels are then ignored).
   */
  readonly thinking?: 'budget' | 'adaptive';
  /** Input kinds the model accepts. Images sent to a text-only model become a placeholder. */
  readonly input: ReadonlyArray<'text' | 'image'>;
  readonly cost: ModelCost;
  /** Extra HTTP headers sent with every call to this model. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A tool as the model sees it: name, description and JSON Schema of the arguments. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: Readonly<Record<string, unknown>>;
}

/** What one model call receives: already converted, provider-neutral messages. */
export interface LlmContext {
  readonly systemPrompt?: string;
  readonly messages: readonly Message[];
  readonly tools?: readonly ToolSpec[];
}

/** How long the provider may keep the prompt cache: none, the default 5 minutes, or 1 hour. */
export type CacheRetention = 'none' | 'short' | 'long';

/** Options of one model call. Provider options are defaults; these override them per call. */
export interface StreamOptions {
  readonly signal?: AbortSignal;
  /** API key for this call (takes precedence over the provider's). */
  readonly apiKey?: string;
  /** Bearer token for this call (OAuth and proxies), used instead of an API key. */
  readonly authToken?: string;
  /** Endpoint for this call (`http://127.0.0.1:8080`). */
  readonly baseUrl?: string;
  /** Extra HTTP headers for this call, merged over the model's. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly thinkingLevel?: ThinkingLevel;
  /** Output token limit; defaults to min(model max output, 32000). */
  readonly maxTokens?: number;
  /** Time allowed until the response headers arrive. */
  readonly timeoutMs?: number;
  /** Longest silence allowed between two streamed events once the response started. */
  readonly idleTimeoutMs?: number;
  readonly cacheRetention?: CacheRetention;
  /** The conversation's id, for providers that key caches or logs by it. */
  readonly sessionId?: string;
}

/**
 * Streams one assistant response. Contract: never throws and never rejects for request,
 * model or network failures; it returns a stream that ends with exactly one `done` or
 * `error` event carrying the complete message (errors are encoded as a message with
 * stopReason `error` or `aborted`). The loop still survives a stream function that breaks
 * the contract: a throw becomes an error message.
 */
export type StreamFunction = (
  model: Model,
  context: LlmContext,
  options: StreamOptions,
) => AssistantMessageEventStream | Promise<AssistantMessageEventStream>;

/** Events of one assistant response, in the order a provider produces them. */
export type AssistantStreamEvent =
  | { readonly type: 'start'; readonly partial: AssistantMessage }
  | { readonly type: 'text_start'; readonly contentIndex: number; readonly partial: AssistantMessage }
  | {
      readonly type: 'text_delta';
      readonly contentIndex: number;
      readonly delta: string;
      readonly partial: AssistantMessage;
    }
  | {
      readonly type: 'text_end';
      readonly contentIndex: number;
      readonly content: string;
      readonly partial: AssistantMessage;
    }
  | { readonly type: 'thinking_start'; readonly contentIndex: number; readonly partial: AssistantMessage }
  | {
      readonly type: 'thinking_delta';
      readonly contentIndex: number;
      readonly delta: string;
      readonly partial: AssistantMessage;
    }
  | {
      readonly type: 'thinking_end';
      readonly contentIndex: number;
      readonly content: string;
      readonly partial: AssistantMessage;
    }
  | { readonly type: 'toolcall_start'; readonly contentIndex: number; readonly partial: AssistantMessage }
  | {
      readonly type: 'toolcall_delta';
      readonly contentIndex: number;
      /** The raw JSON fragment; `partial` holds the best-effort parsed arguments so far. */
      readonly delta: string;
      readonly partial: AssistantMessage;
    }
  | {
      readonly type: 'toolcall_end';
      readonly contentIndex: number;
      readonly toolCall: ToolCallContent;
      readonly partial: AssistantMessage;
    }
  | {
      readonly type: 'done';
      readonly reason: 'stop' | 'length' | 'toolUse';
      readonly message: AssistantMessage;
    }
  | { readonly type: 'error'; readonly reason: 'error' | 'aborted'; readonly error: AssistantMessage };

// ---------------------------------------------------------------------------------------
// Tools

/**
 * A tool the model may call (structurally the same as `PluginTool` of `@switchboard/hooks`,
 * so plugin tools are loop tools). `parameters` is a zod (v4) schema: it is sent to the model as
 * JSON Schema, and the model's arguments are validated (with light type coercion, e.g.
 * `"5"` → `5`) before `execute` sees them. A validation failure or a thrown error goes back
 * to the model as an error tool result it can correct.
 */
export interface AgentTool<Schema extends z.ZodType = z.ZodType, Details = unknown> {
  /** Name the model calls the tool by; unique in a context; `[A-Za-z0-9_-]{1,64}`. */
  readonly name: string;
  /** Human label for UIs. */
  readonly label?: string;
  readonly description: string;
  readonly parameters: Schema;
  /**
   * The JSON Schema the model sees, for a tool that comes with one (an MCP server's tool):
   * sent as is (an object schema) instead of converting `parameters`, which still validates
   * the arguments. Leave it out for tools written in zod.
   */
  readonly parametersJsonSchema?: Readonly<Record<string, unknown>>;
  /**
   * Runs the tool. `signal` fires when the run is aborted; honour it. Throw to report a
   * failure: the message becomes the error result's text.
   */
  execute(
    toolCallId: string,
    args: z.output<Schema>,
    signal: AbortSignal,
    onUpdate: ToolUpdateCallback<Details>,
  ): Promise<ToolResult<Details>>;
}

/** Any tool, whatever its schema (the loop's view). */
// biome-ignore lint/suspicious/noExplicitAny: tool argument types vary per tool; the loop validates them.
export type AnyAgentTool = AgentTool<z.ZodType, any>;

/** What `beforeToolCall` sees. `args` are the validated (and coerced) arguments. */
export interface BeforeToolCallContext {
  readonly assistantMessage: AssistantMessage;
  readonly toolCall: ToolCallContent;
  readonly tool: AnyAgentTool;
  readonly args: unknown;
  /** The history as it stands when the call is prepared. */
  readonly messages: readonly AgentMessage[];
}

/**
 * `beforeToolCall` decides per call: return nothing to run it as is; `{ block: true,
 * reason }` to refuse it (the model gets an error result with the reason); `{ args }` to run
 * it with rewritten arguments (validated again against the tool's schema).
 */
export type BeforeToolCallResult =
  | { readonly block: true; readonly reason?: string }
  | { readonly block?: false; readonly args: unknown };

/** What `afterToolCall` sees: the executed call and its result. */
export interface AfterToolCallContext {
  readonly assistantMessage: AssistantMessage;
  readonly toolCall: ToolCallContent;
  readonly tool: AnyAgentTool;
  readonly args: unknown;
  readonly result: ToolResult;
  readonly isError: boolean;
  readonly messages: readonly AgentMessage[];
}

/**
 * `afterToolCall` may replace fields of the result. Each field given replaces the whole
 * field (no deep merge); fields left out are kept.
 */
export interface AfterToolCallResult {
  readonly content?: ReadonlyArray<TextContent | ImageContent>;
  readonly details?: unknown;
  readonly isError?: boolean;
}

// ---------------------------------------------------------------------------------------
// The loop

/** The history and tools one run works on. The loop copies `messages`; it never mutates them. */
export interface AgentContext {
  readonly systemPrompt?: string;
  readonly messages: readonly AgentMessage[];
  readonly tools?: readonly AnyAgentTool[];
}

/** A credential for one call: a bare string is an API key. */
export type ModelCredential = string | { readonly apiKey: string } | { readonly authToken: string };

/** How tool calls of one assistant message run. */
export type ToolExecutionMode = 'sequential' | 'parallel';

/** Options of one run of the loop. */
export interface AgentLoopConfig {
  readonly model: Model;
  /** Per-call stream options (thinking level, max tokens, endpoint, headers, timeouts…). */
  readonly streamOptions?: Omit<StreamOptions, 'signal'>;
  /**
   * Turns history into model messages, before every model call. The default keeps user,
   * assistant and tool-result messages and drops custom kinds.
   */
  readonly convertToLlm?: (messages: readonly AgentMessage[]) => Message[] | Promise<Message[]>;
  /** Prunes or injects history before `convertToLlm`, before every model call. */
  readonly transformContext?: (
    messages: readonly AgentMessage[],
    signal: AbortSignal,
  ) => AgentMessage[] | Promise<AgentMessage[]>;
  /** Resolves the credential before every model call, so short-lived tokens refresh mid-run. */
  readonly getApiKey?: (
    provider: string,
  ) => ModelCredential | undefined | Promise<ModelCredential | undefined>;
  /** Polled for steering messages: before the first call, between tool calls, after each turn. */
  readonly getSteeringMessages?: () => AgentMessage[] | Promise<AgentMessage[]>;
  /** Polled when the run would otherwise stop. */
  readonly getFollowUpMessages?: () => AgentMessage[] | Promise<AgentMessage[]>;
  /** Default `parallel`. */
  readonly toolExecution?: ToolExecutionMode;
  readonly beforeToolCall?: (
    context: BeforeToolCallContext,
    signal: AbortSignal,
  ) => BeforeToolCallResult | undefined | Promise<BeforeToolCallResult | undefined>;
  readonly afterToolCall?: (
    context: AfterToolCallContext,
    signal: AbortSignal,
  ) => AfterToolCallResult | undefined | Promise<AfterToolCallResult | undefined>;
  /** Most model calls one run may make (default 50); a run that needs more ends with `budget_exhausted`. */
  readonly maxModelCalls?: number;
  /** Skips the steering poll before the first model call (the Agent uses it for `continue()`). */
  readonly skipInitialSteeringPoll?: boolean;
  /** Clock for message timestamps. */
  readonly now?: () => number;
}

/** Why a run ended: the last assistant message's stop reason, or the model-call budget. */
export type AgentStopReason = 'stop' | 'length' | 'toolUse' | 'error' | 'aborted' | 'budget_exhausted';

/** Everything a run reports, in order. One payload shape per `type`. */
export type AgentEvent =
  | { readonly type: 'agent_start' }
  | {
      readonly type: 'agent_end';
      /** Every message the run added, in order. */
      readonly messages: readonly AgentMessage[];
      readonly stopReason: AgentStopReason;
      /** Usage summed over the run's model calls, and the last call's context size. */
      readonly usage: RunUsage;
    }
  | { readonly type: 'turn_start' }
  | {
      readonly type: 'turn_end';
      readonly message: AssistantMessage;
      readonly toolResults: readonly ToolResultMessage[];
    }
  | { readonly type: 'message_start'; readonly message: AgentMessage }
  | {
      readonly type: 'message_update';
      /** The partial assistant message after this provider event. */
      readonly message: AssistantMessage;
      readonly assistantEvent: AssistantStreamEvent;
    }
  | { readonly type: 'message_end'; readonly message: AgentMessage }
  | {
      readonly type: 'tool_execution_start';
      readonly toolCallId: string;
      readonly toolName: string;
      /** The model's raw arguments, before validation. */
      readonly args: unknown;
    }
  | {
      readonly type: 'tool_execution_update';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly args: unknown;
      readonly partialResult: ToolResult;
    }
  | {
      readonly type: 'tool_execution_end';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly result: ToolResult;
      readonly isError: boolean;
    };

/** Every `AgentEvent` type name. */
export type AgentEventType = AgentEvent['type'];
