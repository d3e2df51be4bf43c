// Test-only internals of @switchboard/sessions, for the tests of other packages: not part of
// the public surface (`.`), may change without a changeset.

/** Timers a test advances by hand (the dispatcher's `timers`). */
export { createManualTimers, type ManualTimers } from './timers.ts';
