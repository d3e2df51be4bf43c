// The HTTP side of the fake Slack: `POST /api/<method>` (token check, token types, injected
// faults, the call record, the answer), the v2 upload URL, private file downloads, and the
// Socket Mode WebSocket upgrade at `/socket-mode?ticket=…`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { SlackEventDelivery } from './events.ts';
import type { FakeSlackCall, FakeSlackDownload, FakeSlackFault, FakeSlackTokenType } from './types.ts';
import { ApiFailure, botMethods, type SlackWebApi } from './web-api.ts';
import type { SlackWorld } from './world.ts';

interface FaultRule {
  readonly method: string;
  readonly fault: FakeSlackFault;
  remaining: number;
}

/** What the server needs from the rest of the fake. */
export interface SlackHttpServerOptions {
  readonly now: () => number;
  readonly wake: () => void;
}

/** The server (not yet listening) and what it records. */
export interface SlackHttpServer {
  readonly server: Server;
  readonly socketServer: WebSocketServer;
  /** Every Web API call, in order. */
  readonly calls: FakeSlackCall[];
  /** Every private file download, in order. */
  readonly fileDownloads: FakeSlackDownload[];
  /** Injected faults, first match wins. */
  readonly faults: FaultRule[];
}

export function createSlackHttpServer(
  world: SlackWorld,
  delivery: SlackEventDelivery,
  webApi: SlackWebApi,
  { now, wake }: SlackHttpServerOptions,
): SlackHttpServer {
  const { tokens, revoked, files } = world;
  const { methods } = webApi;
  const calls: FakeSlackCall[] = [];
  const fileDownloads: Array<{ fileId: string; status: number; bytesSent: number; at: number }> = [];
  const faults: FaultRule[] = [];

  const server: Server = createServer((request, response) => {
    void handleHttp(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(String(error));
    });
  });
  const socketServer = new WebSocketServer({ noServer: true });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const workspace =
      url.pathname === '/socket-mode' ? delivery.takeTicket(url.searchParams.get('ticket') ?? '') : undefined;
    if (workspace === undefined) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      return;
    }
    socketServer.handleUpgrade(request, socket, head, (webSocket) =>
      delivery.acceptSocket(webSocket, workspace),
    );
  });

  async function readRaw(request: IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async function parseParams(request: IncomingMessage, raw: Buffer): Promise<Record<string, unknown>> {
    const type = request.headers['content-type'] ?? '';
    if (type.startsWith('application/json')) {
      const parsed: unknown = raw.length === 0 ? {} : JSON.parse(raw.toString('utf8'));
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
    }
    if (type.startsWith('multipart/form-data')) {
      const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': type } }).formData();
      const params: Record<string, unknown> = {};
      form.forEach((value, key) => {
        params[key] = value;
      });
      return params;
    }
    return Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
  }

  function sendJson(
    response: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) {
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    response.end(JSON.stringify(body));
  }

  function takeFault(method: string): FakeSlackFault | undefined {
    const index = faults.findIndex(
      (rule) => (rule.method === method || rule.method === '*') && rule.remaining > 0,
    );
    if (index === -1) return undefined;
    const rule = faults[index]!;
    rule.remaining -= 1;
    if (rule.remaining <= 0) faults.splice(index, 1);
    return rule.fault;
  }

  async function handleApi(
    request: IncomingMessage,
    response: ServerResponse,
    method: string,
  ): Promise<void> {
    const raw = await readRaw(request);
    let params: Record<string, unknown>;
    try {
      params = await parseParams(request, raw);
    } catch {
      sendJson(response, 200, { ok: false, error: 'invalid_form_data' });
      return;
    }
    const header = request.headers.authorization ?? '';
    const token = header.startsWith('Bearer ')
      ? header.slice(7)
      : typeof params.token === 'string'
        ? params.token
        : '';
    const known = tokens.get(token);
    const tokenType: FakeSlackTokenType = token === '' ? 'none' : (known?.type ?? 'unknown');
    const { token: _token, ...recordedParams } = params;
    const record = (status: number, ok: boolean, error?: string) => {
      calls.push({
        method,
        teamId: known?.workspace.teamId,
        tokenType,
        params: recordedParams,
        status,
        ok,
        error,
        at: now(),
      });
      wake();
    };
    const fail = (error: string, status = 200, headers: Record<string, string> = {}) => {
      record(status, false, error);
      sendJson(response, status, { ok: false, error }, headers);
    };

    const handler = methods[method];
    if (handler === undefined) return fail('unknown_method');
    if (token === '') return fail('not_authed');
    if (known === undefined) return fail('invalid_auth');
    const revokedError = revoked.get(token);
    if (revokedError !== undefined) return fail(revokedError);
    if (
      method === 'apps.connections.open'
        ? known.type !== 'app'
        : known.type !== 'bot' || !botMethods.has(method)
    ) {
      return fail('not_allowed_token_type');
    }
    const fault = takeFault(method);
    if (fault !== undefined) {
      if (fault.type === 'ratelimited') {
        return fail('ratelimited', 429, { 'retry-after': String(fault.retryAfterSeconds) });
      }
      if (fault.type === 'error') return fail(fault.error);
      record(fault.status, false, `http_${fault.status}`);
      response.writeHead(fault.status, { 'content-type': 'text/plain' });
      response.end(`fake Slack: injected HTTP ${fault.status}`);
      return;
    }
    try {
      const result = handler({ method, params, workspace: known.workspace, tokenType: known.type });
      record(200, true);
      sendJson(response, 200, { ok: true, ...result });
    } catch (error) {
      if (error instanceof ApiFailure) return fail(error.error, error.status);
      throw error;
    }
  }

  async function handleUpload(
    request: IncomingMessage,
    response: ServerResponse,
    fileId: string,
  ): Promise<void> {
    const raw = await readRaw(request);
    const file = files.get(fileId);
    if (file === undefined || request.method !== 'POST') {
      response.writeHead(404).end('not found');
      return;
    }
    const type = request.headers['content-type'] ?? '';
    let bytes: Uint8Array = new Uint8Array(raw);
    if (type.startsWith('multipart/form-data')) {
      const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': type } }).formData();
      let part: File | undefined;
      form.forEach((value) => {
        if (part === undefined && typeof value !== 'string') part = value;
      });
      if (part === undefined) {
        response.writeHead(400).end('no file part');
        return;
      }
      bytes = new Uint8Array(await part.arrayBuffer());
      if (part.type !== '' && part.type !== 'application/octet-stream') file.mimetype = part.type;
    }
    file.bytes = bytes;
    file.size = bytes.byteLength;
    file.mimetype = guessMimeType(file.name, file.mimetype);
    response.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${bytes.byteLength}`);
  }

  function handleDownload(request: IncomingMessage, response: ServerResponse, path: string): void {
    const match = /^\/files-pri\/([A-Z0-9]+)-([A-Z0-9]+)\//.exec(path);
    const file = match === null ? undefined : files.get(match[2] ?? '');
    const download = { fileId: match?.[2] ?? '', status: 404, bytesSent: 0, at: now() };
    fileDownloads.push(download);
    wake();
    if (file === undefined || file.teamId !== match?.[1] || file.bytes === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('file not found');
      return;
    }
    const header = request.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7) : '';
    const known = tokens.get(token);
    if (
      known === undefined ||
      known.type !== 'bot' ||
      known.workspace.teamId !== file.teamId ||
      revoked.has(token)
    ) {
      // Slack answers an unauthenticated download with its sign-in page; a 403 is clearer in tests.
      download.status = 403;
      response
        .writeHead(403, { 'content-type': 'text/plain' })
        .end('a bot token of the workspace is required');
      return;
    }
    response.writeHead(200, {
      'content-type': file.mimetype,
      'content-length': String(file.bytes.byteLength),
      'content-disposition': `attachment; filename="${file.name.replace(/"/g, '')}"`,
    });
    download.status = 200;
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
      wake();
    };
    pump();
  }

  async function handleHttp(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (path.startsWith('/api/') && request.method === 'POST')
      return handleApi(request, response, path.slice(5));
    if (path.startsWith('/upload/')) return handleUpload(request, response, path.slice(8));
    if (path.startsWith('/files-pri/') && request.method === 'GET')
      return handleDownload(request, response, path);
    response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }

  return { server, socketServer, calls, fileDownloads, faults };
}

const extensionTypes: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  json: 'application/json',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  mp4: 'video/mp4',
};

function guessMimeType(name: string, current: string): string {
  if (current !== 'application/octet-stream') return current;
  const extension = name.includes('.') ? (name.split('.').pop() ?? '').toLowerCase() : '';
  return extensionTypes[extension] ?? current;
}
