// The seam between the protocol server and the gateway's methods: what a method declares
// (name, scope, parameter schema) and what it is handed when a client calls it.
import type { z } from 'zod';
import type { OperatorScope } from '../access/operator-scopes.ts';

/** What the gateway knows about one authenticated socket. */
export interface ConnectionInfo {
  readonly connectionId: string;
  readonly remoteAddress: string;
  readonly clientId: string;
  readonly clientMode: string;
  readonly clientVersion: string;
  readonly scopes: ReadonlySet<OperatorScope>;
  readonly capabilities: ReadonlySet<string>;
  readonly deviceId: string | undefined;
  readonly connectedAt: number;
}

export interface MethodContext {
  readonly connection: ConnectionInfo;
  readonly requestId: string;
  /** Sends an interim `res` on the same id (the `agent` method's "accepted"); the return value is the final one. */
  respondInterim(payload: unknown): void;
  /**
   * The connection follows this session (and run) from now on: a connection with the
   * `session-scoped-events` capability receives their run events. A method calls it before it
   * starts the run, so no event is missed. No effect on other connections (they receive every
   * run's events).
   */
  follow(sessionKey: string | undefined, runId?: string): void;
}

/**
 * One WebSocket method: its required scope, its parameter schema and its handler. The server
 * validates params with the schema and checks the scope before `handle` runs; whatever
 * `handle` throws goes back to the caller as a protocol error (a `GatewayError`'s code is kept).
 */
export interface GatewayMethod<Params = unknown> {
  readonly name: string;
  readonly scope: OperatorScope | ((params: Params) => OperatorScope);
  readonly params: z.ZodType<Params>;
  handle(params: Params, context: MethodContext): unknown;
}

/**
 * Declares a method with its parameter type inferred from its schema. The result is the
 * erased `GatewayMethod` the server holds: the server validates params with the schema
 * before the handler sees them.
 */
export function defineMethod<Schema extends z.ZodType>(method: {
  readonly name: string;
  readonly scope: OperatorScope | ((params: z.infer<Schema>) => OperatorScope);
  readonly params: Schema;
  handle(params: z.infer<Schema>, context: MethodContext): unknown;
}): GatewayMethod {
  return method as unknown as GatewayMethod;
}
