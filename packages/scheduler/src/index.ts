// @switchboard/scheduler: at/every/cron jobs and the heartbeat's decisions, one timer for the
// next due job, exactly-once claims through a store interface.

export { parseDurationMs } from './duration.ts';
// Errors.
export { SchedulerError, type SchedulerErrorCode, schedulerErrorCodes } from './errors.ts';
export type { SchedulerEvent } from './events.ts';
// For the gateway's heartbeat and config.
export {
  decideHeartbeat,
  defaultHeartbeatPrompt,
  filterHeartbeatReply,
} from './heartbeat.ts';
// For the gateway, its tool and methods: the job model.
export { type Delivery, isolatedSessionKey, type Job, jobPatchSchema, jobSpecSchema } from './job.ts';
// For the gateway: the engine and what its executor receives and returns.
export {
  createScheduler,
  type RunContext,
  type RunExecutor,
  type RunResult,
  type Scheduler,
  type SchedulerOptions,
  type SchedulerStatus,
} from './scheduler.ts';
export { createStateSchedulerStore, type KeyValueState } from './state-store.ts';
// For the gateway and store backends: the store contract and its key-value implementation.
export type { RunHistoryEntry, RunUsage, SchedulerStore } from './store.ts';
