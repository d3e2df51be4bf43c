// Which sessions an agent's session tools may see (decision 0017): its own agent's sessions,
// and another agent's only where that agent is in its `subagents.allowAgents` (`*`: any).
import { resolveDefaultAgentId } from '@switchboard/routing';
import type { SessionEntry } from '@switchboard/sessions';
import type { GatewayConfig } from '../config/schema.ts';
import { agentConfigOf } from '../runtime/model-selection.ts';

/** The agents whose sessions `agentId` may see: `*` for every agent. */
export function visibleAgentsOf(config: GatewayConfig, agentId: string): '*' | ReadonlySet<string> {
  const own = agentId.toLowerCase();
  const allowed = agentConfigOf(config, own)?.subagents?.allowAgents ?? [];
  if (allowed.includes('*')) return '*';
  return new Set([own, ...allowed.map((id) => id.toLowerCase())]);
}

export function mayVisit(config: GatewayConfig, agentId: string, targetAgentId: string): boolean {
  const visible = visibleAgentsOf(config, agentId);
  return visible === '*' || visible.has(targetAgentId.toLowerCase());
}

/** The configured agents (the default agent when `agents.list` is empty). */
export function configuredAgents(config: GatewayConfig): Array<{ id: string; name?: string }> {
  const list = config.agents.list ?? [];
  if (list.length === 0) return [{ id: resolveDefaultAgentId(config) }];
  return list.map((agent) => ({
    id: agent.id.toLowerCase(),
    name: agent.name,
  }));
}

/** What kind of conversation a session is, from its key and chat type (OpenClaw's `kind`). */
export type SessionKind = 'main' | 'group' | 'subagent' | 'cron' | 'other';

export const sessionKinds: readonly SessionKind[] = ['main', 'group', 'subagent', 'cron', 'other'];

export function sessionKindOf(session: Pick<SessionEntry, 'key' | 'chatType'>): SessionKind {
  if (session.key.includes(':subagent:')) return 'subagent';
  if (/^agent:[^:]+:cron:/.test(session.key) || session.key.startsWith('cron:')) return 'cron';
  if (session.chatType === 'group' || session.chatType === 'channel') return 'group';
  if (session.chatType === 'direct' || /^agent:[^:]+:main$/.test(session.key)) return 'main';
  return 'other';
}
