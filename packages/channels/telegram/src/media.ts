// Inbound files: `getFile`, then `GET {apiRoot}/file/bot<token>/<file_path>` (grammY has no
// helper for the download), written into the account's data directory. A file that can
// never be fetched (too large, gone) becomes a placeholder the gateway shows as a label; a
// failure that may pass (network, 5xx) throws, so the update is not acknowledged and
// Telegram delivers it again.
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { InboundMedia } from '@switchboard/hooks';
import type { Api } from 'grammy';
import { apiSignal, classifyTelegramError } from './api.ts';
import { TelegramChannelError } from './errors.ts';
import type { MediaReference } from './inbound.ts';

export interface MediaDownloader {
  /** Downloads a message's files; resolves with what to hand the gateway. */
  download(
    chatId: number | string,
    messageId: number,
    references: readonly MediaReference[],
  ): Promise<InboundMedia[]>;
  /** Deletes downloaded files older than `maxAgeMs`. */
  prune(maxAgeMs: number, now: number): Promise<number>;
}

export interface MediaDownloaderOptions {
  readonly api: Api;
  readonly apiRoot: string;
  readonly token: string;
  /** Where files go: `<dataDirectory>/media`. */
  readonly directory: string;
  readonly maxBytes: number;
  readonly fetch: typeof fetch;
  readonly signal: AbortSignal;
}

const extensionsByMime: Readonly<Record<string, string>> = {
  'image/jpeg': '.jpg',
  'image/png': '.png',
  'image/gif': '.gif',
  'image/webp': '.webp',
  'audio/ogg': '.ogg',
  'audio/mpeg': '.mp3',
  'video/mp4': '.mp4',
  'application/pdf': '.pdf',
};

/** The image type the bytes start with, or undefined. */
function sniffImageType(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'image/png';
  if (bytes[0] === 0x47 && bytes[1] === 0x49 && bytes[2] === 0x46) return 'image/gif';
  if (
    bytes[0] === 0x52 &&
    bytes[1] === 0x49 &&
    bytes[2] === 0x46 &&
    bytes[3] === 0x46 &&
    bytes[8] === 0x57 &&
    bytes[9] === 0x45 &&
    bytes[10] === 0x42 &&
    bytes[11] === 0x50
  ) {
    return 'image/webp';
  }
  return undefined;
}

function safeName(value: string): string {
  return value.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** A file the gateway cannot read but can name: `tg-file:<file_id>` (a plugin may `getFile` it). */
function placeholderMedia(reference: MediaReference): InboundMedia {
  return {
    kind: reference.kind,
    url: `tg-file:${reference.fileId}`,
    ...(reference.mimeType === undefined ? {} : { mimeType: reference.mimeType }),
    ...(reference.fileName === undefined ? {} : { fileName: reference.fileName }),
    ...(reference.sizeBytes === undefined ? {} : { sizeBytes: reference.sizeBytes }),
  };
}

async function readHead(path: string): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    const buffer = new Uint8Array(16);
    await handle.read(buffer, 0, 16, 0);
    return buffer;
  } finally {
    await handle.close();
  }
}

export function createMediaDownloader(options: MediaDownloaderOptions): MediaDownloader {
  const { api, directory, maxBytes } = options;
  let counter = 0;

  async function downloadOne(
    chatId: number | string,
    messageId: number,
    reference: MediaReference,
  ): Promise<InboundMedia> {
    if (reference.sizeBytes !== undefined && reference.sizeBytes > maxBytes)
      return placeholderMedia(reference);
    let file: Awaited<ReturnType<Api['getFile']>>;
    try {
      // One attempt: a failure leaves the update unacknowledged, so it comes again after a backoff.
      file = await api.getFile(reference.fileId, apiSignal(options.signal));
    } catch (error) {
      const failure = classifyTelegramError(error);
      // 400: an invalid file_id, or "file is too big" for the cloud Bot API (over 20 MB).
      if (failure.kind === 'bad_request') return placeholderMedia(reference);
      throw new TelegramChannelError(
        'TELEGRAM_MEDIA_DOWNLOAD_FAILED',
        `getFile for a ${reference.kind} in chat ${chatId} failed: ${failure.description}`,
        {
          cause: error,
          retryable: true,
          details: failure.status === undefined ? {} : { status: failure.status },
        },
      );
    }
    if (file.file_path === undefined || (file.file_size !== undefined && file.file_size > maxBytes)) {
      return placeholderMedia(reference);
    }
    const url = `${options.apiRoot}/file/bot${options.token}/${file.file_path.split('/').map(encodeURIComponent).join('/')}`;
    let response: Response;
    try {
      response = await options.fetch(url, { signal: options.signal });
    } catch (error) {
      throw new TelegramChannelError(
        'TELEGRAM_MEDIA_DOWNLOAD_FAILED',
        `downloading a ${reference.kind} of chat ${chatId} failed: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error, retryable: true },
      );
    }
    if (!response.ok || response.body === null) {
      await response.body?.cancel().catch(() => undefined);
      if (response.status >= 400 && response.status < 500) return placeholderMedia(reference);
      throw new TelegramChannelError(
        'TELEGRAM_MEDIA_DOWNLOAD_FAILED',
        `downloading a ${reference.kind} of chat ${chatId} failed with HTTP ${response.status}`,
        { retryable: true, details: { status: response.status } },
      );
    }
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (Number.isFinite(declared) && declared > maxBytes) {
      await response.body.cancel().catch(() => undefined);
      return placeholderMedia(reference);
    }
    const extension = safeName(
      (
        extname(file.file_path) ||
        (reference.fileName === undefined ? '' : extname(reference.fileName)) ||
        (reference.mimeType === undefined ? '' : (extensionsByMime[reference.mimeType] ?? ''))
      )
        .slice(1, 9)
        .toLowerCase(),
    );
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const base = `${safeName(String(chatId))}_${messageId}_${safeName(reference.fileUniqueId)}`;
    const path = join(directory, extension === '' ? base : `${base}.${extension}`);
    counter += 1;
    const temporary = `${path}.${process.pid}.${counter}.part`;
    let size = 0;
    let tooLarge = false;
    const limited = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
    limited.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        tooLarge = true;
        limited.destroy(new Error('too large'));
      }
    });
    try {
      await pipeline(limited, createWriteStream(temporary, { mode: 0o600 }));
    } catch (error) {
      await rm(temporary, { force: true });
      if (tooLarge) return placeholderMedia(reference);
      throw new TelegramChannelError(
        'TELEGRAM_MEDIA_DOWNLOAD_FAILED',
        `downloading a ${reference.kind} of chat ${chatId} failed: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error, retryable: true },
      );
    }
    await rename(temporary, path);
    let mimeType = reference.mimeType;
    if (reference.kind === 'image' || reference.kind === 'sticker') {
      mimeType = sniffImageType(await readHead(path)) ?? mimeType;
    }
    return {
      kind: reference.kind,
      path,
      sizeBytes: size,
      ...(mimeType === undefined ? {} : { mimeType }),
      ...(reference.fileName === undefined ? {} : { fileName: reference.fileName }),
    };
  }

  return {
    async download(chatId, messageId, references) {
      const media: InboundMedia[] = [];
      for (const reference of references) media.push(await downloadOne(chatId, messageId, reference));
      return media;
    },
    async prune(maxAgeMs, now) {
      let removed = 0;
      let entries: string[];
      try {
        entries = await readdir(directory);
      } catch {
        return 0;
      }
      for (const entry of entries) {
        const path = join(directory, entry);
        try {
          const info = await stat(path);
          if (info.isFile() && now - info.mtimeMs > maxAgeMs) {
            await rm(path, { force: true });
            removed += 1;
          }
        } catch {
          // Gone already.
        }
      }
      return removed;
    },
  };
}
