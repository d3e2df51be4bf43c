// Announcing a finished child's result in the requester's session, exactly once: handed to
// the requester's session through the inbound journal under a key derived from the run id
// (a second hand-off is refused as a duplicate), retried after a failure, or discarded with
// the reason logged and broadcast. Afterwards the child's session is archived (at once with
// `cleanup: "delete"`, else after `archiveAfterMinutes`).

import type { GatewayConfig } from '../config/schema.ts';
import { crashPoint } from '../runtime/crash-points.ts';
import { announcementText, announceSkipToken } from './announcement.ts';
import type { ManagerParts } from './manager-state.ts';
import { type SubagentRunRecord, subagentDepth } from './run-record.ts';
import { subagentSettings } from './settings.ts';

const announceRetryDelaysMs = [1000, 5000, 30_000];

/** What the announcer needs from the manager. */
export interface AnnouncerOptions extends ManagerParts {
  readonly config: () => GatewayConfig;
  /** Run ids whose result a `wait` collected: discarded, not announced. */
  readonly collected: ReadonlySet<string>;
  /** Settles the run again (after an announcement failed); called from a timer. */
  readonly retry: (runId: string) => void;
}

/** The announcer of one manager. */
export interface Announcer {
  /** Announces an ended run's result (or discards it, saying why); a failure schedules a retry. */
  announce(record: SubagentRunRecord): Promise<void>;
  /** Deletes the child session; its transcript stays archived (exportable). */
  archive(runId: string): Promise<void>;
}

export function createAnnouncer(options: AnnouncerOptions): Announcer {
  const { state, records, store, logger, now } = options;

  async function discard(record: SubagentRunRecord, reason: string): Promise<void> {
    await records.update(record.runId, (current) => ({
      ...current,
      announce: { ...current.announce, state: 'discarded', reason },
    }));
    logger.warn('subagent result not announced', { runId: record.runId, reason });
    state.runtime?.broadcast('subagent', { kind: 'announce_discarded', runId: record.runId, reason });
    await cleanUp(record.runId);
  }

  async function announce(record: SubagentRunRecord): Promise<void> {
    const runtime = state.runtime;
    if (runtime === undefined) return;
    if (record.outcome === 'killed') return discard(record, 'the run was stopped');
    if (options.collected.has(record.runId))
      return discard(record, 'collected by the requester with subagents wait');
    if ((record.resultText ?? '').trim() === announceSkipToken)
      return discard(record, `the child answered ${announceSkipToken}`);
    const requester = await store.getSession(record.requesterSessionKey);
    if (requester === undefined)
      return discard(record, `the requester session ${record.requesterSessionKey} no longer exists`);
    crashPoint('subagent-before-announce');
    try {
      // The journal keeps this hand-off exactly-once: a second submit with the same key is a
      // duplicate, whatever happened in between.
      await runtime.inbound.submitRpc({
        message: announcementText(record),
        idempotencyKey: `subagent-announce:${record.runId}`,
        sessionKey: record.requesterSessionKey,
        agentId: record.requesterAgentId,
        // A requester that is itself a subagent gets the result without a user-facing delivery.
        deliver: subagentDepth(record.requesterSessionKey) === 0,
        channel: 'subagent',
      });
      crashPoint('subagent-after-announce');
      await records.update(record.runId, (current) => ({
        ...current,
        announce: { state: 'delivered', attempts: current.announce.attempts + 1 },
      }));
      await cleanUp(record.runId);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const next = await records.update(record.runId, (current) => ({
        ...current,
        announce: { state: 'failed', attempts: current.announce.attempts + 1, lastError: message },
      }));
      logger.warn('could not announce a subagent result; will retry', {
        runId: record.runId,
        error: message,
      });
      const delay = announceRetryDelaysMs[(next?.announce.attempts ?? 1) - 1];
      if (delay !== undefined) state.later(delay, () => options.retry(record.runId));
    }
  }

  async function cleanUp(runId: string): Promise<void> {
    const record = await records.get(runId);
    if (record === undefined || record.archivedAt !== undefined) return;
    if (record.cleanup === 'delete') return archive(runId);
    const archiveAtMs =
      record.archiveAtMs ?? now() + subagentSettings(options.config()).archiveAfterMinutes * 60_000;
    if (record.archiveAtMs === undefined)
      await records.update(runId, (current) => ({ ...current, archiveAtMs }));
    state.later(Math.max(0, archiveAtMs - now()), () => void archive(runId));
  }

  async function archive(runId: string): Promise<void> {
    const record = await records.get(runId);
    if (record === undefined || record.archivedAt !== undefined) return;
    await store.deleteSession(record.childSessionKey).catch(() => undefined);
    await records.update(runId, (current) => ({ ...current, archivedAt: now() }));
  }

  return { announce, archive };
}
