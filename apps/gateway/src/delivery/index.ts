/**
 * Outbound delivery: the gateway's internal API between an agent run and a channel send.
 * Pure: no I/O except the injected `send`, timers and clock.
 *
 * Most callers need only `createReplyStream` (reply-stream.ts); the parts are exported for
 * previews, the WebSocket `assistant` stream and tests. See README.md in this folder.
 */

export {
  type BlockChunker,
  type BlockChunkerOptions,
  type BreakPreference,
  createBlockChunker,
  type DrainOptions,
} from './block-chunker.ts';
export { type ChunkMode, type ChunkTextOptions, chunkText } from './chunk-text.ts';
export { type BlockCoalescer, type BlockCoalescerOptions, createBlockCoalescer } from './coalescer.ts';
export {
  type BlockStreamingMode,
  type BlockStreamingOptions,
  type ChannelDeliveryCapabilities,
  channelDeliveryDefaults,
  DEFAULT_TEXT_CHUNK_LIMIT,
  type ResolvedDeliveryConfig,
  resolveDeliveryConfig,
} from './config.ts';
export { DeliveryError, type DeliveryErrorCode, deliveryErrorCodes } from './errors.ts';
export { type FenceSpan, parseFenceSpans } from './fences.ts';
export {
  createMessagingToolTracker,
  isSameMessagingTarget,
  MESSAGING_DEDUPE_MIN_CHARS,
  MESSAGING_TRACKER_CAP,
  type MessagingSend,
  type MessagingSuppression,
  type MessagingTarget,
  type MessagingToolTracker,
  normalizeForDedupe,
} from './messaging-dedupe.ts';
export {
  createDeliveryPipeline,
  DEFAULT_SEND_TIMEOUT_MS,
  type DeliveryPipeline,
  type DeliveryPipelineOptions,
  type DeliveryPipelineStats,
  type HumanDelay,
} from './pipeline.ts';
export {
  createReplyStream,
  type MessageToolSendInput,
  type ReplyStream,
  type ReplyStreamEvent,
  type ReplyStreamOptions,
  type ReplySummary,
  type RunEndInput,
  type ToolEndInput,
  type ToolFailure,
  type ToolStartInput,
} from './reply-stream.ts';
export {
  createSilentGate,
  DEFAULT_SILENT_TOKENS,
  HEARTBEAT_TOKEN,
  isSilentReplyPrefix,
  isSilentReplyText,
  SILENT_REPLY_TOKEN,
  type SilentGate,
  type SilentGateOptions,
  type SilentGateState,
  stripSilentTokens,
} from './silent-token.ts';
export {
  createTagStripper,
  stripDowngradedToolCallText,
  stripReasoningTags,
  type TagStripper,
  type TagStripperOptions,
} from './tag-stripper.ts';
export type {
  DeliveryEvent,
  DeliveryEventListener,
  DeliveryPayload,
  DeliverySend,
  DeliverySendContext,
  DeliverySendOutcome,
  DeliverySendResult,
  DeliveryTimers,
  SuppressionReason,
} from './types.ts';
