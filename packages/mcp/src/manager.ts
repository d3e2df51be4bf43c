// The MCP client manager: configured servers → connections → agent tools, and their status.
import { type AnyAgentTool, defineTool } from '@switchboard/core-loop';
import { type Logger, noopLogger } from '@switchboard/hooks';
import type { McpServerConfig } from './config.ts';
import { type BackoffSettings, defaultBackoff, ServerConnection, type ServerTool } from './connection.ts';
import { McpError } from './errors.ts';
import type { McpEvent, McpEventListener } from './events.ts';
import { baseToolName, ToolNamer } from './names.ts';
import { type McpToolResultDetails, mapCallResult } from './results.ts';
import { loadMcpSdk } from './sdk.ts';
import { describeServers, type McpServerStatus } from './status.ts';
import { argumentsSchema } from './tool-schema.ts';

export interface McpManagerOptions {
  /** The parsed `mcp.servers` (see `mcpConfigSchema`). */
  readonly servers: Readonly<Record<string, McpServerConfig>>;
  readonly logger?: Logger;
  readonly now?: () => number;
  /** How the client introduces itself to servers. */
  readonly clientInfo?: { readonly name: string; readonly version: string };
  readonly backoff?: Partial<BackoffSettings>;
}

/**
 * The MCP client manager. Contract: nothing connects before `start` (eager servers) or the
 * first `tools` call that needs a server (lazy ones); `tools` never fails (a server that is not
 * connected offers nothing, and `status` says why); every server is retried with backoff
 * until `close`, which stops them all (stdio processes included).
 */
export interface McpManager {
  /** Starts connecting the eager servers, without waiting for them. */
  start(): void;
  /**
   * The tools one agent may use now: those of its connected servers, as `<server>__<tool>`.
   * Waits for servers still on their first connection attempt (lazy ones start here), each at
   * most its `connectionTimeoutMs`.
   */
  tools(agentId: string): Promise<readonly AnyAgentTool[]>;
  /** Every server with its state and tools; with `agentId`, whether that agent gets each one. */
  status(options?: { readonly agentId?: string }): readonly McpServerStatus[];
  /** Applies a reloaded `mcp.servers`: added servers start, removed ones stop, changed ones restart. */
  reconfigure(servers: Readonly<Record<string, McpServerConfig>>): Promise<void>;
  /** Receives every lifecycle event; returns the unsubscribe function. */
  subscribe(listener: McpEventListener): () => void;
  /** Stops every server. */
  close(): Promise<void>;
}

/** One offered tool: its connection, its listing and the agent tool built for it. */
interface BuiltTool {
  readonly connection: ServerConnection;
  readonly entry: ServerTool;
  readonly tool: AnyAgentTool;
}

function agentSelected(config: McpServerConfig, agentId: string): boolean {
  return config.agents === undefined || config.agents.includes(agentId);
}

export function createMcpManager(options: McpManagerOptions): McpManager {
  const logger = options.logger ?? noopLogger;
  const now = options.now ?? Date.now;
  const backoff: BackoffSettings = { ...defaultBackoff, ...options.backoff };
  const clientInfo = options.clientInfo ?? { name: 'switchboard', version: '0.0.0' };
  const connections = new Map<string, ServerConnection>();
  const listeners = new Set<McpEventListener>();
  const namer = new ToolNamer();
  /** Names by connection and tool, rebuilt when any tool list changes. */
  let names = new Map<ServerTool, string>();
  /** Agent tools by listing entry (kept across turns: core-loop caches their specs). */
  let built = new Map<ServerTool, BuiltTool>();
  let started = false;
  let closed = false;

  const emit = (event: McpEvent): void => {
    logEvent(logger, event);
    if (event.type === 'server_connected' || event.type === 'tools_changed') rename();
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        logger.warn('mcp: an event listener threw', { error: String(error) });
      }
    }
  };

  /** Names every known tool (all servers, in config order) so names never depend on who is up. */
  const rename = (): void => {
    const entries: Array<{ connection: ServerConnection; entry: ServerTool }> = [];
    for (const connection of connections.values()) {
      for (const entry of connection.tools) {
        if (entry.filtered === undefined && entry.schema.ok) entries.push({ connection, entry });
      }
    }
    const assigned = namer.assign(
      entries.map(({ connection, entry }) => ({ server: connection.name, tool: entry.tool })),
    );
    const builtByName = new Map([...built.values()].map((previous) => [previous.tool.name, previous]));
    const nextNames = new Map<ServerTool, string>();
    const nextBuilt = new Map<ServerTool, BuiltTool>();
    entries.forEach(({ connection, entry }, index) => {
      const name = assigned[index] as string;
      nextNames.set(entry, name);
      const existing = builtByName.get(name);
      nextBuilt.set(
        entry,
        existing !== undefined && existing.connection === connection && sameListing(existing.entry, entry)
          ? { connection, entry, tool: existing.tool }
          : { connection, entry, tool: buildTool(connection, entry, name) },
      );
    });
    names = nextNames;
    built = nextBuilt;
    for (const { connection, entry } of entries) {
      const name = nextNames.get(entry);
      if (name !== undefined && name !== baseToolName(connection.name, entry.tool)) {
        logger.info('mcp: tool renamed to avoid a name collision', {
          server: connection.name,
          tool: entry.tool,
          name,
        });
      }
    }
  };

  const connectionFor = (name: string, config: McpServerConfig): ServerConnection =>
    new ServerConnection({ name, config, sdk: loadMcpSdk, logger, now, backoff, clientInfo, emit });

  for (const [name, config] of Object.entries(options.servers))
    connections.set(name, connectionFor(name, config));

  const startEager = (connection: ServerConnection): void => {
    if (connection.config.startup === 'eager') void connection.start();
  };

  return {
    start() {
      if (started || closed) return;
      started = true;
      for (const connection of connections.values()) startEager(connection);
    },

    async tools(agentId) {
      if (closed) return [];
      const selected = [...connections.values()].filter(
        (connection) => connection.config.enabled && agentSelected(connection.config, agentId),
      );
      await Promise.all(
        selected.map((connection) => {
          if (connection.state === 'idle') void connection.start();
          return connection.firstAttempt();
        }),
      );
      const tools: AnyAgentTool[] = [];
      for (const connection of selected) {
        if (connection.state !== 'connected') continue;
        for (const entry of connection.tools) {
          const tool = built.get(entry)?.tool;
          if (tool !== undefined) tools.push(tool);
        }
      }
      return tools;
    },

    status(statusOptions = {}) {
      return describeServers([...connections.values()], names, statusOptions.agentId, now);
    },

    async reconfigure(servers) {
      if (closed)
        throw new McpError('MCP_MANAGER_CLOSED', 'The MCP manager is closed; it cannot be reconfigured.');
      const stops: Array<Promise<void>> = [];
      for (const [name, connection] of connections) {
        const next = servers[name];
        if (next === undefined || JSON.stringify(next) !== JSON.stringify(connection.config)) {
          connections.delete(name);
          stops.push(connection.close());
          logger.info(next === undefined ? 'mcp: server removed' : 'mcp: server changed, restarting', {
            server: name,
          });
        }
      }
      await Promise.all(stops);
      const ordered = new Map<string, ServerConnection>();
      for (const [name, config] of Object.entries(servers)) {
        const connection = connections.get(name) ?? connectionFor(name, config);
        ordered.set(name, connection);
        if (started && !connections.has(name)) startEager(connection);
      }
      connections.clear();
      for (const [name, connection] of ordered) connections.set(name, connection);
      rename();
    },

    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...connections.values()].map((connection) => connection.close()));
    },
  };
}

/** Whether a new listing of a tool is the same as the old one (the built tool can be kept). */
function sameListing(previous: ServerTool, next: ServerTool): boolean {
  return (
    previous.tool === next.tool &&
    previous.title === next.title &&
    previous.description === next.description &&
    JSON.stringify(previous.schema) === JSON.stringify(next.schema)
  );
}

/** The agent tool of one MCP tool: validated arguments in, the mapped result out. */
function buildTool(connection: ServerConnection, entry: ServerTool, name: string): AnyAgentTool {
  const server = connection.name;
  const limits = {
    maxOutputChars: connection.config.maxOutputChars,
    maxImageBytes: connection.config.maxImageBytes,
  };
  const jsonSchema = entry.schema.ok ? entry.schema.jsonSchema : { type: 'object' };
  return defineTool<ReturnType<typeof argumentsSchema>, McpToolResultDetails>({
    name,
    label: entry.title ?? `${server}: ${entry.tool}`,
    description:
      entry.description === '' ? `Tool "${entry.tool}" of the MCP server "${server}".` : entry.description,
    parameters: argumentsSchema(entry.check),
    parametersJsonSchema: jsonSchema,
    async execute(_toolCallId, args, signal, onUpdate) {
      const result = await connection.callTool(entry.tool, args, signal, (progress) => {
        const total = progress.total === undefined ? '' : `/${progress.total}`;
        const message = progress.message === undefined ? '' : ` ${progress.message}`;
        onUpdate({
          content: [{ type: 'text', text: `progress ${progress.progress}${total}${message}` }],
          details: { server, tool: entry.tool },
        });
      });
      return mapCallResult(result, { server, tool: entry.tool }, limits);
    },
  });
}

function logEvent(logger: Logger, event: McpEvent): void {
  switch (event.type) {
    case 'server_connecting':
      logger.debug('mcp: connecting', { server: event.server, attempt: event.attempt });
      return;
    case 'server_connected':
      logger.info('mcp: server connected', {
        server: event.server,
        transport: event.transport,
        tools: event.toolCount,
      });
      return;
    case 'server_failed':
      logger.warn('mcp: server failed; its tools are not offered until it reconnects', {
        server: event.server,
        code: event.code,
        error: event.error,
        retryInMs: event.retryInMs,
      });
      return;
    case 'tools_changed':
      logger.info('mcp: tool list changed', { server: event.server, tools: event.toolCount });
      return;
    case 'server_closed':
      logger.debug('mcp: server stopped', { server: event.server });
      return;
  }
}
