// MCP end to end: real MCP servers (the testkit's McpServer over stdio as a child process and
// over streamable HTTP on 127.0.0.1) give the fake Anthropic model tools named
// `<server>__<tool>`; the model calls them and gets their results (an error result as an
// error); operators see every server's state and why any tool is not offered (mcp.status,
// switchboard mcp list, doctor).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedRequest } from '@switchboard/testkit/anthropic';
import { type McpHttpServer, mcpStdioServerScript, startMcpHttpServer } from '@switchboard/testkit/mcp';
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodes } from '../src/cli/main.ts';
import type { McpStatusResult } from '../src/extensions/mcp.ts';
import { runCliOn, startTestGateway, type TestGateway } from './harness.ts';

const running: TestGateway[] = [];
const httpServers: McpHttpServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
  await Promise.all(httpServers.splice(0).map((server) => server.close()));
});

async function start(
  config: Record<string, unknown>,
  turns: NonNullable<Parameters<typeof startTestGateway>[0]>['model'],
): Promise<TestGateway> {
  const harness = await startTestGateway({ config, model: turns });
  running.push(harness);
  return harness;
}

const stdioServer = { command: process.execPath, args: [mcpStdioServerScript] };

/** The tool_result blocks of a request's last message. */
function toolResults(request: RecordedRequest | undefined): Array<Record<string, unknown>> {
  const content = request?.messages.at(-1)?.content;
  if (!Array.isArray(content)) return [];
  return (content as Array<Record<string, unknown>>).filter((block) => block.type === 'tool_result');
}

describe('gateway: MCP tools', () => {
  it('the model calls tools of a stdio and an HTTP MCP server and gets their results', async () => {
    const http = await startMcpHttpServer({ requireAuthorization: 'Bearer sesame' });
    httpServers.push(http);
    const harness = await start(
      {
        mcp: {
          servers: {
            files: stdioServer,
            web: { url: http.url, headers: { authorization: 'Bearer sesame' } },
          },
        },
      },
      {
        turns: [
          { toolCalls: [{ name: 'files__echo', input: { text: 'hello over stdio' } }] },
          { toolCalls: [{ name: 'web__add', input: { a: 20, b: 22 } }] },
          { toolCalls: [{ name: 'files__fail', input: { message: 'the disk is on fire' } }] },
          { text: 'done' },
        ],
      },
    );
    const client = await harness.connect();
    const final = await client.requestFinal('agent', { message: 'use the tools', idempotencyKey: 'mcp-1' });
    expect(final.final.payload).toMatchObject({ status: 'ok', result: { payloads: [{ text: 'done' }] } });

    const [first, afterEcho, afterAdd, afterFail] = harness.model.messageRequests;
    expect(first?.toolNames).toEqual(
      expect.arrayContaining(['files__echo', 'files__add', 'web__echo', 'web__add']),
    );
    const echoTool = first?.tools.find((tool) => tool.name === 'files__echo');
    expect(echoTool?.input_schema).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string', description: 'What to echo' } },
      required: ['text'],
    });
    expect(toolResults(afterEcho)).toEqual([
      expect.objectContaining({ content: [{ type: 'text', text: 'hello over stdio' }] }),
    ]);
    expect(toolResults(afterEcho)[0]?.is_error).not.toBe(true);
    expect(toolResults(afterAdd)).toEqual([
      expect.objectContaining({ content: [{ type: 'text', text: '42' }] }),
    ]);
    expect(toolResults(afterFail)).toEqual([
      expect.objectContaining({ is_error: true, content: [{ type: 'text', text: 'the disk is on fire' }] }),
    ]);
  });

  it('shows each server and, per tool, why an agent does not get it (mcp.status, mcp list, doctor)', async () => {
    const harness = await start(
      {
        tools: { deny: ['files__crash'] },
        agents: {
          defaults: { model: 'anthropic/claude-sonnet-4-6' },
          list: [
            { id: 'main', default: true },
            { id: 'ops', tools: { allow: ['files__echo'] } },
          ],
        },
        mcp: {
          servers: {
            files: { ...stdioServer, toolFilter: { exclude: ['slow'] } },
            broken: { command: '/nonexistent/mcp-server' },
            later: { ...stdioServer, startup: 'lazy', agents: ['ops'] },
            off: { ...stdioServer, enabled: false },
          },
        },
      },
      { turns: [{ text: 'ok' }] },
    );
    const client = await harness.connect();
    // The first turn waits for the eager servers' first attempt; the model sees what connected.
    await client.requestFinal('agent', { message: 'hi', idempotencyKey: 'mcp-status-1' });
    const offered = harness.model.lastRequest?.toolNames ?? [];
    expect(offered).toContain('files__echo');
    expect(offered).not.toContain('files__crash');
    expect(offered).not.toContain('files__slow');
    expect(offered.some((name) => name.startsWith('later__') || name.startsWith('broken__'))).toBe(false);

    const response = await client.request('mcp.status', {});
    expect(response.ok).toBe(true);
    const status = response.payload as unknown as McpStatusResult;
    expect(status.agentId).toBe('main');
    const byName = Object.fromEntries(status.servers.map((server) => [server.name, server]));
    expect(byName.files?.state).toBe('connected');
    const filesTools = Object.fromEntries((byName.files?.tools ?? []).map((tool) => [tool.tool, tool]));
    expect(filesTools.echo).toMatchObject({ name: 'files__echo', offered: true });
    expect(filesTools.crash).toMatchObject({
      name: 'files__crash',
      offered: false,
      reason: 'denied',
      detail: 'tools.deny has "files__crash"',
    });
    expect(filesTools.slow).toMatchObject({
      offered: false,
      reason: 'filtered',
      detail: 'excluded by toolFilter.exclude "slow"',
    });
    expect(byName.broken).toMatchObject({
      state: 'failed',
      error: {
        code: 'MCP_CONNECT_FAILED',
        message: expect.stringContaining('could not start "/nonexistent/mcp-server"'),
      },
    });
    expect(byName.later?.state).toBe('idle');
    expect(byName.off?.state).toBe('disabled');

    // Another agent: its own allow list decides.
    const ops = (await client.request('mcp.status', { agentId: 'ops' }))
      .payload as unknown as McpStatusResult;
    const opsFiles = Object.fromEntries(
      (ops.servers.find((server) => server.name === 'files')?.tools ?? []).map((tool) => [tool.tool, tool]),
    );
    expect(opsFiles.echo).toMatchObject({ offered: true });
    expect(opsFiles.add).toMatchObject({
      offered: false,
      reason: 'not_allowed',
      detail: 'agent "ops" tools.allow does not list it',
    });

    const listed = await runCliOn(['mcp', 'list'], harness);
    expect(listed.code).toBe(exitCodes.ok);
    expect(listed.stdout).toContain('files  connected  stdio');
    expect(listed.stdout).toContain('files__echo  offered');
    expect(listed.stdout).toContain('files__crash  not offered: denied — tools.deny has "files__crash"');
    expect(listed.stdout).toContain('slow  not offered: filtered — excluded by toolFilter.exclude "slow"');
    expect(listed.stdout).toMatch(/broken {2}failed {2}stdio .*could not start "\/nonexistent\/mcp-server"/);
    expect(listed.stdout).toContain('off  disabled');

    const doctor = await runCliOn(['doctor'], harness);
    expect(doctor.stdout).toMatch(/warn {2}mcp: .*broken failed: MCP_CONNECT_FAILED could not start/);
  });

  it('applies mcp.servers from a config reload: added servers offer tools, removed ones stop', async () => {
    const harness = await start({}, { turns: [{ text: 'before' }, { text: 'after' }, { text: 'removed' }] });
    const client = await harness.connect();
    await client.requestFinal('agent', { message: 'one', idempotencyKey: 'reload-1' });
    expect(harness.model.lastRequest?.toolNames.some((name) => name.startsWith('files__'))).toBe(false);

    const path = join(harness.stateDirectory, 'switchboard.json');
    const edit = (mcp: unknown): void => {
      const config = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
      writeFileSync(path, JSON.stringify({ ...config, mcp }, null, 2));
    };
    edit({ servers: { files: stdioServer } });
    expect((await client.request('config.reload', {})).ok).toBe(true);
    await client.requestFinal('agent', { message: 'two', idempotencyKey: 'reload-2' });
    expect(harness.model.lastRequest?.toolNames).toContain('files__echo');

    edit({ servers: {} });
    expect((await client.request('config.reload', {})).ok).toBe(true);
    await client.requestFinal('agent', { message: 'three', idempotencyKey: 'reload-3' });
    expect(harness.model.lastRequest?.toolNames.some((name) => name.startsWith('files__'))).toBe(false);
    const status = (await client.request('mcp.status', {})).payload as unknown as McpStatusResult;
    expect(status.servers).toEqual([]);
  });

  it('adds no tools and starts nothing without mcp.servers', async () => {
    const harness = await start({}, { turns: [{ text: 'plain' }] });
    const client = await harness.connect();
    await client.requestFinal('agent', { message: 'hi', idempotencyKey: 'no-mcp' });
    expect(harness.model.lastRequest?.toolNames.some((name) => name.includes('__'))).toBe(false);
    const status = (await client.request('mcp.status', {})).payload as unknown as McpStatusResult;
    expect(status.servers).toEqual([]);
    expect(harness.logs.some((line) => line.includes('mcp: '))).toBe(false);
  });
});
