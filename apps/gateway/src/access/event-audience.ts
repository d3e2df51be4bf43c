// Who may receive an event the gateway broadcasts to its operator clients. The runtime names
// the audience of each event it emits; the protocol server applies it per socket.
import type { OperatorScope } from './operator-scopes.ts';

export interface EventFilter {
  /** The scope a socket needs to receive the event. Defaults to operator.read. */
  readonly scope?: OperatorScope | 'none';
  /** A client capability the socket must have advertised (e.g. `tool-events`). */
  readonly capability?: string;
}

/** Sends an event to every operator client allowed to see it (contract: never throws, never blocks). */
export type Broadcast = (event: string, payload: unknown, filter?: EventFilter) => void;
