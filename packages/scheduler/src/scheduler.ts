// The scheduler engine: one timer for the next due job, claims before runs, catch-up after
// downtime, history, backoff and failure alerts. What a run does is the executor's business.
import { randomUUID } from 'node:crypto';
import { type Logger, noopLogger } from '@switchboard/hooks';
import { SchedulerError } from './errors.ts';
import type { SchedulerEvent } from './events.ts';
import {
  applyJobPatch,
  type ClaimedRun,
  initialJobState,
  type Job,
  type JobSpec,
  type JobState,
  parseJobSpec,
  type RunReason,
} from './job.ts';
import { nextRunAfter, validateSchedule } from './schedule.ts';
import type { RunHistoryEntry, RunUsage, SchedulerStore } from './store.ts';
import { maxTimerDelayMs, type SchedulerTimers, systemSchedulerTimers } from './timers.ts';

/** What the executor is asked to do: one claimed run of one job. */
export interface RunContext {
  readonly job: Job;
  readonly run: ClaimedRun;
  /** True when the run was claimed by an earlier process and is taken up again after a restart. */
  readonly resumed: boolean;
  /** Fires when the scheduler stops. */
  readonly signal: AbortSignal;
}

/** How a run ended. `skipped` with `retryInMs` defers the run (e.g. the session is busy). */
export type RunResult =
  | {
      readonly status: 'ok';
      readonly usage?: RunUsage;
      readonly deliveryStatus?: RunHistoryEntry['deliveryStatus'];
      readonly messageIds?: readonly string[];
      readonly detail?: string;
    }
  | {
      readonly status: 'error';
      readonly error: string;
      readonly usage?: RunUsage;
      readonly deliveryStatus?: RunHistoryEntry['deliveryStatus'];
    }
  | { readonly status: 'skipped'; readonly detail: string; readonly retryInMs?: number };

/**
 * Runs one claimed run. Contract: it must be idempotent per `run.runId` — a run resumed after
 * a crash is executed again with the same id, and must neither start a second turn nor
 * deliver twice (the gateway keys its turn and its delivery receipt on the run id). A throw
 * counts as an error result.
 */
export type RunExecutor = (context: RunContext) => Promise<RunResult>;

export interface SchedulerOptions {
  readonly store: SchedulerStore;
  readonly execute: RunExecutor;
  readonly timers?: SchedulerTimers;
  readonly logger?: Logger;
  readonly onEvent?: (event: SchedulerEvent) => void;
  /** Waits after the 1st, 2nd, … failure in a row (default 30 s, 1 min, 5 min, 15 min, 60 min). */
  readonly backoffMs?: readonly number[];
  /** Failed runs in a row before a `failure_alert` (default 2). */
  readonly failureAlertAfter?: number;
  /** At most one alert per job per this long (default 1 h). */
  readonly failureAlertCooldownMs?: number;
  /** A due time at most this old at start is run normally, not treated as missed (default 60 s). */
  readonly missedGraceMs?: number;
  /** Failed retries of a one-shot `at` job before it gives up (default 3). */
  readonly maxAtRetries?: number;
  readonly newId?: () => string;
}

/** Counters for `status` and the idle benchmark. */
export interface SchedulerStatus {
  readonly started: boolean;
  readonly jobs: number;
  readonly scheduled: number;
  readonly running: number;
  readonly nextWakeAtMs: number | undefined;
  /** Timer callbacks since start. */
  readonly wakeups: number;
}

interface AddJobOptions {
  /** A fixed id (the gateway's heartbeat jobs); default a new UUID. */
  readonly id?: string;
  readonly allowHeartbeat?: boolean;
}

export interface Scheduler {
  /** Loads the jobs, resumes claimed runs, applies catch-up to missed ones, arms the timer. */
  start(): Promise<void>;
  /** Clears the timer, aborts executors' signals and waits for runs in progress. */
  stop(): Promise<void>;
  add(input: unknown, options?: AddJobOptions): Promise<Job>;
  update(id: string, patch: unknown): Promise<Job>;
  remove(id: string): Promise<boolean>;
  get(id: string): Promise<Job | undefined>;
  list(): Promise<Job[]>;
  /** Runs the job now (its schedule is unchanged) and resolves with the finished history entry. */
  run(id: string): Promise<RunHistoryEntry>;
  runs(id: string, limit?: number): Promise<RunHistoryEntry[]>;
  status(): SchedulerStatus;
}

const defaultBackoffMs = [30_000, 60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000] as const;

export function createScheduler(options: SchedulerOptions): Scheduler {
  const { store, execute } = options;
  const timers = options.timers ?? systemSchedulerTimers;
  const logger = options.logger ?? noopLogger;
  const emit = options.onEvent ?? (() => undefined);
  const backoffMs = options.backoffMs ?? defaultBackoffMs;
  const alertAfter = options.failureAlertAfter ?? 2;
  const alertCooldownMs = options.failureAlertCooldownMs ?? 60 * 60_000;
  const graceMs = options.missedGraceMs ?? 60_000;
  const maxAtRetries = options.maxAtRetries ?? 3;
  const newId = options.newId ?? randomUUID;

  /** Due time of every enabled job without a run in progress: the only per-job memory. */
  const due = new Map<string, number>();
  const inFlight = new Map<string, Promise<RunHistoryEntry>>();
  const abort = new AbortController();
  let started = false;
  let stopped = false;
  let timer: unknown;
  let armedAt: number | undefined;
  let wakeups = 0;
  let jobCount = 0;

  function arm(): void {
    if (stopped || !started) return;
    let earliest: number | undefined;
    for (const at of due.values()) if (earliest === undefined || at < earliest) earliest = at;
    if (earliest === armedAt) return;
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = undefined;
    armedAt = earliest;
    if (earliest === undefined) return;
    const delay = Math.min(Math.max(0, earliest - timers.now()), maxTimerDelayMs);
    timer = timers.setTimeout(wake, delay);
  }

  function wake(): void {
    wakeups += 1;
    timer = undefined;
    armedAt = undefined;
    const now = timers.now();
    for (const [id, at] of due) {
      if (at > now) continue;
      due.delete(id);
      void runDue(id).catch((error: unknown) =>
        logger.error('scheduled run failed to start', { jobId: id, error: String(error) }),
      );
    }
    arm();
  }

  function index(job: Job): void {
    if (
      job.enabled &&
      job.state.running === undefined &&
      job.state.nextRunAtMs !== undefined &&
      !inFlight.has(job.id)
    ) {
      due.set(job.id, job.state.nextRunAtMs);
    } else {
      due.delete(job.id);
    }
    arm();
  }

  function assertRunning(): void {
    if (stopped) throw new SchedulerError('SCHEDULER_STOPPED', 'the scheduler was stopped');
  }

  async function mustGet(id: string): Promise<Job> {
    const job = await store.getJob(id);
    if (job === undefined) throw new SchedulerError('SCHEDULER_JOB_NOT_FOUND', `no job with id ${id}`);
    return job;
  }

  function firstRun(spec: JobSpec, now: number, anchorMs: number): number | undefined {
    validateSchedule(spec.schedule);
    return spec.enabled ? nextRunAfter(spec.schedule, now, anchorMs) : undefined;
  }

  /** The next due time after a run that was due at `scheduledForMs`. */
  function following(job: Job, scheduledForMs: number, now: number): number | undefined {
    return nextRunAfter(job.schedule, Math.max(now, scheduledForMs), job.createdAtMs);
  }

  async function claimAndRun(
    job: Job,
    reason: RunReason,
    scheduledForMs: number,
    nextRunAtMs: number | undefined,
  ) {
    const run: ClaimedRun = { runId: newId(), scheduledForMs, startedAtMs: timers.now(), reason };
    const claimed = await store.claim(job.id, job.revision, run, nextRunAtMs);
    if (claimed === undefined) return undefined;
    return perform(claimed, run, false);
  }

  async function runDue(id: string): Promise<void> {
    if (stopped) return;
    const job = await store.getJob(id);
    if (job === undefined) return;
    const now = timers.now();
    const scheduledFor = job.state.nextRunAtMs;
    if (!job.enabled || job.state.running !== undefined || scheduledFor === undefined || scheduledFor > now) {
      index(job);
      return;
    }
    const result = await claimAndRun(job, 'due', scheduledFor, following(job, scheduledFor, now));
    if (result === undefined) {
      // Someone changed the job between the read and the claim: take its new state.
      const fresh = await store.getJob(id);
      if (fresh !== undefined) index(fresh);
    }
  }

  function perform(job: Job, run: ClaimedRun, resumed: boolean): Promise<RunHistoryEntry> {
    due.delete(job.id);
    const promise = (async () => {
      emit({ type: 'run_started', jobId: job.id, runId: run.runId, reason: run.reason, resumed });
      logger.info(resumed ? 'resuming a scheduled run claimed before the restart' : 'scheduled run started', {
        jobId: job.id,
        job: job.name,
        runId: run.runId,
        reason: run.reason,
      });
      let result: RunResult;
      try {
        result = await execute({ job, run, resumed, signal: abort.signal });
      } catch (error) {
        result = { status: 'error', error: error instanceof Error ? error.message : String(error) };
      }
      if (abort.signal.aborted) {
        // Stopped mid-run: the claim stays, and the next start resumes the run with its id.
        logger.info('scheduled run left claimed for the next start', { jobId: job.id, runId: run.runId });
        return interruptedEntry(job.id, run);
      }
      return finish(job.id, run, result);
    })();
    inFlight.set(job.id, promise);
    void promise
      .finally(() => {
        if (inFlight.get(job.id) === promise) inFlight.delete(job.id);
      })
      .catch(() => undefined);
    return promise;
  }

  function interruptedEntry(id: string, run: ClaimedRun): RunHistoryEntry {
    return {
      jobId: id,
      runId: run.runId,
      reason: run.reason,
      scheduledForMs: run.scheduledForMs,
      startedAtMs: run.startedAtMs,
      status: 'running',
      endedAtMs: undefined,
      durationMs: undefined,
      usage: undefined,
      deliveryStatus: undefined,
      messageIds: undefined,
      error: undefined,
      detail: 'interrupted by a shutdown; resumed at the next start',
    };
  }

  function nextState(
    job: Job,
    run: ClaimedRun,
    result: RunResult,
    now: number,
  ): { state: JobState; done: boolean } {
    const base: JobState = { ...job.state, running: undefined };
    if (result.status === 'skipped' && result.retryInMs !== undefined) {
      return { state: { ...base, nextRunAtMs: now + result.retryInMs }, done: false };
    }
    const common = {
      ...base,
      lastRunAtMs: run.startedAtMs,
      lastStatus: result.status,
      lastDeliveryStatus: result.status === 'skipped' ? base.lastDeliveryStatus : result.deliveryStatus,
    };
    if (result.status !== 'error') {
      const finished = job.schedule.kind === 'at' && run.reason !== 'manual';
      return {
        state: {
          ...common,
          lastError: undefined,
          consecutiveErrors: 0,
          nextRunAtMs: finished ? undefined : base.nextRunAtMs,
        },
        done: finished,
      };
    }
    const errors = job.state.consecutiveErrors + 1;
    const wait = backoffMs[Math.min(errors, backoffMs.length) - 1] ?? 0;
    let nextRunAtMs = base.nextRunAtMs;
    let done = false;
    if (job.schedule.kind === 'at') {
      if (errors < maxAtRetries) nextRunAtMs = now + wait;
      else {
        nextRunAtMs = undefined;
        done = true;
      }
    } else if (nextRunAtMs !== undefined) {
      nextRunAtMs = Math.max(nextRunAtMs, now + wait);
    }
    let lastAlertAtMs = base.lastAlertAtMs;
    if (errors >= alertAfter && (lastAlertAtMs === undefined || now - lastAlertAtMs >= alertCooldownMs)) {
      lastAlertAtMs = now;
      emit({ type: 'failure_alert', job, consecutiveErrors: errors, lastError: result.error });
      logger.error('scheduled job keeps failing', {
        jobId: job.id,
        job: job.name,
        consecutiveErrors: errors,
        error: result.error,
      });
    }
    return {
      state: { ...common, lastError: result.error, consecutiveErrors: errors, nextRunAtMs, lastAlertAtMs },
      done,
    };
  }

  async function finish(id: string, run: ClaimedRun, result: RunResult): Promise<RunHistoryEntry> {
    const now = timers.now();
    const entry: RunHistoryEntry = {
      jobId: id,
      runId: run.runId,
      reason: run.reason,
      scheduledForMs: run.scheduledForMs,
      startedAtMs: run.startedAtMs,
      status: result.status,
      endedAtMs: now,
      durationMs: now - run.startedAtMs,
      usage: result.status === 'skipped' ? undefined : result.usage,
      deliveryStatus: result.status === 'skipped' ? undefined : result.deliveryStatus,
      messageIds: result.status === 'ok' ? result.messageIds : undefined,
      error: result.status === 'error' ? result.error : undefined,
      detail: result.status === 'error' ? undefined : result.detail,
    };
    // The history entry first: a crash before the job write resumes the run, whose executor
    // finds its turn and its delivery already done and finishes with the same entry.
    await store.putRun(entry);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const job = await store.getJob(id);
      if (job === undefined) break;
      const { state, done } = nextState(job, run, result, now);
      if (done && job.deleteAfterRun === true) {
        await store.deleteJob(id);
        jobCount = Math.max(0, jobCount - 1);
        due.delete(id);
        emit({ type: 'job_removed', jobId: id, reason: 'finished' });
        break;
      }
      const written = await store.putJob(
        { ...job, enabled: done ? false : job.enabled, updatedAtMs: now, state },
        { expectedRevision: job.revision },
      );
      if (written !== undefined) {
        inFlight.delete(id);
        index(written);
        break;
      }
    }
    emit({ type: 'run_finished', entry });
    const fields = { jobId: id, runId: run.runId, status: entry.status, durationMs: entry.durationMs };
    if (result.status === 'error') logger.warn('scheduled run failed', { ...fields, error: result.error });
    else if (result.status === 'skipped')
      logger.info('scheduled run skipped', { ...fields, detail: result.detail });
    else logger.info('scheduled run finished', { ...fields, delivery: result.deliveryStatus });
    return entry;
  }

  /** A job loaded at start: resume its claimed run, or apply its catch-up policy. */
  async function recover(job: Job, now: number): Promise<void> {
    if (job.state.running !== undefined) {
      void perform(job, job.state.running, true);
      return;
    }
    const dueAt = job.state.nextRunAtMs;
    if (!job.enabled || dueAt === undefined || dueAt >= now - graceMs) {
      index(job);
      return;
    }
    const next = following(job, dueAt, now);
    if (job.catchUp === 'runOnce') {
      logger.info('running a job once for the runs it missed while the gateway was down', {
        jobId: job.id,
        missedAtMs: dueAt,
      });
      if ((await claimAndRun(job, 'catch_up', dueAt, next)) === undefined)
        index((await store.getJob(job.id)) ?? job);
      return;
    }
    const skipped: RunHistoryEntry = {
      jobId: job.id,
      runId: newId(),
      reason: 'catch_up',
      scheduledForMs: dueAt,
      startedAtMs: now,
      status: 'skipped',
      endedAtMs: now,
      durationMs: 0,
      usage: undefined,
      deliveryStatus: undefined,
      messageIds: undefined,
      error: undefined,
      detail: 'missed while the gateway was down (catchUp: skip)',
    };
    await store.putRun(skipped);
    const finished = next === undefined;
    emit({ type: 'run_missed', jobId: job.id, scheduledForMs: dueAt, nextRunAtMs: next });
    logger.warn('skipped a run missed while the gateway was down (catchUp: skip)', {
      jobId: job.id,
      job: job.name,
      missedAtMs: dueAt,
      nextRunAtMs: next,
    });
    if (finished && job.deleteAfterRun === true) {
      await store.deleteJob(job.id);
      jobCount -= 1;
      emit({ type: 'job_removed', jobId: job.id, reason: 'finished' });
      return;
    }
    const written = await store.putJob(
      {
        ...job,
        enabled: finished ? false : job.enabled,
        updatedAtMs: now,
        state: { ...job.state, nextRunAtMs: next },
      },
      { expectedRevision: job.revision },
    );
    index(written ?? (await store.getJob(job.id)) ?? job);
  }

  return {
    async start() {
      assertRunning();
      if (started) return;
      started = true;
      const now = timers.now();
      const jobs = await store.listJobs();
      jobCount = jobs.length;
      for (const job of jobs) await recover(job, now);
      arm();
    },

    async stop() {
      stopped = true;
      if (timer !== undefined) timers.clearTimeout(timer);
      timer = undefined;
      abort.abort(new SchedulerError('SCHEDULER_STOPPED', 'the scheduler was stopped'));
      await Promise.allSettled([...inFlight.values()]);
    },

    async add(input, addOptions = {}) {
      assertRunning();
      const spec = parseJobSpec(input, addOptions.allowHeartbeat === true ? { allowHeartbeat: true } : {});
      const now = timers.now();
      const nextRunAtMs = firstRun(spec, now, now);
      if (spec.enabled && nextRunAtMs === undefined) {
        throw new SchedulerError(
          'SCHEDULER_INVALID_SCHEDULE',
          `job.schedule: "${JSON.stringify(spec.schedule)}" has no run after now`,
        );
      }
      const id = addOptions.id ?? newId();
      const job: Job = {
        ...spec,
        ...(spec.deleteAfterRun === undefined && spec.schedule.kind === 'at' ? { deleteAfterRun: true } : {}),
        id,
        createdAtMs: now,
        updatedAtMs: now,
        revision: 0,
        state: initialJobState(nextRunAtMs),
      };
      const written = await store.putJob(job, { expectedRevision: 0 });
      if (written === undefined)
        throw new SchedulerError('SCHEDULER_INVALID_JOB', `job.id: a job with id ${id} exists`);
      jobCount += 1;
      index(written);
      emit({ type: 'job_added', job: written });
      logger.info('job added', { jobId: id, job: written.name, nextRunAtMs });
      return written;
    },

    async update(id, patch) {
      assertRunning();
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const job = await mustGet(id);
        const spec = applyJobPatch(job, patch);
        const now = timers.now();
        const scheduleChanged = JSON.stringify(spec.schedule) !== JSON.stringify(job.schedule);
        const enabling = spec.enabled && !job.enabled;
        const nextRunAtMs = !spec.enabled
          ? undefined
          : scheduleChanged || enabling || job.state.nextRunAtMs === undefined
            ? firstRun(spec, now, job.createdAtMs)
            : job.state.nextRunAtMs;
        const written = await store.putJob(
          { ...job, ...spec, updatedAtMs: now, state: { ...job.state, nextRunAtMs } },
          { expectedRevision: job.revision },
        );
        if (written === undefined) continue;
        index(written);
        emit({ type: 'job_updated', job: written });
        return written;
      }
      throw new SchedulerError(
        'SCHEDULER_JOB_RUNNING',
        `job ${id} kept changing while it was updated; try again`,
      );
    },

    async remove(id) {
      assertRunning();
      const removed = await store.deleteJob(id);
      due.delete(id);
      arm();
      if (removed) {
        jobCount = Math.max(0, jobCount - 1);
        emit({ type: 'job_removed', jobId: id, reason: 'removed' });
        logger.info('job removed', { jobId: id });
      }
      return removed;
    },

    get: (id) => store.getJob(id),
    list: () => store.listJobs(),

    async run(id) {
      assertRunning();
      const job = await mustGet(id);
      if (job.state.running !== undefined || inFlight.has(id)) {
        throw new SchedulerError(
          'SCHEDULER_JOB_RUNNING',
          `job ${id} has a run in progress (${job.state.running?.runId ?? 'starting'})`,
        );
      }
      const entry = await claimAndRun(job, 'manual', timers.now(), job.state.nextRunAtMs);
      if (entry === undefined)
        throw new SchedulerError(
          'SCHEDULER_JOB_RUNNING',
          `job ${id} changed or started a run meanwhile; try again`,
        );
      return entry;
    },

    runs: (id, limit) => store.listRuns(id, limit === undefined ? {} : { limit }),

    status() {
      return {
        started,
        jobs: jobCount,
        scheduled: due.size,
        running: inFlight.size,
        nextWakeAtMs: armedAt,
        wakeups,
      };
    },
  };
}
