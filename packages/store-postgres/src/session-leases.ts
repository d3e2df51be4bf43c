/**
 * Session leases: which replica runs a session's turns (decision 0021, per-session
 * serialization). One row per busy session names its owner. A replica admitting a message
 * locks the row (`FOR UPDATE`): when a live other replica owns it, the message's journal
 * record is handed to that owner (owner id, session key and the payload the owner will run)
 * and the owner is woken with NOTIFY; otherwise the admitting replica holds (or takes) the
 * lease and gets back every unfinished record of the session it now owns — those handed
 * over earlier, and those of a gone owner, taken over in the same transaction — so it runs
 * them before the new one, in the order they were received. Admissions of one session are
 * serialized by the row lock, so a hand-over is visible to the next admission.
 */
import {
  encodeInboundPayload,
  type InboundRecord,
  type InboundRef,
  type InboundRow,
  inboundFromRow,
  SessionsError,
} from '@switchboard/sessions';
import type { Database, Queryable } from './database.ts';
import { notLeasedByAnother } from './inbound-journal.ts';

/** The NOTIFY channel that wakes a lease owner; the payload is `<owner id> <session key>`. */
export const workChannel = 'switchboard_session_work';

/** A journal record to hand to the session's owner, with the payload the owner runs. */
export interface HandOver {
  readonly ref: InboundRef;
  /** Replaces the record's payload (undefined keeps it). */
  readonly payload?: unknown;
}

/** Who runs the session after an admission. */
export type SessionAdmission =
  | {
      readonly owner: 'self';
      /** Unfinished records of the session this replica owns, oldest first (may include the admitted ones). */
      readonly pending: readonly InboundRecord[];
    }
  | { readonly owner: 'other'; readonly ownerId: string };

/** A lease as `status` lists it. */
export interface SessionLease {
  readonly sessionKey: string;
  readonly ownerId: string;
  readonly acquiredAt: number;
}

/**
 * The lease operations. Contract: `admitToSession` never lets two live replicas both answer
 * `self` for one session key; `releaseSession` deletes the lease only when no unfinished
 * record of the session is owned by this replica (a hand-over that raced the release keeps
 * it), and answers whether it did.
 */
export interface SessionLeaseStore {
  admitToSession(sessionKey: string, handOver: readonly HandOver[]): Promise<SessionAdmission>;
  releaseSession(sessionKey: string): Promise<boolean>;
  listSessionLeases(): Promise<SessionLease[]>;
  /** The live owner's lease of `sessionKey`, or undefined when no live replica holds it. */
  getSessionLease(sessionKey: string): Promise<SessionLease | undefined>;
}

const unfinished = `state IN ('received', 'queued', 'running')`;

async function lockLease(client: Queryable, sessionKey: string, ownerId: string, at: number) {
  let row: { owner_id: string; owner_alive: boolean; self_alive: boolean } | undefined;
  // The insert finds another replica's lease, which that replica deletes (its session went
  // idle) before the lock below: the row is gone, so the next insert takes it (each statement
  // sees what committed before it, READ COMMITTED). Three tries, then the caller's retry.
  for (let attempt = 0; attempt < 3 && row === undefined; attempt += 1) {
    await client.query(
      'INSERT INTO session_leases (session_key, owner_id, acquired_at) VALUES ($1, $2, $3) ON CONFLICT (session_key) DO NOTHING',
      [sessionKey, ownerId, at],
    );
    const { rows } = await client.query<{ owner_id: string; owner_alive: boolean; self_alive: boolean }>(
      `SELECT owner_id, switchboard_owner_alive(owner_id) AS owner_alive, switchboard_owner_alive($2) AS self_alive
       FROM session_leases WHERE session_key = $1 FOR UPDATE`,
      [sessionKey, ownerId],
    );
    row = rows[0];
  }
  if (row === undefined)
    throw new Error(`session lease ${sessionKey} was released three times while being taken`);
  if (!row.self_alive) {
    throw new SessionsError(
      'SESSIONS_LOCK_LOST',
      `This gateway no longer holds its instance lock, so it cannot take the session ${sessionKey}. Restart the gateway.`,
      { details: { ownerId, sessionKey } },
    );
  }
  return row;
}

export function createSessionLeases(database: Database): SessionLeaseStore {
  const { ownerId, now } = database;
  return {
    admitToSession(sessionKey, handOver) {
      return database.transaction('admitToSession', async (client) => {
        const lease = await lockLease(client, sessionKey, ownerId, now());
        if (lease.owner_id !== ownerId && lease.owner_alive) {
          for (const item of handOver) {
            const payload =
              item.payload === undefined ? undefined : encodeInboundPayload(item.ref, item.payload);
            await client.query(
              `UPDATE inbound_journal SET owner_id = $1, session_key = $2, updated_at = $3,
                 payload = COALESCE($4, payload)
               WHERE channel = $5 AND account_id = $6 AND message_id = $7 AND ${unfinished}`,
              [
                lease.owner_id,
                sessionKey,
                now(),
                payload ?? null,
                item.ref.channel,
                item.ref.accountId,
                item.ref.messageId,
              ],
            );
          }
          if (handOver.length > 0)
            await client.query('SELECT pg_notify($1, $2)', [workChannel, `${lease.owner_id} ${sessionKey}`]);
          return { owner: 'other' as const, ownerId: lease.owner_id };
        }
        if (lease.owner_id !== ownerId) {
          await client.query(
            'UPDATE session_leases SET owner_id = $2, acquired_at = $3 WHERE session_key = $1',
            [sessionKey, ownerId, now()],
          );
        }
        // The admitted records are this replica's; a gone owner's unfinished ones are taken over.
        for (const item of handOver) {
          await client.query(
            `UPDATE inbound_journal SET session_key = $1 WHERE channel = $2 AND account_id = $3 AND message_id = $4 AND session_key IS NULL`,
            [sessionKey, item.ref.channel, item.ref.accountId, item.ref.messageId],
          );
        }
        // Every unfinished record of the session is this replica's now, whoever owned it: a gone
        // owner's, and a live replica's that took it over (a poll) or received it but has not
        // admitted it yet — without the lease it cannot be running there, and its admission
        // will find this replica's lease and hand it over. So they run here in receipt order.
        await client.query(
          `UPDATE inbound_journal SET owner_id = $2
           WHERE session_key = $1 AND ${unfinished} AND owner_id IS DISTINCT FROM $2
             AND ${notLeasedByAnother('inbound_journal', '$2')}`,
          [sessionKey, ownerId],
        );
        const { rows } = await client.query<InboundRow>(
          `SELECT * FROM inbound_journal WHERE session_key = $1 AND owner_id = $2 AND ${unfinished}
           ORDER BY received_at, channel, account_id, message_id`,
          [sessionKey, ownerId],
        );
        return { owner: 'self' as const, pending: rows.map(inboundFromRow) };
      });
    },

    releaseSession(sessionKey) {
      return database.transaction('releaseSession', async (client) => {
        // Lock first: a hand-over in flight commits before the check below reads the journal.
        const { rows } = await client.query<{ owner_id: string }>(
          'SELECT owner_id FROM session_leases WHERE session_key = $1 AND owner_id = $2 FOR UPDATE',
          [sessionKey, ownerId],
        );
        if (rows[0] === undefined) return true;
        const waiting = await client.query<{ count: number }>(
          `SELECT COUNT(*)::int AS count FROM inbound_journal WHERE session_key = $1 AND owner_id = $2 AND ${unfinished}`,
          [sessionKey, ownerId],
        );
        if ((waiting.rows[0]?.count ?? 0) > 0) return false;
        await client.query('DELETE FROM session_leases WHERE session_key = $1 AND owner_id = $2', [
          sessionKey,
          ownerId,
        ]);
        return true;
      });
    },

    async getSessionLease(sessionKey) {
      const rows = await database.query<{ session_key: string; owner_id: string; acquired_at: number }>(
        'getSessionLease',
        `SELECT session_key, owner_id, acquired_at FROM session_leases
         WHERE session_key = $1 AND switchboard_owner_alive(owner_id)`,
        [sessionKey],
      );
      const row = rows[0];
      return row === undefined
        ? undefined
        : { sessionKey: row.session_key, ownerId: row.owner_id, acquiredAt: row.acquired_at };
    },

    async listSessionLeases() {
      const rows = await database.query<{ session_key: string; owner_id: string; acquired_at: number }>(
        'listSessionLeases',
        `SELECT session_key, owner_id, acquired_at FROM session_leases
         WHERE switchboard_owner_alive(owner_id) ORDER BY owner_id, session_key`,
      );
      return rows.map((row) => ({
        sessionKey: row.session_key,
        ownerId: row.owner_id,
        acquiredAt: row.acquired_at,
      }));
    },
  };
}
