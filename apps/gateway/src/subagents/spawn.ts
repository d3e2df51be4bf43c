// Spawning a child run: the limits first (spawn depth, the agents a requester may spawn,
// children still running), then the run record, written before anything runs so a crash from
// there on resumes from it; then the child session (with its model and thinking level) and
// its first message on the `subagent` lane under the run id.
import { randomUUID } from 'node:crypto';
import type { HookRunner, Logger } from '@switchboard/hooks';
import type { SessionStore } from '@switchboard/sessions';
import type { GatewayConfig } from '../config/schema.ts';
import type { ExtensionRuntime } from '../extensions/extension.ts';
import { agentConfigOf, resolveModelReference } from '../runtime/model-selection.ts';
import { type SubagentRunRecord, type SubagentRunStore, subagentDepth } from './run-record.ts';
import { subagentSettings } from './settings.ts';

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

/** A message handed to the inbound journal (`inbound.submitRpc`). */
type RpcSubmission = Parameters<ExtensionRuntime['inbound']['submitRpc']>[0];

/** What a spawn needs from the manager. */
export interface SpawnContext {
  readonly runtime: ExtensionRuntime;
  readonly config: GatewayConfig;
  readonly records: SubagentRunStore;
  readonly store: SessionStore;
  readonly logger: Logger;
  /** `subagent_spawned` goes out through it. */
  readonly hooks: HookRunner;
  readonly now: () => number;
}

/** Spawns a child, or says which limit forbids it. The caller settles the accepted run. */
export async function spawnSubagent(context: SpawnContext, request: SpawnRequest): Promise<SpawnResult> {
  const { runtime, config, records, store, logger, hooks, now } = context;
  const refusal = await spawnRefusal(context, request);
  if (refusal !== undefined) return { status: 'forbidden', error: refusal };
  const settings = subagentSettings(config);
  const depth = subagentDepth(request.requesterSessionKey) + 1;
  const agentId = (request.agentId ?? request.requesterAgentId).toLowerCase();
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
    label: request.label,
    cleanup: request.cleanup ?? 'keep',
    model,
    thinking,
    depth,
    requesterRoute:
      route === undefined
        ? undefined
        : {
            channel: route.channel,
            accountId: route.accountId,
            to: route.to,
            threadId: route.threadId,
          },
    startedAt: now(),
    runTimeoutSeconds: request.runTimeoutSeconds,
    announce: { state: 'pending', attempts: 0 },
  };
  // Durable before anything runs: a crash from here on resumes from this record.
  await records.put(record);
  await store.ensureSession(record.childSessionKey, { agentId, chatType: 'direct', channel: 'subagent' });
  await store.patchSession(record.childSessionKey, {
    modelOverride: model,
    thinkingLevel: thinking,
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
      label: record.label,
      model,
      depth,
    });
  return { status: 'accepted', childSessionKey: record.childSessionKey, runId };
}

/** Why a spawn is forbidden (naming the setting), or undefined when it may go ahead. */
async function spawnRefusal(context: SpawnContext, request: SpawnRequest): Promise<string | undefined> {
  const { config, records } = context;
  const settings = subagentSettings(config);
  const depth = subagentDepth(request.requesterSessionKey) + 1;
  if (depth > settings.maxSpawnDepth)
    return `spawn depth ${depth} is over agents.defaults.subagents.maxSpawnDepth (${settings.maxSpawnDepth})`;
  const agentId = (request.agentId ?? request.requesterAgentId).toLowerCase();
  if (agentId !== request.requesterAgentId.toLowerCase()) {
    const allowed = agentConfigOf(config, request.requesterAgentId)?.subagents?.allowAgents ?? [];
    if (!allowed.includes('*') && !allowed.includes(agentId))
      return `agent "${request.requesterAgentId}" may not spawn agent "${agentId}" (subagents.allowAgents of its agents.list entry)`;
  }
  const running = (await records.list()).filter(
    (record) => record.requesterSessionKey === request.requesterSessionKey && record.outcome === undefined,
  );
  if (running.length >= settings.maxChildrenPerAgent)
    return `${running.length} children are still running (agents.defaults.subagents.maxChildrenPerAgent is ${settings.maxChildrenPerAgent}); wait for one or kill one`;
  return undefined;
}

/** The child's first message: its task, on the `subagent` lane, under the run id. */
export function childSubmission(record: SubagentRunRecord, config: GatewayConfig): RpcSubmission {
  const timeoutSeconds = record.runTimeoutSeconds ?? config.agents.defaults.timeoutSeconds;
  return {
    message: record.task,
    idempotencyKey: record.runId,
    sessionKey: record.childSessionKey,
    agentId: record.agentId,
    timeoutMs: timeoutSeconds * 1000,
    lane: 'subagent',
    channel: 'subagent',
  };
}
