// The HTTP side of the fake Discord: attachment downloads, `/api/v<N>/…` (body limit,
// JSON and multipart bodies, the bot token, injected 429s and errors, the request record)
// handed to the REST routes, and the upgrade of `/gateway` to the gateway WebSocket.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import type {
  ErrorFault,
  FakeDiscordDownload,
  FakeDiscordUpload,
  RateLimitFault,
  RecordedDiscordRequest,
} from './fake-discord-types.ts';
import type { DiscordGateway } from './gateway.ts';
import { type DiscordRest, error, type RestReply } from './rest.ts';
import type { DiscordAuth, PendingFault } from './state.ts';
import type { DiscordWorld } from './world.ts';

interface FormFile {
  readonly name: string;
  readonly type: string;
  arrayBuffer(): Promise<ArrayBuffer>;
}

const jsonHeaders = { 'content-type': 'application/json' };
const maxBodyBytes = 64 * 1024 * 1024;

/** What the HTTP side records and its handlers; the handle owns the server itself. */
export interface DiscordHttp {
  readonly requests: RecordedDiscordRequest[];
  readonly attachmentDownloads: FakeDiscordDownload[];
  readonly rateLimits: Array<PendingFault<RateLimitFault>>;
  readonly errorFaults: Array<PendingFault<ErrorFault>>;
  readonly rateLimitedCount: number;
  handleHttp(request: IncomingMessage, response: ServerResponse): Promise<void>;
  onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  writeReply(response: ServerResponse, reply: RestReply): void;
}

/** What the HTTP side needs from the rest of the fake. */
export interface DiscordHttpOptions {
  readonly now: () => number;
  readonly notify: () => void;
  /** The WebSocket server once started (undefined before: upgrades are refused). */
  readonly sockets: () => WebSocketServer | undefined;
}

export function createDiscordHttp(
  world: DiscordWorld,
  auth: DiscordAuth,
  gateway: DiscordGateway,
  rest: DiscordRest,
  { now, notify, sockets: currentSockets }: DiscordHttpOptions,
): DiscordHttp {
  const { files } = world;
  const { route } = rest;
  const { onConnection } = gateway;
  const requests: RecordedDiscordRequest[] = [];
  const attachmentDownloads: Array<{ path: string; status: number; bytesSent: number; at: number }> = [];
  const rateLimits: Array<PendingFault<RateLimitFault>> = [];
  const errorFaults: Array<PendingFault<ErrorFault>> = [];
  let rateLimitedCount = 0;

  function takeFault<Fault extends { method?: string; path?: RegExp }>(
    list: Array<PendingFault<Fault>>,
    method: string,
    path: string,
  ): Fault | undefined {
    const index = list.findIndex(
      (entry) =>
        (entry.fault.method === undefined || entry.fault.method.toUpperCase() === method) &&
        (entry.fault.path === undefined || entry.fault.path.test(path)),
    );
    if (index === -1) return undefined;
    const entry = list[index]!;
    entry.remaining -= 1;
    if (entry.remaining <= 0) list.splice(index, 1);
    return entry.fault;
  }

  async function readRequest(request: IncomingMessage): Promise<Buffer | undefined> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request) {
      size += (chunk as Buffer).length;
      if (size > maxBodyBytes) return undefined;
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  }

  async function parseBody(
    contentType: string | undefined,
    raw: Buffer,
  ): Promise<{ json: unknown; files: FakeDiscordUpload[] } | undefined> {
    if (raw.length === 0) return { json: undefined, files: [] };
    if (contentType?.startsWith('multipart/form-data')) {
      // undici parses the standard multipart discord.js writes. The global FormData type is
      // an empty interface when a DOM-like global is in scope, so its entries are typed here.
      const form = (await new Response(new Uint8Array(raw), {
        headers: { 'content-type': contentType },
      }).formData()) as unknown as Iterable<[string, string | FormFile]>;
      const uploads: FakeDiscordUpload[] = [];
      let json: unknown;
      for (const [field, value] of form) {
        if (typeof value === 'string') {
          if (field === 'payload_json') json = JSON.parse(value);
          continue;
        }
        uploads.push({
          field,
          fileName: value.name,
          contentType: value.type === '' ? 'application/octet-stream' : value.type,
          bytes: new Uint8Array(await value.arrayBuffer()),
        });
      }
      return { json, files: uploads };
    }
    return { json: JSON.parse(raw.toString('utf8')), files: [] };
  }

  function writeReply(response: ServerResponse, reply: RestReply): void {
    if (reply.status === 204) {
      // No content-type on a 204: @discordjs/rest would JSON.parse('') and fail.
      response.writeHead(204, reply.headers ?? {});
      response.end();
      return;
    }
    response.writeHead(reply.status, { ...jsonHeaders, ...reply.headers });
    response.end(JSON.stringify(reply.body ?? null));
  }

  async function handleHttp(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method === 'GET' && url.pathname.startsWith('/attachments/')) {
      const file = files.get(url.pathname);
      const download = {
        path: url.pathname,
        status: file === undefined ? 404 : 200,
        bytesSent: 0,
        at: now(),
      };
      attachmentDownloads.push(download);
      notify();
      if (file === undefined) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
        return;
      }
      response.writeHead(200, {
        'content-type': file.contentType,
        'content-length': String(file.bytes.byteLength),
      });
      // In chunks with backpressure, counting what the socket took (a test sees an early stop).
      const bytes = Buffer.from(file.bytes);
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
        notify();
      };
      pump();
      return;
    }
    const match = /^\/api\/v(\d+)(\/.*)$/.exec(url.pathname);
    if (match === null) {
      writeReply(response, error(404, 0, '404: Not Found'));
      return;
    }
    const method = (request.method ?? 'GET').toUpperCase();
    const path = match[2]!;
    const authorization = request.headers.authorization;
    const contentType = request.headers['content-type'];
    const raw = await readRequest(request);
    const record = (status: number, json: unknown, uploads: readonly FakeDiscordUpload[]): void => {
      requests.push({
        method,
        path,
        status,
        authorization,
        userAgent: request.headers['user-agent'],
        contentType,
        json,
        files: uploads,
        at: now(),
      });
      notify();
    };
    if (raw === undefined) {
      record(413, undefined, []);
      writeReply(response, error(413, 40005, 'Request entity too large'));
      return;
    }
    let parsed: { json: unknown; files: FakeDiscordUpload[] } | undefined;
    try {
      parsed = await parseBody(contentType, raw);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined) {
      record(400, undefined, []);
      writeReply(response, error(400, 50109, 'The request body contains invalid JSON.'));
      return;
    }
    if (!auth.tokenValid || authorization !== `Bot ${auth.token}`) {
      record(401, parsed.json, parsed.files);
      writeReply(response, error(401, 0, '401: Unauthorized'));
      return;
    }
    const limited = takeFault(rateLimits, method, path);
    if (limited !== undefined) {
      rateLimitedCount += 1;
      const retryAfter = limited.retryAfterSeconds ?? 1;
      record(429, parsed.json, parsed.files);
      writeReply(response, {
        status: 429,
        headers: {
          'retry-after': String(retryAfter),
          'x-ratelimit-scope': limited.global === true ? 'global' : 'user',
          ...(limited.global === true ? { 'x-ratelimit-global': 'true' } : {}),
        },
        body: {
          message: 'You are being rate limited.',
          retry_after: retryAfter,
          global: limited.global === true,
        },
      });
      return;
    }
    const failure = takeFault(errorFaults, method, path);
    if (failure !== undefined) {
      record(failure.status, parsed.json, parsed.files);
      writeReply(
        response,
        error(failure.status, failure.code ?? 0, failure.message ?? `${failure.status}: injected failure`),
      );
      return;
    }
    const reply = route({ method, path, json: parsed.json, files: parsed.files });
    record(reply.status, parsed.json, parsed.files);
    writeReply(response, reply);
  }

  function onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const sockets = currentSockets();
    if (path !== '/gateway' || sockets === undefined) {
      socket.destroy();
      return;
    }
    sockets.handleUpgrade(request, socket, head, (connection) => onConnection(connection));
  }

  return {
    requests,
    attachmentDownloads,
    rateLimits,
    errorFaults,
    get rateLimitedCount() {
      return rateLimitedCount;
    },
    handleHttp,
    onUpgrade,
    writeReply,
  };
}
