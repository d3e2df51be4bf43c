// Attachments: inbound files are downloaded into the account's private data directory and
// handed to the gateway as paths; outbound media is read (bounded by mediaMaxMb) into
// buffers for discord.js to upload as multipart `files[n]`.
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { InboundMedia, Logger, MediaKind, OutboundMedia } from '@switchboard/hooks';
import { DiscordChannelError } from './errors.ts';

/** An attachment of an inbound Discord message, as discord.js exposes it. */
export interface InboundAttachment {
  readonly id: string;
  readonly name: string;
  readonly url: string;
  readonly size: number;
  readonly contentType: string | null;
}

/** Discord's IS_VOICE_MESSAGE message flag. */
const voiceMessageFlag = 1 << 13;

function kindOf(contentType: string | null, voice: boolean): MediaKind {
  const type = contentType ?? '';
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('audio/')) return voice ? 'voice' : 'audio';
  if (type.startsWith('video/')) return 'video';
  return 'document';
}

/** A file name safe to put on disk: no separators, no leading dots, bounded length. */
function safeFileName(name: string): string {
  const cleaned = basename(name)
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^\.+/, '');
  return (cleaned === '' ? 'file' : cleaned).slice(-100);
}

/** Reads a response body, failing once it exceeds `maxBytes`. */
async function readBounded(response: Response, maxBytes: number, what: string): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes)
    throw new DiscordChannelError(
      'DISCORD_MEDIA_TOO_LARGE',
      `${what} is ${declared} bytes; the limit is ${maxBytes}`,
    );
  const reader = response.body?.getReader();
  if (reader === undefined) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new DiscordChannelError(
        'DISCORD_MEDIA_TOO_LARGE',
        `${what} exceeds the limit of ${maxBytes} bytes`,
      );
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

export interface DownloadOptions {
  readonly directory: string;
  readonly messageId: string;
  readonly maxBytes: number;
  readonly fetch: typeof fetch;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  readonly flags: number;
}

/**
 * Downloads a message's attachments into `directory`. An attachment over the size limit,
 * or one whose download fails, is still reported, with its URL and no path.
 */
export async function downloadAttachments(
  attachments: readonly InboundAttachment[],
  options: DownloadOptions,
): Promise<InboundMedia[]> {
  if (attachments.length === 0) return [];
  await mkdir(options.directory, { recursive: true, mode: 0o700 });
  const voice = (options.flags & voiceMessageFlag) !== 0;
  return Promise.all(
    attachments.map(async (attachment, index): Promise<InboundMedia> => {
      const described: InboundMedia = {
        kind: kindOf(attachment.contentType, voice),
        ...(attachment.contentType === null ? {} : { mimeType: attachment.contentType }),
        fileName: attachment.name,
        sizeBytes: attachment.size,
        url: attachment.url,
      };
      if (attachment.size > options.maxBytes) {
        options.logger.warn('an inbound attachment is over mediaMaxMb; passing its URL only', {
          messageId: options.messageId,
          attachment: attachment.name,
          sizeBytes: attachment.size,
        });
        return described;
      }
      try {
        const response = await options.fetch(attachment.url, {
          signal: AbortSignal.any([options.signal, AbortSignal.timeout(60_000)]),
        });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const bytes = await readBounded(response, options.maxBytes, `attachment ${attachment.name}`);
        const path = join(
          options.directory,
          `${options.messageId}-${index}-${safeFileName(attachment.name)}`,
        );
        await writeFile(path, bytes, { mode: 0o600 });
        return { ...described, path, sizeBytes: bytes.byteLength };
      } catch (error) {
        options.logger.warn('could not download an inbound attachment; passing its URL only', {
          messageId: options.messageId,
          attachment: attachment.name,
          error: error instanceof Error ? error.message : String(error),
        });
        return described;
      }
    }),
  );
}

/** Deletes downloaded media older than `maxAgeMs`; returns how many files went. */
export async function pruneMedia(directory: string, maxAgeMs: number, now: number): Promise<number> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const path = join(directory, name);
    try {
      const info = await stat(path);
      if (info.isFile() && now - info.mtimeMs > maxAgeMs) {
        await rm(path, { force: true });
        removed += 1;
      }
    } catch {
      // Vanished meanwhile: nothing to do.
    }
  }
  return removed;
}

/** An outbound file ready for discord.js (`files: [{ attachment, name }]`). */
export interface PreparedFile {
  readonly attachment: Buffer;
  readonly name: string;
}

const extensions: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'audio/ogg': 'ogg',
  'audio/mpeg': 'mp3',
  'video/mp4': 'mp4',
  'application/pdf': 'pdf',
  'text/plain': 'txt',
};

function defaultName(media: OutboundMedia, index: number): string {
  const extension =
    media.mimeType === undefined ? undefined : extensions[media.mimeType.split(';')[0]!.trim()];
  return `${media.kind}-${index + 1}${extension === undefined ? '' : `.${extension}`}`;
}

/** Reads one outbound media item into memory, enforcing `maxBytes`. */
export async function prepareOutboundMedia(
  media: OutboundMedia,
  index: number,
  options: { readonly maxBytes: number; readonly fetch: typeof fetch; readonly signal: AbortSignal },
): Promise<PreparedFile> {
  const source = media.source;
  const tooLarge = (what: string, size: number) =>
    new DiscordChannelError(
      'DISCORD_MEDIA_TOO_LARGE',
      `${what} is ${size} bytes; mediaMaxMb allows ${options.maxBytes} bytes`,
      { details: { sizeBytes: size, maxBytes: options.maxBytes } },
    );
  switch (source.type) {
    case 'bytes': {
      if (source.data.byteLength > options.maxBytes)
        throw tooLarge(`attachment ${index + 1}`, source.data.byteLength);
      return {
        attachment: Buffer.from(source.data),
        name: safeFileName(media.fileName ?? defaultName(media, index)),
      };
    }
    case 'path': {
      let size: number;
      try {
        size = (await stat(source.path)).size;
      } catch (error) {
        throw new DiscordChannelError(
          'DISCORD_MEDIA_UNREADABLE',
          `cannot read the attachment file ${source.path}`,
          {
            cause: error,
          },
        );
      }
      if (size > options.maxBytes) throw tooLarge(`the file ${source.path}`, size);
      return {
        attachment: await readFile(source.path),
        name: safeFileName(media.fileName ?? basename(source.path)),
      };
    }
    case 'url': {
      let url: URL;
      try {
        url = new URL(source.url);
      } catch (error) {
        throw new DiscordChannelError(
          'DISCORD_MEDIA_UNREADABLE',
          `the attachment URL ${source.url} is not a URL`,
          {
            cause: error,
          },
        );
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new DiscordChannelError(
          'DISCORD_MEDIA_UNREADABLE',
          `the attachment URL ${source.url} is not http(s)`,
        );
      let response: Response;
      try {
        response = await options.fetch(url, {
          signal: AbortSignal.any([options.signal, AbortSignal.timeout(60_000)]),
        });
      } catch (error) {
        throw new DiscordChannelError(
          'DISCORD_MEDIA_UNREADABLE',
          `could not fetch the attachment ${source.url}`,
          {
            cause: error,
            retryable: true,
          },
        );
      }
      if (!response.ok)
        throw new DiscordChannelError(
          'DISCORD_MEDIA_UNREADABLE',
          `fetching the attachment ${source.url} failed with HTTP ${response.status}`,
          { retryable: response.status >= 500 },
        );
      const bytes = await readBounded(response, options.maxBytes, `the attachment ${source.url}`);
      const fromPath = basename(url.pathname);
      return {
        attachment: Buffer.from(bytes),
        name: safeFileName(media.fileName ?? (fromPath === '' ? defaultName(media, index) : fromPath)),
      };
    }
  }
}
