import { type ErrorCodeTable, SwitchboardError, type SwitchboardErrorOptions } from '@switchboard/hooks';

/** Codes of the errors this package throws (or records on a server's status). */
export type McpErrorCode =
  | 'MCP_CONNECT_FAILED'
  | 'MCP_CONNECT_TIMEOUT'
  | 'MCP_SERVER_UNAVAILABLE'
  | 'MCP_SERVER_CLOSED'
  | 'MCP_TOOL_TIMEOUT'
  | 'MCP_TOOL_ABORTED'
  | 'MCP_TOOL_CALL_FAILED'
  | 'MCP_MANAGER_CLOSED';

/** Every `McpError` code with the sentence that documents it. */
export const mcpErrorCodes: ErrorCodeTable & Readonly<Record<McpErrorCode, string>> = {
  MCP_CONNECT_FAILED:
    'Starting or initializing an MCP server failed (the command could not be spawned, the process exited, the URL refused the connection or answered with an HTTP error, listing its tools failed). The server is retried with backoff; its status shows the error.',
  MCP_CONNECT_TIMEOUT:
    'An MCP server did not finish its initialize handshake and tool listing within `connectionTimeoutMs`. The server is retried with backoff.',
  MCP_SERVER_UNAVAILABLE:
    'A tool of an MCP server was called while the server is not connected (it failed, is reconnecting, or was disabled or removed by a config reload). The message says when it is retried.',
  MCP_SERVER_CLOSED:
    "The connection to an MCP server closed (a stdio server process exited, an HTTP stream ended): recorded as the server's error and retried with backoff, and thrown to a call that was waiting for its answer.",
  MCP_TOOL_TIMEOUT:
    'An MCP tool call got no answer within `requestTimeoutMs` (each progress notification from the server restarts the timer). The server was sent a cancellation.',
  MCP_TOOL_ABORTED:
    'The run was aborted while an MCP tool call was in flight; the server was sent a cancellation.',
  MCP_TOOL_CALL_FAILED:
    'The MCP server answered a tool call with a protocol error (unknown tool, invalid arguments, an internal error) rather than a tool result.',
  MCP_MANAGER_CLOSED:
    'The MCP manager was closed (the gateway is stopping); no server is connected any more.',
};

/** An error of `@switchboard/mcp`. */
export class McpError extends SwitchboardError<McpErrorCode> {
  constructor(code: McpErrorCode, message: string, options: SwitchboardErrorOptions = {}) {
    super(code, message, options);
  }
}

/** The message of anything thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
