import { randomInt } from 'node:crypto';
import type { Sender } from '@switchboard/hooks';
import type { SessionStore } from '@switchboard/sessions';

/** Pairing codes use letters and digits that cannot be confused (no 0/O, 1/I). */
export const pairingAlphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const pairingCodeLength = 8;

interface PairingRequest {
  readonly channel: string;
  readonly accountId: string;
  readonly code: string;
  readonly sender: Sender;
  readonly createdAt: number;
  readonly expiresAt: number;
}

type PairingRequestResult =
  | { readonly status: 'created'; readonly request: PairingRequest }
  | { readonly status: 'pending'; readonly request: PairingRequest }
  | { readonly status: 'limited' };

export interface PairingStore {
  /** Loads approved senders into memory (call once at start). */
  load(): Promise<void>;
  /** Senders approved for one channel account (in memory: no I/O on the hot path). */
  approvedSenders(channel: string, accountId: string): ReadonlySet<string>;
  /** Creates a pairing request for an unknown sender, or returns the one already pending. */
  request(channel: string, accountId: string, sender: Sender): Promise<PairingRequestResult>;
  list(channel?: string): Promise<PairingRequest[]>;
  /** Approves a pending code: its sender joins the account's allowlist. */
  approve(channel: string, code: string): Promise<PairingRequest | undefined>;
  deny(channel: string, code: string): Promise<PairingRequest | undefined>;
}

export interface PairingStoreOptions {
  readonly now?: () => number;
  /** How long a code stays valid. Default 1 hour. */
  readonly ttlMs?: number;
  /** Pending requests allowed per channel account. Default 3. */
  readonly maxPending?: number;
}

const requestsNamespace = 'pairing-requests';
const approvedNamespace = 'pairing-approved';

function generatePairingCode(): string {
  let code = '';
  for (let index = 0; index < pairingCodeLength; index += 1)
    code += pairingAlphabet[randomInt(pairingAlphabet.length)];
  return code;
}

/**
 * DM pairing: an unknown sender gets a code, an operator approves it
 * (`switchboard pairing approve <channel> <code>`), and the sender joins that channel
 * account's allowlist. Requests expire after an hour; at most three wait per account, and a
 * sender who writes again while pending gets no new code.
 */
export function createPairingStore(store: SessionStore, options: PairingStoreOptions = {}): PairingStore {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? 60 * 60_000;
  const maxPending = options.maxPending ?? 3;
  const approved = new Map<string, Set<string>>();
  const accountKey = (channel: string, accountId: string) => `${channel}:${accountId}`;
  const empty: ReadonlySet<string> = new Set();

  async function pending(channel: string, accountId: string): Promise<PairingRequest[]> {
    const records = await store.listState(requestsNamespace, {
      prefix: `${accountKey(channel, accountId)}:`,
    });
    const current = now();
    return records
      .map((record) => record.value as PairingRequest)
      .filter((request) => request.expiresAt > current);
  }

  async function find(channel: string, code: string): Promise<PairingRequest | undefined> {
    const normalized = code.trim().toUpperCase();
    const records = await store.listState(requestsNamespace, { prefix: `${channel}:` });
    const current = now();
    return records
      .map((record) => record.value as PairingRequest)
      .find((request) => request.code === normalized && request.expiresAt > current);
  }

  return {
    async load() {
      for (const record of await store.listState(approvedNamespace)) {
        const value = record.value as { channel: string; accountId: string; senderId: string };
        const key = accountKey(value.channel, value.accountId);
        let set = approved.get(key);
        if (set === undefined) {
          set = new Set();
          approved.set(key, set);
        }
        set.add(value.senderId);
      }
    },
    approvedSenders(channel, accountId) {
      return approved.get(accountKey(channel, accountId)) ?? empty;
    },
    async request(channel, accountId, sender) {
      const waiting = await pending(channel, accountId);
      const existing = waiting.find((request) => request.sender.id === sender.id);
      if (existing !== undefined) return { status: 'pending', request: existing };
      if (waiting.length >= maxPending) return { status: 'limited' };
      const createdAt = now();
      const request: PairingRequest = {
        channel,
        accountId,
        code: generatePairingCode(),
        sender: {
          id: sender.id,
          name: sender.name,
          username: sender.username,
        },
        createdAt,
        expiresAt: createdAt + ttlMs,
      };
      await store.putState(requestsNamespace, `${accountKey(channel, accountId)}:${request.code}`, request, {
        expiresAt: request.expiresAt,
      });
      return { status: 'created', request };
    },
    async list(channel) {
      const records = await store.listState(
        requestsNamespace,
        channel === undefined ? {} : { prefix: `${channel}:` },
      );
      const current = now();
      return records
        .map((record) => record.value as PairingRequest)
        .filter((request) => request.expiresAt > current)
        .sort((left, right) => left.createdAt - right.createdAt);
    },
    async approve(channel, code) {
      const request = await find(channel, code);
      if (request === undefined) return undefined;
      const key = accountKey(request.channel, request.accountId);
      await store.putState(approvedNamespace, `${key}:${request.sender.id}`, {
        channel: request.channel,
        accountId: request.accountId,
        senderId: request.sender.id,
        sender: request.sender,
        approvedAt: now(),
      });
      await store.deleteState(requestsNamespace, `${key}:${request.code}`);
      let set = approved.get(key);
      if (set === undefined) {
        set = new Set();
        approved.set(key, set);
      }
      set.add(request.sender.id);
      return request;
    },
    async deny(channel, code) {
      const request = await find(channel, code);
      if (request === undefined) return undefined;
      await store.deleteState(
        requestsNamespace,
        `${accountKey(request.channel, request.accountId)}:${request.code}`,
      );
      return request;
    },
  };
}
