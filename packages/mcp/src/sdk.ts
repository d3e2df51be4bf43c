// The MCP SDK, loaded on first use: a gateway without MCP servers never imports it.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  ErrorCode,
  McpError as SdkMcpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

/** The parts of `@modelcontextprotocol/sdk` the client manager uses. */
export interface McpSdk {
  readonly Client: typeof Client;
  readonly StdioClientTransport: typeof StdioClientTransport;
  readonly getDefaultEnvironment: typeof getDefaultEnvironment;
  readonly StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  readonly StreamableHTTPError: typeof StreamableHTTPError;
  readonly SSEClientTransport: typeof SSEClientTransport;
  readonly ToolListChangedNotificationSchema: typeof ToolListChangedNotificationSchema;
  readonly McpError: typeof SdkMcpError;
  readonly ErrorCode: typeof ErrorCode;
  readonly AjvJsonSchemaValidator: typeof AjvJsonSchemaValidator;
}

let loading: Promise<McpSdk> | undefined;

/** Imports the SDK modules once (concurrent callers share the import). */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/validation/ajv'),
  ]).then(([client, stdio, streamableHttp, sse, types, ajv]) => ({
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    getDefaultEnvironment: stdio.getDefaultEnvironment,
    StreamableHTTPClientTransport: streamableHttp.StreamableHTTPClientTransport,
    StreamableHTTPError: streamableHttp.StreamableHTTPError,
    SSEClientTransport: sse.SSEClientTransport,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
    AjvJsonSchemaValidator: ajv.AjvJsonSchemaValidator,
  }));
  return loading;
}
