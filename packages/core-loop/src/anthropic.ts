// @switchboard/core-loop/anthropic: the Anthropic Messages provider. A separate entry so
// that importing the loop does not load the SDK; the Agent's default stream function loads
// this on its first call.

export {
  type AnthropicProviderOptions,
  anthropicDefaultBaseUrl,
  anthropicThinkingBudgets,
  anthropicThinkingParameters,
  createAnthropicProvider,
  mapAnthropicStopReason,
  type ProviderTimers,
  toAnthropicMessages,
} from './providers/anthropic.ts';
