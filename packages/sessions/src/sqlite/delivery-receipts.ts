/** Delivery receipts on SQLite: `delivery_receipts`. */
import { recordingOf } from '../delivery-rules.ts';
import { SessionsError } from '../errors.ts';
import { requireKey } from '../session-entry.ts';
import type { DeliveryReceiptStore } from '../session-store.ts';
import type { DeliveryClaim, DeliveryDetails, DeliveryReceipt } from '../types.ts';
import type { SqliteStoreContext } from './store-context.ts';

export function createSqliteDeliveryReceipts(context: SqliteStoreContext): DeliveryReceiptStore {
  const { now, ownerId, statement, sql, run, write, getDeliveryRow, withoutOwner } = context;
  return {
    async claimDelivery(key: string, details: DeliveryDetails = {}): Promise<DeliveryClaim> {
      return write('claimDelivery', () => {
        requireKey(key, 'key');
        const detailsJson = JSON.stringify(details);
        const existing = getDeliveryRow(key);
        const at = now();
        if (existing === undefined) {
          statement(sql.insertDelivery).run(key, ownerId, at, at, detailsJson);
          return { status: 'claimed', receipt: withoutOwner(getDeliveryRow(key)!), recovered: false };
        }
        if (existing.state === 'sent') return { status: 'already-sent', receipt: withoutOwner(existing) };
        if (existing.state === 'claimed' && existing.ownerId === ownerId) {
          return { status: 'in-progress', receipt: withoutOwner(existing) };
        }
        const recovered = existing.state === 'claimed';
        const merged = JSON.stringify({ ...existing.details, ...details });
        statement(sql.reclaimDelivery).run(ownerId, at, at, merged, key);
        return { status: 'claimed', receipt: withoutOwner(getDeliveryRow(key)!), recovered };
      });
    },

    async recordDelivery(key: string, platformMessageId: string): Promise<DeliveryReceipt> {
      return write('recordDelivery', () => {
        requireKey(key, 'key');
        requireKey(platformMessageId, 'platformMessageId');
        const found = recordingOf(key, getDeliveryRow(key), platformMessageId);
        if (found.action === 'already-recorded') return withoutOwner(found.receipt);
        const at = now();
        statement(sql.sentDelivery).run(at, at, platformMessageId, key);
        return withoutOwner(getDeliveryRow(key)!);
      });
    },

    async failDelivery(key: string, error: string): Promise<DeliveryReceipt> {
      return write('failDelivery', () => {
        requireKey(key, 'key');
        const existing = getDeliveryRow(key);
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
            `The delivery ${JSON.stringify(key)} is already recorded as sent (platform message ${existing.platformMessageId}); it cannot fail afterwards.`,
            { details: { key } },
          );
        }
        statement(sql.failedDelivery).run(now(), String(error), key);
        return withoutOwner(getDeliveryRow(key)!);
      });
    },

    async getDelivery(key: string): Promise<DeliveryReceipt | undefined> {
      return run('getDelivery', () => {
        const existing = getDeliveryRow(requireKey(key, 'key'));
        return existing === undefined ? undefined : withoutOwner(existing);
      });
    },
  };
}
