// The sessions and runs one session-scoped connection follows (decision 0025, "Event fan-out"):
// what it named in its own requests, so it receives their run events and not every run's.
import type { EventSession } from '../access/event-audience.ts';

/**
 * Contract: `follow` adds a session and/or a run; `follows` is true when the event's session
 * or run was added. At most `limit` of each are kept, the oldest forgotten first (a connection
 * that moved on from a session hundreds of sessions ago gets its `session.run` summary again).
 */
export interface FollowedSessions {
  follow(sessionKey: string | undefined, runId: string | undefined): void;
  follows(session: EventSession): boolean;
}

function remember(set: Set<string>, value: string, limit: number): void {
  if (set.has(value)) set.delete(value);
  set.add(value);
  if (set.size > limit) {
    const oldest = set.values().next().value;
    if (oldest !== undefined) set.delete(oldest);
  }
}

export function createFollowedSessions(limit = 256): FollowedSessions {
  const sessions = new Set<string>();
  const runs = new Set<string>();
  return {
    follow(sessionKey, runId) {
      if (sessionKey !== undefined) remember(sessions, sessionKey, limit);
      if (runId !== undefined) remember(runs, runId, limit);
    },
    follows(session) {
      return sessions.has(session.sessionKey) || (session.runId !== undefined && runs.has(session.runId));
    },
  };
}
