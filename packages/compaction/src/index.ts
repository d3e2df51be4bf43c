// @switchboard/compaction: token budgeting, summarising compaction of long sessions and
// overflow recovery that always makes progress.

// The hook payloads the compactor's callbacks receive are the hook map's own.
export type { AfterCompactionEvent, BeforeCompactionEvent, CompactionReason } from '@switchboard/hooks';
// The driver the gateway calls around a run
export {
  type CompactionCallOptions,
  type CompactOptions,
  type Compactor,
  type CompactorHooks,
  type CompactorOptions,
  type CompactResult,
  createCompactor,
  type PreparedContext,
  parseOverflowLimit,
  type RecoverFromOverflowOptions,
} from './compactor.ts';
// Errors
export { CompactionError, type CompactionErrorCode, compactionErrorCodes } from './errors.ts';
// Token budgeting
export {
  type CalibrationSource,
  type ContextEstimate,
  calibrationBounds,
  charactersPerToken,
  clampRatio,
  type EstimateContextInput,
  estimateContext,
  estimateFixedTokens,
  estimateMessageTokens,
  estimateTextTokens,
  imageTokens,
  isFailedAssistant,
  messageOverheadTokens,
} from './estimate.ts';
// Outcomes and events
export {
  type CompactionEntryDetails,
  type CompactionEvent,
  type CompactionKind,
  type CompactionOutcome,
  readCompactionDetails,
} from './outcome.ts';
// Planning (pure, no model calls)
export {
  type CompactionMode,
  type CompactionPlan,
  compactionModes,
  type KeptRewrite,
  maxChunkShare,
  type PlanCompactionInput,
  planCompaction,
  type SummaryChunk,
  shortenToolResult,
  summaryPromptOverheadTokens,
  summaryWrapperTokens,
  validCutPoints,
} from './plan.ts';
// Prompts and notices
export {
  type ChunkPromptInput,
  chunkPrompt,
  type MergePromptInput,
  mergePrompt,
  shortenedNotice,
  summarySystemPrompt,
  type TruncationNoticeInput,
  truncationNotice,
} from './prompts.ts';
// Serialisation for the summariser
export {
  type SerializeLimits,
  serializeMessage,
  toolResultSummaryCharacters,
  truncateMiddle,
} from './serialize.ts';
// Reading a session's context with sequences
export { contextMessages, type LoadedSessionContext, loadSessionContext } from './session-context.ts';
// Settings and budget
export {
  type CompactionBudget,
  type CompactionSettings,
  defaultCompactionSettings,
  minimumContextWindow,
  resolveCompactionBudget,
} from './settings.ts';
// Summarising
export {
  capSummary,
  createModelSummarizer,
  type ModelSummarizerOptions,
  type PlanSummary,
  type SummarizePlanOptions,
  type Summarizer,
  type SummaryRequest,
  summarizePlan,
} from './summarize.ts';
