// The SDK transport of one server entry.
import type { Readable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig, McpTransportKind } from './config.ts';
import { serverEnvironment } from './environment.ts';
import type { McpSdk } from './sdk.ts';

/** A transport ready to connect, with what the status needs to know about it. */
export interface OpenedTransport {
  readonly transport: Transport;
  /** The server process's stderr (stdio only). */
  readonly stderr?: Readable;
  /** Configured environment keys dropped because they can hijack an interpreter (stdio only). */
  readonly strippedEnv: readonly string[];
}

/**
 * Builds the transport for `kind`: a stdio child process (no shell, a clean environment, its
 * stderr piped so failures can be shown), or an HTTP client (streamable HTTP or legacy SSE)
 * sending the configured headers.
 */
export function openTransport(sdk: McpSdk, config: McpServerConfig, kind: McpTransportKind): OpenedTransport {
  if (kind === 'stdio') {
    const { env, stripped } = serverEnvironment(sdk.getDefaultEnvironment(), config.env);
    const transport = new sdk.StdioClientTransport({
      command: config.command ?? '',
      args: [...(config.args ?? [])],
      env,
      cwd: config.cwd,
      stderr: 'pipe',
    });
    // With stderr 'pipe' the SDK hands out a PassThrough (a Readable) before the process starts.
    const stderr = transport.stderr as Readable | null;
    return { transport, strippedEnv: stripped, ...(stderr === null ? {} : { stderr }) };
  }
  const url = new URL(config.url ?? '');
  const requestInit: RequestInit = config.headers === undefined ? {} : { headers: { ...config.headers } };
  const transport =
    kind === 'sse'
      ? new sdk.SSEClientTransport(url, { requestInit })
      : new sdk.StreamableHTTPClientTransport(url, { requestInit });
  return { transport, strippedEnv: [] };
}
