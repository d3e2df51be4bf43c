// The tool seam (decision 0013): every tool a turn can offer comes from a registered source
// (built-ins, each plugin, and the feature packages: sandbox, memory, MCP, sessions…), and
// one per-agent policy decides which of them the model sees.
import type { AnyAgentTool } from '@switchboard/core-loop';
import type { GatewayConfig } from '../config/schema.ts';
import { type ToolPolicy, toolPolicyOf } from './tool-policy.ts';

/** Where the `message` tool sends: the current conversation, or a named one. */
export interface MessageTarget {
  readonly channel: string;
  readonly accountId?: string;
  readonly to: string;
  readonly threadId?: string;
}

/** Sends text for the `message` tool; resolves with the platform message ids. */
export type SendMessage = (
  text: string,
  target: MessageTarget | undefined,
  signal: AbortSignal,
) => Promise<readonly string[]>;

/** Who and where a turn's tools are built for. */
export interface ToolSourceContext {
  /** The config in force for this turn. */
  readonly config: GatewayConfig;
  readonly agentId: string;
  readonly sessionKey: string;
  /** The session's current id (a new one after a reset). */
  readonly sessionId: string;
  readonly runId: string;
  /** The channel id of the conversation (`telegram`, `webchat`, …). */
  readonly channel: string;
  readonly accountId?: string;
  /** The platform id of the sender whose message started the turn. */
  readonly senderId?: string;
  /** The agent's workspace folder. */
  readonly workspaceDir: string;
  /** The `message` tool's way out. */
  readonly sendMessage: SendMessage;
}

/**
 * A source of tools. Contract: `tools` is called once per turn and must be cheap (build
 * closures, do not connect or scan here: keep connections and indexes in the source; define
 * parameter schemas once at module level, since a schema object built per turn is converted
 * to JSON Schema on every turn);
 * it returns the tools this turn may use (none is fine). A throw leaves the source's tools
 * out of the turn, reported as `source_failed`, and never fails the turn. The `id` names the
 * source in policies (`group:<id>`) and in the excluded list.
 * @public
 */
export interface ToolSource {
  readonly id: string;
  tools(context: ToolSourceContext): readonly AnyAgentTool[] | Promise<readonly AnyAgentTool[]>;
}

/** Why a tool a source offered is not in the turn. */
export type ExcludedToolReason = 'denied' | 'not_allowed' | 'duplicate' | 'source_failed';

/** @public (a seam contract) */
export interface ExcludedTool {
  /** The tool's name, or `*` when a whole source failed. */
  readonly name: string;
  readonly source: string;
  readonly reason: ExcludedToolReason;
  /** A sentence for operators: which rule or error excluded it. */
  readonly detail: string;
}

/** @public (a seam contract) */
export interface ResolvedTools {
  readonly tools: AnyAgentTool[];
  readonly excluded: readonly ExcludedTool[];
}

export interface ToolRegistry {
  /** Adds a source (ids are unique); returns the function that removes it. */
  register(source: ToolSource): () => void;
  /** The tools of one turn, in source registration order, after the agent's policy. */
  resolve(context: ToolSourceContext): Promise<ResolvedTools>;
  /** The ids of the registered sources, in order. */
  sources(): readonly string[];
}

export function createToolRegistry(): ToolRegistry {
  const sources: ToolSource[] = [];
  /** Policies by agent, rebuilt when the config object changes (a reload). */
  let policiesFor: GatewayConfig | undefined;
  const policies = new Map<string, ToolPolicy>();
  const policyOf = (config: GatewayConfig, agentId: string): ToolPolicy => {
    if (policiesFor !== config) {
      policies.clear();
      policiesFor = config;
    }
    let policy = policies.get(agentId);
    if (policy === undefined) {
      policy = toolPolicyOf(config, agentId);
      policies.set(agentId, policy);
    }
    return policy;
  };

  return {
    register(source) {
      if (sources.some((existing) => existing.id === source.id)) {
        throw new Error(`tool source "${source.id}" is already registered`);
      }
      sources.push(source);
      return () => {
        const index = sources.indexOf(source);
        if (index >= 0) sources.splice(index, 1);
      };
    },

    async resolve(context) {
      const policy = policyOf(context.config, context.agentId);
      const offered = await Promise.all(
        sources.map(async (source) => {
          try {
            return { source, tools: await source.tools(context), error: undefined };
          } catch (error) {
            return { source, tools: [] as readonly AnyAgentTool[], error };
          }
        }),
      );
      const tools: AnyAgentTool[] = [];
      const excluded: ExcludedTool[] = [];
      const takenBy = new Map<string, string>();
      for (const { source, tools: sourceTools, error } of offered) {
        if (error !== undefined) {
          excluded.push({
            name: '*',
            source: source.id,
            reason: 'source_failed',
            detail: `tool source "${source.id}" failed: ${error instanceof Error ? error.message : String(error)}`,
          });
          continue;
        }
        for (const tool of sourceTools) {
          const owner = takenBy.get(tool.name);
          if (owner !== undefined) {
            excluded.push({
              name: tool.name,
              source: source.id,
              reason: 'duplicate',
              detail: `"${tool.name}" is already offered by "${owner}"`,
            });
            continue;
          }
          const verdict = policy.check(tool.name, source.id);
          if (verdict !== undefined) {
            excluded.push({ name: tool.name, source: source.id, ...verdict });
            continue;
          }
          takenBy.set(tool.name, source.id);
          tools.push(tool);
        }
      }
      return { tools, excluded };
    },

    sources: () => sources.map((source) => source.id),
  };
}
