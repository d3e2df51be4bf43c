import { Cron } from 'croner';
import { SchedulerError } from './errors.ts';
import type { Schedule } from './job.ts';

function cronOf(schedule: Extract<Schedule, { kind: 'cron' }>): Cron {
  try {
    const cron = new Cron(schedule.expr, {
      paused: true,
      mode: '5-or-6-parts',
      timezone: schedule.tz ?? 'UTC',
    });
    // croner checks a time zone only when it evaluates one: do it now, at validation time.
    cron.nextRun(new Date(0));
    return cron;
  } catch (error) {
    throw new SchedulerError(
      'SCHEDULER_INVALID_SCHEDULE',
      `cron "${schedule.expr}"${schedule.tz === undefined ? '' : ` in ${schedule.tz}`}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** The instant of an `at` schedule; an ISO time without an offset is UTC. */
function atMs(at: string): number {
  const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(at.trim());
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(at.trim());
  const parsed = Date.parse(hasZone || dateOnly ? at : `${at}Z`);
  if (!/^\d{4}-\d{2}-\d{2}/.test(at.trim()) || Number.isNaN(parsed)) {
    throw new SchedulerError(
      'SCHEDULER_INVALID_SCHEDULE',
      `at "${at}" is not an ISO time like 2026-05-01T09:00:00+02:00`,
    );
  }
  return parsed;
}

/** Throws SCHEDULER_INVALID_SCHEDULE when the schedule cannot be evaluated. */
export function validateSchedule(schedule: Schedule): void {
  if (schedule.kind === 'at') atMs(schedule.at);
  else if (schedule.kind === 'cron') cronOf(schedule);
}

/**
 * The first due time of `schedule` strictly after `afterMs`, or undefined when it has none
 * (an `at` time already past). `anchorMs` is where an `every` schedule counts from when it
 * names none itself.
 */
export function nextRunAfter(schedule: Schedule, afterMs: number, anchorMs: number): number | undefined {
  switch (schedule.kind) {
    case 'at': {
      const at = atMs(schedule.at);
      return at > afterMs ? at : undefined;
    }
    case 'every': {
      const anchor = schedule.anchorMs ?? anchorMs;
      if (afterMs < anchor) return anchor;
      const periods = Math.floor((afterMs - anchor) / schedule.everyMs) + 1;
      return anchor + periods * schedule.everyMs;
    }
    case 'cron': {
      const next = cronOf(schedule).nextRun(new Date(afterMs));
      return next === null ? undefined : next.getTime();
    }
  }
}
