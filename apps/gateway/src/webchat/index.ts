import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { gatewayVersion } from '../version.ts';

export interface WebChatOptions {
  /** Written into the page and sent as the client version; default the gateway's version. */
  readonly version?: string;
  /** The folder holding the page's files; default `static/` beside this module. */
  readonly directory?: string;
}

/** Serves one request if it is for the page or its assets; returns false for any other path. */
export type WebChatHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

/** URL path → file name in the static folder. Nothing outside this table is ever read. */
export const webChatFiles: Readonly<Record<string, string>> = {
  '/': 'index.html',
  '/index.html': 'index.html',
  '/webchat/app.js': 'app.js',
  '/webchat/app.css': 'app.css',
  '/webchat/markdown.js': 'markdown.js',
  '/webchat/connection.js': 'connection.js',
  '/webchat/describe-error.js': 'describe-error.js',
  '/webchat/icon.svg': 'icon.svg',
};

const contentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

interface Asset {
  readonly body: Buffer;
  readonly gzip: Buffer | undefined;
  readonly etag: string;
  readonly contentType: string;
}

function loadAsset(directory: string, file: string, version: string): Asset {
  let body = readFileSync(join(directory, file));
  if (file === 'index.html')
    body = Buffer.from(body.toString('utf8').replaceAll('{{version}}', version.replace(/[^\w.+-]/g, '')));
  const compressed = body.length >= 512 ? gzipSync(body, { level: 9 }) : undefined;
  return {
    body,
    gzip: compressed !== undefined && compressed.length < body.length ? compressed : undefined,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    contentType: contentTypes[extname(file)] ?? 'application/octet-stream',
  };
}

/**
 * `static/` beside this module when running from source; `webchat/` beside the bundle when
 * running the build (tsdown copies src/webchat/static to dist/webchat).
 */
function defaultDirectory(): string {
  const candidates = [join(import.meta.dirname, 'static'), join(import.meta.dirname, 'webchat')];
  return candidates.find((candidate) => existsSync(join(candidate, 'index.html'))) ?? candidates[0] ?? '.';
}

/** Host header values safe to repeat in the CSP (host, IPv4, [IPv6], optional port). */
const plainHost = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

function contentSecurityPolicy(host: string | undefined): string {
  const sockets = host !== undefined && plainHost.test(host) ? ` ws://${host} wss://${host}` : '';
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self'${sockets}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Serves the WebChat page (`/`) and its assets (`/webchat/*`) from the gateway's own port:
 * hand-written HTML, CSS and ES modules, no build step, nothing fetched from elsewhere.
 * Files are read and gzipped once, on first use; responses carry an ETag (304 on match)
 * and a Content-Security-Policy that only allows this origin and its WebSocket.
 */
export function createWebChat(options: WebChatOptions = {}): WebChatHandler {
  const directory = options.directory ?? defaultDirectory();
  const version = options.version ?? gatewayVersion;
  const cache = new Map<string, Asset>();

  return (request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const file = webChatFiles[path];
    if (file === undefined) return false;
    const method = request.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') {
      response
        .writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' })
        .end('method not allowed\n');
      return true;
    }
    let asset = cache.get(file);
    if (asset === undefined) {
      try {
        asset = loadAsset(directory, file, version);
      } catch (error) {
        response
          .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
          .end(`WebChat file ${join(directory, file)} cannot be read: ${(error as Error).message}\n`);
        return true;
      }
      cache.set(file, asset);
    }
    const headers: Record<string, string> = {
      'content-type': asset.contentType,
      'cache-control': 'no-cache',
      etag: asset.etag,
      vary: 'accept-encoding',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    };
    if (file === 'index.html') {
      headers['content-security-policy'] = contentSecurityPolicy(request.headers.host);
      headers['x-frame-options'] = 'DENY';
    }
    if (request.headers['if-none-match'] === asset.etag) {
      response.writeHead(304, headers).end();
      return true;
    }
    const acceptsGzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    const body = acceptsGzip && asset.gzip !== undefined ? asset.gzip : asset.body;
    if (body === asset.gzip) headers['content-encoding'] = 'gzip';
    headers['content-length'] = String(body.length);
    response.writeHead(200, headers);
    response.end(method === 'HEAD' ? undefined : body);
    return true;
  };
}
