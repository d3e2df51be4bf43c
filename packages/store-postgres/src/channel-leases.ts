/**
 * Channel-account leases: one consumer per polling channel account across replicas
 * (decision 0021, "One consumer per channel account"). A replica consumes an account only
 * while it holds the account's lease; the lease is free once its owner is gone
 * (`switchboard_owner_alive`, the instance lock), and every change of owner increments the
 * fencing token. Writes made on behalf of the account (the polling offset, a send's claim)
 * go through `putStateFenced`, which commits only while the token is still current, so a
 * replica that was paused past its lease cannot move the offset back or act twice.
 */
import {
  type DeliveryClaim,
  type DeliveryDetails,
  encodeStateValue,
  type JournalInboundInput,
  type JournalInboundResult,
  requireKey,
} from '@switchboard/sessions';
import type { Database, Queryable } from './database.ts';
import { claimDeliveryIn } from './delivery-receipts.ts';
import { StorePostgresError } from './errors.ts';
import { journalInboundIn } from './inbound-journal.ts';

/** The lease a replica holds on one channel account. */
export interface ChannelLease {
  readonly channel: string;
  readonly accountId: string;
  readonly fencingToken: number;
}

/** Who holds an account's lease, as `status` lists it. */
export interface ChannelLeaseHolder extends ChannelLease {
  readonly ownerId: string;
  readonly acquiredAt: number;
}

/**
 * The channel-lease operations. Contract: at most one live replica holds an account's lease;
 * `acquireChannelLease` answers the lease when this replica holds it or took it (a new,
 * larger token after a take-over) and undefined when a live other replica holds it;
 * `putStateFenced` writes only while `lease.fencingToken` is the account's current token and
 * rejects with STORE_POSTGRES_FENCED otherwise; `journalInboundFenced` and
 * `claimDeliveryFenced` are `journalInbound` and `claimDelivery` with the same check in the
 * same transaction (the lease row is locked `FOR SHARE`, so a take-over waits for them to
 * commit and a write after the take-over is refused); `releaseChannelLease` gives the lease up.
 */
export interface ChannelLeaseStore {
  acquireChannelLease(channel: string, accountId: string): Promise<ChannelLease | undefined>;
  putStateFenced(lease: ChannelLease, namespace: string, key: string, value: unknown): Promise<void>;
  /** Journals a message the account consumed: its consumption commits only under the current token. */
  journalInboundFenced(lease: ChannelLease, input: JournalInboundInput): Promise<JournalInboundResult>;
  /** Claims a send on the account: refused under a stale token, so a woken replica cannot send again. */
  claimDeliveryFenced(lease: ChannelLease, key: string, details?: DeliveryDetails): Promise<DeliveryClaim>;
  releaseChannelLease(lease: ChannelLease): Promise<void>;
  listChannelLeases(): Promise<ChannelLeaseHolder[]>;
}

function fencedError(lease: ChannelLease, what: string): StorePostgresError {
  return new StorePostgresError(
    'STORE_POSTGRES_FENCED',
    `The lease on ${lease.channel} account ${lease.accountId} (fencing token ${lease.fencingToken}) is no longer this replica's: another replica took the account over. ${what} was not written; stop consuming this account.`,
    { details: { ...lease } },
  );
}

/**
 * Locks the lease row for the caller's transaction, or rejects when `lease` is no longer
 * current: another replica took it (a newer token), or this replica lost its instance lock (the
 * others may take it at any moment).
 */
async function requireCurrentLease(
  client: Queryable,
  lease: ChannelLease,
  ownerId: string,
  what: string,
): Promise<void> {
  const { rows } = await client.query<{ fencing_token: number }>(
    `SELECT fencing_token FROM channel_leases
     WHERE channel = $1 AND account_id = $2 AND owner_id = $3 AND fencing_token = $4
       AND switchboard_owner_alive($3) FOR SHARE`,
    [lease.channel, lease.accountId, ownerId, lease.fencingToken],
  );
  if (rows.length === 0) throw fencedError(lease, what);
}

export function createChannelLeases(database: Database): ChannelLeaseStore {
  const { ownerId, now } = database;
  return {
    async acquireChannelLease(channel, accountId) {
      requireKey(channel, 'channel');
      requireKey(accountId, 'accountId');
      // Insert, keep (ours), or take over (owner gone: token + 1) in one statement; a live
      // other owner leaves the row untouched and nothing is returned.
      const rows = await database.query<{ fencing_token: number }>(
        'acquireChannelLease',
        `INSERT INTO channel_leases (channel, account_id, owner_id, fencing_token, acquired_at)
         VALUES ($1, $2, $3, 1, $4)
         ON CONFLICT (channel, account_id) DO UPDATE
           SET owner_id = excluded.owner_id,
               fencing_token = channel_leases.fencing_token
                 + CASE WHEN channel_leases.owner_id = excluded.owner_id THEN 0 ELSE 1 END,
               acquired_at = CASE WHEN channel_leases.owner_id = excluded.owner_id
                 THEN channel_leases.acquired_at ELSE excluded.acquired_at END
           WHERE switchboard_owner_alive($3)
             AND (channel_leases.owner_id = excluded.owner_id OR NOT switchboard_owner_alive(channel_leases.owner_id))
         RETURNING fencing_token`,
        [channel, accountId, ownerId, now()],
      );
      const token = rows[0]?.fencing_token;
      return token === undefined ? undefined : { channel, accountId, fencingToken: token };
    },

    async putStateFenced(lease, namespace, key, value) {
      requireKey(namespace, 'namespace');
      requireKey(key, 'key');
      const { json, expiresAt } = encodeStateValue(namespace, key, value, {});
      const rows = await database.query<{ key: string }>(
        'putStateFenced',
        `INSERT INTO state_records (namespace, key, value, updated_at, expires_at)
         SELECT $1, $2, $3, $4, $5
         WHERE EXISTS (SELECT 1 FROM channel_leases
                       WHERE channel = $6 AND account_id = $7 AND owner_id = $8 AND fencing_token = $9)
         ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at,
           expires_at = excluded.expires_at
         RETURNING key`,
        [
          namespace,
          key,
          json,
          now(),
          expiresAt ?? null,
          lease.channel,
          lease.accountId,
          ownerId,
          lease.fencingToken,
        ],
      );
      if (rows.length === 0) throw fencedError(lease, `${namespace}/${key}`);
    },

    journalInboundFenced(lease, input) {
      return database.transaction('journalInboundFenced', async (client) => {
        await requireCurrentLease(client, lease, ownerId, `the inbound message ${input.messageId}`);
        return journalInboundIn(client, input, ownerId, now);
      });
    },

    claimDeliveryFenced(lease, key, details = {}) {
      requireKey(key, 'key');
      return database.transaction('claimDeliveryFenced', async (client) => {
        await requireCurrentLease(client, lease, ownerId, `the delivery claim ${key}`);
        return claimDeliveryIn(client, key, details, ownerId, now);
      });
    },

    async releaseChannelLease(lease) {
      await database.query(
        'releaseChannelLease',
        'DELETE FROM channel_leases WHERE channel = $1 AND account_id = $2 AND owner_id = $3 AND fencing_token = $4',
        [lease.channel, lease.accountId, ownerId, lease.fencingToken],
      );
    },

    async listChannelLeases() {
      const rows = await database.query<{
        channel: string;
        account_id: string;
        owner_id: string;
        fencing_token: number;
        acquired_at: number;
      }>(
        'listChannelLeases',
        `SELECT * FROM channel_leases WHERE switchboard_owner_alive(owner_id) ORDER BY channel, account_id`,
      );
      return rows.map((row) => ({
        channel: row.channel,
        accountId: row.account_id,
        ownerId: row.owner_id,
        fencingToken: row.fencing_token,
        acquiredAt: row.acquired_at,
      }));
    },
  };
}
