import { type ErrorCodeTable, SwitchboardError, type SwitchboardErrorOptions } from '@switchboard/hooks';

/** Codes of the errors this package throws (or records on a truncation outcome). */
export type CompactionErrorCode =
  | 'COMPACTION_INVALID_SETTINGS'
  | 'COMPACTION_INVALID_ARGUMENT'
  | 'COMPACTION_SESSION_NOT_FOUND'
  | 'COMPACTION_SUMMARY_FAILED'
  | 'COMPACTION_SUMMARY_EMPTY'
  | 'COMPACTION_ABORTED'
  | 'COMPACTION_OVERFLOW_UNRECOVERABLE';

/** Every `CompactionError` code with the sentence that documents it. */
export const compactionErrorCodes: ErrorCodeTable & Readonly<Record<CompactionErrorCode, string>> = {
  COMPACTION_INVALID_SETTINGS:
    'A compaction setting is missing or out of range (contextWindow, reserveTokens, keepRecentTokens, …). The message names the key path.',
  COMPACTION_INVALID_ARGUMENT:
    'An argument of a compaction call is malformed (an attempt number below 1, an error that is not a context overflow, …). The message names it.',
  COMPACTION_SESSION_NOT_FOUND: 'No session exists under the given session key.',
  COMPACTION_SUMMARY_FAILED:
    'Summarising failed (a model error, an overflow of the summary request itself, anything the summariser threw; `summarizePlan` also throws it when partial summaries cannot be merged). The compactor never throws it: it records it on the outcome (`failure`) and in the entry (`details.failure`) of a truncation, which drops the oldest turns with an explicit notice instead of saving a bad summary.',
  COMPACTION_SUMMARY_EMPTY: 'The summary model answered without any text.',
  COMPACTION_ABORTED: 'The caller aborted the compaction (its AbortSignal fired); nothing was written.',
  COMPACTION_OVERFLOW_UNRECOVERABLE:
    'The prompt is still larger than the context window after the last recovery attempt (default 3), or nothing is left that compaction could shrink (the system prompt, tools or the new message alone do not fit). The message tells the user to /reset or /new.',
};

/** An error of `@switchboard/compaction`. */
export class CompactionError extends SwitchboardError<CompactionErrorCode> {
  constructor(code: CompactionErrorCode, message: string, options: SwitchboardErrorOptions = {}) {
    super(code, message, options);
  }
}
