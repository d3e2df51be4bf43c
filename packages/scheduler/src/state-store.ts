import type { ClaimedRun, Job } from './job.ts';
import type { RunHistoryEntry, SchedulerStore } from './store.ts';

/**
 * The key-value state records the embedded backend keeps jobs in: the shape of the session
 * store's `getState`/`putState`/`deleteState`/`listState` (`@switchboard/sessions`), whose
 * SQLite backend commits each call atomically.
 */
export interface KeyValueState {
  getState(namespace: string, key: string): Promise<{ readonly value: unknown } | undefined>;
  putState(namespace: string, key: string, value: unknown): Promise<unknown>;
  deleteState(namespace: string, key: string): Promise<boolean>;
  listState(
    namespace: string,
    options?: { readonly prefix?: string; readonly limit?: number },
  ): Promise<ReadonlyArray<{ readonly key: string; readonly value: unknown }>>;
}

export interface StateSchedulerStoreOptions {
  /** Runs kept per job (default 50); older ones are deleted when a new one is written. */
  readonly historyLimit?: number;
}

const jobsNamespace = 'scheduler-jobs';
const runsNamespace = 'scheduler-runs';

/** Sorts newest first under `listState`'s ascending key order. */
function runKey(entry: Pick<RunHistoryEntry, 'jobId' | 'startedAtMs' | 'runId'>): string {
  const inverted = (9_999_999_999_999 - entry.startedAtMs).toString().padStart(13, '0');
  return `${entry.jobId}:${inverted}:${entry.runId}`;
}

/**
 * A SchedulerStore over key-value state records. Compare-and-set needs the read and the write
 * to be one step: the SQLite session store is held by one process (its instance lock), so a
 * per-store queue that runs every read-modify-write to the end before the next makes each one
 * atomic. A backend shared by several processes (PostgreSQL) does the same in a transaction.
 */
export function createStateSchedulerStore(
  state: KeyValueState,
  options: StateSchedulerStoreOptions = {},
): SchedulerStore {
  const historyLimit = Math.max(20, options.historyLimit ?? 50);
  let tail: Promise<unknown> = Promise.resolve();
  function serial<T>(work: () => Promise<T>): Promise<T> {
    const next = tail.then(work, work);
    tail = next.catch(() => undefined);
    return next;
  }
  async function read(id: string): Promise<Job | undefined> {
    return (await state.getState(jobsNamespace, id))?.value as Job | undefined;
  }
  async function writeRun(entry: RunHistoryEntry): Promise<void> {
    await state.putState(runsNamespace, runKey(entry), entry);
    const entries = await state.listState(runsNamespace, { prefix: `${entry.jobId}:` });
    for (const old of entries.slice(historyLimit)) await state.deleteState(runsNamespace, old.key);
  }
  return {
    async listJobs() {
      const records = await state.listState(jobsNamespace);
      return records.map((record) => record.value as Job);
    },
    getJob: read,
    putJob(job, putOptions = {}) {
      return serial(async () => {
        const current = await read(job.id);
        const expected = putOptions.expectedRevision;
        if (expected !== undefined && (current?.revision ?? 0) !== expected) return undefined;
        const written: Job = { ...job, revision: (current?.revision ?? 0) + 1 };
        await state.putState(jobsNamespace, job.id, written);
        return written;
      });
    },
    deleteJob(id) {
      return serial(async () => {
        const removed = await state.deleteState(jobsNamespace, id);
        for (const entry of await state.listState(runsNamespace, { prefix: `${id}:` })) {
          await state.deleteState(runsNamespace, entry.key);
        }
        return removed;
      });
    },
    claim(id, expectedRevision, run: ClaimedRun, nextRunAtMs) {
      return serial(async () => {
        const current = await read(id);
        if (
          current === undefined ||
          current.revision !== expectedRevision ||
          current.state.running !== undefined
        ) {
          return undefined;
        }
        const claimed: Job = {
          ...current,
          revision: current.revision + 1,
          state: { ...current.state, running: run, nextRunAtMs },
        };
        // The claim first: a crash before the history entry is written leaves a claimed job,
        // and the resumed run writes the entry (same job, start time and run id) when it ends.
        await state.putState(jobsNamespace, id, claimed);
        await writeRun({
          jobId: id,
          runId: run.runId,
          reason: run.reason,
          scheduledForMs: run.scheduledForMs,
          startedAtMs: run.startedAtMs,
          status: 'running',
          endedAtMs: undefined,
          durationMs: undefined,
          usage: undefined,
          deliveryStatus: undefined,
          messageIds: undefined,
          error: undefined,
          detail: undefined,
        });
        return claimed;
      });
    },
    putRun(entry) {
      return serial(() => writeRun(entry));
    },
    async listRuns(jobId, listOptions = {}) {
      const records = await state.listState(runsNamespace, {
        prefix: `${jobId}:`,
        limit: listOptions.limit,
      });
      return records.map((record) => record.value as RunHistoryEntry);
    },
  };
}
