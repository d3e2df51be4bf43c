/**
 * Delivery receipts on PostgreSQL. A claim held by a live instance (this one or another
 * replica) answers `in-progress`; a claim left by an instance that is gone is taken over
 * with `recovered: true`. The receipt row is locked while deciding, so racing claims from
 * any number of replicas produce one `claimed`.
 */
import {
  type DeliveryClaim,
  type DeliveryDetails,
  type DeliveryReceipt,
  type DeliveryReceiptStore,
  type DeliveryRow,
  deliveryFromRow,
  recordingOf,
  requireKey,
  SessionsError,
} from '@switchboard/sessions';
import type { Database, Queryable } from './database.ts';

interface ClaimRow extends DeliveryRow {
  owner_alive: boolean;
}

async function lockReceipt(client: Queryable, key: string): Promise<ClaimRow | undefined> {
  const { rows } = await client.query<ClaimRow>(
    'SELECT *, switchboard_owner_alive(owner_id) AS owner_alive FROM delivery_receipts WHERE idempotency_key = $1 FOR UPDATE',
    [key],
  );
  return rows[0];
}

/**
 * Fencing for takeovers: inside the transaction that holds the row lock, this instance must
 * still hold its instance lock, or a replica that others consider gone could steal a claim.
 */
async function requireAlive(client: Queryable, ownerId: string): Promise<void> {
  const { rows } = await client.query<{ alive: boolean }>('SELECT switchboard_owner_alive($1) AS alive', [
    ownerId,
  ]);
  if (rows[0]?.alive !== true) {
    throw new SessionsError(
      'SESSIONS_LOCK_LOST',
      'This gateway no longer holds its instance lock (other replicas consider it gone); it takes over no delivery. Restart the gateway.',
      { details: { ownerId } },
    );
  }
}

/**
 * Claims one delivery inside the caller's transaction (the plain operation, and the fenced
 * one of channel leases). Contract: as `claimDelivery`; the receipt row stays locked until the
 * caller's transaction ends.
 */
export async function claimDeliveryIn(
  client: Queryable,
  key: string,
  details: DeliveryDetails,
  ownerId: string,
  now: () => number,
): Promise<DeliveryClaim> {
  const at = now();
  const inserted = await client.query<DeliveryRow>(
    `INSERT INTO delivery_receipts (idempotency_key, state, attempts, owner_id, claimed_at, updated_at, details)
     VALUES ($1, 'claimed', 1, $2, $3, $3, $4) ON CONFLICT (idempotency_key) DO NOTHING RETURNING *`,
    [key, ownerId, at, JSON.stringify(details)],
  );
  if (inserted.rows[0] !== undefined) {
    return { status: 'claimed', receipt: deliveryFromRow(inserted.rows[0]), recovered: false };
  }
  const existing = await lockReceipt(client, key);
  if (existing === undefined) throw new Error(`delivery receipt ${key} vanished after insert`);
  const receipt = deliveryFromRow(existing);
  if (existing.state === 'sent') return { status: 'already-sent', receipt };
  if (existing.state === 'claimed' && (existing.owner_id === ownerId || existing.owner_alive)) {
    return { status: 'in-progress', receipt };
  }
  const recovered = existing.state === 'claimed';
  await requireAlive(client, ownerId);
  const { rows } = await client.query<DeliveryRow>(
    `UPDATE delivery_receipts SET state = 'claimed', attempts = attempts + 1, owner_id = $1, claimed_at = $2,
       updated_at = $2, error = NULL, details = $3 WHERE idempotency_key = $4 RETURNING *`,
    [ownerId, at, JSON.stringify({ ...receipt.details, ...details }), key],
  );
  return { status: 'claimed', receipt: deliveryFromRow(rows[0]!), recovered };
}

export function createDeliveryReceipts(database: Database): DeliveryReceiptStore {
  const { now, ownerId } = database;
  return {
    claimDelivery(key, details = {}): Promise<DeliveryClaim> {
      requireKey(key, 'key');
      return database.transaction('claimDelivery', (client) =>
        claimDeliveryIn(client, key, details, ownerId, now),
      );
    },

    // Written even after this instance lost its lock (a network cut, a pause): the send went
    // out, and the record is what keeps the replica taking over from sending it again. It only
    // ever completes this instance's own claim; a claim another replica has taken over is that
    // replica's to record (its send may be under way), so that case is refused.
    async recordDelivery(key, platformMessageId): Promise<DeliveryReceipt> {
      requireKey(key, 'key');
      requireKey(platformMessageId, 'platformMessageId');
      return database.transaction(
        'recordDelivery',
        async (client, { lockLost }) => {
          const row = await lockReceipt(client, key);
          const found = recordingOf(
            key,
            row === undefined ? undefined : deliveryFromRow(row),
            platformMessageId,
          );
          if (found.action === 'already-recorded') return found.receipt;
          // Another replica claimed it since: it took this one's work over (this instance is gone
          // to the others, whether it knows yet or not), and its own send decides.
          if (found.receipt.state === 'claimed' && row?.owner_id !== ownerId)
            throw database.lockLost(`recordDelivery of ${key}, a claim another replica has taken over`);
          if (lockLost && found.receipt.state !== 'claimed')
            throw database.lockLost(`recordDelivery of ${key}, which is no longer claimed`);
          const at = now();
          const { rows } = await client.query<DeliveryRow>(
            `UPDATE delivery_receipts SET state = 'sent', updated_at = $1, sent_at = $1, platform_message_id = $2, error = NULL
           WHERE idempotency_key = $3 RETURNING *`,
            [at, platformMessageId, key],
          );
          return deliveryFromRow(rows[0]!);
        },
        { evenAfterLockLoss: true },
      );
    },

    async failDelivery(key, error): Promise<DeliveryReceipt> {
      requireKey(key, 'key');
      return database.transaction('failDelivery', async (client) => {
        const existing = await lockReceipt(client, key);
        if (existing === undefined) {
          throw new SessionsError(
            'SESSIONS_DELIVERY_NOT_FOUND',
            `No delivery was claimed under the idempotency key ${JSON.stringify(key)}.`,
            { details: { key } },
          );
        }
        if (existing.state === 'sent') {
          throw new SessionsError(
            'SESSIONS_DELIVERY_CONFLICT',
            `The delivery ${JSON.stringify(key)} is already recorded as sent (platform message ${existing.platform_message_id}); it cannot fail afterwards.`,
            { details: { key } },
          );
        }
        const { rows } = await client.query<DeliveryRow>(
          `UPDATE delivery_receipts SET state = 'failed', updated_at = $1, error = $2 WHERE idempotency_key = $3 RETURNING *`,
          [now(), String(error), key],
        );
        return deliveryFromRow(rows[0]!);
      });
    },

    async getDelivery(key) {
      const rows = await database.query<DeliveryRow>(
        'getDelivery',
        'SELECT * FROM delivery_receipts WHERE idempotency_key = $1',
        [requireKey(key, 'key')],
      );
      return rows[0] === undefined ? undefined : deliveryFromRow(rows[0]);
    },
  };
}
