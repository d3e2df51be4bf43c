// The one owner of the inbound journal's transitions (decision 0004):
//   received ──▶ queued ──▶ replied | failed
// Inbound admission journals (`received`), the dispatcher's enqueue marks `queued`, and a
// turn, a directive, a claim, a compaction, a recovery re-delivery or a queue drop closes the
// records (`replied` / `failed` with the reason). Nobody else calls the store's
// `journalInbound` / `updateInbound`.
import type { Logger } from '@switchboard/hooks';
import type { InboundRecord, InboundRef, SessionStore } from '@switchboard/sessions';
import { refKey } from './turn-input.ts';

export interface InboundJournal {
  /** Journals a message before it is acknowledged; a duplicate id comes back `duplicate`. */
  received(input: Parameters<SessionStore['journalInbound']>[0]): ReturnType<SessionStore['journalInbound']>;
  /** The dispatcher took it into a session's queue. */
  queued(ref: InboundRef, sessionKey: string): Promise<void>;
  /** Answered (a turn, a directive, a claim, a compaction, a re-delivery). */
  replied(refs: readonly InboundRef[], options?: { readonly sessionKey?: string }): Promise<void>;
  /** Ended without an answer, with the reason. */
  failed(refs: readonly InboundRef[], reason: string | undefined): Promise<void>;
  /** The records the last process left open (recovery). */
  unfinished(): Promise<InboundRecord[]>;
}

export interface InboundJournalOptions {
  readonly store: SessionStore;
  readonly logger: Logger;
}

export function createInboundJournal(options: InboundJournalOptions): InboundJournal {
  const { store, logger } = options;

  /** A transition that cannot be written is logged: the record stays open and recovery resumes it. */
  async function update(
    ref: InboundRef,
    state: 'queued' | 'replied' | 'failed',
    extra: { error?: string; sessionKey?: string },
  ): Promise<void> {
    await store.updateInbound(ref, state, extra).catch((failure: unknown) => {
      logger.warn('could not update the inbound journal', {
        ref: refKey(ref),
        state,
        error: String(failure),
      });
    });
  }

  return {
    received: (input) => store.journalInbound(input),
    queued: (ref, sessionKey) => update(ref, 'queued', { sessionKey }),
    async replied(refs, replyOptions = {}) {
      await Promise.all(
        refs.map((ref) =>
          update(
            ref,
            'replied',
            replyOptions.sessionKey === undefined ? {} : { sessionKey: replyOptions.sessionKey },
          ),
        ),
      );
    },
    async failed(refs, reason) {
      await Promise.all(
        refs.map((ref) => update(ref, 'failed', reason === undefined ? {} : { error: reason })),
      );
    },
    unfinished: () => store.listUnfinishedInbound(),
  };
}
