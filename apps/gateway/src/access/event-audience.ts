// Who may receive an event the gateway broadcasts to its operator clients. The runtime names
// the audience of each event it emits; the protocol server applies it per socket.
import type { OperatorScope } from './operator-scopes.ts';

/**
 * The client capability that narrows a connection's run events to the sessions it follows
 * (decision 0025, "Event fan-out"). Without it a connection receives every run's `agent` and
 * `chat` events, as OpenClaw's clients expect; with it, only those of the sessions and runs it
 * named in its own requests (`agent`, `chat.send`, `chat.history`), plus one small
 * `session.run` event when any other session's run starts or ends.
 */
export const sessionScopedEventsCapability = 'session-scoped-events';

/** The run an event belongs to: what a session-scoped connection must follow to receive it. */
export interface EventSession {
  readonly sessionKey: string;
  readonly runId?: string;
}

export interface EventFilter {
  /** The scope a socket needs to receive the event. Defaults to operator.read. */
  readonly scope?: OperatorScope | 'none';
  /** A client capability the socket must have advertised (e.g. `tool-events`). */
  readonly capability?: string;
  /**
   * The session (and run) the event belongs to. A session-scoped connection receives it only
   * while it follows that session or run; every other connection receives it.
   */
  readonly session?: EventSession;
  /**
   * With `session`: the event is for the session-scoped connections that do *not* follow the
   * session (their summary of a run they do not watch), and no one else.
   */
  readonly toUnfollowers?: boolean;
}

/** Sends an event to every operator client allowed to see it (contract: never throws, never blocks). */
export type Broadcast = (event: string, payload: unknown, filter?: EventFilter) => void;
