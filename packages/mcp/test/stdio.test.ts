// The manager against a real stdio MCP server (the testkit's McpServer, a child process).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolSpec } from '@switchboard/core-loop';
import { describe, expect, it, vi } from 'vitest';
import { McpError } from '../src/errors.ts';
import { run, startManager, stdioServer, textOf, toolNamed } from './harness.ts';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('stdio MCP server', () => {
  it('offers its tools as <server>__<tool> with the server schema, and maps text, structured, image and error results', async () => {
    const { manager } = startManager({ files: stdioServer() });
    const tools = await manager.tools('main');
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['files__echo', 'files__add', 'files__fail', 'files__search_issues']),
    );
    const echo = toolNamed(tools, 'files__echo');
    expect(echo.description).toBe('Echo the text back');
    const spec = toolSpec(echo);
    expect(spec.parameters).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string', description: 'What to echo' } },
      required: ['text'],
    });
    expect(spec.parameters.$schema).toBeUndefined();
    expect(textOf(await run(echo, { text: 'hello' }))).toBe('hello');

    const add = await run(toolNamed(tools, 'files__add'), { a: 2, b: 3 });
    expect(textOf(add)).toBe('5');
    expect(add.details).toEqual({ server: 'files', tool: 'add', structuredContent: { sum: 5 } });

    const failed = await run(toolNamed(tools, 'files__fail'), { message: 'disk on fire' });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toBe('disk on fire');

    const image = await run(toolNamed(tools, 'files__image'), {});
    expect(image.content[1]).toMatchObject({ type: 'image', mediaType: 'image/png' });

    expect(textOf(await run(toolNamed(tools, 'files__search_issues'), { query: 'bug' }))).toBe(
      'no issues match "bug"',
    );
  });

  it('checks arguments against the server schema before calling, so the model gets a correctable error', async () => {
    const { manager } = startManager({ calc: stdioServer() });
    const add = toolNamed(await manager.tools('main'), 'calc__add');
    const refused = add.parameters.safeParse({ a: 'two' });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((issue) => issue.message).join(' ')).toMatch(/must be number|required/);
    expect(add.parameters.safeParse({ a: 1, b: 2 }).success).toBe(true);
  });

  it('reports progress notifications as tool updates and caps long output', async () => {
    const { manager } = startManager({ s: stdioServer({ maxOutputChars: 100 }) });
    const tools = await manager.tools('main');
    const updates: Array<{ content: readonly unknown[] }> = [];
    const result = await run(toolNamed(tools, 's__progress'), { steps: 3 }, undefined, updates as never);
    expect(textOf(result)).toBe('done in 3 steps');
    await vi.waitFor(() => expect(updates.length).toBe(3));
    expect(updates[2]?.content).toEqual([{ type: 'text', text: 'progress 3/3 step 3' }]);

    const big = await run(toolNamed(tools, 's__big'), { chars: 5000 });
    expect(textOf(big)).toBe(
      `${'x'.repeat(100)}\n[output truncated: 100 of 5000 characters shown (maxOutputChars 100)]`,
    );
  });

  it('gives the process a clean environment: no gateway variables, no interpreter hijacking, the configured ones', async () => {
    process.env.SWITCHBOARD_TEST_GATEWAY_SECRET = 'do-not-leak';
    try {
      const { manager } = startManager({
        s: stdioServer({
          env: { API_TOKEN: 'given', NODE_OPTIONS: '--require /nonexistent.js', LD_PRELOAD: '/x.so' },
        }),
      });
      const tools = await manager.tools('main');
      const result = await run(toolNamed(tools, 's__env'), {
        names: ['API_TOKEN', 'NODE_OPTIONS', 'LD_PRELOAD', 'SWITCHBOARD_TEST_GATEWAY_SECRET', 'PATH'],
      });
      const seen = JSON.parse(textOf(result)) as Record<string, string | null>;
      expect(seen).toMatchObject({
        API_TOKEN: 'given',
        NODE_OPTIONS: null,
        LD_PRELOAD: null,
        SWITCHBOARD_TEST_GATEWAY_SECRET: null,
      });
      expect(seen.PATH).toBe(process.env.PATH);
      expect(manager.status()[0]?.strippedEnv).toEqual(['NODE_OPTIONS', 'LD_PRELOAD']);
    } finally {
      delete process.env.SWITCHBOARD_TEST_GATEWAY_SECRET;
    }
  });

  it('restarts a crashed server with backoff; the call in flight fails with MCP_SERVER_CLOSED', async () => {
    const { manager, waitForEvent } = startManager({ s: stdioServer() });
    const tools = await manager.tools('main');
    const firstPid = Number(textOf(await run(toolNamed(tools, 's__pid'), {})));
    const crash = run(toolNamed(tools, 's__crash'), {});
    await expect(crash).rejects.toMatchObject({ code: 'MCP_SERVER_CLOSED' });
    const failed = await waitForEvent((event) => event.type === 'server_failed');
    expect(failed).toMatchObject({
      code: 'MCP_SERVER_CLOSED',
      error: expect.stringContaining('the server process exited'),
    });
    // While down, a call fails at once and says why.
    if (manager.status()[0]?.state !== 'connected') {
      await expect(run(toolNamed(tools, 's__pid'), {})).rejects.toThrow(
        /MCP server "s" is (failed|connecting)/,
      );
    }
    await waitForEvent((event) => event.type === 'server_connected', 2);
    const again = await manager.tools('main');
    const secondPid = Number(textOf(await run(toolNamed(again, 's__pid'), {})));
    expect(secondPid).not.toBe(firstPid);
    expect(isAlive(firstPid)).toBe(false);
    expect(manager.status()[0]).toMatchObject({ state: 'connected', attempts: 2 });
  });

  it('times out a slow tool with MCP_TOOL_TIMEOUT and aborts one with the run', async () => {
    const { manager } = startManager({ s: stdioServer({ requestTimeoutMs: 300 }) });
    const slow = toolNamed(await manager.tools('main'), 's__slow');
    const timedOut = await run(slow, { ms: 60_000 }).catch((error: unknown) => error);
    expect(timedOut).toBeInstanceOf(McpError);
    expect(timedOut).toMatchObject({
      code: 'MCP_TOOL_TIMEOUT',
      message:
        'MCP tool "slow" of server "s" did not answer within 300 ms (requestTimeoutMs); the call was cancelled.',
    });
    const controller = new AbortController();
    const aborted = run(slow, { ms: 200 }, controller.signal);
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ code: 'MCP_TOOL_ABORTED' });
    // The server is still fine afterwards.
    expect(textOf(await run(slow, { ms: 1 }))).toBe('waited 1 ms');
  });

  it('refreshes the tool list on tools/list_changed: a tool added mid-session is offered on the next turn', async () => {
    const { manager, waitForEvent } = startManager({ s: stdioServer() });
    const before = await manager.tools('main');
    expect(before.some((tool) => tool.name === 's__late')).toBe(false);
    expect(textOf(await run(toolNamed(before, 's__add_tool'), { name: 'late' }))).toBe('added late');
    await waitForEvent((event) => event.type === 'tools_changed');
    const after = await manager.tools('main');
    expect(textOf(await run(toolNamed(after, 's__late'), {}))).toBe('late tool');
    // Tools that did not change are the same objects (their converted schemas stay cached).
    expect(toolNamed(after, 's__echo')).toBe(toolNamed(before, 's__echo'));
  });

  it('holds back filtered tools and says why, per tool', async () => {
    const { manager } = startManager({
      s: stdioServer({ toolFilter: { include: ['e*', 'add', 'crash'], exclude: ['crash'] } }),
    });
    const names = (await manager.tools('main')).map((tool) => tool.name).toSorted();
    expect(names).toEqual(['s__add', 's__echo', 's__env']);
    const statuses = manager.status()[0]?.tools ?? [];
    expect(statuses.find((tool) => tool.tool === 'crash')).toEqual({
      tool: 'crash',
      offered: false,
      reason: 'filtered',
      detail: 'excluded by toolFilter.exclude "crash"',
    });
    expect(statuses.find((tool) => tool.tool === 'slow')).toMatchObject({
      offered: false,
      reason: 'filtered',
      detail: 'not matched by toolFilter.include ("e*", "add", "crash")',
    });
    expect(statuses.find((tool) => tool.tool === 'echo')).toEqual({
      tool: 'echo',
      name: 's__echo',
      offered: true,
    });
  });

  it('suffixes colliding names and shows the rename in status', async () => {
    const { manager } = startManager({ 'a.b': stdioServer(), a_b: stdioServer() });
    const names = (await manager.tools('main')).map((tool) => tool.name);
    expect(names).toContain('a_b__echo');
    expect(names).toContain('a_b__echo-2');
    expect(new Set(names).size).toBe(names.length);
    const [first, second] = manager.status();
    const firstEcho = first?.tools.find((tool) => tool.tool === 'echo');
    const secondEcho = second?.tools.find((tool) => tool.tool === 'echo');
    expect([firstEcho?.name, secondEcho?.name].toSorted()).toEqual(['a_b__echo', 'a_b__echo-2']);
    const renamed = [firstEcho, secondEcho].find((tool) => tool?.renamed === true);
    expect(renamed?.name).toBe('a_b__echo-2');
  });

  it('records a server that cannot start, retries it, and still offers the other servers', async () => {
    const { manager, waitForEvent } = startManager({
      broken: { command: '/nonexistent/mcp-server' },
      good: stdioServer(),
    });
    const names = (await manager.tools('main')).map((tool) => tool.name);
    expect(names.every((name) => name.startsWith('good__'))).toBe(true);
    // It retries every 50–200 ms: between two attempts its state is "failed" with the error.
    await vi.waitFor(
      () =>
        expect(manager.status()[0]).toMatchObject({
          name: 'broken',
          state: 'failed',
          error: {
            code: 'MCP_CONNECT_FAILED',
            message: expect.stringContaining('could not start "/nonexistent/mcp-server"'),
          },
        }),
      { timeout: 5000, interval: 5 },
    );
    await waitForEvent((event) => event.type === 'server_failed' && event.server === 'broken', 2);
    expect(manager.status()[0]?.attempts).toBeGreaterThanOrEqual(2);
  });

  it('gives up on a server that never answers initialize after connectionTimeoutMs, and stops its process', async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), 'mcp-mute-')), 'pid');
    const { manager } = startManager({
      mute: {
        command: process.execPath,
        args: [
          '-e',
          `require('node:fs').appendFileSync(${JSON.stringify(pidFile)}, process.pid + '\\n'); setInterval(() => {}, 1000)`,
        ],
        connectionTimeoutMs: 500,
      },
    });
    expect(await manager.tools('main')).toEqual([]);
    expect(manager.status()[0]).toMatchObject({
      state: 'failed',
      error: {
        code: 'MCP_CONNECT_TIMEOUT',
        message: 'no answer to initialize and tools/list within 500 ms (connectionTimeoutMs)',
      },
    });
    // No process that never answered is left behind, the retries' included, once the manager
    // is closed (each ignores its stdin closing, so it is stopped with a signal).
    await manager.close();
    const pids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
    expect(pids.length).toBeGreaterThan(0);
    await vi.waitFor(() => expect(pids.filter(isAlive)).toEqual([]), { timeout: 10_000 });
  });

  it('starts a lazy server on first use only, skips disabled ones, and limits servers to their agents', async () => {
    const { manager } = startManager({
      lazy: stdioServer({ startup: 'lazy', agents: ['helper'] }),
      off: stdioServer({ enabled: false }),
    });
    expect(manager.status().map((server) => server.state)).toEqual(['idle', 'disabled']);
    expect(await manager.tools('main')).toEqual([]);
    expect(manager.status()[0]?.state).toBe('idle');
    const helperTools = await manager.tools('helper');
    expect(helperTools.some((tool) => tool.name === 'lazy__echo')).toBe(true);
    const forMain = manager.status({ agentId: 'main' })[0]?.tools.find((tool) => tool.tool === 'echo');
    expect(forMain).toMatchObject({
      offered: false,
      reason: 'agent_not_selected',
      detail: 'server "lazy" is limited to agents "helper"',
    });
    expect(manager.status()[1]).toMatchObject({ state: 'disabled', tools: [] });
  });

  it('stops the server processes on close', async () => {
    const { manager } = startManager({ s: stdioServer() });
    const pid = Number(textOf(await run(toolNamed(await manager.tools('main'), 's__pid'), {})));
    expect(isAlive(pid)).toBe(true);
    await manager.close();
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 10_000 });
    expect(manager.status()[0]?.state).toBe('closed');
    expect(await manager.tools('main')).toEqual([]);
  });

  it('applies a reloaded config: removed servers stop, added ones start, unchanged ones keep running', async () => {
    const { manager, waitForEvent } = startManager({ keep: stdioServer(), drop: stdioServer() });
    const keepPid = Number(textOf(await run(toolNamed(await manager.tools('main'), 'keep__pid'), {})));
    const { mcpConfigSchema } = await import('../src/config.ts');
    await manager.reconfigure(
      mcpConfigSchema.parse({ servers: { keep: stdioServer(), added: stdioServer() } }).servers,
    );
    await waitForEvent((event) => event.type === 'server_closed' && event.server === 'drop');
    const tools = await manager.tools('main');
    expect(manager.status().map((server) => server.name)).toEqual(['keep', 'added']);
    expect(tools.some((tool) => tool.name === 'added__echo')).toBe(true);
    expect(tools.some((tool) => tool.name.startsWith('drop__'))).toBe(false);
    expect(Number(textOf(await run(toolNamed(tools, 'keep__pid'), {})))).toBe(keepPid);
  });
});
