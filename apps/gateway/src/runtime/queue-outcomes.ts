/**
 * What the gateway does when the session queue lets go of a message without running it
 * (the dispatcher's `dropped` and `summarized` events): settles the journal record, ends a
 * protocol client's run, tells the sender, and records the decision for `status`.
 *
 * - `summarized` is not a loss: the message rides in the next turn of its own conversation,
 *   which marks it replied. Its journal record stays open until then (a crash re-runs it).
 * - `duplicate` means the same message is already queued: the queued copy answers it, so the
 *   journal record is left alone.
 * - `cap-new` / `cap-old` (a full queue under `drop: new|old`): the record fails with the
 *   reason and the sender is told in their chat that the message was not read.
 * - `cleared` (`/stop`, `/new`, interrupt) and `busy` (heartbeats): the record fails with the
 *   reason; the user asked for it, so no notice.
 */
import type { Logger } from '@switchboard/hooks';
import type { DispatcherEvent } from '@switchboard/sessions';
import type { InboundJournal } from './journal.ts';
import type { NotAnsweredLog } from './not-answered.ts';
import type { SendOutbound } from './outbound.ts';
import type { RunRegistry } from './runs.ts';
import { refKey, type TurnInput } from './turn-input.ts';

export interface QueueOutcomeDependencies {
  /** Closes the dropped messages' journal records. */
  readonly journal: InboundJournal;
  readonly runs: RunRegistry;
  readonly send: SendOutbound;
  readonly logger: Logger;
  readonly notAnswered: NotAnsweredLog;
  /** The queue cap that applies to a channel, for the notice. */
  readonly capFor: (channel: string) => number;
}

/** Handles the dispatcher events that end or defer a message; ignores the others. */
export function createQueueOutcomes(
  dependencies: QueueOutcomeDependencies,
): (event: DispatcherEvent<TurnInput>) => void {
  const { journal, runs, send, logger, notAnswered } = dependencies;

  function notifySender(input: TurnInput): void {
    if (input.origin !== 'channel' || input.peer === undefined) return;
    const excerpt = input.text.length > 80 ? `${input.text.slice(0, 79)}…` : input.text;
    const text = `⚠️ Too many messages are waiting in this conversation (limit ${dependencies.capFor(input.channel)}), so this one was not read: “${excerpt}”. Please send it again in a moment.`;
    void send(
      {
        kind: 'text',
        channel: input.channel,
        accountId: input.accountId,
        peer: input.peer,
        threadId: input.threadId,
        ...(input.chatType === 'direct' || input.replyToMessageId === undefined
          ? {}
          : { replyToMessageId: input.replyToMessageId }),
        text,
      },
      { idempotencyKey: `${refKey(input.ref)}:dropped` },
    ).catch((error: unknown) =>
      logger.warn('could not tell a sender their message was dropped', {
        ref: refKey(input.ref),
        error: String(error),
      }),
    );
  }

  return (event) => {
    if (event.type === 'summarized') {
      logger.info('queue full: messages summarized into the next turn of their conversation', {
        sessionKey: event.sessionKey,
        count: event.messages.length,
      });
      return;
    }
    if (event.type !== 'dropped') return;
    for (const message of event.messages) {
      const input = message.payload;
      const first = notAnswered.record({
        reason:
          event.reason === 'duplicate'
            ? 'duplicate'
            : event.reason === 'busy'
              ? 'session-busy'
              : event.reason === 'cleared'
                ? 'queue-cleared'
                : 'queue-full',
        detail: event.reason,
        channel: input.channel,
        accountId: input.accountId,
        chatId: input.peer?.id,
        senderId: input.senderId,
        messageId: input.ref.messageId,
        sessionKey: event.sessionKey,
      });
      if (event.reason === 'duplicate') continue;
      if (event.reason === 'cap-new' || event.reason === 'cap-old') {
        (first ? logger.info : logger.debug)('queue full: a message was dropped and its sender told', {
          sessionKey: event.sessionKey,
          ref: refKey(input.ref),
          policy: event.reason,
        });
        notifySender(input);
      }
      void journal.failed([input.ref], `dropped from the queue (${event.reason})`);
      const run = input.runId === undefined ? undefined : runs.get(input.runId);
      if (run !== undefined && run.outcome === undefined) {
        runs.finish(run.runId, { status: 'aborted', runId: run.runId, reason: `dropped (${event.reason})` });
      }
    }
  };
}
