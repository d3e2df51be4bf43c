// A small WebSocket client speaking the gateway protocol, for tests and benches.
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';

export interface ResponseFrame {
  readonly type: 'res';
  readonly id: string;
  readonly ok: boolean;
  readonly payload?: Record<string, unknown>;
  readonly error?: {
    code: string;
    message: string;
    details?: Record<string, unknown>;
    retryAfterMs?: number;
  };
}

export interface EventFrame {
  readonly type: 'event';
  readonly event: string;
  readonly payload?: Record<string, unknown>;
  readonly seq?: number;
}

export interface ConnectOptions {
  readonly token?: string;
  readonly scopes?: readonly string[];
  readonly caps?: readonly string[];
  readonly clientId?: string;
  readonly minProtocol?: number;
  readonly maxProtocol?: number;
  readonly origin?: string;
  /** Extra fields merged into the connect params (e.g. a device proof). */
  readonly extra?: (challenge: { nonce: string; ts: number }) => Record<string, unknown>;
}

export class ProtocolClient {
  readonly events: EventFrame[] = [];
  readonly socket: WebSocket;
  closeCode: number | undefined;
  closeReason = '';
  private readonly pending = new Map<string, { frames: ResponseFrame[]; waiters: Array<() => void> }>();
  private readonly eventWaiters: Array<() => void> = [];
  private readonly closed: Promise<void>;

  constructor(url: string, origin?: string) {
    this.socket = new WebSocket(url, origin === undefined ? {} : { origin });
    this.socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as ResponseFrame | EventFrame;
      if (frame.type === 'res') {
        const entry = this.entry(frame.id);
        entry.frames.push(frame);
        for (const wake of entry.waiters.splice(0)) wake();
      } else {
        this.events.push(frame);
        for (const wake of this.eventWaiters.splice(0)) wake();
      }
    });
    this.closed = new Promise((resolve) => {
      this.socket.on('close', (code, reason) => {
        this.closeCode = code;
        this.closeReason = reason.toString();
        for (const wake of this.eventWaiters.splice(0)) wake();
        for (const entry of this.pending.values()) for (const wake of entry.waiters.splice(0)) wake();
        resolve();
      });
    });
    this.socket.on('error', () => {});
  }

  private entry(id: string): { frames: ResponseFrame[]; waiters: Array<() => void> } {
    let entry = this.pending.get(id);
    if (entry === undefined) {
      entry = { frames: [], waiters: [] };
      this.pending.set(id, entry);
    }
    return entry;
  }

  opened(): Promise<void> {
    if (this.socket.readyState === WebSocket.OPEN) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('error', reject);
    });
  }

  waitClosed(): Promise<void> {
    return this.closed;
  }

  sendRaw(data: string | Buffer): void {
    this.socket.send(data);
  }

  /** Sends a request and resolves with the n-th response on its id (1 = first). */
  async request(
    method: string,
    params?: unknown,
    options: { id?: string; nth?: number } = {},
  ): Promise<ResponseFrame> {
    const id = options.id ?? randomUUID();
    this.socket.send(JSON.stringify({ type: 'req', id, method, params }));
    return this.response(id, options.nth ?? 1);
  }

  /** Sends a request whose final response is the second one (`agent`). */
  async requestFinal(
    method: string,
    params?: unknown,
    id: string = randomUUID(),
  ): Promise<{ accepted: ResponseFrame; final: ResponseFrame }> {
    this.socket.send(JSON.stringify({ type: 'req', id, method, params }));
    const accepted = await this.response(id, 1);
    if (!accepted.ok || accepted.payload?.status !== 'accepted') return { accepted, final: accepted };
    const final = await this.response(id, 2);
    return { accepted, final };
  }

  async response(id: string, nth: number): Promise<ResponseFrame> {
    const entry = this.entry(id);
    while (entry.frames.length < nth) {
      if (this.closeCode !== undefined)
        throw new Error(
          `socket closed (${this.closeCode} ${this.closeReason}) before response ${nth} to ${id}`,
        );
      await new Promise<void>((resolve) => entry.waiters.push(resolve));
    }
    return entry.frames[nth - 1]!;
  }

  async waitForEvent(predicate: (event: EventFrame) => boolean, timeoutMs = 10_000): Promise<EventFrame> {
    const deadline = Date.now() + timeoutMs;
    let index = 0;
    for (;;) {
      for (; index < this.events.length; index += 1) {
        const event = this.events[index]!;
        if (predicate(event)) return event;
      }
      if (this.closeCode !== undefined)
        throw new Error(`socket closed (${this.closeCode}) while waiting for an event`);
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error('timed out waiting for an event');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.eventWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.socket.close();
  }
}

/** Opens a socket, answers the challenge with `connect`, and returns the client and hello. */
export async function connectClient(
  url: string,
  options: ConnectOptions = {},
): Promise<{ client: ProtocolClient; hello: ResponseFrame }> {
  const client = new ProtocolClient(url, options.origin);
  await client.opened();
  const challenge = await client.waitForEvent((event) => event.event === 'connect.challenge');
  const nonce = String(challenge.payload?.nonce);
  const ts = Number(challenge.payload?.ts);
  const params = {
    minProtocol: options.minProtocol ?? 4,
    maxProtocol: options.maxProtocol ?? 4,
    client: { id: options.clientId ?? 'test', mode: 'test', version: '0.0.0', platform: process.platform },
    role: 'operator',
    scopes: options.scopes,
    caps: options.caps,
    auth: options.token === undefined ? undefined : { token: options.token },
    ...(options.extra?.({ nonce, ts }) ?? {}),
  };
  const hello = await client.request('connect', params);
  return { client, hello };
}

/** The payload of a successful response, typed; throws with the error when there is none. */
export function payloadOf<T>(frame: ResponseFrame): T {
  if (!frame.ok || frame.payload === undefined)
    throw new Error(`expected a payload, got ${JSON.stringify(frame)}`);
  return frame.payload as T;
}
