// The seam between the store conformance suite and one store backend.
import assert from 'node:assert/strict';
import type { SessionStore } from '@switchboard/sessions';

/** What the suite needs to open stores of one backend. */
export interface StoreConformanceHarness {
  /**
   * `single-instance`: one gateway at a time (SQLite); a second instance on the same data is
   * refused. `shared`: several gateways use the same data at once (PostgreSQL).
   */
  readonly sharing: 'single-instance' | 'shared';
  /** A new store over empty data, with `now` as its clock. The harness closes it after the case. */
  open(options: StoreOpenOptions): Promise<SessionStore>;
  /** Closes `store` (if still open) and opens the same data again, as after a restart. */
  reopen(store: SessionStore, options: StoreOpenOptions): Promise<SessionStore>;
  /**
   * Opens another instance on the same data while `store` stays open (another gateway
   * process). A single-instance backend must reject it.
   */
  openSecond(store: SessionStore, options: StoreOpenOptions): Promise<SessionStore>;
  /**
   * `shared` backends: ends `store` the way a crash does (no clean shutdown, its connections
   * cut), so the other instances see it gone.
   */
  crash?(store: SessionStore): Promise<void>;
}

export interface StoreOpenOptions {
  readonly now: () => number;
}

/** One conformance case. */
export interface StoreConformanceCase {
  readonly name: string;
  /** The sharing mode the case applies to; both when absent. */
  readonly sharing?: StoreConformanceHarness['sharing'];
  run(harness: StoreConformanceHarness): Promise<void>;
}

/** A clock a case moves by hand. */
export interface ManualClock {
  readonly now: () => number;
  advance(ms: number): void;
}

export function manualClock(start = 1_700_000_000_000): ManualClock {
  let current = start;
  return {
    now: () => current,
    advance: (ms) => {
      current += ms;
    },
  };
}

/** Asserts that `promise` rejects with a SwitchboardError carrying `code`; returns the error. */
export async function rejectsWithCode(promise: Promise<unknown>, code: string): Promise<Error> {
  const outcome = await promise.then(
    (value: unknown) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  assert.equal(outcome.ok, false, `expected a rejection with ${code}, got a result`);
  const error = (outcome as { error: unknown }).error;
  assert.ok(error instanceof Error, `expected an Error with code ${code}, got ${String(error)}`);
  assert.equal((error as Error & { code?: unknown }).code, code, (error as Error).message);
  return error as Error;
}
