import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { htmlToText, isNonPublicAddress, webFetch } from './web-fetch.ts';

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/page') {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(
        '<html><head><style>x{}</style></head><body><h1>Title</h1><p>Hello &amp; welcome</p><script>evil()</script></body></html>',
      );
    } else if (request.url === '/to-metadata') {
      response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      response.end();
    } else if (request.url === '/big') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('z'.repeat(100_000));
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('web_fetch', () => {
  it('classifies addresses', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '64:ff9b::10.0.0.1',
    ]) {
      expect(isNonPublicAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      expect(isNonPublicAddress(address), address).toBe(false);
    }
  });

  it('refuses loopback, private and link-local targets by default', async () => {
    await expect(webFetch(`${base}/page`)).rejects.toThrow(/private, loopback or link-local/);
    await expect(webFetch('http://localhost:1/')).rejects.toThrow(/private, loopback or link-local/);
    await expect(webFetch('http://[::1]:1/')).rejects.toThrow(/private, loopback or link-local/);
    await expect(webFetch('http://169.254.169.254/latest/meta-data/')).rejects.toThrow(/link-local/);
    await expect(webFetch('file:///etc/passwd')).rejects.toThrow(/only http and https/);
    await expect(webFetch('http://user:pw@example.com/')).rejects.toThrow(/credentials/);
  });

  it('fetches an allowed host and reduces HTML to text', async () => {
    const result = await webFetch(`${base}/page`, { allowHosts: ['127.0.0.1'] });
    expect(result.status).toBe(200);
    expect(result.text).toContain('Title');
    expect(result.text).toContain('Hello & welcome');
    expect(result.text).not.toContain('evil');
  });

  it('checks every redirect target again', async () => {
    await expect(webFetch(`${base}/to-metadata`, { allowHosts: ['127.0.0.1'] })).rejects.toThrow(
      /169\.254\.169\.254/,
    );
  });

  it('caps the body size', async () => {
    const result = await webFetch(`${base}/big`, { allowHosts: ['127.0.0.1'], maxBytes: 10_000 });
    expect(result.truncated).toBe(true);
    expect(result.text.length).toBeLessThanOrEqual(10_000 + 65_536);
  });

  it('strips markup', () => {
    expect(htmlToText('<p>a</p><p>b</p>')).toBe('a\n\nb');
  });
});
