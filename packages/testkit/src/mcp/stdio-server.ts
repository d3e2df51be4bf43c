// A stdio MCP server with the test tools: `node stdio-server.ts [name]`. Writes "ready" to
// stderr once connected (so tests can see a server's stderr in its status).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { registerTestTools } from './test-tools.ts';

const server = new McpServer({ name: process.argv[2] ?? 'test-stdio', version: '1.0.0' });
registerTestTools(server);
await server.connect(new StdioServerTransport());
process.stderr.write(`ready pid=${process.pid}\n`);
