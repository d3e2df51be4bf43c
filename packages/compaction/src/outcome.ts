import type { CompactionReason } from '@switchboard/hooks';
import type { CompactionError } from './errors.ts';
import type { CompactionMode } from './plan.ts';

/**
 * What a compaction wrote: `summary` when the model summarised the older part;
 * `truncation` when summarising failed and the older part was dropped with an explicit
 * notice instead (the previous summary is kept); `trim` when nothing needed summarising
 * and only kept tool results were shortened.
 */
export type CompactionKind = 'summary' | 'truncation' | 'trim';

/** The `details` stored on the compaction entry of the transcript (version 1). */
export interface CompactionEntryDetails {
  readonly version: 1;
  readonly kind: CompactionKind;
  readonly reason: CompactionReason;
  readonly mode: CompactionMode;
  /** Messages folded into the summary (or dropped, for a truncation). */
  readonly messagesSummarized: number;
  /** Messages kept verbatim after the summary. */
  readonly messagesKept: number;
  /** Kept tool results replaced by shortened copies. */
  readonly toolResultsShortened: number;
  /**
   * True when the kept messages were appended again after this entry (shortened copies):
   * the entry's `firstKeptSequence` is then its own sequence.
   */
  readonly keptCopied: boolean;
  /** Tokens per raw (characters/4) token measured when the compaction ran; seeds later estimates. */
  readonly calibrationRatio: number;
  /** Summary model requests made. */
  readonly summaryRequests: number;
  /** Why summarising failed, for a truncation. */
  readonly failure?: { readonly code: string; readonly message: string };
}

/** Reads the details of a compaction entry written by this package; `undefined` for anything else. */
export function readCompactionDetails(details: unknown): CompactionEntryDetails | undefined {
  if (typeof details !== 'object' || details === null) return undefined;
  const record = details as Record<string, unknown>;
  if (record.version !== 1 || typeof record.kind !== 'string') return undefined;
  if (typeof record.calibrationRatio !== 'number' || !Number.isFinite(record.calibrationRatio))
    return undefined;
  return record as unknown as CompactionEntryDetails;
}

/** The result of one compaction, as written to the transcript. */
export interface CompactionOutcome {
  readonly kind: CompactionKind;
  readonly reason: CompactionReason;
  readonly mode: CompactionMode;
  readonly sessionKey: string;
  readonly sessionId: string;
  /** Sequence of the compaction entry. */
  readonly sequence: number;
  /** First entry kept verbatim (the entry's own sequence when nothing, or copies, follow). */
  readonly firstKeptSequence: number;
  /** The text stored as the summary (for a truncation, the notice). */
  readonly summary: string;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** Messages in the model context before (the old summary counts as one) and after (the new summary counts as one). */
  readonly messagesBefore: number;
  readonly messagesAfter: number;
  readonly messagesSummarized: number;
  readonly toolResultsShortened: number;
  readonly summaryRequests: number;
  /** Why there is no summary (kind `truncation`). */
  readonly failure: CompactionError | undefined;
}

/** Events of the compactor, for logs and the operator stream. One payload shape per `type`. */
export type CompactionEvent =
  | {
      readonly type: 'compaction_start';
      readonly sessionKey: string;
      readonly reason: CompactionReason;
      readonly mode: CompactionMode;
      readonly tokensBefore: number;
      readonly messagesToSummarize: number;
      readonly chunks: number;
    }
  | {
      /** Summarising failed; the compaction continues as a truncation. */
      readonly type: 'compaction_summary_failed';
      readonly sessionKey: string;
      readonly reason: CompactionReason;
      readonly error: CompactionError;
    }
  | { readonly type: 'compaction_end'; readonly outcome: CompactionOutcome }
  | {
      /** Compaction was due but there was nothing it could shrink. */
      readonly type: 'compaction_skipped';
      readonly sessionKey: string;
      readonly reason: CompactionReason;
      readonly tokens: number;
    }
  | {
      /** A hook callback threw; compaction went on. */
      readonly type: 'compaction_hook_failed';
      readonly sessionKey: string;
      readonly hook: 'before_compaction' | 'after_compaction';
      readonly error: unknown;
    };
