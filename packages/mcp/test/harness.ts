// Shared helpers: server entries for the test MCP servers, a manager that records its events.
import type { AnyAgentTool } from '@switchboard/core-loop';
import type { ToolResult } from '@switchboard/hooks';
import { mcpStdioServerScript } from '@switchboard/testkit/mcp';
import { afterEach, expect, vi } from 'vitest';
import { type McpServerConfigInput, mcpConfigSchema } from '../src/config.ts';
import type { McpEvent } from '../src/events.ts';
import { createMcpManager, type McpManager, type McpManagerOptions } from '../src/manager.ts';

/** A stdio entry running the testkit's MCP server with this Node. */
export function stdioServer(extra: Partial<McpServerConfigInput> = {}): McpServerConfigInput {
  return { command: process.execPath, args: [mcpStdioServerScript], ...extra };
}

const managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
});

export interface RecordingManager {
  readonly manager: McpManager;
  readonly events: McpEvent[];
  /** Waits until an event matching `predicate` has been seen (counting from the start). */
  waitForEvent(predicate: (event: McpEvent) => boolean, count?: number): Promise<McpEvent>;
}

/** A manager over `servers` (parsed with the config schema), closed after the test. */
export function startManager(
  servers: Record<string, McpServerConfigInput>,
  options: Partial<McpManagerOptions> = {},
): RecordingManager {
  const parsed = mcpConfigSchema.parse({ servers });
  const manager = createMcpManager({
    servers: parsed.servers,
    backoff: { initialDelayMs: 50, maxDelayMs: 200 },
    ...options,
  });
  managers.push(manager);
  const events: McpEvent[] = [];
  manager.subscribe((event) => events.push(event));
  manager.start();
  return {
    manager,
    events,
    async waitForEvent(predicate, count = 1) {
      return vi.waitFor(
        () => {
          const matching = events.filter(predicate);
          expect(matching.length).toBeGreaterThanOrEqual(count);
          return matching[count - 1] as McpEvent;
        },
        { timeout: 30_000, interval: 20 },
      );
    },
  };
}

/** The tool named `name` among `tools`, or a failing expectation. */
export function toolNamed(tools: readonly AnyAgentTool[], name: string): AnyAgentTool {
  const tool = tools.find((candidate) => candidate.name === name);
  expect(tool, `tool ${name} among ${tools.map((candidate) => candidate.name).join(', ')}`).toBeDefined();
  return tool as AnyAgentTool;
}

/** Runs a tool's execute with validated arguments, as the agent loop would. */
export async function run(
  tool: AnyAgentTool,
  args: Record<string, unknown>,
  signal: AbortSignal = new AbortController().signal,
  updates: ToolResult[] = [],
): Promise<ToolResult> {
  const parsed = tool.parameters.safeParse(args);
  if (!parsed.success) throw new Error(`invalid arguments: ${parsed.error.message}`);
  return tool.execute('call-1', parsed.data, signal, (update) => updates.push(update));
}

/** The text of a result's text blocks, joined. */
export function textOf(result: ToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : `<${block.type}>`)).join('');
}
