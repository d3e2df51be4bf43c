// The gateway's side of lazy inbound media (runtime/run/inbound-media.ts), with real files and
// a real HTTP server on 127.0.0.1: which attachments it fetches and how (the account's
// downloadMedia for a reference; a legacy channel's path or plain URL), the 5 MB cap enforced
// while a URL body streams, and what the model and the operator are told when it gives up.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  ChannelAccount,
  DownloadedMedia,
  InboundMedia,
  LogFields,
  Logger,
  MediaDownloadOptions,
} from '@switchboard/hooks';
import { MediaError } from '@switchboard/hooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { ManagedAccount } from '../src/runtime/channels.ts';
import { loadInboundMedia } from '../src/runtime/run/inbound-media.ts';

const cap = 5 * 1024 * 1024;
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const origin = { channel: 'testchat', accountId: 'default', messageId: 'm-1' };
const signal = new AbortController().signal;

function recordingLogger(): Logger & { warnings: Array<{ message: string; fields?: LogFields }> } {
  const warnings: Array<{ message: string; fields?: LogFields }> = [];
  return {
    warnings,
    debug() {},
    info() {},
    warn(message, fields) {
      warnings.push({ message, fields });
    },
    error() {},
  };
}

/** The channel manager's lookup, with one running account whose downloadMedia is `download`. */
function channelsWith(
  download: ((media: InboundMedia, options: MediaDownloadOptions) => Promise<DownloadedMedia>) | undefined,
) {
  const calls: Array<{ media: InboundMedia; maxBytes: number }> = [];
  const running = {
    send: async () => ({ messageIds: [] }),
    stop: async () => {},
    downloadMedia:
      download === undefined
        ? undefined
        : (media: InboundMedia, options: MediaDownloadOptions) => {
            calls.push({ media, maxBytes: options.maxBytes });
            return download(media, options);
          },
  } as ChannelAccount;
  return {
    calls,
    channels: {
      account: (channel: string, accountId: string) =>
        channel === origin.channel && accountId === origin.accountId
          ? ({ running } as unknown as ManagedAccount)
          : undefined,
    },
  };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Serves `totalBytes` (no Content-Length, like a chunked body) in 64 KiB chunks, counting what the socket took. */
async function serve(
  totalBytes: number,
  body?: Buffer,
): Promise<{ url: string; sent: () => number; done: Promise<void> }> {
  let sent = 0;
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'image/png' });
    if (body !== undefined) {
      response.end(body);
      sent = body.length;
      finish();
      return;
    }
    const chunk = Buffer.alloc(64 * 1024, 9);
    const pump = (): void => {
      while (sent < totalBytes && !response.destroyed) {
        sent += chunk.length;
        if (!response.write(chunk)) {
          response.once('drain', pump);
          return;
        }
      }
      if (!response.destroyed) response.end();
      finish();
    };
    response.on('close', finish);
    pump();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/x.png`, sent: () => sent, done };
}

describe('loadInboundMedia', () => {
  it("fetches a described image through the account's downloadMedia, with the 5 MB cap", async () => {
    const directory = mkdtempSync(join(tmpdir(), 'lazy-media-loader-'));
    const path = join(directory, 'photo.png');
    writeFileSync(path, png);
    const { channels, calls } = channelsWith(async () => ({
      path,
      sizeBytes: png.length,
      mimeType: 'image/png',
    }));
    const logger = recordingLogger();
    const media: InboundMedia = { kind: 'image', mimeType: 'image/jpeg', reference: { fileId: 'f-1' } };
    const loaded = await loadInboundMedia([media], origin, { channels, logger }, signal);
    expect(loaded.images).toEqual([{ type: 'image', mediaType: 'image/png', data: png.toString('base64') }]);
    expect(loaded.notes).toEqual([]);
    expect(calls).toEqual([{ media, maxBytes: cap }]);
    expect(logger.warnings).toEqual([]);
  });

  it('does not download other kinds: the model gets a line naming them', async () => {
    const { channels, calls } = channelsWith(async () => {
      throw new Error('must not be called');
    });
    const loaded = await loadInboundMedia(
      [
        {
          kind: 'document',
          fileName: 'terms.pdf',
          mimeType: 'application/pdf',
          reference: { fileId: 'f-2' },
        },
      ],
      origin,
      { channels, logger: recordingLogger() },
      signal,
    );
    expect(loaded).toEqual({ images: [], notes: ['[document: terms.pdf (application/pdf)]'] });
    expect(calls).toEqual([]);
  });

  it('refuses a declared size over the cap without calling the account, and says so', async () => {
    const { channels, calls } = channelsWith(async () => {
      throw new Error('must not be called');
    });
    const logger = recordingLogger();
    const loaded = await loadInboundMedia(
      [{ kind: 'image', fileName: 'big.jpg', sizeBytes: cap + 1, reference: { fileId: 'f-3' } }],
      origin,
      { channels, logger },
      signal,
    );
    expect(loaded.images).toEqual([]);
    expect(loaded.notes).toEqual([
      '[image: big.jpg] (the attachment was too large to fetch: over the 5 MB limit; you cannot see it)',
    ]);
    expect(calls).toEqual([]);
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toMatchObject({
      message: 'inbound media too large: the model is told it could not see it',
      fields: { channel: 'testchat', messageId: 'm-1', fileName: 'big.jpg', code: 'MEDIA_TOO_LARGE' },
    });
    expect(String(logger.warnings[0]?.fields?.error)).toMatch(
      /is 5 MB \(5242881 bytes\); the limit is 5 MB \(5242880 bytes\)/,
    );
  });

  it('tells the model and the operator when the account is not running or the download fails', async () => {
    const stopped = await loadInboundMedia(
      [{ kind: 'image', reference: { fileId: 'f-4' } }],
      { ...origin, accountId: 'gone' },
      { channels: channelsWith(undefined).channels, logger: recordingLogger() },
      signal,
    );
    expect(stopped.notes).toEqual(['[image] (the attachment could not be fetched; you cannot see it)']);

    const logger = recordingLogger();
    const failed = await loadInboundMedia(
      [{ kind: 'sticker', reference: { fileId: 'f-5' } }],
      origin,
      {
        channels: channelsWith(async () => {
          throw new MediaError('MEDIA_DOWNLOAD_FAILED', 'HTTP 502 from the platform');
        }).channels,
        logger,
      },
      signal,
    );
    expect(failed.notes).toEqual(['[sticker] (the attachment could not be fetched; you cannot see it)']);
    expect(logger.warnings[0]).toMatchObject({
      fields: { code: 'MEDIA_DOWNLOAD_FAILED', error: 'HTTP 502 from the platform' },
    });
  });

  it('still reads a legacy channel path, refusing a file over the cap by its size', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'lazy-media-loader-'));
    const small = join(directory, 'small.png');
    writeFileSync(small, png);
    const large = join(directory, 'large.png');
    writeFileSync(large, Buffer.alloc(cap + 10));
    const logger = recordingLogger();
    const loaded = await loadInboundMedia(
      [
        { kind: 'image', mimeType: 'image/png', path: small },
        { kind: 'image', fileName: 'large.png', path: large },
      ],
      origin,
      { channels: channelsWith(undefined).channels, logger },
      signal,
    );
    expect(loaded.images).toEqual([{ type: 'image', mediaType: 'image/png', data: png.toString('base64') }]);
    expect(loaded.notes).toEqual([
      '[image: large.png] (the attachment was too large to fetch: over the 5 MB limit; you cannot see it)',
    ]);
    expect(logger.warnings.map((warning) => warning.fields?.code)).toEqual(['MEDIA_TOO_LARGE']);
  });

  it('streams a legacy plain URL and stops it at the cap, long before the whole body', async () => {
    const total = 64 * 1024 * 1024;
    const huge = await serve(total);
    const logger = recordingLogger();
    const loaded = await loadInboundMedia(
      [{ kind: 'image', url: huge.url }],
      origin,
      { channels: channelsWith(undefined).channels, logger },
      signal,
    );
    expect(loaded.images).toEqual([]);
    expect(loaded.notes).toEqual([
      '[image] (the attachment was too large to fetch: over the 5 MB limit; you cannot see it)',
    ]);
    await huge.done;
    expect(huge.sent()).toBeGreaterThan(cap);
    expect(huge.sent()).toBeLessThan(total / 2);

    const small = await serve(png.length, png);
    const fetched = await loadInboundMedia(
      [{ kind: 'image', mimeType: 'image/png', url: small.url }],
      origin,
      { channels: channelsWith(undefined).channels, logger: recordingLogger() },
      signal,
    );
    expect(fetched.images).toEqual([{ type: 'image', mediaType: 'image/png', data: png.toString('base64') }]);
  });
});
