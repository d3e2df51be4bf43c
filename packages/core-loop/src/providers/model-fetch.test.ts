// The model fetch against a real HTTP server on 127.0.0.1: what the SDKs rely on (status,
// headers, streamed and decompressed bodies, aborts, connection failures), the one retry on a
// kept-alive connection the server reset, and what goes to the built-in fetch instead.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createModelFetch } from './model-fetch.ts';

type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handler: Handler): Promise<string> {
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => handler(request, response, body));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function chunksOf(body: unknown): Promise<string[]> {
  const chunks: string[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array>)
    chunks.push(Buffer.from(chunk).toString('utf8'));
  return chunks;
}

/** A fetch that must not be called. */
const noFallback = (() => {
  throw new Error('the built-in fetch was used');
}) as unknown as typeof fetch;

describe('model fetch', () => {
  it('sends the method, headers and body; answers status, headers and the body as text or JSON', async () => {
    const base = await serve((request, response, body) => {
      response.writeHead(201, 'Made', [
        ['content-type', 'application/json'],
        ['x-seen', `${request.method} ${request.headers['x-api-key']} ${request.headers['content-type']}`],
        ['set-cookie', 'a=1'],
        ['set-cookie', 'b=2'],
      ]);
      response.end(JSON.stringify({ echoed: JSON.parse(body) }));
    });
    const modelFetch = createModelFetch({ fallback: noFallback, environment: {} });
    const response = await modelFetch(`${base}/v1/messages`, {
      method: 'post',
      headers: new Headers({ 'x-api-key': 'secret', 'content-type': 'application/json' }),
      body: JSON.stringify({ hello: 'world' }),
    });
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.statusText).toBe('Made');
    expect(response.headers.get('x-seen')).toBe('POST secret application/json');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(response.url).toBe(`${base}/v1/messages`);
    expect(await response.json()).toEqual({ echoed: { hello: 'world' } });
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(/already been read/);

    // Headers as pairs, a byte body.
    const again = await modelFetch(`${base}/x`, {
      method: 'POST',
      headers: [['x-api-key', 'pairs']],
      body: new TextEncoder().encode('"bytes"'),
    });
    expect(again.headers.get('x-seen')).toBe('POST pairs undefined');
    expect(await again.json()).toEqual({ echoed: 'bytes' });
  });

  it('streams the body chunk by chunk as the server writes it', async () => {
    let release: () => void = () => undefined;
    const base = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('event: one\ndata: {}\n\n');
      release = () => response.end('event: two\ndata: {}\n\n');
    });
    const response = await createModelFetch({ fallback: noFallback, environment: {} })(`${base}/s`, {
      method: 'POST',
      body: '{}',
    });
    const iterator = (response.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(Buffer.from(first.value as Uint8Array).toString()).toBe('event: one\ndata: {}\n\n');
    release();
    const rest = await chunksOf({ [Symbol.asyncIterator]: () => iterator });
    expect(rest.join('')).toBe('event: two\ndata: {}\n\n');
  });

  it('offers the body through getReader() too, and cancel() ends it', async () => {
    const base = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      response.write('{"a":1}\n');
      setTimeout(() => response.end('{"b":2}\n'), 10);
    });
    const modelFetch = createModelFetch({ fallback: noFallback, environment: {} });
    const reader = (await modelFetch(`${base}/n`)).body!.getReader();
    const read: string[] = [];
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      read.push(Buffer.from(next.value).toString());
    }
    expect(read.join('')).toBe('{"a":1}\n{"b":2}\n');
    const cancelled = await modelFetch(`${base}/n`);
    await cancelled.body!.cancel();
    expect(await cancelled.body!.getReader().read()).toEqual({ done: true, value: undefined });
  });

  it('decompresses a gzip body', async () => {
    const base = await serve((_request, response) => {
      response.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'application/json' });
      response.end(gzipSync(JSON.stringify({ ok: 'compressed' })));
    });
    const response = await createModelFetch({ fallback: noFallback, environment: {} })(`${base}/z`);
    expect(await response.json()).toEqual({ ok: 'compressed' });
  });

  it('rejects with the abort reason before the headers, and fails the body read when aborted mid-body', async () => {
    const base = await serve((request, response) => {
      if (request.url === '/slow') return; // never answers
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n');
    });
    const modelFetch = createModelFetch({ fallback: noFallback, environment: {} });
    const early = new AbortController();
    const pending = modelFetch(`${base}/slow`, { signal: early.signal });
    setTimeout(() => early.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });

    const already = new AbortController();
    already.abort(new Error('gone already'));
    await expect(modelFetch(`${base}/slow`, { signal: already.signal })).rejects.toThrow('gone already');

    const late = new AbortController();
    const response = await modelFetch(`${base}/stream`, { signal: late.signal });
    const iterator = (response.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    await iterator.next();
    late.abort();
    await expect(iterator.next()).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('reports a refused connection as fetch failed, and a body cut mid-way as terminated', async () => {
    const closed = await serve(() => undefined);
    const port = new URL(closed).port;
    servers.pop()?.close();
    const modelFetch = createModelFetch({ fallback: noFallback, environment: {} });
    const refused = await modelFetch(`http://127.0.0.1:${port}/x`).then(
      () => undefined,
      (error: TypeError & { cause?: { code?: string } }) => error,
    );
    expect(refused).toBeInstanceOf(TypeError);
    expect(refused?.message).toBe('fetch failed');
    expect(refused?.cause?.code).toBe('ECONNREFUSED');

    const base = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n');
      setTimeout(() => response.socket?.destroy(), 20);
    });
    const response = await modelFetch(`${base}/cut`);
    await expect(chunksOf(response.body)).rejects.toMatchObject({ name: 'TypeError', message: 'terminated' });
  });

  it('sends a request again once when the server reset the kept-alive connection it reused', async () => {
    const perSocket = new Map<unknown, number>();
    let requests = 0;
    const base = await serve((request, response) => {
      requests += 1;
      const count = (perSocket.get(request.socket) ?? 0) + 1;
      perSocket.set(request.socket, count);
      // The second request on a connection: the server drops it unanswered, as a server
      // closing an idle connection at the moment it is reused does.
      if (count === 2) {
        request.socket.destroy();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json', connection: 'keep-alive' });
      response.end('{"n":1}');
    });
    const modelFetch = createModelFetch({ fallback: noFallback, environment: {} });
    expect(await (await modelFetch(`${base}/a`)).json()).toEqual({ n: 1 });
    expect(await (await modelFetch(`${base}/b`, { method: 'POST', body: '{}' })).json()).toEqual({ n: 1 });
    // The first, the reset one, and its one retry on a new connection.
    expect(requests).toBe(3);
    expect(perSocket.size).toBe(2);
  });

  it('leaves to the built-in fetch what it does not handle: Request objects, streamed bodies, proxies', async () => {
    const base = await serve((_request, response) => response.end('direct'));
    const sent: string[] = [];
    const fallback = (async (input: string | URL | Request) => {
      sent.push(input instanceof Request ? 'request' : String(input));
      return new Response('fallback');
    }) as typeof fetch;
    const modelFetch = createModelFetch({ fallback, environment: {} });
    expect(await (await modelFetch(new Request(`${base}/r`))).text()).toBe('fallback');
    expect(
      await (
        await modelFetch(`${base}/s`, {
          method: 'POST',
          body: new ReadableStream(),
          duplex: 'half',
        } as RequestInit)
      ).text(),
    ).toBe('fallback');
    expect(await (await modelFetch(`${base}/d`)).text()).toBe('direct');
    const proxied = createModelFetch({ fallback, environment: { HTTPS_PROXY: 'http://proxy:3128' } });
    expect(await (await proxied(`${base}/p`)).text()).toBe('fallback');
    expect(sent).toEqual(['request', `${base}/s`, `${base}/p`]);
  });
});
