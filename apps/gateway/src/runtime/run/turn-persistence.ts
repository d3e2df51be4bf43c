// Persisting a turn: its messages (through the transcript hooks) and, for the finished turn,
// its answered-marker, in one transaction (decision 0004).

import type { SessionAuthPin } from '@switchboard/auth-profiles';
import type { Agent, AgentMessage } from '@switchboard/core-loop';
import type { HookRunner, Message } from '@switchboard/hooks';
import type { NewTranscriptEntry, SessionStore } from '@switchboard/sessions';
import { isModelMessage } from './messages.ts';
import { type AnsweredMarker, answeredMarkerType } from './recovery.ts';
import type { ReplyTarget } from './reply-bridge.ts';

export interface TurnPersistenceServices {
  readonly store: SessionStore;
  readonly hooks: HookRunner;
  readonly now: () => number;
}

/** The session state a turn writes with its messages. */
export interface TurnRecord {
  readonly sessionKey: string;
  readonly agentId: string;
  /** The session the turn ran in: a reset meanwhile (`/new`) makes the append fail. */
  readonly sessionId: string;
  /** The chat of a channel turn, stored as the session's last route. */
  readonly route: ReplyTarget | undefined;
  /** The credential pin to keep, written with the finished turn only. */
  readonly pin: SessionAuthPin | undefined;
  readonly provider: string;
  readonly model: string;
  readonly usage: Agent['state']['usage'];
}

/** Appends messages and, when `marker` is given (the finished turn), the marker and the turn's usage. */
export async function appendTurn(
  services: TurnPersistenceServices,
  turn: TurnRecord,
  toAppend: readonly AgentMessage[],
  marker: AnsweredMarker | undefined,
): Promise<void> {
  const { hooks } = services;
  const { sessionKey, agentId, route, usage } = turn;
  const entries: NewTranscriptEntry[] = [];
  for (const message of toAppend) {
    if (!isModelMessage(message)) continue;
    let written: Message = message;
    if (written.role === 'toolResult' && hooks.has('tool_result_persist')) {
      written = hooks.runSync('tool_result_persist', { sessionKey, agentId, message: written }).message;
    }
    if (hooks.has('before_message_write')) {
      const outcome = hooks.runSync('before_message_write', { sessionKey, agentId, message: written });
      if (outcome.block) continue;
      written = outcome.message;
    }
    entries.push({ type: 'message', message: written });
  }
  if (marker !== undefined) entries.push({ type: 'custom', customType: answeredMarkerType, data: marker });
  if (entries.length === 0) return;
  await services.store.appendEntries(sessionKey, entries, {
    expectedSessionId: turn.sessionId,
    patch: {
      lastInteractionAt: services.now(),
      lastRoute:
        route === undefined
          ? undefined
          : {
              channel: route.channel,
              accountId: route.accountId,
              to: route.peer.id,
              peerKind: route.peer.kind,
              threadId: route.threadId,
            },
      ...(marker === undefined || turn.pin === undefined ? {} : { metadata: { authPin: turn.pin } }),
      modelProvider: turn.provider,
      model: turn.model,
      ...(usage.calls === 0 ? {} : { contextTokens: usage.contextTokens }),
      addUsage:
        marker === undefined
          ? undefined
          : {
              input: usage.input,
              output: usage.output,
              cacheRead: usage.cacheRead,
              cacheWrite: usage.cacheWrite,
              costUsd: usage.cost.total,
            },
    },
  });
}
