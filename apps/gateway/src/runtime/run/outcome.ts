// The domain outcome of a run: what happened, in the runtime's words. The protocol's wire
// payload of a run (`RunFinal`) is built from it in protocol/run-final.ts.
import type { Usage } from '@switchboard/hooks';

/** What a completed turn reports about its model and usage. */
export interface RunOutcomeDetails {
  readonly sessionId: string;
  readonly provider: string | undefined;
  readonly model: string | undefined;
  readonly usage: Usage;
}

export type RunOutcome =
  /** Answered: the visible reply texts (empty for a silent reply). */
  | {
      readonly status: 'ok';
      readonly runId: string;
      readonly replies: readonly string[];
      readonly startedAt: number;
      /** Absent when stored replies were re-delivered instead of a model call. */
      readonly details?: RunOutcomeDetails;
    }
  /** `/compact` or `sessions.compact`: what the compaction did, in words and figures. */
  | {
      readonly status: 'compacted';
      readonly runId: string;
      readonly text: string;
      readonly compaction: Readonly<Record<string, unknown>>;
    }
  /** Stopped by a user (`/stop`, `chat.abort`). */
  | { readonly status: 'aborted'; readonly runId: string }
  /** Cut short by a shutdown: its journal records stay open and it runs again after the restart. */
  | { readonly status: 'interrupted'; readonly runId: string }
  | {
      readonly status: 'error';
      readonly runId: string;
      readonly message: string | undefined;
      /** The model error's class (`rate_limit`, `no_credentials`, …). */
      readonly errorClass?: string;
      /** The model error's code (`MODEL_CREDENTIALS_MISSING`, …). */
      readonly errorCode?: string;
      readonly retryAfterMs?: number;
    };
