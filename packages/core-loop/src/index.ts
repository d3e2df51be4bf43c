// @switchboard/core-loop: the agent double loop, tools, model errors, usage and providers.
//
// The curated public API. Parsing helpers, the notice texts and the stream primitives behind
// the loop are internals: this package's tests and bench import their module files. The tool
// result shapes (`ToolResult`, `ToolUpdateCallback`) are the plugin SDK's: import them from
// `@switchboard/hooks`.

// For the gateway and other packages: the Agent, its messages, events and tools.
export {
  Agent,
  type AgentListener,
  type AgentOptions,
  type AgentState,
  type QueueMode,
} from './agent.ts';
// For callers that run the loop without an Agent (documented in the README).
export {
  type AgentEventSink,
  type AgentEventStream,
  agentLoop,
  agentLoopContinue,
  runAgentLoop,
} from './agent-loop.ts';
// Model errors and their classification (auth-profiles' failover and compaction use them).
export {
  classifyModelFailure,
  type ModelFailureClassification,
  type ModelFailureInput,
} from './classify.ts';
export {
  CoreLoopError,
  type CoreLoopErrorCode,
  coreLoopErrorCodes,
  failoverErrorClasses,
  isContextOverflow,
  ModelError,
  type ModelErrorCode,
  type ModelErrorOptions,
  modelErrorClasses,
  modelErrorClassOf,
  modelErrorCodes,
  type ToModelErrorOptions,
  toModelError,
} from './errors.ts';
export { AssistantMessageEventStream } from './event-stream.ts';
export type { ModelErrorClass, ModelErrorDetails } from './model-error-types.ts';
// Models and providers (the Anthropic provider itself is `@switchboard/core-loop/anthropic`).
export { anthropicModel, defaultModel, knownAnthropicModelIds } from './models.ts';
// The HTTP client of the model SDKs (the provider packages use it too).
export { createModelFetch, defaultModelFetch, type ModelFetchOptions } from './providers/model-fetch.ts';
export { createStreamFunction, type ModelProvider } from './providers/provider.ts';
export { defaultConvertToLlm, prepareReplay } from './replay.ts';
export { type ThinkingLevel, thinkingLevels } from './thinking.ts';
export { defineTool, toolSpec } from './tools.ts';
export type {
  AfterToolCallContext,
  AfterToolCallResult,
  AgentContext,
  AgentEvent,
  AgentEventType,
  AgentLoopConfig,
  AgentMessage,
  AgentStopReason,
  AgentTool,
  AnyAgentTool,
  AssistantStreamEvent,
  BeforeToolCallContext,
  BeforeToolCallResult,
  CacheRetention,
  CustomAgentMessages,
  LlmContext,
  Model,
  ModelCost,
  ModelCredential,
  StreamFunction,
  StreamOptions,
  ToolExecutionMode,
  ToolSpec,
} from './types.ts';
// Usage accounting.
export {
  createUsage,
  createUsageAccumulator,
  type RunUsage,
  type TokenCounts,
  type UsageAccumulator,
} from './usage.ts';
