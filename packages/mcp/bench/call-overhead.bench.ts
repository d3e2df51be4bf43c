// The per-call overhead of an MCP tool: the agent tool's execute (argument check, the JSON-RPC
// round trip, result mapping) for a trivial `echo` on a real MCP server, over stdio (a child
// process) and over streamable HTTP (127.0.0.1), against the same tool run in-process. Also
// prints the time from nothing to tools offered (process start or HTTP session + tools/list).
//
//   pnpm --filter @switchboard/mcp bench
import type { AnyAgentTool } from '@switchboard/core-loop';
import { mcpStdioServerScript, startMcpHttpServer } from '@switchboard/testkit/mcp';
import { mcpConfigSchema } from '../src/config.ts';
import { createMcpManager } from '../src/manager.ts';

const warmup = 50;
const calls = 1_000;
const signal = new AbortController().signal;

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

async function measure(tool: AnyAgentTool): Promise<{ median: number; p95: number; perSecond: number }> {
  const args = tool.parameters.parse({ text: 'hello' });
  for (let index = 0; index < warmup; index += 1) await tool.execute('warmup', args, signal, () => undefined);
  const samples: number[] = [];
  const started = performance.now();
  for (let index = 0; index < calls; index += 1) {
    const before = performance.now();
    const parsed = tool.parameters.parse({ text: 'hello' });
    await tool.execute(`call-${index}`, parsed, signal, () => undefined);
    samples.push(performance.now() - before);
  }
  const total = performance.now() - started;
  samples.sort((a, b) => a - b);
  return {
    median: percentile(samples, 0.5),
    p95: percentile(samples, 0.95),
    perSecond: (calls / total) * 1000,
  };
}

async function offeredTool(
  name: string,
  server: Record<string, unknown>,
): Promise<{ tool: AnyAgentTool; readyMs: number; close: () => Promise<void> }> {
  const started = performance.now();
  const manager = createMcpManager({
    servers: mcpConfigSchema.parse({ servers: { [name]: server } }).servers,
  });
  const tools = await manager.tools('main');
  const readyMs = performance.now() - started;
  const tool = tools.find((candidate) => candidate.name === `${name}__echo`);
  if (tool === undefined) throw new Error(`${name}: no echo tool (${JSON.stringify(manager.status())})`);
  return { tool, readyMs, close: () => manager.close() };
}

// The same zod schema (and JSON Schema check) as the MCP tool, so only the call differs.
const probe = await offeredTool('probe', { command: process.execPath, args: [mcpStdioServerScript] });
const inProcess: AnyAgentTool = {
  name: 'local__echo',
  description: 'echo',
  parameters: probe.tool.parameters,
  async execute(_id, args: { text: string }) {
    return { content: [{ type: 'text', text: args.text }] };
  },
};

const http = await startMcpHttpServer();
const stdio = await offeredTool('stdio', { command: process.execPath, args: [mcpStdioServerScript] });
const streamable = await offeredTool('http', { url: http.url });
const sse = await offeredTool('sse', { url: http.sseUrl, transport: 'sse' });

const baseline = await measure(inProcess);
const rows = [
  ['in-process tool (same argument check)', baseline],
  ['MCP over stdio', await measure(stdio.tool)],
  ['MCP over streamable HTTP', await measure(streamable.tool)],
  ['MCP over legacy SSE', await measure(sse.tool)],
] as const;

const format = (value: number): string => `${value.toFixed(3)} ms`;
console.log(`MCP tool call overhead, ${calls} sequential calls of echo each (after ${warmup} warm-up calls)`);
for (const [label, result] of rows) {
  const over =
    result === baseline ? '' : `, overhead ${format(result.median - baseline.median)} over in-process`;
  console.log(
    `  ${label.padEnd(40)} median ${format(result.median)}, p95 ${format(result.p95)}, ${Math.round(result.perSecond)} calls/s${over}`,
  );
}
console.log('From nothing to tools offered (manager.tools on a cold server):');
console.log(`  stdio (spawn node + SDK import + initialize + tools/list)  ${stdio.readyMs.toFixed(0)} ms`);
console.log(
  `  streamable HTTP (initialize + tools/list)                   ${streamable.readyMs.toFixed(0)} ms`,
);
console.log(`  legacy SSE                                                   ${sse.readyMs.toFixed(0)} ms`);

await Promise.all([probe.close(), stdio.close(), streamable.close(), sse.close()]);
await http.close();
process.exit(0);
