// `agents.defaults.subagents` with its defaults: how many children run at once, how deep
// spawning may nest, how many children one requester may have, when finished children's
// sessions are archived, and the children's default model and thinking level.
import type { GatewayConfig } from '../config/schema.ts';

/** The subagent settings of `config`, defaults filled in. */
export interface SubagentSettings {
  readonly maxConcurrent: number;
  readonly maxSpawnDepth: number;
  readonly maxChildrenPerAgent: number;
  readonly archiveAfterMinutes: number;
  readonly model: string | undefined;
  readonly thinking: string | undefined;
}

/** `agents.defaults.subagents` with its defaults. */
export function subagentSettings(config: GatewayConfig): SubagentSettings {
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
