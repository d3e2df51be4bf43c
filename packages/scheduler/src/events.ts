import type { Job, RunReason } from './job.ts';
import type { RunHistoryEntry } from './store.ts';

/** What the scheduler tells its owner (log lines, protocol events, operator alerts). */
export type SchedulerEvent =
  | { readonly type: 'job_added'; readonly job: Job }
  | { readonly type: 'job_updated'; readonly job: Job }
  | { readonly type: 'job_removed'; readonly jobId: string; readonly reason: 'removed' | 'finished' }
  | {
      readonly type: 'run_started';
      readonly jobId: string;
      readonly runId: string;
      readonly reason: RunReason;
      /** True when a run claimed before a restart is taken up again with its run id. */
      readonly resumed: boolean;
    }
  | { readonly type: 'run_finished'; readonly entry: RunHistoryEntry }
  /** A due time that passed while the gateway was down, skipped by the job's `catchUp: skip`. */
  | {
      readonly type: 'run_missed';
      readonly jobId: string;
      readonly scheduledForMs: number;
      readonly nextRunAtMs: number | undefined;
    }
  /** `failureAlertAfter` failed runs in a row (at most once per cooldown). */
  | {
      readonly type: 'failure_alert';
      readonly job: Job;
      readonly consecutiveErrors: number;
      readonly lastError: string;
    };
