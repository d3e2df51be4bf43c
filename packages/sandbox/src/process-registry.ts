import { SandboxError } from './errors.ts';
import type { OutputSlice } from './output-log.ts';
import type { SandboxExit, SandboxProcess } from './sandbox-process.ts';

/** A background job as the process tool lists it. */
export interface JobSummary {
  readonly jobId: string;
  readonly command: string;
  readonly pid: number;
  readonly startedAt: number;
  readonly status: 'running' | 'exited';
  readonly exit?: SandboxExit;
  /** Bytes of output written so far. */
  readonly outputBytes: number;
}

/** What `poll` returns: the output since the last poll and the job's state. */
export interface JobPoll extends OutputSlice {
  readonly job: JobSummary;
}

interface Job {
  readonly jobId: string;
  readonly sessionKey: string;
  readonly process: SandboxProcess;
  pollOffset: number;
}

export interface ProcessRegistryOptions {
  /** Exited jobs kept per session for `poll`/`log` (oldest forgotten first); default 16. */
  readonly keepExitedPerSession?: number;
}

/**
 * The background jobs of every session. Contract: a job belongs to the session that started
 * it, and every lookup is by (session, job id), so one session can never see, read, write to
 * or kill another's jobs. `killSession` (a reset) and `killAll` (the gateway stopping) kill
 * and wait until the sandboxes are gone.
 */
export interface ProcessRegistry {
  /** Whether the session may start one more job under its limit of running jobs. */
  hasRoom(sessionKey: string, limit: number): boolean;
  /** Registers a started process; throws `SANDBOX_JOB_LIMIT` when the session already runs `limit` jobs. */
  add(sessionKey: string, process: SandboxProcess, limit: number): JobSummary;
  list(sessionKey: string): JobSummary[];
  /** The output since the previous poll of this job. */
  poll(sessionKey: string, jobId: string, limitBytes?: number): JobPoll;
  /** Kept output from `offset` (default the oldest kept byte). */
  log(sessionKey: string, jobId: string, offset?: number, limitBytes?: number): JobPoll;
  write(sessionKey: string, jobId: string, text: string, end: boolean): Promise<JobSummary>;
  /** Kills the job and waits until it is gone. */
  kill(sessionKey: string, jobId: string): Promise<JobSummary>;
  /** Kills every job of a session and forgets them; resolves with how many were running. */
  killSession(sessionKey: string): Promise<number>;
  killAll(): Promise<number>;
  /** Running jobs over all sessions. */
  runningCount(): number;
}

export function createProcessRegistry(options: ProcessRegistryOptions = {}): ProcessRegistry {
  const keepExited = options.keepExitedPerSession ?? 16;
  const jobs = new Map<string, Job>();
  let counter = 0;

  const sessionJobs = (sessionKey: string) =>
    [...jobs.values()].filter((job) => job.sessionKey === sessionKey);
  const running = (job: Job) => job.process.exited() === undefined;
  const summary = (job: Job): JobSummary => {
    const exit = job.process.exited();
    return {
      jobId: job.jobId,
      command: job.process.command,
      pid: job.process.pid,
      startedAt: job.process.startedAt,
      status: exit === undefined ? 'running' : 'exited',
      exit,
      outputBytes: job.process.output.totalBytes,
    };
  };
  const find = (sessionKey: string, jobId: string): Job => {
    const job = jobs.get(jobId);
    if (job === undefined || job.sessionKey !== sessionKey) {
      throw new SandboxError('SANDBOX_JOB_NOT_FOUND', `no background job "${jobId}" in this session`, {
        details: { jobId },
      });
    }
    return job;
  };
  const forgetOldExited = (sessionKey: string) => {
    const exited = sessionJobs(sessionKey).filter((job) => !running(job));
    for (const job of exited.slice(0, Math.max(0, exited.length - keepExited))) jobs.delete(job.jobId);
  };
  const killAndWait = async (job: Job) => {
    job.process.kill();
    await job.process.exit;
  };

  return {
    hasRoom: (sessionKey, limit) => sessionJobs(sessionKey).filter(running).length < limit,

    add(sessionKey, process, limit) {
      if (sessionJobs(sessionKey).filter(running).length >= limit) {
        throw new SandboxError(
          'SANDBOX_JOB_LIMIT',
          `this session already runs ${limit} background jobs (limits.maxBackgroundJobs); kill one first`,
          { details: { limit } },
        );
      }
      counter += 1;
      const job: Job = { jobId: `job-${counter}`, sessionKey, process, pollOffset: 0 };
      jobs.set(job.jobId, job);
      void process.exit.then(() => forgetOldExited(sessionKey));
      return summary(job);
    },

    list: (sessionKey) => sessionJobs(sessionKey).map(summary),

    poll(sessionKey, jobId, limitBytes) {
      const job = find(sessionKey, jobId);
      const slice = job.process.output.readSince(job.pollOffset, limitBytes);
      job.pollOffset = slice.nextOffset;
      return { ...slice, job: summary(job) };
    },

    log(sessionKey, jobId, offset, limitBytes) {
      const job = find(sessionKey, jobId);
      return { ...job.process.output.readSince(offset ?? 0, limitBytes), job: summary(job) };
    },

    async write(sessionKey, jobId, text, end) {
      const job = find(sessionKey, jobId);
      await job.process.write(text, end);
      return summary(job);
    },

    async kill(sessionKey, jobId) {
      const job = find(sessionKey, jobId);
      await killAndWait(job);
      return summary(job);
    },

    async killSession(sessionKey) {
      const owned = sessionJobs(sessionKey);
      const wasRunning = owned.filter(running).length;
      await Promise.all(owned.map(killAndWait));
      for (const job of owned) jobs.delete(job.jobId);
      return wasRunning;
    },

    async killAll() {
      const all = [...jobs.values()];
      const wasRunning = all.filter(running).length;
      await Promise.all(all.map(killAndWait));
      jobs.clear();
      return wasRunning;
    },

    runningCount: () => [...jobs.values()].filter(running).length,
  };
}
