// Recovery, per journal record (decision 0004): the answered-markers of a session's turns,
// and settling recovered inputs a stored turn already answered.
import type { SessionStore } from '@switchboard/sessions';
import { crashPoint } from '../crash-points.ts';
import { refKey, type TurnInput } from '../turn-input.ts';
import { type ReplyBridge, replyTarget } from './reply-bridge.ts';

/** The transcript marker written with every answered turn (decision 0004). */
export const answeredMarkerType = 'inbound-answered';

export interface AnsweredMarker {
  /** Every journal ref the turn answers: its batch, the summarized messages and steered ones. */
  readonly refs: readonly string[];
  readonly runId: string;
  readonly replies: readonly string[];
  /**
   * The base of the reply's delivery-receipt keys (`<base>:final:<chunk>`). Absent in markers
   * written before it existed, whose base was their last ref.
   */
  readonly deliveryKey?: string;
}

/** The delivery-key base a marker's reply was sent under (decision 0004). */
function deliveryKeyOf(marker: AnsweredMarker): string {
  return marker.deliveryKey ?? marker.refs[marker.refs.length - 1] ?? marker.runId;
}

export interface RecoveryServices {
  readonly store: SessionStore;
  readonly replies: ReplyBridge;
  /** Marks journal records replied. */
  readonly markReplied: (inputs: readonly TurnInput[]) => Promise<void>;
}

export interface Recovery {
  /**
   * Each recovered input that a persisted turn already answered gets that turn's stored reply
   * re-delivered under the turn's own delivery keys (receipts skip what was sent) and is marked
   * replied. Returns the inputs no turn answered yet: only those reach the model.
   */
  settleAnswered(
    inputs: readonly TurnInput[],
    sessionKey: string,
    agentId: string,
  ): Promise<{ unanswered: TurnInput[]; markers: AnsweredMarker[] }>;
}

export function createRecovery(services: RecoveryServices): Recovery {
  const { store } = services;

  /** The answered-markers of the session's recent turns, by each ref they answer. */
  async function answeredMarkers(sessionKey: string): Promise<Map<string, AnsweredMarker>> {
    const byRef = new Map<string, AnsweredMarker>();
    const session = await store.getSession(sessionKey);
    if (session === undefined) return byRef;
    const info = await store.getTranscript(session.sessionId);
    if (info === undefined) return byRef;
    const entries = await store.readTranscript(session.sessionId, {
      fromSequence: Math.max(1, info.lastSequence - 400),
      types: ['custom'],
    });
    for (const entry of entries) {
      if (entry?.type !== 'custom' || entry.customType !== answeredMarkerType) continue;
      const marker = entry.data as AnsweredMarker;
      for (const ref of marker.refs) byRef.set(ref, marker);
    }
    return byRef;
  }

  async function redeliver(
    input: TurnInput,
    marker: AnsweredMarker,
    sessionKey: string,
    agentId: string,
  ): Promise<void> {
    const session = await store.getSession(sessionKey);
    await services.replies.redeliver(
      input,
      replyTarget(input, session),
      { sessionKey, agentId, runId: marker.runId },
      deliveryKeyOf(marker),
      marker.replies,
    );
  }

  return {
    async settleAnswered(inputs, sessionKey, agentId) {
      const byRef = await answeredMarkers(sessionKey);
      const groups = new Map<AnsweredMarker, TurnInput[]>();
      const unanswered: TurnInput[] = [];
      for (const input of inputs) {
        const marker = input.recovered === true ? byRef.get(refKey(input.ref)) : undefined;
        if (marker === undefined) unanswered.push(input);
        else groups.set(marker, [...(groups.get(marker) ?? []), input]);
      }
      for (const [marker, answered] of groups) {
        await redeliver(answered[answered.length - 1]!, marker, sessionKey, agentId);
        crashPoint('after-redelivery');
        await services.markReplied(answered);
      }
      return { unanswered, markers: [...groups.keys()] };
    },
  };
}
