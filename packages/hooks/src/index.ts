// @switchboard/hooks: the plugin SDK and the shared contracts every package builds on.

// Errors: the one error base.
export {
  type ErrorCodeTable,
  type SerializedSwitchboardError,
  SwitchboardError,
  type SwitchboardErrorOptions,
  toSwitchboardError,
} from './errors.ts';

// Messages: the provider-neutral conversation model.
export {
  type AssistantMessage,
  emptyUsage,
  type ImageContent,
  type Message,
  type StopReason,
  type TextContent,
  type ThinkingContent,
  type ToolCallContent,
  type ToolResultMessage,
  type Usage,
  type UsageCost,
  type UserMessage,
} from './messages.ts';
