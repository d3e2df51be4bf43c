// MCP servers (@switchboard/mcp, decision 0020): every tool of the configured `mcp.servers`
// offered as `<server>__<tool>` through the tool source `mcp` (so `tools.allow|deny` and
// `group:mcp` apply), and `mcp.status` telling operators each server's state and, per tool,
// whether an agent sees it and if not why (server down, tool filter, agent selection, tool
// policy, a name another source took). Without servers nothing connects and the MCP SDK never
// loads; with them, eager servers connect once the gateway listens, lazy ones on first use.
import { definePlugin, withLogFields } from '@switchboard/hooks';
import type { McpConfig, McpManager, McpServerStatus, McpToolStatus } from '@switchboard/mcp';
import { resolveDefaultAgentId } from '@switchboard/routing';
import { z } from 'zod';
import { GatewayError } from '../gateway-error.ts';
import { gatewayVersion } from '../version.ts';
import type { GatewayExtension } from './extension.ts';
import type { ExcludedToolReason } from './tool-registry.ts';

/** The tool source id (policies name it `group:mcp`). */
const sourceId = 'mcp';

const statusParameters = z.strictObject({ agentId: z.string().min(1).optional() });

/** A tool's status for one agent, after the gateway's tool policy and name checks. */
interface McpToolView extends Omit<McpToolStatus, 'reason'> {
  readonly reason?: McpToolStatus['reason'] | Exclude<ExcludedToolReason, 'source_failed'>;
}

export interface McpServerView extends Omit<McpServerStatus, 'tools'> {
  readonly tools: readonly McpToolView[];
}

/** What `mcp.status` answers. */
export interface McpStatusResult {
  readonly agentId: string;
  readonly servers: readonly McpServerView[];
}

export const mcpExtension: GatewayExtension = {
  id: 'mcp',
  async setup(context) {
    const logger = withLogFields(context.logger, { extension: 'mcp' });
    let applied: McpConfig = context.config().mcp;
    // The package loads with the first configured server (at start, or when a reload adds
    // one): a gateway without MCP servers never loads it.
    let manager: Promise<McpManager> | undefined;
    const hasServers = (section: McpConfig) => Object.keys(section.servers).length > 0;
    const managerFor = (): Promise<McpManager> => {
      manager ??= import('@switchboard/mcp').then(({ createMcpManager }) =>
        createMcpManager({
          servers: applied.servers,
          logger,
          now: context.now,
          clientInfo: { name: 'switchboard', version: gatewayVersion },
        }),
      );
      return manager;
    };

    /**
     * Applies a reloaded `mcp` section (added servers start, removed stop, changed restart);
     * undefined while no server was ever configured.
     */
    const current = async (): Promise<McpManager | undefined> => {
      const section = context.config().mcp;
      if (manager === undefined) {
        applied = section;
        if (!hasServers(section)) return undefined;
        const created = await managerFor();
        if (started) await startOnce(created);
        return created;
      }
      const existing = await manager;
      if (section !== applied) {
        const changed = JSON.stringify(section) !== JSON.stringify(applied);
        applied = section;
        if (changed) await existing.reconfigure(section.servers);
      }
      return existing;
    };
    // Servers connect once the gateway listens (onStart), never twice.
    let started = false;
    let connecting: Promise<void> | undefined;
    const startOnce = (created: McpManager): Promise<void> => {
      connecting ??= Promise.resolve(created.start());
      return connecting;
    };

    context.tools.register({
      id: sourceId,
      // Waits only for servers on their first connection attempt (each within its
      // connectionTimeoutMs); afterwards this is a lookup of built tools.
      tools: async (toolContext) => (await current())?.tools(toolContext.agentId) ?? [],
    });

    const status = async (params: unknown): Promise<McpStatusResult> => {
      const parsed = statusParameters.safeParse(params ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new GatewayError(
          'INVALID_PARAMS',
          `mcp.status: ${issue?.path.join('.') || 'params'}: ${issue?.message ?? 'invalid'}`,
        );
      }
      const config = context.config();
      const agentId = (parsed.data.agentId ?? resolveDefaultAgentId(config)).toLowerCase();
      const servers = (await current())?.status({ agentId }) ?? [];
      // What a turn of this agent would get: the same registry, policy and duplicate checks.
      const anyOffered = servers.some((server) => server.tools.some((tool) => tool.offered));
      const excluded = anyOffered
        ? (
            await context.tools.resolve({
              config,
              agentId,
              sessionKey: `agent:${agentId}:mcp-status`,
              sessionId: 'mcp-status',
              runId: 'mcp-status',
              channel: 'mcp-status',
              workspaceDir: context.workspaceFor(agentId),
              sendMessage: async () => {
                throw new Error('mcp.status does not send messages');
              },
            })
          ).excluded.filter((entry) => entry.source === sourceId)
        : [];
      return {
        agentId,
        servers: servers.map((server) => ({
          ...server,
          tools: server.tools.map((tool): McpToolView => {
            const verdict = tool.offered ? excluded.find((entry) => entry.name === tool.name) : undefined;
            if (verdict === undefined || verdict.reason === 'source_failed') return tool;
            return { ...tool, offered: false, reason: verdict.reason, detail: verdict.detail };
          }),
        })),
      };
    };

    // Operators ask through the protocol: `mcp.status` (the CLI's `mcp list`, doctor).
    await context.plugins.register(
      definePlugin({
        name: 'mcp',
        version: '1.0.0',
        specVersion: 1,
        description: 'MCP servers: mcp.status for operators',
        setup(api) {
          api.registerGatewayMethod('mcp.status', status);
        },
      }),
    );

    // Connecting waits until the gateway listens; with no servers this does nothing.
    context.onStart(async () => {
      started = true;
      const created = await current();
      if (created !== undefined) await startOnce(created);
    });
    context.onStop(async () => {
      if (manager !== undefined) await (await manager).close();
    });
  },
};
