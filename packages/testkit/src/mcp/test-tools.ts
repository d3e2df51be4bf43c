// The tools every test MCP server offers: real McpServer tools covering what a client must
// handle (text, structured content, images, error results, slow calls, crashes, progress,
// a tool list that changes mid-session).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/** A 1×1 transparent PNG. */
const pixelPng =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** Resolves after `ms`, or rejects when `signal` aborts first. */
function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new Error('cancelled'));
      },
      { once: true },
    );
  });
}

/**
 * Registers the test tools on `server`:
 * `echo {text}` → the text; `add {a, b}` → the sum as text and structured content;
 * `fail {message}` → an error result; `slow {ms}` → answers after `ms` (honours cancellation);
 * `crash` → the process exits with code 3 (stdio servers); `image` → a PNG;
 * `big {chars}` → that many characters; `add_tool {name}` → registers `name` (answers
 * "late tool") and notifies `tools/list_changed`; `env {names}` → which of the named
 * environment variables the process has; `pid` → the process id; `progress {steps}` → sends
 * progress notifications, then answers; `search.issues {query}` → a name to sanitize.
 */
export function registerTestTools(server: McpServer): void {
  server.registerTool(
    'echo',
    { description: 'Echo the text back', inputSchema: { text: z.string().describe('What to echo') } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool(
    'add',
    {
      description: 'Add two numbers',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
    },
    async ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
      structuredContent: { sum: a + b },
    }),
  );
  server.registerTool(
    'fail',
    { description: 'Always fails', inputSchema: { message: z.string() } },
    async ({ message }) => ({ content: [{ type: 'text', text: message }], isError: true }),
  );
  server.registerTool(
    'slow',
    { description: 'Answers after a delay', inputSchema: { ms: z.number().int().min(0) } },
    async ({ ms }, extra) => {
      await wait(ms, extra.signal);
      return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
    },
  );
  server.registerTool('crash', { description: 'Exits the server process' }, async () => {
    setImmediate(() => process.exit(3));
    return new Promise(() => undefined);
  });
  server.registerTool('image', { description: 'Returns a picture' }, async () => ({
    content: [
      { type: 'text', text: 'a pixel' },
      { type: 'image', data: pixelPng, mimeType: 'image/png' },
    ],
  }));
  server.registerTool(
    'big',
    { description: 'Returns a long text', inputSchema: { chars: z.number().int().min(0) } },
    async ({ chars }) => ({ content: [{ type: 'text', text: 'x'.repeat(chars) }] }),
  );
  server.registerTool(
    'add_tool',
    { description: 'Adds a tool to this server', inputSchema: { name: z.string() } },
    async ({ name }) => {
      server.registerTool(name, { description: 'A tool added at run time' }, async () => ({
        content: [{ type: 'text', text: 'late tool' }],
      }));
      return { content: [{ type: 'text', text: `added ${name}` }] };
    },
  );
  server.registerTool(
    'env',
    { description: 'Which environment variables are set', inputSchema: { names: z.array(z.string()) } },
    async ({ names }) => ({
      content: [
        {
          type: 'text',
          text: JSON.stringify(Object.fromEntries(names.map((name) => [name, process.env[name] ?? null]))),
        },
      ],
    }),
  );
  server.registerTool('pid', { description: 'The server process id' }, async () => ({
    content: [{ type: 'text', text: String(process.pid) }],
  }));
  server.registerTool(
    'progress',
    { description: 'Reports progress, then answers', inputSchema: { steps: z.number().int().min(1) } },
    async ({ steps }, extra) => {
      const token = extra._meta?.progressToken;
      for (let step = 1; step <= steps; step += 1) {
        if (token !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: step, total: steps, message: `step ${step}` },
          });
        }
      }
      return { content: [{ type: 'text', text: `done in ${steps} steps` }] };
    },
  );
  server.registerTool(
    'search.issues',
    { description: 'Search issues', inputSchema: { query: z.string() } },
    async ({ query }) => ({ content: [{ type: 'text', text: `no issues match "${query}"` }] }),
  );
}
