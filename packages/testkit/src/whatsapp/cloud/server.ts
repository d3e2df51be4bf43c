// The HTTP side of the fake Cloud API on 127.0.0.1: media downloads at
// `/media-download/<id>` (with the access token, as Meta's lookaside URLs require) and the
// versioned Graph endpoints (`/v<major>.<minor>/…`), handed to the Graph API module.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { TestkitError } from '../../shared/errors.ts';
import { closeServer, listenOnLoopback } from '../../shared/http-server.ts';
import type { CloudGraphApi } from './graph-api.ts';
import { graphError } from './responses.ts';
import type { CloudWorld } from './world.ts';

const graphVersionPattern = /^\/v\d+\.\d+(\/.*)$/;

export class CloudServer {
  readonly #world: CloudWorld;
  readonly #graph: CloudGraphApi;
  /** Every GET of a media download URL, with the bytes the socket took. */
  readonly mediaDownloads: Array<{ id: string; status: number; bytesSent: number }> = [];
  #server: Server | undefined;
  #port = 0;

  constructor(world: CloudWorld, graph: CloudGraphApi) {
    this.#world = world;
    this.#graph = graph;
  }

  /** Starts listening; a second call does nothing. */
  async start(): Promise<void> {
    if (this.#server !== undefined) return;
    this.#server = createServer((request, response) => {
      this.#handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500).end(String(error));
      });
    });
    this.#port = await listenOnLoopback(this.#server);
  }

  async close(): Promise<void> {
    if (this.#server !== undefined) await closeServer(this.#server);
  }

  /** `http://127.0.0.1:<port>`. */
  get origin(): string {
    if (this.#port === 0)
      throw new TestkitError('TESTKIT_NOT_STARTED', 'FakeWhatsAppCloud: call start() first');
    return `http://127.0.0.1:${this.#port}`;
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const download = /^\/media-download\/(\d+)$/.exec(url.pathname);
    if (download !== null) {
      this.#download(request, response, download[1]!);
      return;
    }
    const graph = graphVersionPattern.exec(url.pathname);
    if (graph === null) {
      graphError(response, 404, 100, `unknown path ${url.pathname}`);
      return;
    }
    await this.#graph.handle(request, response, graph[1]!, url);
  }

  #download(request: IncomingMessage, response: ServerResponse, id: string): void {
    const stored = this.#world.media(id);
    const download = { id, status: 401, bytesSent: 0 };
    this.mediaDownloads.push(download);
    if (!this.#world.authorized(request.headers.authorization)) {
      this.#world.unauthorized += 1;
      response.writeHead(401).end();
      return;
    }
    if (stored === undefined) {
      download.status = 404;
      response.writeHead(404).end();
      return;
    }
    download.status = 200;
    const bytes = stored.bytes;
    response.writeHead(200, { 'content-type': stored.mimeType, 'content-length': bytes.length });
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
    };
    pump();
  }
}
