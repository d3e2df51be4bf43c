// The network side of the fake WhatsApp, one port on 127.0.0.1: the socket WebSocket at
// /ws/chat (frames from the fake Baileys socket go to the connections, the socket requests
// and the world's records) and the media CDN at /cdn (uploads, and downloads of stored
// encrypted media).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type WebSocket, WebSocketServer } from 'ws';
import { TestkitError } from '../../shared/errors.ts';
import { closeServer, listenOnLoopback } from '../../shared/http-server.ts';
import type { SocketFrame } from '../protocol.ts';
import type { WhatsAppConnections } from './connections.ts';
import type { SocketRequests } from './socket-requests.ts';
import type { WhatsAppWorld } from './world.ts';

/** What the server needs from the rest of the fake. */
export interface WhatsAppServerOptions {
  readonly world: WhatsAppWorld;
  readonly connections: WhatsAppConnections;
  readonly requests: SocketRequests;
  /** Called after each change a wait may be watching (a socket connected or gone, a presence, a read). */
  readonly notify: () => void;
}

export class WhatsAppServer {
  readonly #options: WhatsAppServerOptions;
  readonly #cdn = new Map<string, Buffer>();
  /** Every GET of the CDN, with the bytes the socket took. */
  readonly mediaDownloads: Array<{ id: string; status: number; bytesSent: number }> = [];
  #server: Server | undefined;
  #sockets: WebSocketServer | undefined;
  #port = 0;

  constructor(options: WhatsAppServerOptions) {
    this.#options = options;
  }

  /** Starts listening; a second call does nothing. */
  async start(): Promise<void> {
    if (this.#server !== undefined) return;
    const server = createServer((request, response) => this.#handleHttp(request, response));
    const sockets = new WebSocketServer({ noServer: true });
    this.#server = server;
    this.#sockets = sockets;
    server.on('upgrade', (request, socket, head) => {
      if (new URL(request.url ?? '/', 'http://127.0.0.1').pathname !== '/ws/chat') {
        socket.destroy();
        return;
      }
      sockets.handleUpgrade(request, socket, head, (ws) => this.#accept(ws));
    });
    this.#port = await listenOnLoopback(server);
  }

  async close(): Promise<void> {
    this.#options.connections.terminateAll();
    this.#sockets?.close();
    if (this.#server !== undefined) await closeServer(this.#server);
  }

  /** `ws://127.0.0.1:<port>/ws/chat`. */
  get socketUrl(): string {
    return `ws://127.0.0.1:${this.#requirePort()}/ws/chat`;
  }

  /** Stores media bytes on the CDN and returns their download URL. */
  storeMedia(bytes: Buffer): string {
    const id = randomBytes(12).toString('hex');
    this.#cdn.set(id, bytes);
    return `http://127.0.0.1:${this.#port}/cdn/${id}`;
  }

  #requirePort(): number {
    if (this.#port === 0) throw new TestkitError('TESTKIT_NOT_STARTED', 'FakeWhatsApp: call start() first');
    return this.#port;
  }

  #accept(ws: WebSocket): void {
    const { connections, requests, world, notify } = this.#options;
    const connection = connections.add(ws);
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as SocketFrame;
      if (frame.type === 'hello') connections.onHello(connection, frame);
      else if (frame.type === 'request') requests.handle(connection, frame.id, frame.request);
      else if (frame.type === 'presence') {
        world.presences.push({
          presence: frame.presence,
          jid: frame.jid,
          at: world.now(),
        });
        notify();
      } else if (frame.type === 'read') {
        world.reads.push(...frame.keys);
        notify();
      }
    });
    ws.on('close', () => {
      connections.remove(connection);
      notify();
    });
    notify();
  }

  #handleHttp(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method === 'POST' && url.pathname === '/cdn/upload') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ url: this.storeMedia(Buffer.concat(chunks)) }));
      });
      return;
    }
    const match = /^\/cdn\/([0-9a-f]+)$/.exec(url.pathname);
    const bytes = match === null ? undefined : this.#cdn.get(match[1]!);
    if (request.method === 'GET' && match !== null) {
      const download = { id: match[1]!, status: bytes === undefined ? 404 : 200, bytesSent: 0 };
      this.mediaDownloads.push(download);
      this.#options.notify();
    }
    if (request.method === 'GET' && bytes !== undefined) {
      const download = this.mediaDownloads.at(-1)!;
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length });
      // In chunks with backpressure, counting what the socket took (a test sees an early stop).
      const pump = (): void => {
        while (download.bytesSent < bytes.length && !response.destroyed) {
          const chunk = bytes.subarray(download.bytesSent, download.bytesSent + 64 * 1024);
          download.bytesSent += chunk.length;
          if (!response.write(chunk)) {
            response.once('drain', pump);
            return;
          }
        }
        if (!response.destroyed) response.end();
        this.#options.notify();
      };
      pump();
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }
}
