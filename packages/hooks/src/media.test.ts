import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  assertDeclaredSize,
  formatByteSize,
  MediaError,
  mediaErrorCodes,
  readBoundedStream,
  writeBoundedStream,
} from './media.ts';

const chunkSize = 64 * 1024;

/** A real HTTP server that streams `totalBytes` with backpressure and counts what the socket took. */
async function startStreamingServer(totalBytes: number): Promise<{
  url: string;
  server: Server;
  sent: () => number;
  finished: Promise<void>;
}> {
  let sent = 0;
  let resolveFinished: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    resolveFinished = resolve;
  });
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(chunkSize, 7);
    const pump = (): void => {
      while (sent < totalBytes && !response.destroyed) {
        sent += chunk.length;
        if (!response.write(chunk)) {
          response.once('drain', pump);
          return;
        }
      }
      if (!response.destroyed) response.end();
      resolveFinished();
    };
    response.on('close', resolveFinished);
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/file`, server, sent: () => sent, finished };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('writeBoundedStream', () => {
  it('writes a body under the limit to the file and returns its size', async () => {
    const served = await startStreamingServer(4 * chunkSize);
    servers.push(served.server);
    const directory = mkdtempSync(join(tmpdir(), 'hooks-media-'));
    const path = join(directory, 'nested', 'file.bin');
    const response = await fetch(served.url);
    const size = await writeBoundedStream(response.body!, path, {
      maxBytes: 1024 * 1024,
      what: 'a test file',
    });
    expect(size).toBe(4 * chunkSize);
    expect(statSync(path).size).toBe(4 * chunkSize);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(directory, 'nested'))).toEqual(['file.bin']);
  });

  it('stops the transfer once the limit is passed and leaves no file', async () => {
    const total = 64 * 1024 * 1024;
    const served = await startStreamingServer(total);
    servers.push(served.server);
    const directory = mkdtempSync(join(tmpdir(), 'hooks-media-'));
    const path = join(directory, 'big.bin');
    const response = await fetch(served.url);
    const failure = await writeBoundedStream(response.body!, path, {
      maxBytes: 1024 * 1024,
      what: 'image big.bin',
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MediaError);
    expect((failure as MediaError).code).toBe('MEDIA_TOO_LARGE');
    expect((failure as MediaError).message).toMatch(
      /image big\.bin passed the limit of 1 MB \(1048576 bytes\)/,
    );
    expect((failure as MediaError).details?.maxBytes).toBe(1024 * 1024);
    await served.finished;
    // The server stopped writing when the client went away: far less than the whole body moved.
    expect(served.sent()).toBeLessThan(total / 2);
    expect(readdirSync(directory)).toEqual([]);
  });

  it('stops when the signal aborts', async () => {
    const served = await startStreamingServer(64 * 1024 * 1024);
    servers.push(served.server);
    const directory = mkdtempSync(join(tmpdir(), 'hooks-media-'));
    const controller = new AbortController();
    const response = await fetch(served.url);
    const writing = writeBoundedStream(response.body!, join(directory, 'x.bin'), {
      maxBytes: 1024 * 1024 * 1024,
      what: 'x',
      signal: controller.signal,
    });
    controller.abort(new Error('turn stopped'));
    await expect(writing).rejects.toThrow();
    expect(readdirSync(directory)).toEqual([]);
  });
});

describe('readBoundedStream', () => {
  it('reads a small body whole and refuses a large one mid-stream', async () => {
    const small = await startStreamingServer(2 * chunkSize);
    servers.push(small.server);
    const bytes = await readBoundedStream((await fetch(small.url)).body!, {
      maxBytes: 3 * chunkSize,
      what: 'small',
    });
    expect(bytes.length).toBe(2 * chunkSize);
    expect(bytes.every((byte) => byte === 7)).toBe(true);

    const large = await startStreamingServer(32 * 1024 * 1024);
    servers.push(large.server);
    await expect(
      readBoundedStream((await fetch(large.url)).body!, { maxBytes: 3 * chunkSize, what: 'large' }),
    ).rejects.toMatchObject({ code: 'MEDIA_TOO_LARGE' });
    await large.finished;
    expect(large.sent()).toBeLessThan(16 * 1024 * 1024);
  });

  it('reads async iterables too', async () => {
    async function* chunks(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('hello ');
      yield Buffer.from('world');
    }
    expect((await readBoundedStream(chunks(), { maxBytes: 100, what: 'greeting' })).toString()).toBe(
      'hello world',
    );
  });
});

describe('assertDeclaredSize and the codes', () => {
  it('refuses a declared size over the limit before any byte and names both', () => {
    expect(() => assertDeclaredSize('document a.pdf', 30 * 1024 * 1024, 20 * 1024 * 1024)).toThrow(
      /document a\.pdf is 30 MB \(31457280 bytes\); the limit is 20 MB \(20971520 bytes\)/,
    );
    expect(() => assertDeclaredSize('x', 10, 10)).not.toThrow();
    expect(() => assertDeclaredSize('x', undefined, 10)).not.toThrow();
    expect(() => assertDeclaredSize('x', Number.NaN, 10)).not.toThrow();
    expect(formatByteSize(1536)).toBe('1.5 KB');
    expect(formatByteSize(12)).toBe('12 bytes');
  });

  it('documents every code', () => {
    for (const [code, documentation] of Object.entries(mediaErrorCodes)) {
      expect(code).toMatch(/^MEDIA_[A-Z_]+$/);
      expect(documentation.length).toBeGreaterThan(20);
    }
    expect(new MediaError('MEDIA_UNAVAILABLE', 'gone').name).toBe('MediaError');
  });
});
