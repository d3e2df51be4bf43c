// The Cloud API webhook: the verify handshake, the payload signature, and the payload's shape.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Checks `X-Hub-Signature-256: sha256=<hex>` against HMAC-SHA256(appSecret, raw body), in
 * constant time. The raw bytes matter: re-serialized JSON would not match.
 */
export function verifyWebhookSignature(
  rawBody: Uint8Array,
  header: string | undefined,
  appSecret: string,
): boolean {
  if (header === undefined || !header.startsWith('sha256=')) return false;
  const presented = header.slice('sha256='.length).trim();
  if (!/^[0-9a-fA-F]{64}$/.test(presented)) return false;
  const expected = createHmac('sha256', appSecret).update(rawBody).digest();
  return timingSafeEqual(Buffer.from(presented, 'hex'), expected);
}

/** The answer to Meta's `GET ?hub.mode=subscribe&hub.verify_token=…&hub.challenge=…`. */
export function answerVerification(
  query: URLSearchParams,
  verifyToken: string,
): { status: 200; body: string } | { status: 403; body: string } {
  const presented = query.get('hub.verify_token') ?? '';
  const matches =
    presented.length === verifyToken.length &&
    timingSafeEqual(Buffer.from(presented), Buffer.from(verifyToken));
  if (query.get('hub.mode') === 'subscribe' && matches)
    return { status: 200, body: query.get('hub.challenge') ?? '' };
  return { status: 403, body: 'verification failed' };
}

/** Reads a request body as bytes; resolves undefined when it is larger than `limit`. */
export function readRawBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    request.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

// The payload (only the fields the channel reads). Meta documents more.

export interface CloudMediaObject {
  readonly id: string;
  readonly mime_type?: string;
  readonly sha256?: string;
  readonly caption?: string;
  readonly filename?: string;
  readonly voice?: boolean;
}

export interface CloudInboundMessage {
  readonly from: string;
  readonly id: string;
  readonly timestamp?: string;
  readonly type: string;
  readonly group_id?: string;
  readonly text?: { readonly body?: string };
  readonly image?: CloudMediaObject;
  readonly video?: CloudMediaObject;
  readonly audio?: CloudMediaObject;
  readonly document?: CloudMediaObject;
  readonly sticker?: CloudMediaObject;
  readonly location?: {
    readonly latitude?: number;
    readonly longitude?: number;
    readonly name?: string;
    readonly address?: string;
  };
  readonly contacts?: ReadonlyArray<{ readonly name?: { readonly formatted_name?: string } }>;
  readonly button?: { readonly text?: string };
  readonly interactive?: {
    readonly button_reply?: { readonly title?: string };
    readonly list_reply?: { readonly title?: string };
  };
  readonly context?: { readonly from?: string; readonly id?: string };
}

interface CloudStatus {
  readonly id: string;
  readonly status: string;
  readonly recipient_id?: string;
  readonly timestamp?: string;
  readonly errors?: ReadonlyArray<{
    readonly code?: number;
    readonly title?: string;
    readonly message?: string;
  }>;
}

export interface CloudChangeValue {
  readonly messaging_product?: string;
  readonly metadata?: { readonly display_phone_number?: string; readonly phone_number_id?: string };
  readonly contacts?: ReadonlyArray<{
    readonly profile?: { readonly name?: string };
    readonly wa_id?: string;
  }>;
  readonly messages?: readonly CloudInboundMessage[];
  readonly statuses?: readonly CloudStatus[];
}

export interface CloudWebhookPayload {
  readonly object?: string;
  readonly entry?: ReadonlyArray<{
    readonly id?: string;
    readonly changes?: ReadonlyArray<{ readonly field?: string; readonly value?: CloudChangeValue }>;
  }>;
}

/** The `messages` changes of a payload addressed to `phoneNumberId`. */
export function messageChanges(payload: CloudWebhookPayload, phoneNumberId: string): CloudChangeValue[] {
  const values: CloudChangeValue[] = [];
  if (payload.object !== 'whatsapp_business_account') return values;
  for (const entry of payload.entry ?? []) {
    for (const change of entry.changes ?? []) {
      if (change.field !== 'messages' || change.value === undefined) continue;
      if (change.value.metadata?.phone_number_id !== phoneNumberId) continue;
      values.push(change.value);
    }
  }
  return values;
}
