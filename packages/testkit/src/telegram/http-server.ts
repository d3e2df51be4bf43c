// The HTTP side of the fake Telegram: routes `/bot<token>/<method>` and
// `/file/bot<token>/<path>`, reads the parameters (query, JSON, urlencoded, multipart), checks
// the token, applies injected faults, records every call and answers it as the Bot API does.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ApiFailure, asRecord, bad } from './api-values.ts';
import type { UpdateDelivery } from './delivery.ts';
import type { RecordedUpload } from './fake-telegram-types.ts';
import { faultFailure, type MutableRule, takeFault } from './faults.ts';
import type { TelegramMethods } from './methods.ts';
import { multipartBoundary, parseMultipart } from './multipart.ts';
import type { TelegramWorld } from './world.ts';

/** A recorded call, completed once it is answered. */
export interface MutableRequest {
  method: string;
  params: Record<string, unknown>;
  files: Record<string, RecordedUpload>;
  via: 'http' | 'webhook-reply';
  receivedAt: number;
  status: number;
  description?: string;
  bytesSent?: number;
}

/** What the server needs from the rest of the fake. */
export interface TelegramHttpServerOptions {
  readonly token: string;
  readonly maxBodyBytes: number;
  readonly world: TelegramWorld;
  readonly methods: TelegramMethods;
  readonly delivery: UpdateDelivery;
  /** Called after each change a wait may be watching (a call answered or dropped). */
  readonly notify: () => void;
}

export class TelegramHttpServer {
  readonly server: Server;
  /** Every call, oldest first. */
  readonly requests: MutableRequest[] = [];
  /** Injected faults, first match wins. */
  readonly rules: MutableRule[] = [];
  /** While true every call gets 401. */
  tokenRevoked = false;
  readonly #options: TelegramHttpServerOptions;

  constructor(options: TelegramHttpServerOptions) {
    this.#options = options;
    this.server = createServer({ keepAliveTimeout: 10_000 }, (request, response) => {
      this.#handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) {
          response.writeHead(500, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({ ok: false, error_code: 500, description: `fake failure: ${String(error)}` }),
          );
        }
      });
    });
  }

  /** A webhook answer may carry one method call (`{ method, ...params }`), as Telegram allows. */
  recordWebhookReply(text: string): void {
    const body = asRecord(text);
    if (body === undefined || typeof body.method !== 'string') return;
    const { method, ...params } = body;
    const record: MutableRequest = {
      method,
      params,
      files: {},
      via: 'webhook-reply',
      receivedAt: this.#options.world.now(),
      status: 0,
    };
    this.requests.push(record);
    try {
      this.#options.methods.call(method, params, {});
      record.status = 200;
    } catch (error) {
      record.status = error instanceof ApiFailure ? error.status : 500;
      record.description = (error as Error).message;
    }
  }

  #record(method: string, params: Record<string, unknown>): MutableRequest {
    const record: MutableRequest = {
      method,
      params,
      files: {},
      via: 'http',
      receivedAt: this.#options.world.now(),
      status: 0,
    };
    this.requests.push(record);
    return record;
  }

  #authorized(token: string): boolean {
    return token === this.#options.token && !this.tokenRevoked;
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const fileMatch = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (fileMatch !== null) {
      this.#download(request, response, decodeURIComponent(fileMatch[1]!), decodeURIComponent(fileMatch[2]!));
      return;
    }
    const match = /^\/bot([^/]+)\/(?:test\/)?([A-Za-z]+)$/.exec(url.pathname);
    if (match === null) {
      send(response, 404, { ok: false, error_code: 404, description: 'Not Found' });
      return;
    }
    const token = decodeURIComponent(match[1]!);
    const method = match[2]!;
    const body = await readRawBody(request, this.#options.maxBodyBytes);
    if (body === 'aborted') return;
    const record = this.#record(method, {});
    if (body === 'too_large') {
      this.#answer(response, record, new ApiFailure(413, 'Request Entity Too Large'));
      return;
    }
    try {
      parseParams(request, url, body, record);
    } catch (error) {
      this.#answer(response, record, bad(`can't parse the request: ${(error as Error).message}`));
      return;
    }
    if (!this.#authorized(token)) {
      this.#answer(response, record, new ApiFailure(401, 'Unauthorized'));
      return;
    }
    if (this.#applyFault(request, response, record)) return;
    if (method === 'getUpdates') {
      this.#options.delivery.getUpdates(
        record.params,
        (outcome) => this.#answer(response, record, outcome),
        (listener) => response.on('close', listener),
      );
      return;
    }
    try {
      const result = this.#options.methods.call(method, record.params, record.files);
      this.#answer(response, record, result);
    } catch (error) {
      this.#answer(
        response,
        record,
        error instanceof ApiFailure ? error : new ApiFailure(500, String(error)),
      );
    }
  }

  /** Answers with an injected fault if one matches; true when it did. */
  #applyFault(request: IncomingMessage, response: ServerResponse, record: MutableRequest): boolean {
    const fault = takeFault(this.rules, record);
    if (fault === undefined) return false;
    switch (fault.type) {
      case 'network':
        record.description = 'connection destroyed (injected)';
        request.socket.destroy();
        this.#options.notify();
        return true;
      case 'hang':
        record.description = 'no answer (injected)';
        return true;
      default:
        this.#answer(response, record, faultFailure(fault));
        return true;
    }
  }

  #answer(response: ServerResponse, record: MutableRequest, outcome: unknown): void {
    if (outcome instanceof ApiFailure) {
      record.status = outcome.status;
      record.description = outcome.message;
      send(response, outcome.status, {
        ok: false,
        error_code: outcome.status,
        description: outcome.message,
        parameters: outcome.parameters,
      });
    } else {
      record.status = 200;
      send(response, 200, { ok: true, result: outcome });
    }
    this.#options.notify();
  }

  #download(request: IncomingMessage, response: ServerResponse, token: string, path: string): void {
    const record = this.#record('downloadFile', { file_path: path });
    if (!this.#authorized(token)) {
      this.#answer(response, record, new ApiFailure(401, 'Unauthorized'));
      return;
    }
    if (this.#applyFault(request, response, record)) return;
    const file = this.#options.world.fileAtPath(path);
    if (file === undefined) {
      this.#answer(response, record, new ApiFailure(404, 'Not Found'));
      return;
    }
    record.status = 200;
    record.bytesSent = 0;
    response.writeHead(200, {
      'content-type': file.mimeType ?? 'application/octet-stream',
      ...(file.declareSize === false ? {} : { 'content-length': file.bytes.length }),
    });
    // In chunks with backpressure, counting what the socket took, so a test can see a client
    // stop a download early (bytesSent below the size).
    const bytes = file.bytes;
    const pump = (): void => {
      while ((record.bytesSent ?? 0) < bytes.length && !response.destroyed) {
        const start = record.bytesSent ?? 0;
        const chunk = bytes.subarray(start, start + downloadChunkBytes);
        record.bytesSent = start + chunk.length;
        if (!response.write(chunk)) {
          response.once('drain', pump);
          return;
        }
      }
      if (!response.destroyed) response.end();
      this.#options.notify();
    };
    response.once('close', () => this.#options.notify());
    pump();
  }
}

/** The chunk size of a file download. */
const downloadChunkBytes = 64 * 1024;

function send(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

function parseParams(request: IncomingMessage, url: URL, body: Buffer, record: MutableRequest): void {
  for (const [key, value] of url.searchParams) record.params[key] = value;
  if (body.length === 0) return;
  const contentType = request.headers['content-type'] ?? '';
  const boundary = multipartBoundary(contentType);
  if (boundary !== undefined) {
    const parts = parseMultipart(body, boundary);
    for (const part of parts) {
      if (part.fileName !== undefined) {
        record.files[part.name] = {
          bytes: new Uint8Array(part.data),
          ...(part.fileName === '' ? {} : { fileName: part.fileName }),
          contentType: part.contentType,
        };
      } else {
        record.params[part.name] = part.data.toString('utf8');
      }
    }
    return;
  }
  if (/application\/x-www-form-urlencoded/i.test(contentType)) {
    for (const [key, value] of new URLSearchParams(body.toString('utf8'))) record.params[key] = value;
    return;
  }
  const parsed: unknown = JSON.parse(body.toString('utf8'));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error('the JSON body is not an object');
  }
  Object.assign(record.params, parsed);
}

function readRawBody(request: IncomingMessage, limit: number): Promise<Buffer | 'too_large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      if (!tooLarge) chunks.push(chunk);
    });
    request.on('end', () => resolve(tooLarge ? 'too_large' : Buffer.concat(chunks)));
    request.on('error', () => resolve('aborted'));
  });
}
