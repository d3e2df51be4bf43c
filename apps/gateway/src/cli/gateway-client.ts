import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { gatewayVersion } from '../version.ts';

export interface ResponseError {
  readonly code: string;
  readonly message: string;
  readonly details?: Record<string, unknown>;
}

/** A failed request or handshake; `detailCode` is `error.details.code`. */
export class GatewayRequestError extends Error {
  readonly detailCode: string | undefined;
  readonly error: ResponseError;
  constructor(error: ResponseError) {
    super(error.message);
    this.error = error;
    this.detailCode = typeof error.details?.code === 'string' ? error.details.code : undefined;
  }
}

/** The gateway could not be reached at all. */
export class GatewayUnreachableError extends Error {}

export interface GatewayEvent {
  readonly event: string;
  readonly payload: Record<string, unknown> | undefined;
}

export interface CliGatewayClient {
  request(
    method: string,
    params?: unknown,
    options?: { expectFinal?: boolean },
  ): Promise<Record<string, unknown>>;
  onEvent(listener: (event: GatewayEvent) => void): void;
  close(): void;
}

interface Pending {
  readonly resolve: (payload: Record<string, unknown>) => void;
  readonly reject: (error: Error) => void;
  readonly expectFinal: boolean;
}

/** Connects, answers the challenge with the token, and resolves once `hello-ok` arrived. */
export function connectGateway(
  url: string,
  token: string | undefined,
  options: { timeoutMs?: number } = {},
): Promise<CliGatewayClient> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { handshakeTimeout: options.timeoutMs ?? 5000 });
    const pending = new Map<string, Pending>();
    const listeners: Array<(event: GatewayEvent) => void> = [];
    let ready = false;
    const connectId = randomUUID();
    const fail = (error: Error) => {
      for (const entry of pending.values()) entry.reject(error);
      pending.clear();
      if (!ready) reject(error);
    };
    socket.on('error', (error) => {
      const code = (error as NodeJS.ErrnoException).code;
      fail(code === 'ECONNREFUSED' ? new GatewayUnreachableError(`no gateway is running at ${url}`) : error);
    });
    socket.on('close', (code, reason) => {
      fail(
        new GatewayUnreachableError(
          `the gateway closed the connection (${code}${reason.length > 0 ? ` ${reason.toString()}` : ''})`,
        ),
      );
    });
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as {
        type: string;
        id?: string;
        ok?: boolean;
        event?: string;
        payload?: Record<string, unknown>;
        error?: ResponseError;
      };
      if (frame.type === 'event') {
        if (frame.event === 'connect.challenge') {
          socket.send(
            JSON.stringify({
              type: 'req',
              id: connectId,
              method: 'connect',
              params: {
                minProtocol: 4,
                maxProtocol: 4,
                client: { id: 'cli', mode: 'cli', version: gatewayVersion, platform: process.platform },
                role: 'operator',
                scopes: ['operator.admin'],
                caps: ['tool-events'],
                ...(token === undefined ? {} : { auth: { token } }),
              },
            }),
          );
          return;
        }
        for (const listener of listeners) listener({ event: frame.event ?? '', payload: frame.payload });
        return;
      }
      if (frame.type !== 'res' || frame.id === undefined) return;
      if (frame.id === connectId) {
        if (frame.ok) {
          ready = true;
          resolve(client);
        } else {
          reject(new GatewayRequestError(frame.error ?? { code: 'UNKNOWN', message: 'connect failed' }));
        }
        return;
      }
      const entry = pending.get(frame.id);
      if (entry === undefined) return;
      if (!frame.ok) {
        pending.delete(frame.id);
        entry.reject(new GatewayRequestError(frame.error ?? { code: 'UNKNOWN', message: 'request failed' }));
        return;
      }
      const status = frame.payload?.status;
      if (entry.expectFinal && (status === 'accepted' || status === 'in_flight')) return;
      pending.delete(frame.id);
      entry.resolve(frame.payload ?? {});
    });
    const client: CliGatewayClient = {
      request(method, params, requestOptions = {}) {
        return new Promise((resolveRequest, rejectRequest) => {
          const id = randomUUID();
          pending.set(id, {
            resolve: resolveRequest,
            reject: rejectRequest,
            expectFinal: requestOptions.expectFinal ?? false,
          });
          socket.send(JSON.stringify({ type: 'req', id, method, params: params ?? {} }));
        });
      },
      onEvent(listener) {
        listeners.push(listener);
      },
      close() {
        socket.removeAllListeners('close');
        socket.close();
      },
    };
  });
}
