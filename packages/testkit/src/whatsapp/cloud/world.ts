// The state of the fake Cloud API: the business account and its credentials, stored media
// (uploaded by the business, or sent by people), the groups, each person's 24-hour
// customer-service window, what the business sent and read, and the counters of refused
// requests. It answers no requests and wakes no waits: its callers do.
import { createHash, randomBytes } from 'node:crypto';
import type { FakeCloudSentMessage, FakeWhatsAppCloudOptions } from './types.ts';

/** One stored media object. */
export interface StoredMedia {
  readonly id: string;
  readonly bytes: Buffer;
  readonly mimeType: string;
  readonly fileName: string;
}

/** Ids of media people sent start here; the business's uploads count from 1,000,000,000,001. */
const inboundMediaBase = 9_000_000_000_000;
const uploadedMediaBase = 1_000_000_000_000;
const serviceWindowMs = 24 * 60 * 60_000;

export class CloudWorld {
  readonly phoneNumberId: string;
  readonly displayPhoneNumber: string;
  /** The business number, digits only. */
  readonly businessDigits: string;
  readonly verifiedName: string;
  readonly accessToken: string;
  readonly appSecret: string;
  readonly verifyToken: string;
  readonly businessAccountId: string;
  readonly now: () => number;
  /** Messages the business sent, oldest first. */
  readonly sent: FakeCloudSentMessage[] = [];
  /** `status: read` calls, and whether they asked for the typing indicator. */
  readonly reads: Array<{ messageId: string; typing: boolean }> = [];
  /** Graph requests refused for a missing or wrong token. */
  unauthorized = 0;
  readonly #media = new Map<string, StoredMedia>();
  readonly #lastInbound = new Map<string, number>();
  readonly #groups = new Map<string, string>();

  constructor(options: FakeWhatsAppCloudOptions) {
    this.phoneNumberId = options.phoneNumberId ?? '100000000000001';
    this.displayPhoneNumber = options.displayPhoneNumber ?? '+1 555-000-1111';
    this.businessDigits = digitsOf(this.displayPhoneNumber);
    this.verifiedName = options.verifiedName ?? 'Switchboard Support';
    this.accessToken = options.accessToken ?? 'test-access-token';
    this.appSecret = options.appSecret ?? 'test-app-secret';
    this.verifyToken = options.verifyToken ?? 'test-verify-token';
    this.businessAccountId = options.businessAccountId ?? '200000000000002';
    this.now = options.now ?? Date.now;
  }

  /** Whether a request carries the access token (`Authorization: Bearer …`). */
  authorized(authorization: string | undefined): boolean {
    return authorization === `Bearer ${this.accessToken}`;
  }

  media(id: string): StoredMedia | undefined {
    return this.#media.get(id);
  }

  /** Stores media the business uploaded; returns its id. */
  storeUpload(bytes: Buffer, mimeType: string, fileName: string): string {
    return this.#store(uploadedMediaBase, bytes, mimeType, fileName);
  }

  /** Stores media a person sent; returns its id. */
  storeInbound(bytes: Buffer, mimeType: string, fileName: string): string {
    return this.#store(inboundMediaBase, bytes, mimeType, fileName);
  }

  /** Media the business uploaded, as copies. */
  uploads(): Array<{ id: string; mimeType: string; fileName: string; bytes: Uint8Array }> {
    return [...this.#media.values()]
      .filter((stored) => Number(stored.id) < inboundMediaBase)
      .map((stored) => ({
        id: stored.id,
        mimeType: stored.mimeType,
        fileName: stored.fileName,
        bytes: new Uint8Array(stored.bytes),
      }));
  }

  /** Creates a group (Groups API) the business is in; returns its opaque id. */
  createGroup(subject: string): string {
    const id = Buffer.from(
      `capi_group:${this.businessDigits}:${120_363_000_000_000_000n + BigInt(this.#groups.size + 1)}`,
    ).toString('base64url');
    this.#groups.set(id, subject);
    return id;
  }

  hasGroup(id: string): boolean {
    return this.#groups.has(id);
  }

  /** A person wrote now: their 24-hour window opens. */
  recordInbound(waId: string): void {
    this.#lastInbound.set(waId, this.now());
  }

  /** Whether a free-form message may go to this person (they wrote in the last 24 hours). */
  inServiceWindow(to: string): boolean {
    const last = this.#lastInbound.get(digitsOf(to));
    return last !== undefined && this.now() - last <= serviceWindowMs;
  }

  /** Closes this person's 24-hour window (as if they last wrote a day ago). */
  expireServiceWindow(from: string): void {
    this.#lastInbound.set(digitsOf(from), this.now() - 25 * 60 * 60_000);
  }

  #store(base: number, bytes: Buffer, mimeType: string, fileName: string): string {
    const id = String(base + this.#media.size + 1);
    this.#media.set(id, { id, bytes, mimeType, fileName });
    return id;
  }
}

/** The digits of a phone number or WhatsApp id. */
export function digitsOf(value: string): string {
  return value.replace(/\D/g, '');
}

/** The hex SHA-256 of media bytes, as Graph reports it. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A new Cloud API message id (`wamid.…`). */
export function newMessageId(): string {
  return `wamid.${randomBytes(18).toString('base64url')}`;
}
