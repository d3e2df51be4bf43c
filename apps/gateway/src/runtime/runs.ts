import { type RunOutcome, recordStatusOf } from './run/outcome.ts';

type RunStatus = 'queued' | 'running' | 'ok' | 'error' | 'aborted';

interface RunRecord {
  readonly runId: string;
  readonly sessionKey: string;
  readonly agentId: string;
  status: RunStatus;
  readonly acceptedAt: number;
  startedAt: number | undefined;
  endedAt: number | undefined;
  stopReason: string | undefined;
  error: string | undefined;
  /** What the run did, once it has ended (the wire's final is built from it by `methods/`). */
  outcome: RunOutcome | undefined;
}

export interface RunRegistry {
  accept(runId: string, sessionKey: string, agentId: string): RunRecord;
  start(runId: string): void;
  /** Ends a run with its outcome (its status follows from the outcome) and wakes its waiters. */
  finish(runId: string, outcome: RunOutcome, details?: { stopReason?: string; error?: string }): void;
  get(runId: string): RunRecord | undefined;
  /** Resolves with the run once it has ended, or undefined when `timeoutMs` passes first. */
  wait(runId: string, timeoutMs: number): Promise<RunRecord | undefined>;
  activeForSession(sessionKey: string): readonly RunRecord[];
  counts(): { queued: number; running: number };
}

export interface RunRegistryOptions {
  readonly now?: () => number;
  /** Finished runs kept for replays and `agent.wait` (OpenClaw: 1,000 entries, 5 min). */
  readonly finishedCapacity?: number;
  readonly finishedTtlMs?: number;
}

/** Active and recently finished runs, in memory; finals also persist (see the gateway). */
export function createRunRegistry(options: RunRegistryOptions = {}): RunRegistry {
  const now = options.now ?? Date.now;
  const capacity = options.finishedCapacity ?? 1000;
  const ttlMs = options.finishedTtlMs ?? 5 * 60_000;
  const active = new Map<string, RunRecord>();
  const finished = new Map<string, RunRecord>();
  const waiters = new Map<string, Set<(record: RunRecord) => void>>();

  function prune(): void {
    const cutoff = now() - ttlMs;
    for (const [runId, record] of finished) {
      if (finished.size <= capacity && (record.endedAt ?? 0) >= cutoff) break;
      finished.delete(runId);
    }
  }

  return {
    accept(runId, sessionKey, agentId) {
      const record: RunRecord = {
        runId,
        sessionKey,
        agentId,
        status: 'queued',
        acceptedAt: now(),
        startedAt: undefined,
        endedAt: undefined,
        stopReason: undefined,
        error: undefined,
        outcome: undefined,
      };
      finished.delete(runId);
      active.set(runId, record);
      return record;
    },
    start(runId) {
      const record = active.get(runId);
      if (record === undefined) return;
      record.status = 'running';
      record.startedAt = now();
    },
    finish(runId, outcome, details = {}) {
      const record = active.get(runId);
      if (record === undefined) return;
      active.delete(runId);
      record.status = recordStatusOf(outcome);
      record.endedAt = now();
      record.outcome = outcome;
      record.stopReason = details.stopReason;
      record.error = details.error;
      finished.set(runId, record);
      prune();
      const waiting = waiters.get(runId);
      if (waiting !== undefined) {
        waiters.delete(runId);
        for (const wake of waiting) wake(record);
      }
    },
    get(runId) {
      return active.get(runId) ?? finished.get(runId);
    },
    wait(runId, timeoutMs) {
      const done = finished.get(runId);
      if (done !== undefined) return Promise.resolve(done);
      return new Promise((resolve) => {
        let set = waiters.get(runId);
        if (set === undefined) {
          set = new Set();
          waiters.set(runId, set);
        }
        const wake = (record: RunRecord) => {
          clearTimeout(timer);
          resolve(record);
        };
        const timer = setTimeout(() => {
          set.delete(wake);
          if (set.size === 0) waiters.delete(runId);
          resolve(undefined);
        }, timeoutMs);
        timer.unref();
        set.add(wake);
      });
    },
    activeForSession(sessionKey) {
      const records: RunRecord[] = [];
      for (const record of active.values()) if (record.sessionKey === sessionKey) records.push(record);
      return records;
    },
    counts() {
      let queued = 0;
      let running = 0;
      for (const record of active.values()) {
        if (record.status === 'running') running += 1;
        else queued += 1;
      }
      return { queued, running };
    },
  };
}
