// Real MCP servers for tests and benches, written with the official SDK's McpServer: one run
// as a stdio child process, one on 127.0.0.1 over streamable HTTP and legacy SSE. Both offer
// the same test tools (see registerTestTools).
import { fileURLToPath } from 'node:url';

export { type McpHttpServer, type McpHttpServerOptions, startMcpHttpServer } from './http-server.ts';
export { registerTestTools } from './test-tools.ts';

/**
 * The stdio server script (TypeScript, run from source): `[process.execPath, mcpStdioServerScript]`
 * as an MCP server's `command` and `args`. An optional further argument names the server.
 */
export const mcpStdioServerScript: string = fileURLToPath(new URL('./stdio-server.ts', import.meta.url));
