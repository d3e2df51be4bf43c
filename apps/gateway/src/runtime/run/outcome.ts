// The domain outcome of a run: what happened, in the runtime's words. The run registry holds
// it, the gateway stores it (state `run-results`, for replays across restarts), features read
// it; only `methods/run-final.ts` turns it into the protocol's wire payload.
import type { Usage } from '@switchboard/hooks';

/** What a completed turn reports about its model and usage. */
interface RunOutcomeDetails {
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
      /** From the turn's start to its end (what the wire's `meta.durationMs` reports). */
      readonly durationMs: number;
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
  /** Stopped by a user (`/stop`, `chat.abort`), or dropped from a full queue (`reason` says so). */
  | { readonly status: 'aborted'; readonly runId: string; readonly reason?: string }
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

/** The status a run record shows for an outcome: an interrupted run counts as aborted here. */
export function recordStatusOf(outcome: RunOutcome): 'ok' | 'error' | 'aborted' {
  switch (outcome.status) {
    case 'ok':
    case 'compacted':
      return 'ok';
    case 'aborted':
    case 'interrupted':
      return 'aborted';
    case 'error':
      return 'error';
  }
}

/** The same outcome for a protocol run that a turn answered under another run id. */
export function carriedOutcome(outcome: RunOutcome, runId: string): RunOutcome {
  return { ...outcome, runId };
}
