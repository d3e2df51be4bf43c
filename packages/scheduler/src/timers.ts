/**
 * The clock and the one timer the scheduler uses, injectable so tests move time by hand
 * (the shape of `@switchboard/sessions`' `Timers`, so its manual timers fit).
 */
export interface SchedulerTimers {
  now(): number;
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The real clock; the timer does not keep the process alive. */
export const systemSchedulerTimers: SchedulerTimers = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** setTimeout's longest delay (about 24.8 days); a later due time re-arms when it is reached. */
export const maxTimerDelayMs = 2_147_483_647;
