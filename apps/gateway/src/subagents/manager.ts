// Subagents (issue 23): spawn a child run in its own session on the `subagent` lane, watch it
// end, and announce its result in the requester's session exactly once. The run record is
// written before anything else happens; the announcement is handed to the requester's
// session through the inbound journal under a key derived from the run id, so a crash at any
// point neither loses nor repeats it (the journal refuses the second hand-off).
//
// The parts: `spawn.ts` (limits, record, child session, first message), `settlement.ts`
// (watching a run end), `announcer.ts` (the announcement, retries, archiving),
// `manager-state.ts` (runtime, stop signal, timers), `settings.ts`.
import { randomUUID } from 'node:crypto';
import type { HookRunner, Logger } from '@switchboard/hooks';
import type { SessionStore } from '@switchboard/sessions';
import type { GatewayConfig } from '../config/schema.ts';
import type { ExtensionRuntime } from '../extensions/extension.ts';
import { createAnnouncer } from './announcer.ts';
import { ManagerState } from './manager-state.ts';
import { createSubagentRunStore, type SubagentRunRecord, subagentDepth } from './run-record.ts';
import { subagentSettings } from './settings.ts';
import { createSettlement } from './settlement.ts';
import { childSubmission, type SpawnRequest, type SpawnResult, spawnSubagent } from './spawn.ts';

export interface SubagentManager {
  /** Called once the gateway runs: resumes watching and announcing what the last process left. */
  start(runtime: ExtensionRuntime): Promise<void>;
  /** Stops watching (a settlement in flight finishes its writes first). */
  stop(): Promise<void>;
  spawn(request: SpawnRequest): Promise<SpawnResult>;
  /** Records of a requester's children (all records when no requester is given), newest first. */
  list(requesterSessionKey?: string): Promise<SubagentRunRecord[]>;
  /** Stops a child and, first, its own children. Returns the run ids stopped. */
  kill(runId: string): Promise<string[]>;
  /** Sends a message into a running child (steer). */
  steer(runId: string, message: string): Promise<boolean>;
  /** Waits for a child to end; a result collected here is not announced again. */
  wait(runId: string, timeoutMs: number): Promise<SubagentRunRecord | undefined>;
  /** Whether a session may spawn (its depth is below `maxSpawnDepth`). */
  canSpawn(sessionKey: string): boolean;
}

export interface SubagentManagerOptions {
  readonly config: () => GatewayConfig;
  readonly store: SessionStore;
  readonly logger: Logger;
  /** `subagent_spawned` and `subagent_ended` go out through it. */
  readonly hooks: HookRunner;
  readonly now: () => number;
}

export function createSubagentManager(options: SubagentManagerOptions): SubagentManager {
  const { store, logger, hooks, now } = options;
  const records = createSubagentRunStore(store);
  const state = new ManagerState();
  /** Run ids whose result a `wait` collected (not announced again). */
  const collected = new Set<string>();
  const settlement = createSettlement({
    state,
    records,
    store,
    logger,
    hooks,
    now,
    announcer: () => announcer,
  });
  const announcer = createAnnouncer({
    state,
    records,
    store,
    logger,
    config: options.config,
    now,
    collected,
    retry: (runId) => void settlement.settle(runId),
  });

  async function kill(runId: string): Promise<string[]> {
    const record = await records.get(runId);
    if (record === undefined || state.runtime === undefined) return [];
    const stoppedIds: string[] = [];
    // Descendants first, so none of them announces into a session that is being stopped.
    for (const child of await records.list()) {
      if (child.requesterSessionKey === record.childSessionKey && child.outcome === undefined)
        stoppedIds.push(...(await kill(child.runId)));
    }
    if (record.outcome === undefined) {
      state.runtime.dispatcher.abort(record.childSessionKey, { clearQueue: true });
      stoppedIds.push(runId);
    }
    return stoppedIds;
  }

  return {
    async start(running) {
      state.runtime = running;
      for (const record of await records.list()) {
        if (record.outcome === undefined) {
          // The child may never have been queued (a crash right after the record was
          // written): submitting again under the same key is a no-op when it was.
          await running.inbound
            .submitRpc(childSubmission(record, options.config()))
            .catch((error: unknown) =>
              logger.warn('could not resume a subagent run', { runId: record.runId, error: String(error) }),
            );
          void settlement.settle(record.runId);
        } else if (record.announce.state === 'pending' || record.announce.state === 'failed') {
          void settlement.settle(record.runId);
        } else if (record.archivedAt === undefined && record.archiveAtMs !== undefined) {
          state.later(Math.max(0, record.archiveAtMs - now()), () => void announcer.archive(record.runId));
        }
      }
    },

    async stop() {
      state.stop();
      // Settlements in flight finish their store writes before the store closes.
      await settlement.drain();
    },

    canSpawn: (sessionKey) => subagentDepth(sessionKey) < subagentSettings(options.config()).maxSpawnDepth,

    async spawn(request) {
      const runtime = state.runtime;
      if (runtime === undefined) return { status: 'forbidden', error: 'the gateway is not running yet' };
      const result = await spawnSubagent(
        { runtime, config: options.config(), records, store, logger, hooks, now },
        request,
      );
      if (result.status === 'accepted') void settlement.settle(result.runId);
      return result;
    },

    async list(requesterSessionKey) {
      const all = await records.list();
      return all
        .filter(
          (record) => requesterSessionKey === undefined || record.requesterSessionKey === requesterSessionKey,
        )
        .sort((left, right) => right.startedAt - left.startedAt);
    },

    kill,

    async steer(runId, message) {
      const record = await records.get(runId);
      if (record === undefined || record.outcome !== undefined || state.runtime === undefined) return false;
      await state.runtime.inbound.submitRpc({
        message,
        idempotencyKey: `subagent-steer:${runId}:${randomUUID()}`,
        sessionKey: record.childSessionKey,
        agentId: record.agentId,
        queueMode: 'steer',
        lane: 'subagent',
        channel: 'subagent',
      });
      return true;
    },

    async wait(runId, timeoutMs) {
      if (state.runtime === undefined) return undefined;
      const ended = await state.runtime.runs.wait(runId, timeoutMs);
      const stored = await store.getState('run-results', runId);
      if (ended === undefined && stored === undefined) return undefined;
      const record = await records.get(runId);
      if (record !== undefined && record.announce.state === 'pending') collected.add(runId);
      await settlement.settle(runId);
      return records.get(runId);
    },
  };
}
