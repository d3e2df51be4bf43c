// Subagents (issue 23): spawn a child run in its own session on the `subagent` lane, watch it
// end, and announce its result in the requester's session exactly once. The run record is
// written before anything else happens; the announcement is handed to the requester's
// session through the inbound journal under a key derived from the run id, so a crash at any
// point neither loses nor repeats it (the journal refuses the second hand-off).
import { randomUUID } from 'node:crypto';
import type { HookRunner, Logger, SubagentOutcome } from '@switchboard/hooks';
import type { SessionStore } from '@switchboard/sessions';
import type { GatewayConfig } from '../config/schema.ts';
import type { ExtensionRuntime } from '../extensions/extension.ts';
import { crashPoint } from '../runtime/crash-points.ts';
import { agentConfigOf, resolveModelReference } from '../runtime/model-selection.ts';
import type { RunOutcome } from '../runtime/run/outcome.ts';
import { storedOutcome } from '../runtime/run/stored-outcome.ts';
import { announcementText, announceSkipToken } from './announcement.ts';
import { createSubagentRunStore, type SubagentRunRecord, subagentDepth } from './run-record.ts';

/** @public (a seam contract) */
export interface SpawnRequest {
  readonly requesterSessionKey: string;
  readonly requesterAgentId: string;
  readonly task: string;
  readonly label?: string;
  readonly agentId?: string;
  readonly model?: string;
  readonly thinking?: string;
  readonly runTimeoutSeconds?: number;
  readonly cleanup?: 'delete' | 'keep';
}

/** @public (a seam contract) */
export type SpawnResult =
  | { readonly status: 'accepted'; readonly childSessionKey: string; readonly runId: string }
  | { readonly status: 'forbidden'; readonly error: string };

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

/** `agents.defaults.subagents` with its defaults. */
export function subagentSettings(config: GatewayConfig) {
  const settings = config.agents.defaults.subagents;
  return {
    maxConcurrent: settings?.maxConcurrent ?? 8,
    maxSpawnDepth: settings?.maxSpawnDepth ?? 1,
    maxChildrenPerAgent: settings?.maxChildrenPerAgent ?? 5,
    archiveAfterMinutes: settings?.archiveAfterMinutes ?? 60,
    model: settings?.model,
    thinking: settings?.thinking,
  };
}

const announceRetryDelaysMs = [1000, 5000, 30_000];

export function createSubagentManager(options: SubagentManagerOptions): SubagentManager {
  const { store, logger, hooks, now } = options;
  const records = createSubagentRunStore(store);
  let runtime: ExtensionRuntime | undefined;
  let stopped = false;
  let markStopped: () => void = () => undefined;
  const stopping = new Promise<undefined>((resolve) => {
    markStopped = () => resolve(undefined);
  });
  const timers = new Set<ReturnType<typeof setTimeout>>();
  /** Run ids whose result a `wait` collected (not announced again). */
  const collected = new Set<string>();
  /** One settlement per run at a time. */
  const settling = new Map<string, Promise<void>>();

  const later = (delayMs: number, work: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!stopped) work();
    }, delayMs);
    timer.unref();
    timers.add(timer);
  };

  async function update(
    runId: string,
    change: (record: SubagentRunRecord) => SubagentRunRecord,
  ): Promise<SubagentRunRecord | undefined> {
    const record = await records.get(runId);
    if (record === undefined) return undefined;
    const next = change(record);
    await records.put(next);
    return next;
  }

  /**
   * The child's outcome: persisted (it may have ended before a restart) or awaited. A run cut
   * short by a shutdown has not ended: it resumes from the journal at the next start.
   */
  async function finalOf(runId: string): Promise<RunOutcome | undefined> {
    while (!stopped && runtime !== undefined) {
      const stored = await store.getState('run-results', runId);
      const persisted = stored === undefined ? undefined : storedOutcome(stored.value, runId);
      if (persisted !== undefined) return persisted;
      const ended = await Promise.race([runtime.runs.wait(runId, 30_000), stopping]);
      if (stopped) return undefined;
      const outcome = ended?.outcome;
      if (outcome !== undefined && outcome.status !== 'interrupted') return outcome;
      // An interrupted run stays in the registry until it resumes: do not spin on it.
      if (outcome !== undefined)
        await Promise.race([new Promise((resolve) => setTimeout(resolve, 1000).unref()), stopping]);
    }
    return undefined;
  }

  function outcomeOf(outcome: RunOutcome): {
    outcome: SubagentOutcome;
    resultText: string;
    errorText?: string;
    stats?: SubagentRunRecord['stats'];
  } {
    switch (outcome.status) {
      case 'ok': {
        const usage = outcome.details?.usage;
        return {
          outcome: 'ok',
          resultText: outcome.replies.join('\n\n'),
          stats: {
            durationMs: outcome.durationMs,
            inputTokens: usage?.input ?? 0,
            outputTokens: usage?.output ?? 0,
            cost: usage?.cost.total ?? 0,
          },
        };
      }
      case 'compacted':
        return { outcome: 'ok', resultText: outcome.text };
      case 'aborted':
      case 'interrupted':
        return { outcome: 'killed', resultText: '' };
      case 'error':
        return {
          outcome: outcome.errorCode === 'RUN_TIMEOUT' ? 'timeout' : 'error',
          resultText: '',
          errorText: outcome.message ?? 'the run failed',
        };
    }
  }

  function settle(runId: string): Promise<void> {
    let running = settling.get(runId);
    if (running === undefined) {
      running = settleOnce(runId)
        .catch((error: unknown) => {
          if (!stopped) logger.error('subagent settlement failed', { runId, error: String(error) });
        })
        .finally(() => settling.delete(runId));
      settling.set(runId, running);
    }
    return running;
  }

  async function settleOnce(runId: string): Promise<void> {
    let record = await records.get(runId);
    if (record === undefined) return;
    if (record.outcome === undefined) {
      const final = await finalOf(runId);
      if (final === undefined || stopped) return; // stopping: the next start resumes it
      const ended = outcomeOf(final);
      record = await update(runId, (current) => ({ ...current, endedAt: now(), ...ended }));
      if (record === undefined) return;
      logger.info('subagent ended', {
        runId,
        outcome: record.outcome,
        requester: record.requesterSessionKey,
      });
      runtime?.broadcast('subagent', { kind: 'ended', runId, outcome: record.outcome });
      if (hooks.has('subagent_ended') && record.outcome !== undefined)
        void hooks.run('subagent_ended', {
          runId,
          childSessionKey: record.childSessionKey,
          agentId: record.agentId,
          requesterSessionKey: record.requesterSessionKey,
          outcome: record.outcome,
          ...(record.errorText === undefined ? {} : { error: record.errorText }),
          startedAt: record.startedAt,
          endedAt: record.endedAt ?? now(),
        });
    }
    if (record.announce.state === 'pending' || record.announce.state === 'failed') await announce(record);
  }

  async function discard(record: SubagentRunRecord, reason: string): Promise<void> {
    await update(record.runId, (current) => ({
      ...current,
      announce: { ...current.announce, state: 'discarded', reason },
    }));
    logger.warn('subagent result not announced', { runId: record.runId, reason });
    runtime?.broadcast('subagent', { kind: 'announce_discarded', runId: record.runId, reason });
    await cleanUp(record.runId);
  }

  async function announce(record: SubagentRunRecord): Promise<void> {
    if (runtime === undefined) return;
    if (record.outcome === 'killed') return discard(record, 'the run was stopped');
    if (collected.has(record.runId)) return discard(record, 'collected by the requester with subagents wait');
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
      await update(record.runId, (current) => ({
        ...current,
        announce: { state: 'delivered', attempts: current.announce.attempts + 1 },
      }));
      await cleanUp(record.runId);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const next = await update(record.runId, (current) => ({
        ...current,
        announce: { state: 'failed', attempts: current.announce.attempts + 1, lastError: message },
      }));
      logger.warn('could not announce a subagent result; will retry', {
        runId: record.runId,
        error: message,
      });
      const delay = announceRetryDelaysMs[(next?.announce.attempts ?? 1) - 1];
      if (delay !== undefined) later(delay, () => void settle(record.runId));
    }
  }

  async function cleanUp(runId: string): Promise<void> {
    const record = await records.get(runId);
    if (record === undefined || record.archivedAt !== undefined) return;
    if (record.cleanup === 'delete') return archive(runId);
    const archiveAtMs =
      record.archiveAtMs ?? now() + subagentSettings(options.config()).archiveAfterMinutes * 60_000;
    if (record.archiveAtMs === undefined) await update(runId, (current) => ({ ...current, archiveAtMs }));
    later(Math.max(0, archiveAtMs - now()), () => void archive(runId));
  }

  /** Deletes the child session; its transcript stays archived (exportable). */
  async function archive(runId: string): Promise<void> {
    const record = await records.get(runId);
    if (record === undefined || record.archivedAt !== undefined) return;
    await store.deleteSession(record.childSessionKey).catch(() => undefined);
    await update(runId, (current) => ({ ...current, archivedAt: now() }));
  }

  async function kill(runId: string): Promise<string[]> {
    const record = await records.get(runId);
    if (record === undefined || runtime === undefined) return [];
    const stoppedIds: string[] = [];
    // Descendants first, so none of them announces into a session that is being stopped.
    for (const child of await records.list()) {
      if (child.requesterSessionKey === record.childSessionKey && child.outcome === undefined)
        stoppedIds.push(...(await kill(child.runId)));
    }
    if (record.outcome === undefined) {
      runtime.dispatcher.abort(record.childSessionKey, { clearQueue: true });
      stoppedIds.push(runId);
    }
    return stoppedIds;
  }

  return {
    async start(running) {
      runtime = running;
      for (const record of await records.list()) {
        if (record.outcome === undefined) {
          // The child may never have been queued (a crash right after the record was
          // written): submitting again under the same key is a no-op when it was.
          await runtime.inbound
            .submitRpc(childSubmission(record, options.config()))
            .catch((error: unknown) =>
              logger.warn('could not resume a subagent run', { runId: record.runId, error: String(error) }),
            );
          void settle(record.runId);
        } else if (record.announce.state === 'pending' || record.announce.state === 'failed') {
          void settle(record.runId);
        } else if (record.archivedAt === undefined && record.archiveAtMs !== undefined) {
          later(Math.max(0, record.archiveAtMs - now()), () => void archive(record.runId));
        }
      }
    },

    async stop() {
      stopped = true;
      markStopped();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      // Settlements in flight finish their store writes before the store closes.
      await Promise.all([...settling.values()]);
    },

    canSpawn: (sessionKey) => subagentDepth(sessionKey) < subagentSettings(options.config()).maxSpawnDepth,

    async spawn(request) {
      if (runtime === undefined) return { status: 'forbidden', error: 'the gateway is not running yet' };
      const config = options.config();
      const settings = subagentSettings(config);
      const depth = subagentDepth(request.requesterSessionKey) + 1;
      if (depth > settings.maxSpawnDepth)
        return {
          status: 'forbidden',
          error: `spawn depth ${depth} is over agents.defaults.subagents.maxSpawnDepth (${settings.maxSpawnDepth})`,
        };
      const agentId = (request.agentId ?? request.requesterAgentId).toLowerCase();
      if (agentId !== request.requesterAgentId.toLowerCase()) {
        const allowed = agentConfigOf(config, request.requesterAgentId)?.subagents?.allowAgents ?? [];
        if (!allowed.includes('*') && !allowed.includes(agentId))
          return {
            status: 'forbidden',
            error: `agent "${request.requesterAgentId}" may not spawn agent "${agentId}" (subagents.allowAgents of its agents.list entry)`,
          };
      }
      const running = (await records.list()).filter(
        (record) =>
          record.requesterSessionKey === request.requesterSessionKey && record.outcome === undefined,
      );
      if (running.length >= settings.maxChildrenPerAgent)
        return {
          status: 'forbidden',
          error: `${running.length} children are still running (agents.defaults.subagents.maxChildrenPerAgent is ${settings.maxChildrenPerAgent}); wait for one or kill one`,
        };

      const requester = await store.getSession(request.requesterSessionKey);
      const model =
        request.model ?? settings.model ?? resolveModelReference(config, request.requesterAgentId, requester);
      const thinking = request.thinking ?? settings.thinking;
      const runId = randomUUID();
      const route = requester?.lastRoute;
      const record: SubagentRunRecord = {
        runId,
        childSessionKey: `agent:${agentId}:subagent:${randomUUID()}`,
        requesterSessionKey: request.requesterSessionKey,
        requesterAgentId: request.requesterAgentId,
        agentId,
        task: request.task,
        ...(request.label === undefined ? {} : { label: request.label }),
        cleanup: request.cleanup ?? 'keep',
        model,
        ...(thinking === undefined ? {} : { thinking }),
        depth,
        ...(route === undefined
          ? {}
          : {
              requesterRoute: {
                channel: route.channel,
                ...(route.accountId === undefined ? {} : { accountId: route.accountId }),
                to: route.to,
                ...(route.threadId === undefined ? {} : { threadId: route.threadId }),
              },
            }),
        startedAt: now(),
        ...(request.runTimeoutSeconds === undefined ? {} : { runTimeoutSeconds: request.runTimeoutSeconds }),
        announce: { state: 'pending', attempts: 0 },
      };
      // Durable before anything runs: a crash from here on resumes from this record.
      await records.put(record);
      await store.ensureSession(record.childSessionKey, { agentId, chatType: 'direct', channel: 'subagent' });
      await store.patchSession(record.childSessionKey, {
        modelOverride: model,
        ...(thinking === undefined ? {} : { thinkingLevel: thinking }),
      });
      await runtime.inbound.submitRpc(childSubmission(record, config));
      logger.info('subagent spawned', {
        runId,
        child: record.childSessionKey,
        requester: record.requesterSessionKey,
      });
      runtime.broadcast('subagent', { kind: 'spawned', runId, childSessionKey: record.childSessionKey });
      if (hooks.has('subagent_spawned'))
        void hooks.run('subagent_spawned', {
          runId,
          childSessionKey: record.childSessionKey,
          agentId,
          requesterSessionKey: record.requesterSessionKey,
          requesterAgentId: record.requesterAgentId,
          task: record.task,
          ...(record.label === undefined ? {} : { label: record.label }),
          ...(model === undefined ? {} : { model }),
          depth,
        });
      void settle(runId);
      return { status: 'accepted', childSessionKey: record.childSessionKey, runId };
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
      if (record === undefined || record.outcome !== undefined || runtime === undefined) return false;
      await runtime.inbound.submitRpc({
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
      if (runtime === undefined) return undefined;
      const ended = await runtime.runs.wait(runId, timeoutMs);
      const stored = await store.getState('run-results', runId);
      if (ended === undefined && stored === undefined) return undefined;
      const record = await records.get(runId);
      if (record !== undefined && record.announce.state === 'pending') collected.add(runId);
      await settle(runId);
      return records.get(runId);
    },
  };
}

/** The child's first message: its task, on the `subagent` lane, under the run id. */
function childSubmission(record: SubagentRunRecord, config: GatewayConfig) {
  const timeoutSeconds = record.runTimeoutSeconds ?? config.agents.defaults.timeoutSeconds;
  return {
    message: record.task,
    idempotencyKey: record.runId,
    sessionKey: record.childSessionKey,
    agentId: record.agentId,
    timeoutMs: timeoutSeconds * 1000,
    lane: 'subagent',
    channel: 'subagent',
  } as const;
}
