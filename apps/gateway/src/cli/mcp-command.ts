// `switchboard mcp list [--agent ID]`: every MCP server of the running gateway with its state
// (connected, failed with the error, disabled, not started yet), its tools, and for each tool
// whether the agent gets it and if not why (tool filter, tool policy, a taken name, the server
// down or limited to other agents). And the `mcp` line of `doctor`.
import type { McpServerView, McpStatusResult } from '../extensions/mcp.ts';
import type { CliGatewayClient } from './gateway-client.ts';
import { type CliIo, exitCodes, readTimeoutMs } from './io.ts';

interface Helpers {
  withClient<T>(work: (client: CliGatewayClient) => Promise<T>): Promise<T>;
  print(data: unknown, human: () => string): void;
}

type Values = Record<string, string | boolean | undefined>;

function serverLine(server: McpServerView): string {
  const parts = [server.name, server.state, server.transport, server.target];
  let line = parts.join('  ');
  if (server.state === 'failed' && server.error !== undefined) {
    const retry =
      server.nextRetryInMs === undefined ? '' : ` (retry in ${Math.ceil(server.nextRetryInMs / 1000)}s)`;
    line += ` — ${server.error.code} ${server.error.message}${retry}`;
  }
  if (server.state === 'idle') line += ' — starts on first use (startup: lazy)';
  if (server.agents !== undefined) line += ` [agents: ${server.agents.join(', ')}]`;
  return line;
}

function formatList(status: McpStatusResult): string {
  if (status.servers.length === 0) {
    return 'No MCP servers configured. Add one under mcp.servers in the config, e.g.\n  "mcp": { "servers": { "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv/shared"] } } }';
  }
  const lines = [`MCP servers, as agent "${status.agentId}" sees them:`];
  for (const server of status.servers) {
    lines.push(serverLine(server));
    if (server.strippedEnv.length > 0)
      lines.push(`  env not passed (interpreter hijacking): ${server.strippedEnv.join(', ')}`);
    if (server.state === 'failed' && server.stderr.length > 0)
      lines.push(`  last stderr: ${server.stderr.at(-1)}`);
    for (const tool of server.tools) {
      const label = tool.name ?? tool.tool;
      const renamed =
        tool.renamed === true ? ` (renamed from ${server.name}__${tool.tool}: name collision)` : '';
      lines.push(
        tool.offered
          ? `  ${label}  offered${renamed}`
          : `  ${label}  not offered: ${tool.reason ?? 'unknown'}${tool.detail === undefined ? '' : ` — ${tool.detail}`}`,
      );
    }
  }
  return lines.join('\n');
}

async function fetchStatus(client: CliGatewayClient, agentId: string | undefined): Promise<McpStatusResult> {
  return (await client.request('mcp.status', agentId === undefined ? {} : { agentId }, {
    timeoutMs: readTimeoutMs,
  })) as unknown as McpStatusResult;
}

/** `mcp list`. Returns an exit code. */
export async function mcpCommand(
  words: readonly string[],
  values: Values,
  io: CliIo,
  helpers: Helpers,
): Promise<number> {
  const sub = words[1] ?? 'list';
  if (sub !== 'list') {
    io.error(`unknown mcp command: ${sub} (use mcp list [--agent ID])\n`);
    return exitCodes.usage;
  }
  const agentId = typeof values.agent === 'string' ? values.agent : undefined;
  return helpers.withClient(async (client) => {
    const status = await fetchStatus(client, agentId);
    helpers.print(status, () => formatList(status));
    return exitCodes.ok;
  });
}

/**
 * The `mcp` line of `doctor`: how many servers are connected and tools offered to the default
 * agent, and every server that failed, with its error. A warning, never a failure; no line
 * when no server is configured.
 */
export async function mcpDoctorCheck(
  client: CliGatewayClient,
): Promise<{ name: string; ok: boolean; warning: true; detail: string; source: 'gateway' } | undefined> {
  let status: McpStatusResult;
  try {
    status = await fetchStatus(client, undefined);
  } catch {
    return undefined; // a gateway without mcp.status: nothing to report
  }
  if (status.servers.length === 0) return undefined;
  const connected = status.servers.filter((server) => server.state === 'connected').length;
  const offered = status.servers.reduce(
    (sum, server) => sum + server.tools.filter((tool) => tool.offered).length,
    0,
  );
  const failed = status.servers.filter((server) => server.state === 'failed');
  const parts = [
    `${connected} of ${status.servers.length} servers connected, ${offered} tools offered to agent "${status.agentId}"`,
    ...failed.map((server) =>
      `${server.name} failed: ${server.error?.code ?? ''} ${server.error?.message ?? ''}`.trim(),
    ),
  ];
  if (failed.length > 0) parts.push('see switchboard mcp list');
  return { name: 'mcp', ok: failed.length === 0, warning: true, detail: parts.join('; '), source: 'gateway' };
}
