// Where an agent works: its workspace directory.
import { isAbsolute, join, resolve } from 'node:path';
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
