// `agents.defaults.subagents` and `agents.list[].subagents` (issue 23; OpenClaw's names).
import { thinkingLevels } from '@switchboard/core-loop';
import { z } from 'zod';

export const subagentDefaultsSchema = z.strictObject({
  /** Children running at once across the gateway (the dispatcher's `subagent` lane). */
  maxConcurrent: z.number().int().positive().default(8),
  /** How deep spawning may nest: 1 lets top-level sessions spawn, children cannot. At most 5. */
  maxSpawnDepth: z.number().int().min(1).max(5).default(1),
  /** Children one session may have running at once. */
  maxChildrenPerAgent: z.number().int().positive().default(5),
  /** `cleanup: "keep"` children are archived this long after they report. */
  archiveAfterMinutes: z.number().positive().default(60),
  /** The children's model (default: the requester's). */
  model: z.string().min(1).optional(),
  thinking: z.enum(thinkingLevels).optional(),
});

export const agentSubagentsSchema = z.strictObject({
  /** Agents this agent may spawn besides itself (`*` for any). */
  allowAgents: z.array(z.string().min(1)).optional(),
});
