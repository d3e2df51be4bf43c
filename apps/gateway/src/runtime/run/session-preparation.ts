// The session a turn runs in: created on first use (session_start), reset when stale by the
// reset policy (session_end, then session_start).
import type { HookRunner } from '@switchboard/hooks';
import {
  applyResetPolicy,
  evaluateSessionFreshness,
  type ResolvedResetPolicy,
  resolveResetPolicy,
  type SessionEntry,
  type SessionStore,
} from '@switchboard/sessions';
import type { GatewayConfig } from '../../config/schema.ts';
import type { TurnInput } from '../turn-input.ts';

export interface SessionPreparationServices {
  readonly store: SessionStore;
  readonly hooks: HookRunner;
  readonly now: () => number;
}

export interface SessionPreparation {
  /** Ensures the session of `sessionKey` exists and is fresh; returns its entry. */
  prepare(config: GatewayConfig, sessionKey: string, last: TurnInput): Promise<SessionEntry>;
}

export function createSessionPreparation(services: SessionPreparationServices): SessionPreparation {
  const { store, hooks, now } = services;
  const dailyBoundaries = new Map<string, number>();

  /** Fresh unless past its daily boundary or idle limit; the daily boundary is cached per session id. */
  function isFresh(
    entry: SessionEntry,
    policy: ResolvedResetPolicy,
    options: { now: number; timeZone?: string },
  ): boolean {
    if (policy.mode === 'off') return true;
    const key = `${entry.sessionId}:${policy.mode}:${policy.atHour}`;
    let boundary = dailyBoundaries.get(key);
    if (boundary === undefined) {
      const freshness = evaluateSessionFreshness(entry, { ...policy, idleMinutes: undefined }, options);
      if (!freshness.fresh) return false;
      boundary = freshness.dailyResetAt ?? Number.POSITIVE_INFINITY;
      if (dailyBoundaries.size > 10_000) dailyBoundaries.clear();
      dailyBoundaries.set(key, boundary);
    }
    if (options.now >= boundary) return false;
    if (policy.idleMinutes === undefined) return true;
    const lastActive = entry.lastInteractionAt ?? entry.sessionStartedAt;
    return options.now - lastActive < policy.idleMinutes * 60_000;
  }

  return {
    async prepare(config, sessionKey, last) {
      const agentId = last.agentId;
      const created = await store.ensureSession(sessionKey, {
        agentId,
        chatType: last.chatType,
        channel: last.channel,
        ...(last.origin === 'channel' && last.peer !== undefined
          ? {
              lastRoute: {
                channel: last.channel,
                accountId: last.accountId,
                to: last.peer.id,
                peerKind: last.peer.kind,
                threadId: last.threadId,
              },
            }
          : {}),
      });
      let session = created.entry;
      if (created.created && hooks.has('session_start')) {
        void hooks.run('session_start', {
          sessionKey,
          agentId,
          sessionId: session.sessionId,
          channel: last.channel,
        });
      }
      const policy = resolveResetPolicy(config.session, {
        chatType: last.chatType,
        isThread: last.threadId !== undefined,
        channel: last.channel,
      });
      const freshnessOptions = {
        now: now(),
        timeZone: config.agents.defaults.timeZone,
      };
      // The check is pure and cheap on the entry at hand; only a stale session touches the store.
      const reset = isFresh(session, policy, freshnessOptions)
        ? { reset: false as const, entry: session }
        : await applyResetPolicy(store, sessionKey, policy, freshnessOptions);
      session = reset.entry;
      if (reset.reset) {
        if (hooks.has('session_end'))
          void hooks.run('session_end', {
            sessionKey,
            agentId,
            sessionId: reset.previousSessionId,
            reason: reset.reason,
          });
        if (hooks.has('session_start'))
          void hooks.run('session_start', {
            sessionKey,
            agentId,
            sessionId: session.sessionId,
            channel: last.channel,
          });
      }
      return session;
    },
  };
}
