// @switchboard/compaction: token budgeting, summarising compaction of long sessions and
// overflow recovery that always makes progress.
//
// The curated public API. The planning, estimating, prompt and serialisation functions below
// the compactor are internals: this package's tests and bench import their module files.

// For the gateway: the driver it calls around every run, and what it returns and reports.
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
// Errors.
export { CompactionError, type CompactionErrorCode, compactionErrorCodes } from './errors.ts';
export type { ContextEstimate } from './estimate.ts';
export type { CompactionEvent, CompactionKind, CompactionOutcome } from './outcome.ts';
// For readers of a transcript: the details of a compaction entry this package wrote.
export { type CompactionEntryDetails, readCompactionDetails } from './outcome.ts';
export type { CompactionMode } from './plan.ts';
// For the gateway: settings (from the model config) and the budget they resolve to.
export {
  type CompactionBudget,
  type CompactionSettings,
  defaultCompactionSettings,
} from './settings.ts';
// For the gateway: the model-backed summariser, or a summariser of one's own.
export {
  createModelSummarizer,
  type ModelSummarizerOptions,
  type Summarizer,
  type SummaryRequest,
} from './summarize.ts';
