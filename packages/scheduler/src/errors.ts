import { type ErrorCodeTable, SwitchboardError, type SwitchboardErrorOptions } from '@switchboard/hooks';

/** Codes of the errors this package throws. */
export type SchedulerErrorCode =
  | 'SCHEDULER_INVALID_JOB'
  | 'SCHEDULER_INVALID_SCHEDULE'
  | 'SCHEDULER_INVALID_DURATION'
  | 'SCHEDULER_JOB_NOT_FOUND'
  | 'SCHEDULER_JOB_RUNNING'
  | 'SCHEDULER_STOPPED';

/** Every `SchedulerError` code with the sentence that documents it. */
export const schedulerErrorCodes: ErrorCodeTable & Readonly<Record<SchedulerErrorCode, string>> = {
  SCHEDULER_INVALID_JOB:
    'A job definition or patch is malformed (a missing name, an unknown payload kind, a systemEvent outside the main session, …). The message names the key path.',
  SCHEDULER_INVALID_SCHEDULE:
    'A schedule cannot be evaluated: an `at` time that is not an ISO date, an `everyMs` below one second, a cron expression croner refuses (5 or 6 fields) or an unknown time zone. The message quotes it.',
  SCHEDULER_INVALID_DURATION:
    'A duration such as a heartbeat `every` is not a number of milliseconds or a text like "30m", "1h", "90s" or "0".',
  SCHEDULER_JOB_NOT_FOUND: 'No job exists under the given id.',
  SCHEDULER_JOB_RUNNING:
    'The job has a run in progress (claimed in the store), so it cannot be run again until that run ends.',
  SCHEDULER_STOPPED: 'The scheduler was stopped; it accepts no more work.',
};

/** An error of `@switchboard/scheduler`. */
export class SchedulerError extends SwitchboardError<SchedulerErrorCode> {
  constructor(code: SchedulerErrorCode, message: string, options: SwitchboardErrorOptions = {}) {
    super(code, message, options);
  }
}
