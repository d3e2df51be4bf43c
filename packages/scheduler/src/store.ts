import type { ClaimedRun, DeliveryStatus, Job, RunReason, RunStatus } from './job.ts';

/** Token use of one run. */
export interface RunUsage {
  readonly input: number;
  readonly output: number;
  readonly total: number;
}

/** One run in a job's history. */
export interface RunHistoryEntry {
  readonly jobId: string;
  readonly runId: string;
  readonly reason: RunReason;
  readonly scheduledForMs: number;
  readonly startedAtMs: number;
  /** `running` until the run ends; a restart finishes it with the same run id. */
  readonly status: RunStatus | 'running';
  readonly endedAtMs: number | undefined;
  readonly durationMs: number | undefined;
  readonly usage: RunUsage | undefined;
  readonly deliveryStatus: DeliveryStatus | undefined;
  /** The platform's message ids when delivered. */
  readonly messageIds: readonly string[] | undefined;
  readonly error: string | undefined;
  /** Why a run was skipped (`missed`, `empty`, `busy`, …) or a short summary of the reply. */
  readonly detail: string | undefined;
}

/**
 * Where jobs and their run history live. The contract every backend keeps (the embedded one
 * over the session store's state records, a PostgreSQL one shared by replicas):
 *
 * - Every method is atomic; when its promise resolves the change is committed.
 * - `claim` is a compare-and-set on the job's revision: it succeeds for exactly one caller
 *   among all processes sharing the store, and it writes the claimed run into the job's
 *   state and a `running` history entry in the same step. A run is therefore never started
 *   twice, and a crash after the claim leaves `state.running` set, so the next start
 *   resumes that run with the same run id instead of losing it.
 * - `putJob` with `expectedRevision` is a compare-and-set too (returns undefined on a
 *   conflict); without it, it overwrites. The stored revision is always the previous one + 1.
 * - History is per job, newest first, capped by the backend (at least 20 entries kept).
 */
export interface SchedulerStore {
  listJobs(): Promise<Job[]>;
  getJob(id: string): Promise<Job | undefined>;
  /** Writes the job with revision + 1; undefined when `expectedRevision` no longer matches. */
  putJob(job: Job, options?: { expectedRevision?: number }): Promise<Job | undefined>;
  /** True when a job was removed. Its history is removed too. */
  deleteJob(id: string): Promise<boolean>;
  /**
   * Claims a run of the job at `expectedRevision`: sets `state.running` and `nextRunAtMs`,
   * and writes a `running` history entry. Undefined when someone else changed the job first.
   */
  claim(
    id: string,
    expectedRevision: number,
    run: ClaimedRun,
    nextRunAtMs: number | undefined,
  ): Promise<Job | undefined>;
  /** Writes (creates or replaces) a history entry. */
  putRun(entry: RunHistoryEntry): Promise<void>;
  /** Newest first. */
  listRuns(jobId: string, options?: { limit?: number }): Promise<RunHistoryEntry[]>;
}
