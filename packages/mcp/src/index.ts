// @switchboard/mcp: the MCP client manager. Configured Model Context Protocol servers (stdio,
// streamable HTTP, SSE) become agent tools named `<server>__<tool>`, with their state and the
// reason any tool is not offered visible to operators.
//
// The curated public API. Connections, naming, schemas, result mapping and the SDK loader are
// internals: this package's tests and bench import their module files.

// For the gateway: the config section it embeds, and the manager it runs.
export {
  type McpConfig,
  type McpServerConfig,
  type McpTransportKind,
  mcpConfigSchema,
} from './config.ts';
export type { BackoffSettings, ServerState } from './connection.ts';
// Errors.
export { McpError, type McpErrorCode, mcpErrorCodes } from './errors.ts';
export type { McpEvent, McpEventListener } from './events.ts';
export { createMcpManager, type McpManager, type McpManagerOptions } from './manager.ts';
// For readers of a transcript: what an MCP tool result keeps in `details`.
export type { McpToolResultDetails } from './results.ts';
// For operator views (`mcp.status`, `switchboard mcp list`, doctor).
export type { McpServerStatus, McpToolExclusionReason, McpToolStatus } from './status.ts';
