// The `mcp` config section: which MCP servers to use, how to reach them, what to offer.
import { z } from 'zod';

/** Defaults of the per-server limits (milliseconds, characters, bytes). */
const defaultMcpServerLimits: {
  readonly connectionTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly maxOutputChars: number;
  readonly maxImageBytes: number;
} = {
  connectionTimeoutMs: 30_000,
  requestTimeoutMs: 60_000,
  maxOutputChars: 50_000,
  maxImageBytes: 5 * 1024 * 1024,
};

const nameList = z.array(z.string().min(1));

const serverSchema = z
  .object({
    /** A stdio server: the program to run (no shell), its arguments, extra environment and folder. */
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().min(1).optional(),
    /** An HTTP server: its endpoint, the transport (streamable HTTP, else legacy SSE), extra headers. */
    url: z.string().min(1).optional(),
    transport: z.enum(['streamable-http', 'sse']).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    /** False keeps the entry without starting the server (reported as disabled). */
    enabled: z.boolean().default(true),
    /** `eager`: connect when the gateway starts; `lazy`: on the first turn that needs tools. */
    startup: z.enum(['eager', 'lazy']).default('eager'),
    /** The agents that get this server's tools (all agents when left out). */
    agents: nameList.optional(),
    /** MCP tool names (globs with `*`) to offer (`include`) or hold back (`exclude`; wins). */
    toolFilter: z.object({ include: nameList.optional(), exclude: nameList.optional() }).optional(),
    connectionTimeoutMs: z.number().int().positive().default(defaultMcpServerLimits.connectionTimeoutMs),
    requestTimeoutMs: z.number().int().positive().default(defaultMcpServerLimits.requestTimeoutMs),
    /** Text of one tool result beyond this many characters is cut, with a note saying so. */
    maxOutputChars: z.number().int().positive().default(defaultMcpServerLimits.maxOutputChars),
    /** An image in a tool result larger than this (decoded) is replaced by a note. */
    maxImageBytes: z.number().int().positive().default(defaultMcpServerLimits.maxImageBytes),
  })
  .superRefine((server, context) => {
    const hasCommand = server.command !== undefined;
    const hasUrl = server.url !== undefined;
    if (hasCommand === hasUrl) {
      context.addIssue({
        code: 'custom',
        message: hasCommand
          ? 'give either command (a stdio server) or url (an HTTP server), not both'
          : 'give command (a stdio server: {"command": "npx", "args": [...]}) or url (an HTTP server: {"url": "http://127.0.0.1:3000/mcp"})',
      });
      return;
    }
    if (hasCommand) {
      for (const key of ['transport', 'headers'] as const) {
        if (server[key] !== undefined) {
          context.addIssue({
            code: 'custom',
            path: [key],
            message: `${key} is for HTTP servers (url), not stdio ones`,
          });
        }
      }
      return;
    }
    for (const key of ['args', 'env', 'cwd'] as const) {
      if (server[key] !== undefined) {
        context.addIssue({
          code: 'custom',
          path: [key],
          message: `${key} is for stdio servers (command), not HTTP ones`,
        });
      }
    }
    let parsed: URL | undefined;
    try {
      parsed = new URL(server.url ?? '');
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
      context.addIssue({
        code: 'custom',
        path: ['url'],
        message: `must be an http:// or https:// URL, got "${server.url}"`,
      });
    }
  });

/** One server entry as parsed (defaults filled). Exactly one of `command` and `url` is set. */
export interface McpServerConfig {
  readonly command?: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly url?: string;
  readonly transport?: 'streamable-http' | 'sse';
  readonly headers?: Readonly<Record<string, string>>;
  readonly enabled: boolean;
  readonly startup: 'eager' | 'lazy';
  readonly agents?: readonly string[];
  readonly toolFilter?: { readonly include?: readonly string[]; readonly exclude?: readonly string[] };
  readonly connectionTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly maxOutputChars: number;
  readonly maxImageBytes: number;
}

/** One server entry as written in the config file (defaulted keys optional). */
export type McpServerConfigInput = Partial<McpServerConfig>;

/** The parsed `mcp` section. */
export interface McpConfig {
  readonly servers: Readonly<Record<string, McpServerConfig>>;
}

/**
 * The `mcp` section: `servers.<name>` (the name becomes the tool prefix `<name>__<tool>`).
 * Parse with this schema (the gateway embeds it in its config schema) to get defaults filled;
 * a missing section parses to no servers.
 */
export const mcpConfigSchema: z.ZodType<McpConfig> = z
  .object({
    servers: z.record(z.string().regex(/^\S+$/, 'a server name has no spaces'), serverSchema).default({}),
  })
  .default({ servers: {} });

/** The transport a server entry uses: `stdio` for `command`, else its `transport` (streamable HTTP by default). */
export type McpTransportKind = 'stdio' | 'streamable-http' | 'sse';

export function transportOf(server: McpServerConfig): McpTransportKind {
  if (server.command !== undefined) return 'stdio';
  return server.transport ?? 'streamable-http';
}
