// The manager against a real HTTP MCP server on 127.0.0.1 (the testkit's McpServer over
// streamable HTTP and legacy SSE).
import { type McpHttpServer, startMcpHttpServer } from '@switchboard/testkit/mcp';
import { afterEach, describe, expect, it } from 'vitest';
import { run, startManager, textOf, toolNamed } from './harness.ts';

const servers: McpHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function httpServer(options: Parameters<typeof startMcpHttpServer>[0] = {}): Promise<McpHttpServer> {
  const server = await startMcpHttpServer(options);
  servers.push(server);
  return server;
}

describe('HTTP MCP server', () => {
  it('calls tools over streamable HTTP with the configured headers', async () => {
    const server = await httpServer({ requireAuthorization: 'Bearer sesame' });
    const { manager, waitForEvent } = startManager({
      web: { url: server.url, headers: { authorization: 'Bearer sesame' } },
    });
    const tools = await manager.tools('main');
    expect(textOf(await run(toolNamed(tools, 'web__echo'), { text: 'over http' }))).toBe('over http');
    const add = await run(toolNamed(tools, 'web__add'), { a: 20, b: 22 });
    expect(add.details).toMatchObject({ structuredContent: { sum: 42 } });
    expect(manager.status()[0]).toMatchObject({
      transport: 'streamable-http',
      state: 'connected',
      target: server.url,
      serverInfo: { name: 'test-http', version: '1.0.0' },
    });
    // tools/list_changed arrives over the session's GET stream.
    await run(toolNamed(tools, 'web__add_tool'), { name: 'late' });
    await waitForEvent((event) => event.type === 'tools_changed');
    expect(textOf(await run(toolNamed(await manager.tools('main'), 'web__late'), {}))).toBe('late tool');
  });

  it('reports an HTTP error answer (401) as the reason the server offers nothing', async () => {
    const server = await httpServer({ requireAuthorization: 'Bearer sesame' });
    const { manager } = startManager({ web: { url: server.url, transport: 'streamable-http' } });
    expect(await manager.tools('main')).toEqual([]);
    const status = manager.status()[0];
    expect(status).toMatchObject({ state: 'failed', error: { code: 'MCP_CONNECT_FAILED' } });
    expect(status?.error?.message).toMatch(/401|unauthorized/i);
  });

  it('uses legacy SSE when asked, and falls back to it when streamable HTTP is refused', async () => {
    const server = await httpServer();
    const { manager } = startManager({
      legacy: { url: server.sseUrl, transport: 'sse' },
      guessed: { url: server.sseUrl },
    });
    const tools = await manager.tools('main');
    expect(textOf(await run(toolNamed(tools, 'legacy__echo'), { text: 'sse' }))).toBe('sse');
    expect(textOf(await run(toolNamed(tools, 'guessed__echo'), { text: 'fallback' }))).toBe('fallback');
    expect(manager.status().map((entry) => [entry.name, entry.transport, entry.state])).toEqual([
      ['legacy', 'sse', 'connected'],
      ['guessed', 'sse', 'connected'],
    ]);
  });

  it('times out a slow tool over HTTP too', async () => {
    const server = await httpServer();
    const { manager } = startManager({ web: { url: server.url, requestTimeoutMs: 300 } });
    const slow = toolNamed(await manager.tools('main'), 'web__slow');
    await expect(run(slow, { ms: 60_000 })).rejects.toMatchObject({ code: 'MCP_TOOL_TIMEOUT' });
    expect(textOf(await run(slow, { ms: 1 }))).toBe('waited 1 ms');
  });
});
