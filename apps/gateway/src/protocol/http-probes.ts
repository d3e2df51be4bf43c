// The gateway port's plain HTTP side before any route: liveness and readiness probes, the
// browser-origin check for WebSocket upgrades, and the 404/500 answers.
import type { IncomingMessage, ServerResponse } from 'node:http';

const jsonHeaders = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

export interface HttpProbeOptions {
  /** Handles plain HTTP requests; returns false when nothing matched (404). */
  readonly http?: (request: IncomingMessage, response: ServerResponse) => boolean | Promise<boolean>;
  /** Ready for traffic (`/readyz`); the server also answers 503 while it closes. */
  readonly isReady: () => boolean;
  readonly log: (level: 'info' | 'warn', message: string, fields?: Record<string, unknown>) => void;
}

export function createHttpHandler(
  options: HttpProbeOptions,
): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  return async (request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      response.writeHead(200, jsonHeaders).end(JSON.stringify({ ok: true }));
      return;
    }
    if (path === '/readyz') {
      const ready = options.isReady();
      response.writeHead(ready ? 200 : 503, jsonHeaders).end(JSON.stringify({ ok: ready }));
      return;
    }
    try {
      if (options.http !== undefined && (await options.http(request, response))) return;
    } catch (error) {
      options.log('warn', 'HTTP handler failed', { path, error: String(error) });
      if (!response.headersSent) response.writeHead(500, jsonHeaders).end(JSON.stringify({ ok: false }));
      return;
    }
    if (!response.headersSent)
      response.writeHead(404, jsonHeaders).end(JSON.stringify({ ok: false, error: 'not found' }));
  };
}

/** A WebSocket upgrade from a browser page is allowed from the gateway's own origin or a listed one. */
export function originAllowed(
  request: IncomingMessage,
  allowedOrigins: readonly string[] | undefined,
): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  if (allowedOrigins?.includes(origin)) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}
