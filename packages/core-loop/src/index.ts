// @switchboard/core-loop: the agent double loop, tools, model errors, usage and providers.

// The tool result shapes are the plugin SDK's own.
export type { ToolResult, ToolUpdateCallback } from '@switchboard/hooks';
// The Agent
export {
  Agent,
  type AgentListener,
  type AgentOptions,
  type AgentState,
  type QueueMode,
} from './agent.ts';
// The low-level loop
export {
  type AgentEventSink,
  type AgentEventStream,
  abortedToolCallText,
  agentLoop,
  agentLoopContinue,
  assertContinuable,
  defaultMaxModelCalls,
  runAgentLoop,
  skippedToolCallText,
} from './agent-loop.ts';
// Error classification
export {
  classifyModelFailure,
  type HeadersLike,
  isContextOverflowText,
  type ModelFailureClassification,
  type ModelFailureInput,
  parseObservedTokens,
  retryAfterFromHeaders,
} from './classify.ts';
// Errors
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
  modelErrorCodeByClass,
  modelErrorCodes,
  type ToModelErrorOptions,
  toModelError,
} from './errors.ts';
// Streams
export {
  AssistantMessageEventStream,
  createAssistantMessageEventStream,
  EventStream,
} from './event-stream.ts';
export type { ModelErrorClass, ModelErrorDetails } from './model-error-types.ts';
// Models
export { anthropicMessagesApi, anthropicModel, defaultModel, knownAnthropicModelIds } from './models.ts';
export { parsePartialJson, parseToolArguments } from './partial-json.ts';
// Providers (the Anthropic provider itself is `@switchboard/core-loop/anthropic`)
export { defaultStreamFunction } from './providers/default.ts';
export { createStreamFunction, type ModelProvider } from './providers/provider.ts';
// Context stages
export { defaultConvertToLlm, missingToolResultText, prepareReplay } from './replay.ts';
// Tools
export {
  type ArgumentValidation,
  assertValidTools,
  defineTool,
  toolSpec,
  validateToolArguments,
} from './tools.ts';
// Types
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
  ThinkingLevel,
  ToolExecutionMode,
  ToolSpec,
} from './types.ts';
// Usage
export {
  createUsage,
  createUsageAccumulator,
  emptyRunUsage,
  type RunUsage,
  type TokenCounts,
  type UsageAccumulator,
} from './usage.ts';
