/**
 * Outbound delivery: the gateway's internal API between an agent run and a channel send.
 * Pure: no I/O except the injected `send`, timers and clock.
 *
 * Most callers need only `createReplyStream` (reply-stream.ts); the other names here are the
 * ones the rest of the gateway uses. Tests import the module files directly. See README.md in
 * this folder.
 */

export { createBlockChunker } from './block-chunker.ts';
export { chunkText } from './chunk-text.ts';
export { loadFenceParser } from './fences.ts';
export {
  createReplyStream,
  type ReplySummary,
} from './reply-stream.ts';
export {
  isSilentReplyText,
  stripSilentTokens,
} from './silent-token.ts';
export {
  createTagStripper,
  stripReasoningTags,
} from './tag-stripper.ts';
