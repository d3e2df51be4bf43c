/** The delivery receipts' rule for recording a send, shared by every backend. */
import { SessionsError } from './errors.ts';
import type { DeliveryState } from './types.ts';

/** A receipt as `recordingOf` reads it. */
interface RecordableReceipt {
  readonly state: DeliveryState;
  readonly platformMessageId: string | undefined;
}

/**
 * What `recordDelivery` does with the receipt it found (returned with the answer): `record`
 * (mark it sent), or `already-recorded` (the same send was recorded before: a harmless retry).
 * Throws SESSIONS_DELIVERY_NOT_FOUND when nothing was claimed under the key, and
 * SESSIONS_DELIVERY_CONFLICT when it was recorded as another platform message.
 */
export function recordingOf<Receipt extends RecordableReceipt>(
  key: string,
  existing: Receipt | undefined,
  platformMessageId: string,
): { readonly action: 'record' | 'already-recorded'; readonly receipt: Receipt } {
  if (existing === undefined) {
    throw new SessionsError(
      'SESSIONS_DELIVERY_NOT_FOUND',
      `No delivery was claimed under the idempotency key ${JSON.stringify(key)}; call claimDelivery before sending.`,
      { details: { key } },
    );
  }
  if (existing.state !== 'sent') return { action: 'record', receipt: existing };
  if (existing.platformMessageId === platformMessageId)
    return { action: 'already-recorded', receipt: existing };
  throw new SessionsError(
    'SESSIONS_DELIVERY_CONFLICT',
    `The delivery ${JSON.stringify(key)} was already recorded as platform message ${existing.platformMessageId}, not ${platformMessageId}.`,
    { details: { key, recorded: existing.platformMessageId, attempted: platformMessageId } },
  );
}
