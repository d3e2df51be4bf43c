// What operators see: each server's state and, for each tool, whether it is offered and why not.
import type { McpTransportKind } from './config.ts';
import type { ServerConnection, ServerState, ServerTool } from './connection.ts';
import type { McpErrorCode } from './errors.ts';
import { baseToolName } from './names.ts';

/**
 * Why a tool is not offered: `filtered` (the server's `toolFilter`), `invalid_schema` (its
 * input schema cannot be a tool's parameters), `server_not_connected` (disabled, failed,
 * reconnecting or not started), `agent_not_selected` (the server's `agents` list leaves the
 * agent out). The gateway adds its own reasons (tool policy, a name another source took).
 */
export type McpToolExclusionReason =
  | 'filtered'
  | 'invalid_schema'
  | 'server_not_connected'
  | 'agent_not_selected';

export interface McpToolStatus {
  /** The tool's name on its server. */
  readonly tool: string;
  /** The name the model sees (absent for tools that cannot be offered at all). */
  readonly name?: string;
  /** True when the name is not the plain `<server>__<tool>` because another tool had it. */
  readonly renamed?: boolean;
  /** Whether the tool reaches the model (for the agent asked about, or any agent). */
  readonly offered: boolean;
  readonly reason?: McpToolExclusionReason;
  /** A sentence for operators: the rule, error or state behind `reason`. */
  readonly detail?: string;
  /** Set when the arguments are left to the server to check (the schema did not compile). */
  readonly argumentCheck?: string;
}

export interface McpServerStatus {
  readonly name: string;
  readonly transport: McpTransportKind;
  /** The command line, or the URL without credentials or query. */
  readonly target: string;
  readonly state: ServerState;
  readonly startup: 'eager' | 'lazy';
  /** The last failure (kept while reconnecting). */
  readonly error?: { readonly code: McpErrorCode; readonly message: string };
  readonly attempts: number;
  /** Failures in a row (the backoff doubles with each). */
  readonly failures: number;
  readonly connectedAt?: number;
  readonly nextRetryInMs?: number;
  readonly serverInfo?: { readonly name: string; readonly version: string };
  /** Configured environment keys not passed to the process (interpreter hijacking). */
  readonly strippedEnv: readonly string[];
  /** The last lines the process wrote to stderr (stdio). */
  readonly stderr: readonly string[];
  /** The agents the server is limited to (`agents`), when it is. */
  readonly agents?: readonly string[];
  readonly tools: readonly McpToolStatus[];
}

function targetOf(connection: ServerConnection): string {
  const config = connection.config;
  if (config.command !== undefined) return [config.command, ...(config.args ?? [])].join(' ');
  try {
    const url = new URL(config.url ?? '');
    return `${url.origin}${url.pathname}`;
  } catch {
    return '(invalid url)';
  }
}

function serverUnavailable(connection: ServerConnection): string | undefined {
  switch (connection.state) {
    case 'connected':
      return undefined;
    case 'disabled':
      return `server "${connection.name}" is disabled (enabled: false)`;
    case 'idle':
      return `server "${connection.name}" starts on first use (startup: lazy) and has not been needed yet`;
    case 'connecting':
      return `server "${connection.name}" is connecting`;
    case 'closed':
      return `server "${connection.name}" is stopped`;
    case 'failed':
      return `server "${connection.name}" failed: ${connection.facts.error?.message ?? 'unknown error'}`;
  }
}

function toolStatus(
  connection: ServerConnection,
  entry: ServerTool,
  name: string | undefined,
  agentId: string | undefined,
): McpToolStatus {
  const base = {
    tool: entry.tool,
    name,
    ...(name !== undefined && name !== baseToolName(connection.name, entry.tool) ? { renamed: true } : {}),
    argumentCheck: entry.checkProblem,
  };
  if (entry.filtered !== undefined)
    return { ...base, offered: false, reason: 'filtered', detail: entry.filtered };
  if (!entry.schema.ok)
    return { ...base, offered: false, reason: 'invalid_schema', detail: entry.schema.reason };
  const down = serverUnavailable(connection);
  if (down !== undefined) return { ...base, offered: false, reason: 'server_not_connected', detail: down };
  const agents = connection.config.agents;
  if (agentId !== undefined && agents !== undefined && !agents.includes(agentId)) {
    return {
      ...base,
      offered: false,
      reason: 'agent_not_selected',
      detail: `server "${connection.name}" is limited to agents ${agents.map((agent) => `"${agent}"`).join(', ')}`,
    };
  }
  return { ...base, offered: true };
}

/** The status of every server, in config order. */
export function describeServers(
  connections: readonly ServerConnection[],
  names: ReadonlyMap<ServerTool, string>,
  agentId: string | undefined,
  now: () => number,
): McpServerStatus[] {
  return connections.map((connection) => {
    const facts = connection.facts;
    const config = connection.config;
    return {
      name: connection.name,
      transport: facts.transport,
      target: targetOf(connection),
      state: connection.state,
      startup: config.startup,
      error: facts.error,
      attempts: facts.attempts,
      failures: facts.failures,
      ...(facts.connectedAt === undefined || connection.state !== 'connected'
        ? {}
        : { connectedAt: facts.connectedAt }),
      ...(facts.nextRetryAt === undefined || connection.state !== 'failed'
        ? {}
        : { nextRetryInMs: Math.max(0, facts.nextRetryAt - now()) }),
      serverInfo: facts.serverInfo,
      strippedEnv: facts.strippedEnv,
      stderr: facts.stderr,
      agents: config.agents,
      tools: connection.tools.map((entry) => toolStatus(connection, entry, names.get(entry), agentId)),
    };
  });
}
