// How the gateway serves the WebChat page over HTTP: same port as the WebSocket, cached
// with ETags, gzipped, locked down with a Content-Security-Policy, small.
import { mkdtempSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayVersion } from '../src/version.ts';
import { createWebChat, webChatFiles } from '../src/webchat/index.ts';
import { startTestGateway, type TestGateway } from './harness.ts';
import { connectClient } from './protocol-client.ts';

interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

function get(
  url: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: options.method ?? 'GET', headers: options.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    request.on('error', reject);
    request.end();
  });
}

let harness: TestGateway;
beforeAll(async () => {
  harness = await startTestGateway();
});
afterAll(async () => {
  await harness.close();
});

describe('WebChat: serving the page', () => {
  it('serves the page at / with a policy that allows only this origin and its WebSocket', async () => {
    const reply = await get(`${harness.gateway.httpUrl}/`);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    const host = new URL(harness.gateway.httpUrl).host;
    expect(reply.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
        `connect-src 'self' ws://${host} wss://${host}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    expect(reply.headers['x-frame-options']).toBe('DENY');
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    expect(reply.headers['referrer-policy']).toBe('no-referrer');
    const html = reply.body.toString('utf8');
    expect(html).toContain(`data-version="${gatewayVersion}"`);
    expect(html).toContain('<script type="module" src="/webchat/app.js"></script>');
    expect((await get(`${harness.gateway.httpUrl}/index.html?x=1`)).body.toString('utf8')).toBe(html);
  });

  it('serves every asset with its type, and nothing outside its table', async () => {
    const types: Record<string, string> = {
      '/webchat/app.js': 'text/javascript; charset=utf-8',
      '/webchat/markdown.js': 'text/javascript; charset=utf-8',
      '/webchat/connection.js': 'text/javascript; charset=utf-8',
      '/webchat/describe-error.js': 'text/javascript; charset=utf-8',
      '/webchat/app.css': 'text/css; charset=utf-8',
      '/webchat/icon.svg': 'image/svg+xml',
    };
    for (const [path, type] of Object.entries(types)) {
      const reply = await get(`${harness.gateway.httpUrl}${path}`);
      expect(reply.status, path).toBe(200);
      expect(reply.headers['content-type'], path).toBe(type);
      expect(reply.headers['content-security-policy'], path).toBeUndefined();
    }
    expect(Object.keys(webChatFiles).sort()).toEqual(['/', '/index.html', ...Object.keys(types)].sort());
    for (const path of [
      '/webchat/',
      '/webchat/nope.js',
      '/webchat/../package.json',
      '/webchat/%2e%2e/index.ts',
    ]) {
      const reply = await get(`${harness.gateway.httpUrl}${path}`);
      expect(reply.status, path).toBe(404);
    }
  });

  it('gzips for clients that accept it, answers 304 to a matching ETag, and HEAD without a body', async () => {
    const plain = await get(`${harness.gateway.httpUrl}/webchat/app.js`);
    const zipped = await get(`${harness.gateway.httpUrl}/webchat/app.js`, {
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('accept-encoding');
    expect(zipped.body.length).toBeLessThan(plain.body.length / 2);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);

    const etag = String(plain.headers.etag);
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    expect(plain.headers['cache-control']).toBe('no-cache');
    const again = await get(`${harness.gateway.httpUrl}/webchat/app.js`, {
      headers: { 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);

    const head = await get(`${harness.gateway.httpUrl}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers['content-length'])).toBeGreaterThan(1000);
    expect(head.body.length).toBe(0);
    const post = await get(`${harness.gateway.httpUrl}/`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });

  it('stays small: the whole page is under 32 KiB gzipped and fetches nothing from elsewhere', async () => {
    let gzipped = 0;
    for (const path of Object.keys(webChatFiles).filter((path) => path !== '/index.html')) {
      const reply = await get(`${harness.gateway.httpUrl}${path}`, {
        headers: { 'accept-encoding': 'gzip' },
      });
      gzipped += reply.body.length;
      const text = (
        reply.headers['content-encoding'] === 'gzip' ? gunzipSync(reply.body) : reply.body
      ).toString('utf8');
      // No remote scripts, styles, fonts or images: only same-origin paths are referenced.
      expect(text, path).not.toMatch(/(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
      expect(text, path).not.toMatch(/url\(\s*["']?(?:https?:)?\/\//i);
      expect(text, path).not.toMatch(
        /@import|fetch\(|XMLHttpRequest|eval\(|new Function|innerHTML|outerHTML/,
      );
    }
    expect(gzipped).toBeLessThan(32 * 1024);
  });

  it('lets the page, and only pages from its own origin, open the WebSocket', async () => {
    const origin = harness.gateway.httpUrl;
    const { hello } = await connectClient(harness.gateway.url, {
      token: harness.gateway.token,
      clientId: 'webchat-ui',
      origin,
    });
    expect(hello.ok).toBe(true);
    await expect(
      connectClient(harness.gateway.url, { token: harness.gateway.token, origin: 'http://evil.example' }),
    ).rejects.toThrow(/403/);
  });

  it('reports a broken install (page files missing) as a 500 naming the file', () => {
    const directory = mkdtempSync(join(tmpdir(), 'webchat-missing-'));
    const handler = createWebChat({ directory, version: '1.2.3' });
    let status = 0;
    let body = '';
    const response = {
      writeHead(code: number) {
        status = code;
        return response;
      },
      end(text?: string) {
        body = text ?? '';
        return response;
      },
    };
    const handled = handler(
      { url: '/', method: 'GET', headers: {} } as never,
      response as unknown as Parameters<typeof handler>[1],
    );
    expect(handled).toBe(true);
    expect(status).toBe(500);
    expect(body).toContain(join(directory, 'index.html'));
    expect(handler({ url: '/api', method: 'GET', headers: {} } as never, response as never)).toBe(false);
  });
});
