import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { gatewayVersion } from '../version.ts';

export interface ResponseError {
  readonly code: string;
  readonly message: string;
  readonly details?: Record<string, unknown>;
  readonly retryable?: boolean;
  readonly retryAfterMs?: number;
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

interface GatewayEvent {
  readonly event: string;
  readonly payload: Record<string, unknown> | undefined;
}

interface RequestOptions {
  /** Skip an interim `accepted` response and resolve with the final one (`agent`). */
  readonly expectFinal?: boolean;
  /** Give up after this long (default: no limit, for runs; read commands pass one). */
  readonly timeoutMs?: number;
}

export interface CliGatewayClient {
  request(method: string, params?: unknown, options?: RequestOptions): Promise<Record<string, unknown>>;
  onEvent(listener: (event: GatewayEvent) => void): void;
  close(): void;
}

interface Pending {
  readonly resolve: (payload: Record<string, unknown>) => void;
  readonly reject: (error: Error) => void;
  readonly expectFinal: boolean;
  readonly timer: NodeJS.Timeout | undefined;
}

/** Socket errors that mean nothing is listening (or reachable) at the address. */
const unreachableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EADDRNOTAVAIL',
]);

/** Words for a socket error before the handshake finished. */
function unreachable(url: string, error: Error): GatewayUnreachableError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined && unreachableCodes.has(code))
    return new GatewayUnreachableError(`no gateway is running at ${url} (${code})`);
  if (/handshake has timed out/i.test(error.message))
    return new GatewayUnreachableError(`no gateway answered at ${url} (the WebSocket handshake timed out)`);
  const status = /Unexpected server response: (\d+)/.exec(error.message)?.[1];
  if (status !== undefined)
    return new GatewayUnreachableError(
      `the server at ${url} is not a Switchboard gateway or refused the WebSocket (HTTP ${status})`,
    );
  return new GatewayUnreachableError(`cannot reach the gateway at ${url}: ${error.message}`);
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
      for (const entry of pending.values()) {
        clearTimeout(entry.timer);
        entry.reject(error);
      }
      pending.clear();
      if (!ready) reject(error);
    };
    socket.on('error', (error) => {
      fail(ready ? error : unreachable(url, error));
    });
    socket.on('close', (code, reason) => {
      fail(
        new GatewayUnreachableError(
          `the gateway closed the connection (${code}${reason.length > 0 ? ` ${reason.toString()}` : ''})`,
        ),
      );
    });
    socket.on('message', (data) => {
      let frame: {
        type: string;
        id?: string;
        ok?: boolean;
        event?: string;
        payload?: Record<string, unknown>;
        error?: ResponseError;
      };
      try {
        frame = JSON.parse(data.toString());
      } catch {
        fail(new GatewayUnreachableError(`the server at ${url} does not speak the gateway protocol`));
        socket.close();
        return;
      }
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
                // The CLI watches only the runs it starts (decision 0025, "Event fan-out").
                caps: ['tool-events', 'session-scoped-events'],
                auth: token === undefined ? undefined : { token },
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
        clearTimeout(entry.timer);
        entry.reject(new GatewayRequestError(frame.error ?? { code: 'UNKNOWN', message: 'request failed' }));
        return;
      }
      const status = frame.payload?.status;
      if (entry.expectFinal && (status === 'accepted' || status === 'in_flight')) return;
      pending.delete(frame.id);
      clearTimeout(entry.timer);
      entry.resolve(frame.payload ?? {});
    });
    const client: CliGatewayClient = {
      request(method, params, requestOptions = {}) {
        return new Promise((resolveRequest, rejectRequest) => {
          const id = randomUUID();
          const timeoutMs = requestOptions.timeoutMs;
          const timer =
            timeoutMs === undefined
              ? undefined
              : setTimeout(() => {
                  pending.delete(id);
                  rejectRequest(
                    new GatewayUnreachableError(
                      `the gateway at ${url} did not answer ${method} within ${Math.round(timeoutMs / 1000)} s`,
                    ),
                  );
                }, timeoutMs);
          pending.set(id, {
            resolve: resolveRequest,
            reject: rejectRequest,
            expectFinal: requestOptions.expectFinal ?? false,
            timer,
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
