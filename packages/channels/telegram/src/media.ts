// Inbound files (decision 0026): a message's files are described (`describeMedia`), not
// downloaded; the gateway calls the account's `downloadMedia` for a message it admitted:
// `getFile`, then `GET {apiRoot}/file/bot<token>/<file_path>` (grammY has no helper for the
// download) streamed into the account's data directory, stopped as soon as it passes the
// limit. A failure is the gateway's to report: the message was acknowledged long before.
import { open, readdir, rm, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import {
  assertDeclaredSize,
  type DownloadedMedia,
  type InboundMedia,
  type MediaDownloadOptions,
  MediaError,
  writeBoundedStream,
} from '@switchboard/hooks';
import type { Api } from 'grammy';
import { apiSignal, classifyTelegramError } from './api.ts';
import { TelegramChannelError } from './errors.ts';
import type { MediaReference } from './inbound.ts';

/** What `InboundMedia.reference` holds for a Telegram file: enough to fetch it after a restart. */
interface TelegramFileReference {
  readonly fileId: string;
  readonly fileUniqueId: string;
  readonly chatId: string;
  readonly messageId: number;
}

/** The description of one file of message `messageId` in chat `chatId`, for the gateway. */
export function describeMedia(
  chatId: number | string,
  messageId: number,
  reference: MediaReference,
): InboundMedia {
  return {
    kind: reference.kind,
    reference: {
      fileId: reference.fileId,
      fileUniqueId: reference.fileUniqueId,
      chatId: String(chatId),
      messageId,
    },
    mimeType: reference.mimeType,
    fileName: reference.fileName,
    sizeBytes: reference.sizeBytes,
  };
}

function fileReferenceOf(media: InboundMedia): TelegramFileReference {
  const reference = media.reference;
  if (
    typeof reference === 'object' &&
    reference !== null &&
    !Array.isArray(reference) &&
    typeof (reference as Record<string, unknown>).fileId === 'string' &&
    typeof (reference as Record<string, unknown>).fileUniqueId === 'string' &&
    typeof (reference as Record<string, unknown>).chatId === 'string' &&
    typeof (reference as Record<string, unknown>).messageId === 'number'
  ) {
    return reference as unknown as TelegramFileReference;
  }
  throw new MediaError(
    'MEDIA_INVALID_REFERENCE',
    `a Telegram ${media.kind} has no Telegram file reference (fileId, fileUniqueId, chatId, messageId): ${JSON.stringify(reference)}`,
  );
}

export interface MediaDownloader {
  /** Downloads one described file into the media directory (ChannelAccount.downloadMedia). */
  download(media: InboundMedia, options: MediaDownloadOptions): Promise<DownloadedMedia>;
  /** Deletes downloaded files older than `maxAgeMs`. */
  prune(maxAgeMs: number, now: number): Promise<number>;
}

export interface MediaDownloaderOptions {
  readonly api: Api;
  readonly apiRoot: string;
  readonly token: string;
  /** Where files go: `<dataDirectory>/media`. */
  readonly directory: string;
  /** The account's own limit (`mediaMaxMb`); the smaller of it and the gateway's applies. */
  readonly maxBytes: number;
  readonly fetch: typeof fetch;
  /** Aborted when the account stops. */
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
  const { api, directory } = options;

  return {
    async download(media, request) {
      const reference = fileReferenceOf(media);
      const maxBytes = Math.min(request.maxBytes, options.maxBytes);
      const signal = AbortSignal.any([request.signal, options.signal]);
      const what = `Telegram ${media.kind}${media.fileName === undefined ? '' : ` ${media.fileName}`} of chat ${reference.chatId} message ${reference.messageId}`;
      assertDeclaredSize(what, media.sizeBytes, maxBytes);
      let file: Awaited<ReturnType<Api['getFile']>>;
      try {
        file = await api.getFile(reference.fileId, apiSignal(signal));
      } catch (error) {
        const failure = classifyTelegramError(error);
        // 400: an invalid file_id, or "file is too big" for the cloud Bot API (over 20 MB).
        if (failure.kind === 'bad_request' && /too big/i.test(failure.description))
          throw new MediaError('MEDIA_TOO_LARGE', `${what}: Telegram says ${failure.description}`, {
            details: { maxBytes },
          });
        throw new TelegramChannelError(
          'TELEGRAM_MEDIA_DOWNLOAD_FAILED',
          `getFile for ${what} failed: ${failure.description}`,
          {
            cause: error,
            retryable: failure.kind !== 'bad_request',
            details: { status: failure.status },
          },
        );
      }
      if (file.file_path === undefined)
        throw new TelegramChannelError(
          'TELEGRAM_MEDIA_DOWNLOAD_FAILED',
          `getFile for ${what} gave no file_path`,
        );
      assertDeclaredSize(what, file.file_size, maxBytes);
      const url = `${options.apiRoot}/file/bot${options.token}/${file.file_path.split('/').map(encodeURIComponent).join('/')}`;
      let response: Response;
      try {
        response = await options.fetch(url, { signal });
      } catch (error) {
        throw new TelegramChannelError(
          'TELEGRAM_MEDIA_DOWNLOAD_FAILED',
          `downloading ${what} failed: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error, retryable: true },
        );
      }
      if (!response.ok || response.body === null) {
        await response.body?.cancel().catch(() => undefined);
        throw new TelegramChannelError(
          'TELEGRAM_MEDIA_DOWNLOAD_FAILED',
          `downloading ${what} failed with HTTP ${response.status}`,
          { retryable: response.status >= 500, details: { status: response.status } },
        );
      }
      try {
        assertDeclaredSize(what, Number(response.headers.get('content-length') ?? Number.NaN), maxBytes);
      } catch (error) {
        await response.body.cancel().catch(() => undefined);
        throw error;
      }
      const extension = safeName(
        (
          extname(file.file_path) ||
          (media.fileName === undefined ? '' : extname(media.fileName)) ||
          (media.mimeType === undefined ? '' : (extensionsByMime[media.mimeType] ?? ''))
        )
          .slice(1, 9)
          .toLowerCase(),
      );
      const base = `${safeName(reference.chatId)}_${reference.messageId}_${safeName(reference.fileUniqueId)}`;
      const path = join(directory, extension === '' ? base : `${base}.${extension}`);
      const sizeBytes = await writeBoundedStream(response.body, path, { maxBytes, what, signal });
      let mimeType = media.mimeType;
      if (media.kind === 'image' || media.kind === 'sticker')
        mimeType = sniffImageType(await readHead(path)) ?? mimeType;
      return { path, sizeBytes, mimeType };
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
