// @switchboard/testkit/anthropic: a fake Anthropic Messages API for tests and benches,
// driven by the real @anthropic-ai/sdk through `baseURL`.

export {
  createFakeAnthropic,
  type FakeAnthropic,
  type FakeAnthropicOptions,
  type FakeFallback,
  type FakeTimers,
  type FaultRule,
  type FaultRuleOptions,
  type TurnFunction,
  type TurnSource,
  type WaitOptions,
} from './fake-anthropic.ts';
export {
  anthropicFaultDefaults,
  defaultContextMaximum,
  defaultRateLimitRetryAfterSeconds,
  type HttpFaultDefaults,
} from './faults.ts';
export {
  type FakeEndpoint,
  messageText,
  type RecordedRequest,
  type RecordedResponse,
} from './recorded-request.ts';
export { estimateTextTokens, estimateTokens } from './tokens.ts';
export { defaultThinkingSignature } from './turns.ts';
export type {
  FakeContentBlock,
  FakeFault,
  FakeLatency,
  FakeRedactedThinkingBlock,
  FakeTextBlock,
  FakeThinkingBlock,
  FakeToolCall,
  FakeToolUseBlock,
  FakeTurn,
  HangFault,
  HttpFault,
  HttpFaultOptions,
  HttpFaultType,
  MessagesRequestBody,
  RequestContentBlock,
  RequestMessage,
  RequestTool,
  StreamFault,
  TurnUsage,
} from './types.ts';
