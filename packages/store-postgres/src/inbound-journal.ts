/**
 * The inbound journal on PostgreSQL. Each record carries the store instance that owns it
 * (journaled it or took it over). `listUnfinishedInbound` returns this instance's own
 * unfinished records plus those of instances that are gone, and takes the latter over in the
 * same statement (`FOR UPDATE SKIP LOCKED`), so each orphaned record goes to exactly one
 * surviving instance.
 */
import {
  assertInboundTransition,
  describeInbound,
  encodeInboundPayload,
  type InboundJournalStore,
  type InboundRecord,
  type InboundRow,
  inboundFromRow,
  type JournalInboundInput,
  type JournalInboundResult,
  requireRef,
  requireState,
  SessionsError,
} from '@switchboard/sessions';
import type { Database, Queryable } from './database.ts';

/**
 * SQL condition: the record's channel account is not leased to a replica other than `owner`
 * (decision 0021, one consumer per channel account). A gone replica's records of a polling
 * account are taken over by the replica that takes the account over, which can send their
 * replies; records of accounts without a lease (webhooks, the protocol) go to anyone.
 */
export function notLeasedByAnother(table: string, owner: string): string {
  return `NOT EXISTS (SELECT 1 FROM channel_leases l WHERE l.channel = ${table}.channel
            AND l.account_id = ${table}.account_id AND l.owner_id <> ${owner})`;
}

function byReceipt(left: InboundRecord, right: InboundRecord): number {
  return (
    left.receivedAt - right.receivedAt ||
    compare(left.channel, right.channel) ||
    compare(left.accountId, right.accountId) ||
    compare(left.messageId, right.messageId)
  );
}

function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * Journals one inbound message inside the caller's transaction (the plain operation, and the
 * fenced one of channel leases). Contract: inserts the record owned by `ownerId`, or answers
 * the existing one as a duplicate.
 */
export async function journalInboundIn(
  client: Queryable,
  input: JournalInboundInput,
  ownerId: string,
  now: () => number,
): Promise<JournalInboundResult> {
  const ref = requireRef(input, 'input');
  const payload = encodeInboundPayload(ref, input.payload);
  const at = input.receivedAt ?? now();
  const inserted = await client.query<InboundRow>(
    `INSERT INTO inbound_journal (channel, account_id, message_id, state, session_key, received_at, updated_at, payload, owner_id)
     VALUES ($1, $2, $3, 'received', $4, $5, $5, $6, $7)
     ON CONFLICT (channel, account_id, message_id) DO NOTHING RETURNING *`,
    [ref.channel, ref.accountId, ref.messageId, input.sessionKey ?? null, at, payload, ownerId],
  );
  if (inserted.rows[0] !== undefined) {
    return { duplicate: false, record: inboundFromRow(inserted.rows[0]) };
  }
  const { rows } = await client.query<InboundRow>(
    'SELECT * FROM inbound_journal WHERE channel = $1 AND account_id = $2 AND message_id = $3',
    [ref.channel, ref.accountId, ref.messageId],
  );
  if (rows[0] === undefined) throw new Error(`inbound record ${describeInbound(ref)} vanished after insert`);
  return { duplicate: true, record: inboundFromRow(rows[0]) };
}

export function createInboundJournal(database: Database): InboundJournalStore {
  const { now, ownerId } = database;
  return {
    journalInbound(input) {
      return database.transaction('journalInbound', (client) =>
        journalInboundIn(client, input, ownerId, now),
      );
    },

    async getInbound(ref) {
      const checked = requireRef(ref, 'ref');
      const rows = await database.query<InboundRow>(
        'getInbound',
        'SELECT * FROM inbound_journal WHERE channel = $1 AND account_id = $2 AND message_id = $3',
        [checked.channel, checked.accountId, checked.messageId],
      );
      return rows[0] === undefined ? undefined : inboundFromRow(rows[0]);
    },

    async updateInbound(ref, state, options = {}) {
      const checked = requireRef(ref, 'ref');
      requireState(state, 'state');
      return database.transaction('updateInbound', async (client) => {
        // Fenced by the instance lock, checked by the database in the same transaction: a
        // replica cut off from PostgreSQL (its backends terminated, a pause) may reconnect its
        // pool before it notices its lock is gone, and must not close a record the replica
        // taking over its work is about to resume (decision 0021).
        const { rows } = await client.query<InboundRow & { self_alive: boolean }>(
          `SELECT *, switchboard_owner_alive($4) AS self_alive FROM inbound_journal
           WHERE channel = $1 AND account_id = $2 AND message_id = $3 FOR UPDATE`,
          [checked.channel, checked.accountId, checked.messageId, ownerId],
        );
        if (rows[0] !== undefined && !rows[0].self_alive) throw database.lockLost('updateInbound');
        if (rows[0] === undefined) {
          throw new SessionsError(
            'SESSIONS_JOURNAL_NOT_FOUND',
            `No inbound journal record exists for ${describeInbound(checked)}.`,
            { details: { ...checked } },
          );
        }
        const current = inboundFromRow(rows[0]);
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
        await client.query(
          `UPDATE inbound_journal SET state = $1, updated_at = $2, attempts = $3, error = $4, session_key = $5
           WHERE channel = $6 AND account_id = $7 AND message_id = $8`,
          [
            next.state,
            next.updatedAt,
            next.attempts,
            next.error ?? null,
            next.sessionKey ?? null,
            checked.channel,
            checked.accountId,
            checked.messageId,
          ],
        );
        return next;
      });
    },

    async listUnfinishedInbound(options = {}) {
      // Rows another live instance owns are left alone; rows a concurrent takeover has locked
      // are skipped (that instance gets them). An instance that lost its own lock takes nothing.
      // Messages of a polling account leased to another replica wait for that replica: it is
      // the one running the account, so the only one that can send their replies.
      const rows = await database.query<InboundRow>(
        'listUnfinishedInbound',
        `WITH candidates AS (
           SELECT channel, account_id, message_id FROM inbound_journal
           WHERE state IN ('received', 'queued', 'running') AND received_at >= $1
             AND switchboard_owner_alive($2)
             AND (owner_id = $2 OR ((owner_id IS NULL OR NOT switchboard_owner_alive(owner_id))
                                    AND ${notLeasedByAnother('inbound_journal', '$2')}))
           ORDER BY received_at, channel, account_id, message_id
           LIMIT $3
           FOR UPDATE SKIP LOCKED)
         UPDATE inbound_journal j SET owner_id = $2
         FROM candidates c
         WHERE j.channel = c.channel AND j.account_id = c.account_id AND j.message_id = c.message_id
         RETURNING j.*`,
        [options.receivedSince ?? 0, ownerId, options.limit ?? null],
      );
      return rows.map(inboundFromRow).sort(byReceipt);
    },
  };
}
