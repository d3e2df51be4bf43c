// Which tools an agent may use: OpenClaw's `tools.allow|deny` shape, globally and per agent.
import type { GatewayConfig } from '../config/schema.ts';
import { agentConfigOf } from '../runtime/model-selection.ts';

/**
 * An agent's tool policy. Entries are tool names, globs with `*` (`github__*`), or
 * `group:<source id>` (`group:mcp`, `group:plugin:weather`). Rules, in order: a tool matched
 * by any deny list (global or the agent's) is out; when the agent has an allow list it
 * decides, else the global allow list does, else everything not denied is in.
 */
export interface ToolPolicy {
  /** Undefined when the tool is in; else the reason and the rule that excluded it. */
  check(
    name: string,
    source: string,
  ): { readonly reason: 'denied' | 'not_allowed'; readonly detail: string } | undefined;
}

type Matcher = (name: string, source: string) => boolean;

function matcherOf(entry: string): Matcher {
  if (entry.startsWith('group:')) {
    const group = entry.slice('group:'.length);
    return (_name, source) => source === group;
  }
  if (!entry.includes('*')) return (name) => name === entry;
  const pattern = new RegExp(
    `^${entry
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return (name) => pattern.test(name);
}

function listOf(
  entries: readonly string[] | undefined,
): Array<{ entry: string; matches: Matcher }> | undefined {
  return entries?.map((entry) => ({ entry, matches: matcherOf(entry) }));
}

export function toolPolicyOf(config: GatewayConfig, agentId: string): ToolPolicy {
  const agentTools = agentConfigOf(config, agentId)?.tools;
  const deny = [
    ...(listOf(config.tools.deny)?.map((rule) => ({ ...rule, where: 'tools.deny' })) ?? []),
    ...(listOf(agentTools?.deny)?.map((rule) => ({ ...rule, where: `agent "${agentId}" tools.deny` })) ?? []),
  ];
  const agentAllow = listOf(agentTools?.allow);
  const allow = agentAllow ?? listOf(config.tools.allow);
  const allowWhere = agentAllow === undefined ? 'tools.allow' : `agent "${agentId}" tools.allow`;
  return {
    check(name, source) {
      const denied = deny.find((rule) => rule.matches(name, source));
      if (denied !== undefined) return { reason: 'denied', detail: `${denied.where} has "${denied.entry}"` };
      if (allow !== undefined && !allow.some((rule) => rule.matches(name, source))) {
        return { reason: 'not_allowed', detail: `${allowWhere} does not list it` };
      }
      return undefined;
    },
  };
}
