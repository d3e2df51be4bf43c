// What the manager reports as servers come and go.
import type { McpErrorCode } from './errors.ts';

/** A server's lifecycle, for logs, operators and tests. */
export type McpEvent =
  | { readonly type: 'server_connecting'; readonly server: string; readonly attempt: number }
  | {
      readonly type: 'server_connected';
      readonly server: string;
      readonly transport: 'stdio' | 'streamable-http' | 'sse';
      readonly toolCount: number;
    }
  | {
      /** Connecting failed, or the connection was lost; retried after `retryInMs`. */
      readonly type: 'server_failed';
      readonly server: string;
      readonly code: McpErrorCode;
      readonly error: string;
      readonly retryInMs: number;
    }
  | { readonly type: 'tools_changed'; readonly server: string; readonly toolCount: number }
  | { readonly type: 'server_closed'; readonly server: string };

/** Receives every event. Must not throw. */
export type McpEventListener = (event: McpEvent) => void;
