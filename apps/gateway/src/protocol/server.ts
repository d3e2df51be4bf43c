// The WebSocket side of the gateway port (OpenClaw's gateway protocol v4): accepts sockets,
// runs the `connect` handshake (handshake.ts), dispatches requests to the methods it was
// given (method-contract.ts), and broadcasts events to the sockets allowed to see them.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { SwitchboardError } from '@switchboard/hooks';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import { type EventFilter, sessionScopedEventsCapability } from '../access/event-audience.ts';
import { GatewayError } from '../gateway-error.ts';
import { type AuthRateLimiter, createAuthRateLimiter } from './auth-rate-limit.ts';
import { type ProtocolErrorShape, toProtocolError } from './errors.ts';
import { createFollowedSessions, type FollowedSessions } from './followed-sessions.ts';
import { createFrameWriter, eventFrameHead } from './frame-writer.ts';
import {
  closeCodes,
  describeIssue,
  handshakeTimeoutMs,
  maxFrameBytes,
  maxPreAuthFrameBytes,
  requestFrameSchema,
  tickIntervalMs,
} from './frames.ts';
import { createHandshake, type GatewayAuth, type HelloDetails } from './handshake.ts';
import { createHttpHandler, originAllowed } from './http-probes.ts';
import type { ConnectionInfo, GatewayMethod } from './method-contract.ts';

// node:http's CommonJS exports, not its ES module facade: the facade reads every export, and
// the lazy `WebSocket` and `CloseEvent` getters among them load undici (about 5 MB and 20 ms
// of start-up) that the gateway port never uses.
const { createServer } = process.getBuiltinModule('node:http');

export interface ProtocolServerOptions {
  readonly host: string;
  readonly port: number;
  readonly auth: GatewayAuth;
  readonly hello: HelloDetails;
  readonly methods: ReadonlyMap<string, GatewayMethod>;
  /** Browser origins allowed besides the gateway's own (same host and port). */
  readonly allowedOrigins?: readonly string[];
  /** Handles plain HTTP requests; returns false when nothing matched (404). */
  readonly http?: (request: IncomingMessage, response: ServerResponse) => boolean | Promise<boolean>;
  readonly isReady?: () => boolean;
  readonly rateLimiter?: AuthRateLimiter;
  readonly now?: () => number;
  readonly tickIntervalMs?: number;
  readonly handshakeTimeoutMs?: number;
  readonly onConnectionChange?: (connections: number) => void;
  readonly log?: (level: 'info' | 'warn', message: string, fields?: Record<string, unknown>) => void;
}

export interface ProtocolServer {
  readonly server: Server;
  listen(): Promise<AddressInfo>;
  /** Sends an event to every authenticated socket that passes the filter. */
  broadcast(event: string, payload: unknown, filter?: EventFilter): void;
  connectionCount(): number;
  /** Tells clients the gateway is going away, then closes every socket with 1012. */
  close(reason: string, restartExpectedMs?: number): Promise<void>;
}

interface Connection {
  readonly socket: WebSocket;
  /** The TCP socket under `socket` (the upgrade request's), corked to batch a tick's frames. */
  readonly raw: Socket;
  /** Bytes read before authentication; counted by `countPreAuth` until `connect` succeeds. */
  preAuthBytes: number;
  readonly countPreAuth: (chunk: Buffer) => void;
  readonly remoteAddress: string;
  /**
   * Whose failed sign-ins count together. A browser page is keyed by its origin and never
   * gets loopback's exemption: a page in the operator's own browser reaches 127.0.0.1 too.
   */
  readonly rateLimitKey: string;
  readonly nonce: string;
  readonly challengeTs: number;
  info: ConnectionInfo | undefined;
  /** Set once authenticated with the `session-scoped-events` capability. */
  followed: FollowedSessions | undefined;
  eventSequence: number;
  handshakeTimer: NodeJS.Timeout | undefined;
}

/**
 * The most bytes an unauthenticated client may send in all (its `connect` frame is at most
 * {@link maxPreAuthFrameBytes}): past it the socket stops being read and is closed with 1009,
 * so a client that never signs in cannot make the gateway buffer a full 25 MiB frame.
 */
const maxPreAuthReadBytes = 2 * maxPreAuthFrameBytes;

/** The size of a received message, whatever shape ws delivered it in. */
function byteLengthOf(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((total, chunk) => total + chunk.length, 0);
  return data instanceof ArrayBuffer ? data.byteLength : data.length;
}

export function createProtocolServer(options: ProtocolServerOptions): ProtocolServer {
  const now = options.now ?? Date.now;
  const rateLimiter = options.rateLimiter ?? createAuthRateLimiter({ now });
  const log = options.log ?? (() => {});
  const connections = new Set<Connection>();
  let closing = false;
  const authenticate = createHandshake({
    auth: options.auth,
    hello: options.hello,
    rateLimiter,
    now,
    tickIntervalMs: options.tickIntervalMs ?? tickIntervalMs,
    log,
  });
  const handleHttp = createHttpHandler({
    http: options.http,
    isReady: () => !closing && (options.isReady?.() ?? true),
    log,
  });

  const server = createServer((request, response) => {
    void handleHttp(request, response);
  });
  // ws's public `maxPayload` is per server: it is the authenticated cap, and the tighter
  // pre-auth cap is enforced here (per frame in onMessage, in total on the raw socket).
  const webSockets = new WebSocketServer({
    noServer: true,
    maxPayload: maxFrameBytes,
    perMessageDeflate: false,
  });

  server.on('upgrade', (request, socket, head) => {
    if (closing) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n');
      return;
    }
    if (!originAllowed(request, options.allowedOrigins)) {
      log('warn', 'refused a WebSocket from a disallowed browser origin', { origin: request.headers.origin });
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\norigin not allowed\r\n');
      return;
    }
    webSockets.handleUpgrade(request, socket, head, (webSocket) => accept(webSocket, request));
  });

  const sendText = createFrameWriter();

  function send(connection: Connection, frame: unknown): void {
    sendText(connection, JSON.stringify(frame));
  }

  function respond(
    connection: Connection,
    id: string,
    ok: boolean,
    payload: unknown,
    error?: ProtocolErrorShape,
  ): void {
    send(connection, ok ? { type: 'res', id, ok, payload } : { type: 'res', id, ok, error });
  }

  function sendEvent(connection: Connection, event: string, payload: unknown): void {
    connection.eventSequence += 1;
    send(connection, { type: 'event', event, payload, seq: connection.eventSequence });
  }

  function fail(
    connection: Connection,
    id: string | undefined,
    error: GatewayError,
    closeCode: number,
  ): void {
    if (id !== undefined) respond(connection, id, false, undefined, toProtocolError(error));
    connection.socket.close(closeCode, error.message.slice(0, 120));
  }

  function accept(socket: WebSocket, request: IncomingMessage): void {
    const connection: Connection = {
      socket,
      raw: request.socket,
      preAuthBytes: 0,
      countPreAuth: (chunk) => {
        connection.preAuthBytes += chunk.length;
        if (connection.info !== undefined || connection.preAuthBytes <= maxPreAuthReadBytes) return;
        // Stop reading (nothing more is buffered), say why, and drop the socket soon after.
        request.socket.off('data', connection.countPreAuth);
        request.socket.pause();
        socket.close(closeCodes.messageTooBig, 'too much data before authentication');
        setTimeout(() => socket.terminate(), 1_000).unref();
      },
      remoteAddress: request.socket.remoteAddress ?? 'unknown',
      rateLimitKey:
        request.headers.origin === undefined
          ? (request.socket.remoteAddress ?? 'unknown')
          : `origin ${request.headers.origin}`,
      nonce: randomUUID(),
      challengeTs: now(),
      info: undefined,
      followed: undefined,
      eventSequence: 0,
      handshakeTimer: undefined,
    };
    connections.add(connection);
    request.socket.on('data', connection.countPreAuth);
    connection.handshakeTimer = setTimeout(() => {
      if (connection.info === undefined) socket.close(closeCodes.policyViolation, 'handshake timeout');
    }, options.handshakeTimeoutMs ?? handshakeTimeoutMs);
    connection.handshakeTimer.unref();

    socket.on('message', (data, isBinary) => onMessage(connection, data, isBinary));
    socket.on('close', () => {
      request.socket.off('data', connection.countPreAuth);
      clearTimeout(connection.handshakeTimer);
      connections.delete(connection);
      if (connection.info !== undefined) options.onConnectionChange?.(authenticatedCount());
    });
    socket.on('error', (error) => {
      if ((error as { code?: string }).code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') return;
      log('warn', 'WebSocket error', { error: error.message });
    });
    send(connection, {
      type: 'event',
      event: 'connect.challenge',
      payload: { nonce: connection.nonce, ts: connection.challengeTs },
    });
  }

  function onMessage(connection: Connection, data: RawData, isBinary: boolean): void {
    if (connection.info === undefined && byteLengthOf(data) > maxPreAuthFrameBytes) {
      connection.socket.close(closeCodes.messageTooBig, 'frame too big before authentication');
      return;
    }
    const text = isBinary ? undefined : data.toString();
    let parsed: unknown;
    try {
      parsed = text === undefined ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const frame = requestFrameSchema.safeParse(parsed);
    if (!frame.success) {
      const error = new GatewayError(
        'INVALID_FRAME',
        'invalid frame: expected a JSON request frame {type:"req", id, method}',
      );
      if (connection.info === undefined) {
        fail(connection, undefined, error, closeCodes.policyViolation);
      } else {
        const id = (parsed as { id?: unknown } | undefined)?.id;
        if (typeof id === 'string' && id.length > 0)
          respond(connection, id, false, undefined, toProtocolError(error));
        else sendEvent(connection, 'error', toProtocolError(error));
      }
      return;
    }
    if (connection.info === undefined) {
      handshake(connection, frame.data.id, frame.data.method, frame.data.params);
      return;
    }
    void dispatch(connection, connection.info, frame.data.id, frame.data.method, frame.data.params);
  }

  function handshake(connection: Connection, id: string, method: string, rawParams: unknown): void {
    const result = authenticate(connection, method, rawParams);
    if (!result.ok) {
      fail(connection, id, result.error, result.closeCode);
      return;
    }
    clearTimeout(connection.handshakeTimer);
    connection.info = result.info;
    if (result.info.capabilities.has(sessionScopedEventsCapability))
      connection.followed = createFollowedSessions();
    connection.raw.off('data', connection.countPreAuth);
    respond(connection, id, true, result.hello);
    options.onConnectionChange?.(authenticatedCount());
  }

  async function dispatch(
    connection: Connection,
    info: ConnectionInfo,
    id: string,
    name: string,
    rawParams: unknown,
  ): Promise<void> {
    try {
      if (name === 'connect') throw new GatewayError('INVALID_HANDSHAKE', 'already connected');
      const method = options.methods.get(name);
      if (method === undefined) throw new GatewayError('UNKNOWN_METHOD', `unknown method: ${name}`);
      const parsed = method.params.safeParse(rawParams ?? {});
      if (!parsed.success) {
        throw new GatewayError('INVALID_PARAMS', `invalid ${name} params: ${describeIssue(parsed.error)}`);
      }
      const required = typeof method.scope === 'function' ? method.scope(parsed.data) : method.scope;
      if (!info.scopes.has(required)) {
        throw new GatewayError('MISSING_SCOPE', `missing scope: ${required}`, {
          details: { missingScope: required, requiredScopes: [required] },
        });
      }
      const payload = await method.handle(parsed.data, {
        connection: info,
        requestId: id,
        respondInterim: (interim) => respond(connection, id, true, interim),
        follow: (sessionKey, runId) => connection.followed?.follow(sessionKey, runId),
      });
      respond(connection, id, true, payload);
    } catch (error) {
      if (!SwitchboardError.isInstance(error)) {
        log('warn', 'method failed', { method: name, error: String(error) });
      }
      respond(connection, id, false, undefined, toProtocolError(error));
    }
  }

  function authenticatedCount(): number {
    let count = 0;
    for (const connection of connections) if (connection.info !== undefined) count += 1;
    return count;
  }

  const tick = setInterval(() => {
    const payload = { ts: now() };
    for (const connection of connections)
      if (connection.info !== undefined) sendEvent(connection, 'tick', payload);
  }, options.tickIntervalMs ?? tickIntervalMs);
  tick.unref();

  return {
    server,
    listen() {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port, options.host, () => {
          server.off('error', reject);
          resolve(server.address() as AddressInfo);
        });
      });
    },
    broadcast(event, payload, filter = {}) {
      const scope = filter.scope ?? 'operator.read';
      let head: string | undefined;
      for (const connection of connections) {
        const info = connection.info;
        if (info === undefined) continue;
        if (scope !== 'none' && !info.scopes.has(scope)) continue;
        if (filter.capability !== undefined && !info.capabilities.has(filter.capability)) continue;
        if (filter.session !== undefined) {
          const followed = connection.followed;
          // Session-scoped connections: a run's events only while they follow it, its summary
          // otherwise. Every other connection: the events, never the summary.
          if (filter.toUnfollowers === true) {
            if (followed === undefined || followed.follows(filter.session)) continue;
          } else if (followed !== undefined && !followed.follows(filter.session)) continue;
        }
        head ??= eventFrameHead(event, payload);
        connection.eventSequence += 1;
        sendText(connection, `${head}${connection.eventSequence}}`);
      }
    },
    connectionCount: authenticatedCount,
    async close(reason, restartExpectedMs) {
      closing = true;
      clearInterval(tick);
      const payload = restartExpectedMs === undefined ? { reason } : { reason, restartExpectedMs };
      for (const connection of connections) {
        if (connection.info !== undefined) sendEvent(connection, 'shutdown', payload);
        connection.socket.close(closeCodes.serviceRestart, reason.slice(0, 120));
      }
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      setTimeout(() => {
        for (const connection of connections) connection.socket.terminate();
        server.closeAllConnections();
      }, 2000).unref();
      await closed;
      webSockets.close();
    },
  };
}
