import type { Timers } from '@switchboard/hooks';
import type { DeliveryError } from './errors.ts';

/** One outbound message: a streamed block or a final reply. */
export interface DeliveryPayload {
  readonly text: string;
  /** `block`: streamed while the model writes; `final`: sent after the run. */
  readonly kind: 'block' | 'final';
  /** The platform message id this reply answers, when threading replies. */
  readonly replyToId?: string;
  readonly mediaUrls?: readonly string[];
}

/** Passed with every send. `signal` aborts when the send times out. */
export interface DeliverySendContext {
  readonly signal: AbortSignal;
  /** 0-based position of this payload among the sends of the pipeline. */
  readonly index: number;
}

/** What a send may report besides plain success: that a hook (`message_sending`) cancelled it. */
export interface DeliverySendResult {
  readonly cancelled: true;
  readonly reason?: string;
}

/**
 * The injected send: in the gateway it runs `message_sending` hooks, the channel send and
 * `message_sent`. It may throw; the pipeline reports the failure and carries on.
 */
/** What a send returns. Nothing (`void`) means delivered; `{ cancelled: true }` reports a hook cancellation. */
// biome-ignore lint/suspicious/noConfusingVoidType: a send that returns nothing delivered its payload.
type DeliverySendOutcome = DeliverySendResult | void;

export type DeliverySend = (
  payload: DeliveryPayload,
  context: DeliverySendContext,
) => Promise<DeliverySendOutcome> | DeliverySendOutcome;

/** Timer functions, injectable so tests drive time by hand: the timer half of the shared `Timers`. */
export type DeliveryTimers = Pick<Timers, 'setTimeout' | 'clearTimeout'>;

/** Why a piece of reply text was not sent. */
export type SuppressionReason =
  /** The assistant message was the silent token (NO_REPLY); counted once per message. */
  | 'silent'
  /** The run expects silence (memory flush, background turn): all assistant text is dropped. */
  | 'expected-silence'
  /** The same block was already emitted for this assistant message. */
  | 'repeated'
  /** An identical payload (text, media, reply target) is in flight or was sent. */
  | 'duplicate'
  /** The text repeats what the `message` tool already sent. */
  | 'messaging-tool-text'
  /** The `message` tool already answered this conversation; final replies are dropped. */
  | 'messaging-tool-same-origin'
  /** A final reply that block streaming already delivered. */
  | 'already-streamed'
  /** A block skipped because an earlier send timed out (order is preserved by skipping). */
  | 'pipeline-aborted'
  /** Text left undelivered because the run was aborted (`/stop`). */
  | 'run-aborted';

export const suppressionReasons: readonly SuppressionReason[] = [
  'silent',
  'expected-silence',
  'repeated',
  'duplicate',
  'messaging-tool-text',
  'messaging-tool-same-origin',
  'already-streamed',
  'pipeline-aborted',
  'run-aborted',
];

/** What happened to outbound text, for logs and metrics. */
export type DeliveryEvent =
  | { readonly type: 'sent'; readonly payload: DeliveryPayload; readonly index: number }
  | {
      readonly type: 'cancelled';
      readonly payload: DeliveryPayload;
      readonly index: number;
      readonly reason: string | undefined;
    }
  | {
      readonly type: 'failed';
      readonly payload: DeliveryPayload;
      readonly index: number;
      readonly error: DeliveryError;
    }
  | {
      readonly type: 'timed_out';
      readonly payload: DeliveryPayload;
      readonly index: number;
      readonly error: DeliveryError;
    }
  | {
      readonly type: 'suppressed';
      readonly reason: SuppressionReason;
      readonly kind: 'block' | 'final';
      readonly text: string;
    };

export type DeliveryEventListener = (event: DeliveryEvent) => void;

export { systemTimers } from '@switchboard/hooks';
