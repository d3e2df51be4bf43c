// The durable record of one subagent run (seed 002's SubagentRunRecord, plus the requester's
// route, times, the result and the announcement outbox). It lives in the session store's
// state records, so the PostgreSQL backend keeps it through the same interface.
import type { SubagentOutcome } from '@switchboard/hooks';
import type { StateRecordStore } from '@switchboard/sessions';

/**
 * The announcement outbox: `pending` until the result is handed to the requester's session
 * (journaled there, so the journal's exactly-once takes over), `delivered` after, `discarded`
 * with a reason when it must not be announced, `failed` after a hand-off error (retried at
 * the next start).
 * @public
 */
export type AnnounceState = 'pending' | 'delivered' | 'failed' | 'discarded';

export interface SubagentRunRecord {
  readonly runId: string;
  readonly childSessionKey: string;
  readonly requesterSessionKey: string;
  readonly requesterAgentId: string;
  /** The child's agent. */
  readonly agentId: string;
  readonly task: string;
  readonly label?: string;
  readonly cleanup: 'delete' | 'keep';
  readonly model?: string;
  readonly thinking?: string;
  /** The child's run timeout, when the spawn named one. */
  readonly runTimeoutSeconds?: number;
  /** 1 for a child of a top-level session, 2 for a grandchild, … */
  readonly depth: number;
  /** Where the requester's conversation lives (its session's last route), when it has one. */
  readonly requesterRoute?: {
    readonly channel: string;
    readonly accountId?: string;
    readonly to: string;
    readonly threadId?: string;
  };
  readonly startedAt: number;
  readonly endedAt?: number;
  readonly outcome?: SubagentOutcome;
  /** The child's final visible text. */
  readonly resultText?: string;
  readonly errorText?: string;
  readonly stats?: {
    readonly durationMs: number;
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly cost: number;
  };
  readonly announce: {
    readonly state: AnnounceState;
    readonly attempts: number;
    readonly lastError?: string;
    /** Why it was discarded. */
    readonly reason?: string;
  };
  /** When the child session is archived (cleanup). */
  readonly archiveAtMs?: number;
  readonly archivedAt?: number;
}

const namespace = 'subagent-runs';

/** Subagent run records by run id. Contract: `put` is durable when it resolves. */
export interface SubagentRunStore {
  get(runId: string): Promise<SubagentRunRecord | undefined>;
  put(record: SubagentRunRecord): Promise<void>;
  list(): Promise<SubagentRunRecord[]>;
  /** Reads the record, applies `change` and puts the result; undefined when there is no record. */
  update(
    runId: string,
    change: (record: SubagentRunRecord) => SubagentRunRecord,
  ): Promise<SubagentRunRecord | undefined>;
}

export function createSubagentRunStore(store: StateRecordStore): SubagentRunStore {
  return {
    async get(runId) {
      return (await store.getState(namespace, runId))?.value as SubagentRunRecord | undefined;
    },
    async put(record) {
      await store.putState(namespace, record.runId, record);
    },
    async list() {
      return (await store.listState(namespace)).map((entry) => entry.value as SubagentRunRecord);
    },
    async update(runId, change) {
      const record = (await store.getState(namespace, runId))?.value as SubagentRunRecord | undefined;
      if (record === undefined) return undefined;
      const next = change(record);
      await store.putState(namespace, runId, next);
      return next;
    },
  };
}

/** How deep a session key is in the subagent tree: `agent:main:main` 0, a child 1, … */
export function subagentDepth(sessionKey: string): number {
  return sessionKey.split(':subagent:').length - 1;
}
