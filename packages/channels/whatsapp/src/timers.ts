import type { Timers as SharedTimers } from '@switchboard/hooks';

/**
 * The timers the channel schedules with (reconnect backoff, typing leases, waits): the timer
 * half of the shared `Timers` of `@switchboard/hooks` (the clock is the separate `now` option).
 * `unreferencedTimers` of `@switchboard/hooks` is the default.
 */
export type Timers = Pick<SharedTimers, 'setTimeout' | 'clearTimeout'>;
