/**
 * Named crash points for the crash tests: the gateway SIGKILLs itself the Nth time it passes
 * one, so a test can crash it at an exact step of the exactly-once state machine (decision
 * 0004) instead of hoping a timer lands there.
 *
 * A test-only switch under decision 0007: `SWITCHBOARD_TEST_CRASH_AT=<point>[:<n>]` is honoured
 * only together with `NODE_ENV=test`; with the variable alone the gateway refuses to start.
 * When armed the log says so at start. Unarmed, `crashPoint` is one comparison.
 *
 * Contract: callers name the step they have just completed; the process dies right there,
 * with nothing flushed, exactly like a power cut of the process (not of the disk).
 */
import { ConfigError } from '../config/errors.ts';

/** The steps a crash test can stop at, in the order a reply passes them. */
const crashPointNames = [
  /** A channel message is journaled; the platform has not been acknowledged yet. */
  'after-journal',
  /** The turn and its answered-marker are committed; nothing is delivered yet. */
  'after-turn-persisted',
  /** One reply chunk was sent and its receipt recorded. */
  'after-chunk-recorded',
  /** Every chunk is delivered; the journal records are not marked replied yet. */
  'before-journal-closed',
  /** Recovery re-delivered a stored reply; its journal records are not marked yet. */
  'after-redelivery',
  /** A scheduled run's turn has its final; its reply is not delivered yet (the scheduler). */
  'cron-before-delivery',
  /** A subagent's end is recorded; its result is not handed to the requester yet. */
  'subagent-before-announce',
  /** A subagent's result is journaled in the requester's session; the record still says pending. */
  'subagent-after-announce',
] as const;

export type CrashPointName = (typeof crashPointNames)[number];

let armed: { readonly point: CrashPointName; remaining: number } | undefined;

/** Reads the switch from the environment; returns a description for the log when armed. */
export function armCrashPoints(environment: NodeJS.ProcessEnv): string | undefined {
  armed = undefined;
  const value = environment.SWITCHBOARD_TEST_CRASH_AT;
  if (value === undefined || value === '') return undefined;
  if (environment.NODE_ENV !== 'test') {
    throw new ConfigError(
      'TEST_SWITCH_REFUSED',
      'SWITCHBOARD_TEST_CRASH_AT is a test-only switch and needs NODE_ENV=test as well; refusing to start (decision 0007)',
    );
  }
  const [point = '', count = '1'] = value.split(':');
  const occurrences = Number(count);
  if (
    !(crashPointNames as readonly string[]).includes(point) ||
    !Number.isInteger(occurrences) ||
    occurrences < 1
  ) {
    throw new ConfigError(
      'TEST_SWITCH_REFUSED',
      `SWITCHBOARD_TEST_CRASH_AT must be <point>[:<n ≥ 1>] with a point among ${crashPointNames.join(', ')}; got ${JSON.stringify(value)}`,
    );
  }
  armed = { point: point as CrashPointName, remaining: occurrences };
  return `${point} (occurrence ${occurrences})`;
}

/** Marks that the gateway just completed `point`; kills the process when it is the armed one. */
export function crashPoint(point: CrashPointName): void {
  if (armed === undefined || armed.point !== point) return;
  armed.remaining -= 1;
  if (armed.remaining > 0) return;
  process.stderr.write(`[test crash point] ${point}: SIGKILL\n`);
  process.kill(process.pid, 'SIGKILL');
}
