// Config of MCP servers (`mcp.servers.<name>`): @switchboard/mcp, decision 0020. Key names
// follow OpenClaw's `mcp.servers` entries: `{command, args, env, cwd}` for a stdio server or
// `{url, transport, headers}` for an HTTP one, plus `enabled`, `toolFilter.{include,exclude}`,
// `connectionTimeoutMs`, `requestTimeoutMs`; Switchboard adds `startup` (eager | lazy),
// `agents` (which agents get the server), `maxOutputChars` and `maxImageBytes`.
// The config subpath only: the package's index pulls the MCP SDK into the start chunk.
import { mcpConfigSchema } from '@switchboard/mcp/config';

/** The `mcp` section; a missing section means no servers (nothing starts, nothing loads). */
export const mcpSectionSchema: typeof mcpConfigSchema = mcpConfigSchema;
