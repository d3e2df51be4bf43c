// An HTTP MCP server with the test tools on 127.0.0.1: streamable HTTP at `/mcp` (one
// session, and one McpServer, per client) and legacy SSE at `/sse` + `/messages`.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { registerTestTools } from './test-tools.ts';

export interface McpHttpServerOptions {
  /** The server name sent in its initialize answer. */
  readonly name?: string;
  /** Requests without this `authorization` header value get a 401. */
  readonly requireAuthorization?: string;
}

export interface McpHttpServer {
  /** The streamable HTTP endpoint (`http://127.0.0.1:<port>/mcp`). */
  readonly url: string;
  /** The legacy SSE endpoint (`http://127.0.0.1:<port>/sse`). */
  readonly sseUrl: string;
  /** How many client sessions were opened (each initialize makes one). */
  sessions(): number;
  close(): Promise<void>;
}

/** Starts the server on a free 127.0.0.1 port. */
export async function startMcpHttpServer(options: McpHttpServerOptions = {}): Promise<McpHttpServer> {
  const name = options.name ?? 'test-http';
  const streamable = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();
  const servers = new Set<McpServer>();
  let sessions = 0;

  const newServer = (): McpServer => {
    const server = new McpServer({ name, version: '1.0.0' });
    registerTestTools(server);
    servers.add(server);
    return server;
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (
      options.requireAuthorization !== undefined &&
      request.headers.authorization !== options.requireAuthorization
    ) {
      response.writeHead(401, { 'content-type': 'text/plain' }).end('unauthorized');
      return;
    }
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/mcp') {
      const sessionId = request.headers['mcp-session-id'];
      const existing = typeof sessionId === 'string' ? streamable.get(sessionId) : undefined;
      if (existing !== undefined) {
        await existing.handleRequest(request, response);
        return;
      }
      if (request.method !== 'POST') {
        response.writeHead(400, { 'content-type': 'text/plain' }).end('no session');
        return;
      }
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions += 1;
          streamable.set(id, transport);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId !== undefined) streamable.delete(transport.sessionId);
      };
      await newServer().connect(transport);
      await transport.handleRequest(request, response);
      return;
    }
    if (url.pathname === '/sse' && request.method === 'GET') {
      const transport = new SSEServerTransport('/messages', response);
      sse.set(transport.sessionId, transport);
      sessions += 1;
      transport.onclose = () => sse.delete(transport.sessionId);
      await newServer().connect(transport);
      return;
    }
    if (url.pathname === '/messages' && request.method === 'POST') {
      const transport = sse.get(url.searchParams.get('sessionId') ?? '');
      if (transport === undefined) {
        response.writeHead(404).end('unknown session');
        return;
      }
      await transport.handlePostMessage(request, response);
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  };

  const http = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sseUrl: `http://127.0.0.1:${port}/sse`,
    sessions: () => sessions,
    async close() {
      await Promise.allSettled([...servers].map((server) => server.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
