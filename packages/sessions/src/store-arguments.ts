/**
 * Argument checks and the session-list cursor every store backend shares, so SQLite and
 * PostgreSQL reject the same bad input with the same message.
 */
import { SessionsError } from './errors.ts';
import { describeInbound, inboundStates } from './journal.ts';
import { requireKey } from './session-entry.ts';
import type { InboundRef, InboundState, PutStateOptions } from './types.ts';

export function requireState(value: unknown, path: string): InboundState {
  if (typeof value !== 'string' || !(inboundStates as readonly string[]).includes(value)) {
    throw new SessionsError(
      'SESSIONS_INVALID_ARGUMENT',
      `${path} must be one of ${inboundStates.join(', ')}; got ${JSON.stringify(value)}.`,
    );
  }
  return value as InboundState;
}

export function requireRef(ref: unknown, path: string): InboundRef {
  if (typeof ref !== 'object' || ref === null) {
    throw new SessionsError(
      'SESSIONS_INVALID_ARGUMENT',
      `${path} must be an object {channel, accountId, messageId}.`,
    );
  }
  const record = ref as Record<string, unknown>;
  return {
    channel: requireKey(record.channel, `${path}.channel`),
    accountId: requireKey(record.accountId, `${path}.accountId`),
    messageId: requireKey(record.messageId, `${path}.messageId`),
  };
}

export function requireCount(value: unknown, path: string, integer = false): number | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < 0 ||
    (integer && !Number.isInteger(value))
  ) {
    throw new SessionsError(
      'SESSIONS_INVALID_CONFIG',
      `${path} must be ${integer ? 'an integer' : 'a number'} ≥ 0; got ${JSON.stringify(value)}.`,
      { details: { path } },
    );
  }
  return value;
}

export function encodeCursor(updatedAt: number, key: string): string {
  return Buffer.from(JSON.stringify([updatedAt, key])).toString('base64url');
}

export function decodeCursor(cursor: string): [number, string] {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string') {
      return [value[0], value[1]];
    }
  } catch {
    // Reported below.
  }
  throw new SessionsError(
    'SESSIONS_INVALID_ARGUMENT',
    `query.cursor is not a cursor returned by listSessions: ${JSON.stringify(cursor)}.`,
  );
}

/** The JSON text of an inbound payload (null when absent); rejects what JSON cannot hold. */
export function encodeInboundPayload(ref: InboundRef, payload: unknown): string | null {
  if (payload === undefined) return null;
  try {
    return JSON.stringify(payload);
  } catch (error) {
    throw new SessionsError(
      'SESSIONS_INVALID_ARGUMENT',
      `input.payload of inbound message ${describeInbound(ref)} cannot be stored as JSON: ${(error as Error).message}.`,
      { cause: error },
    );
  }
}

/** The JSON text and expiry of a state record, or SESSIONS_INVALID_ARGUMENT naming the record. */
export function encodeStateValue(
  namespace: string,
  key: string,
  value: unknown,
  options: PutStateOptions,
): { json: string; expiresAt: number | undefined } {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new SessionsError(
      'SESSIONS_INVALID_ARGUMENT',
      `The value of state ${namespace}/${key} cannot be stored as JSON: ${(error as Error).message}.`,
      { cause: error },
    );
  }
  if (json === undefined) {
    throw new SessionsError(
      'SESSIONS_INVALID_ARGUMENT',
      `The value of state ${namespace}/${key} must be JSON; got ${typeof value}.`,
    );
  }
  const expiresAt = options.expiresAt;
  if (expiresAt !== undefined && (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt))) {
    throw new SessionsError(
      'SESSIONS_INVALID_ARGUMENT',
      `options.expiresAt of state ${namespace}/${key} must be a time in milliseconds; got ${JSON.stringify(expiresAt)}.`,
    );
  }
  return { json, expiresAt };
}
