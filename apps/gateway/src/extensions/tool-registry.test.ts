import { defineTool } from '@switchboard/core-loop';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { gatewayConfigSchema } from '../config/schema.ts';
import { createToolRegistry, type ToolSourceContext } from './tool-registry.ts';

const parameters = z.object({});
const tool = (name: string) =>
  defineTool({
    name,
    description: `the ${name} tool`,
    parameters,
    execute: async () => ({ content: [{ type: 'text', text: name }] }),
  });

function contextFor(config: unknown, agentId = 'main'): ToolSourceContext {
  return {
    config: gatewayConfigSchema.parse(config),
    agentId,
    sessionKey: `agent:${agentId}:main`,
    sessionId: 'session-1',
    runId: 'run-1',
    channel: 'webchat',
    workspaceDir: '/tmp/workspace',
    sendMessage: async () => [],
  };
}

describe('tool registry', () => {
  it('offers every source in order, minus what the global and per-agent policies exclude, with reasons', async () => {
    const registry = createToolRegistry();
    registry.register({ id: 'builtin', tools: () => [tool('read'), tool('write'), tool('exec')] });
    registry.register({ id: 'mcp', tools: async () => [tool('github__issues'), tool('github__pulls')] });
    const config = {
      tools: { deny: ['exec'] },
      agents: {
        list: [{ id: 'reviewer', tools: { allow: ['read', 'github__*'], deny: ['github__pulls'] } }],
      },
    };

    const main = await registry.resolve(contextFor(config));
    expect(main.tools.map((entry) => entry.name)).toEqual([
      'read',
      'write',
      'github__issues',
      'github__pulls',
    ]);
    expect(main.excluded).toEqual([
      { name: 'exec', source: 'builtin', reason: 'denied', detail: 'tools.deny has "exec"' },
    ]);

    const reviewer = await registry.resolve(contextFor(config, 'reviewer'));
    expect(reviewer.tools.map((entry) => entry.name)).toEqual(['read', 'github__issues']);
    expect(reviewer.excluded.map((entry) => [entry.name, entry.reason])).toEqual([
      ['write', 'not_allowed'],
      ['exec', 'denied'],
      ['github__pulls', 'denied'],
    ]);
  });

  it('selects a whole source with group:<id>', async () => {
    const registry = createToolRegistry();
    registry.register({ id: 'builtin', tools: () => [tool('read')] });
    registry.register({ id: 'memory', tools: () => [tool('memory_search'), tool('memory_get')] });
    const resolved = await registry.resolve(contextFor({ tools: { deny: ['group:memory'] } }));
    expect(resolved.tools.map((entry) => entry.name)).toEqual(['read']);
    expect(resolved.excluded.every((entry) => entry.detail === 'tools.deny has "group:memory"')).toBe(true);
  });

  it('keeps the first of two tools with one name and reports the second; a failing source costs only its tools', async () => {
    const registry = createToolRegistry();
    registry.register({ id: 'builtin', tools: () => [tool('read')] });
    registry.register({ id: 'plugins', tools: () => [tool('read'), tool('weather')] });
    registry.register({
      id: 'mcp',
      tools: () => {
        throw new Error('server "github" is not connected');
      },
    });
    const resolved = await registry.resolve(contextFor({}));
    expect(resolved.tools.map((entry) => entry.name)).toEqual(['read', 'weather']);
    expect(resolved.excluded).toEqual([
      {
        name: 'read',
        source: 'plugins',
        reason: 'duplicate',
        detail: '"read" is already offered by "builtin"',
      },
      {
        name: '*',
        source: 'mcp',
        reason: 'source_failed',
        detail: 'tool source "mcp" failed: server "github" is not connected',
      },
    ]);
    expect(() => registry.register({ id: 'mcp', tools: () => [] })).toThrow(/already registered/);
  });
});
