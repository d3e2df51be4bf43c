// What a turn of an agent gets from the gateway beyond the model: its workspace directory
// and the tools plugins register.
import { isAbsolute, join, resolve } from 'node:path';
import type { AnyAgentTool } from '@switchboard/core-loop';
import type { PluginRegistry, ToolContext } from '@switchboard/hooks';
import type { GatewayConfig } from '../config/schema.ts';
import { expandHome } from '../state/state-directory.ts';

/**
 * The workspace of an agent: its own `workspace`, else `agents.defaults.workspace` (or
 * `<state>/workspace`) for `main` and a `workspace-<id>` beside it for the others.
 */
export function agentWorkspace(config: GatewayConfig, stateDirectory: string, agentId: string): string {
  const agents = config.agents;
  const defaultWorkspace = agents.defaults.workspace ?? join(stateDirectory, 'workspace');
  const configured = agents.list?.find((agent) => agent.id.toLowerCase() === agentId)?.workspace;
  const base = expandHome(
    configured ??
      (agentId === 'main' ? defaultWorkspace : join(defaultWorkspace, '..', `workspace-${agentId}`)),
  );
  return isAbsolute(base) ? base : resolve(stateDirectory, base);
}

/** The tools plugins registered, each built for this turn when it is a factory. */
export function pluginTools(registry: PluginRegistry, context: ToolContext): AnyAgentTool[] {
  const tools: AnyAgentTool[] = [];
  for (const registration of registry.tools()) {
    const tool = 'create' in registration.tool ? registration.tool.create(context) : registration.tool;
    if (tool !== undefined) tools.push(tool as unknown as AnyAgentTool);
  }
  return tools;
}
