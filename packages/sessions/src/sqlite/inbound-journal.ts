/** The inbound journal on SQLite: `inbound_journal`. */
import { SessionsError } from '../errors.ts';
import { assertInboundTransition, describeInbound } from '../journal.ts';
import type { InboundJournalStore } from '../session-store.ts';
import { encodeInboundPayload, requireRef, requireState } from '../store-arguments.ts';
import { type InboundRow, inboundFromRow } from '../store-rows.ts';
import type {
  InboundRecord,
  InboundRef,
  InboundState,
  JournalInboundInput,
  JournalInboundResult,
  ListUnfinishedOptions,
  UpdateInboundOptions,
} from '../types.ts';
import type { SqliteStoreContext } from './store-context.ts';

export function createSqliteInboundJournal(context: SqliteStoreContext): InboundJournalStore {
  const { now, statement, sql, run, write, getInboundRow } = context;
  return {
    async journalInbound(input: JournalInboundInput): Promise<JournalInboundResult> {
      return write('journalInbound', () => {
        const ref = requireRef(input, 'input');
        const payload = encodeInboundPayload(ref, input.payload);
        const at = input.receivedAt ?? now();
        const inserted = statement(sql.insertInbound).run(
          ref.channel,
          ref.accountId,
          ref.messageId,
          input.sessionKey ?? null,
          at,
          at,
          payload,
        );
        const record = getInboundRow(ref);
        if (record === undefined)
          throw new Error(`inbound record ${describeInbound(ref)} vanished after insert`);
        return Number(inserted.changes) === 1 ? { duplicate: false, record } : { duplicate: true, record };
      });
    },

    async getInbound(ref: InboundRef): Promise<InboundRecord | undefined> {
      return run('getInbound', () => getInboundRow(requireRef(ref, 'ref')));
    },

    async updateInbound(
      ref: InboundRef,
      state: InboundState,
      options: UpdateInboundOptions = {},
    ): Promise<InboundRecord> {
      return write('updateInbound', () => {
        const checked = requireRef(ref, 'ref');
        requireState(state, 'state');
        const current = getInboundRow(checked);
        if (current === undefined) {
          throw new SessionsError(
            'SESSIONS_JOURNAL_NOT_FOUND',
            `No inbound journal record exists for ${describeInbound(checked)}.`,
            { details: { ...checked } },
          );
        }
        assertInboundTransition(checked, current.state, state);
        const next: InboundRecord = {
          ...current,
          state,
          updatedAt: now(),
          attempts:
            state === 'running' && current.state !== 'running' ? current.attempts + 1 : current.attempts,
          error: options.error ?? (state === current.state ? current.error : undefined),
          sessionKey: options.sessionKey ?? current.sessionKey,
        };
        statement(sql.updateInbound).run(
          next.state,
          next.updatedAt,
          next.attempts,
          next.error ?? null,
          next.sessionKey ?? null,
          checked.channel,
          checked.accountId,
          checked.messageId,
        );
        return next;
      });
    },

    async listUnfinishedInbound(options: ListUnfinishedOptions = {}): Promise<InboundRecord[]> {
      return run('listUnfinishedInbound', () => {
        const rows = statement(sql.unfinishedInbound).all(
          options.receivedSince ?? 0,
          options.limit ?? -1,
        ) as unknown as InboundRow[];
        return rows.map(inboundFromRow);
      });
    },
  };
}
