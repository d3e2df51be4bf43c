// Files: inbound Slack files downloaded with the bot token into the account's data
// directory, and outbound attachments read into bytes for files upload v2.
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { InboundMedia, Logger, MediaKind, OutboundMedia } from '@switchboard/hooks';
import { SlackChannelError } from './errors.ts';

/** A file as Slack's events describe it (the fields used here). */
export interface SlackFile {
  readonly id: string;
  readonly name?: string;
  readonly title?: string;
  readonly mimetype?: string;
  readonly size?: number;
  readonly url_private?: string;
  readonly url_private_download?: string;
  readonly mode?: string;
  readonly file_access?: string;
}

/** The kind of media a MIME type is. */
function mediaKindOf(mimeType: string | undefined): MediaKind {
  if (mimeType === undefined) return 'document';
  if (mimeType.startsWith('image/')) return 'image';
  if (mimeType.startsWith('audio/')) return 'audio';
  if (mimeType.startsWith('video/')) return 'video';
  return 'document';
}

/** A file name safe to use in a local path (no separators, no leading dots, bounded). */
function safeFileName(name: string): string {
  const cleaned = name
    .replace(/[/\\\0]/g, '_')
    .replace(/[^\p{L}\p{N}._ -]/gu, '_')
    .replace(/^\.+/, '')
    .trim()
    .slice(-120);
  return cleaned === '' ? 'file' : cleaned;
}

export interface DownloadOptions {
  readonly botToken: string;
  /** The account's private directory; files go to `<dataDirectory>/media/`. */
  readonly dataDirectory: string;
  readonly maxBytes: number;
  /** Hosts the bot token may be sent to (Slack's file hosts and the configured API host). */
  readonly trustedHost: (host: string) => boolean;
  readonly fetch: typeof fetch;
  readonly logger: Logger;
  readonly signal?: AbortSignal;
}

/** What downloading a message's files produced: media for the gateway, notes for the text. */
export interface DownloadedFiles {
  readonly media: InboundMedia[];
  /** One line per file that could not be downloaded, for the message text. */
  readonly notes: string[];
}

/**
 * Downloads each file of a message with the bot token (Slack's private URLs need it).
 * Files over `maxBytes`, external or hidden files, and failed downloads become notes rather
 * than errors: the message still goes through.
 */
export async function downloadSlackFiles(
  files: readonly SlackFile[],
  options: DownloadOptions,
): Promise<DownloadedFiles> {
  const media: InboundMedia[] = [];
  const notes: string[] = [];
  for (const file of files) {
    const name = file.name ?? file.title ?? file.id;
    const url = file.url_private_download ?? file.url_private;
    const problem = await downloadOne(file, name, url, options).then(
      (item) => {
        media.push(item);
        return undefined;
      },
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    if (problem !== undefined) {
      options.logger.warn('a Slack file was not downloaded', { fileId: file.id, reason: problem });
      notes.push(`[attachment ${name} was not downloaded: ${problem}]`);
    }
  }
  return { media, notes };
}

async function downloadOne(
  file: SlackFile,
  name: string,
  url: string | undefined,
  options: DownloadOptions,
): Promise<InboundMedia> {
  if (file.mode === 'tombstone' || file.mode === 'hidden_by_limit')
    throw new Error('the file is not available');
  if (file.file_access === 'check_file_info') throw new Error('the file needs files.info (Slack Connect)');
  if (url === undefined) throw new Error('Slack gave no download URL');
  if (file.size !== undefined && file.size > options.maxBytes) {
    throw new Error(`it is larger than ${Math.round(options.maxBytes / 1024 / 1024)} MB`);
  }
  const parsed = new URL(url);
  if (!options.trustedHost(parsed.host)) throw new Error(`its URL host ${parsed.host} is not a Slack host`);
  const response = await options.fetch(url, {
    headers: { authorization: `Bearer ${options.botToken}` },
    redirect: 'follow',
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    throw new Error(`HTTP ${response.status}`);
  }
  const contentType = response.headers.get('content-type') ?? '';
  if (contentType.startsWith('text/html') && file.mimetype !== 'text/html') {
    await response.body.cancel();
    throw new Error('Slack answered with a sign-in page (the bot token lacks the files:read scope)');
  }
  const directory = join(options.dataDirectory, 'media');
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const path = join(directory, `${safeFileName(file.id)}-${safeFileName(name)}`);
  const partial = `${path}.part`;
  let size = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > options.maxBytes) {
        callback(new Error(`it is larger than ${Math.round(options.maxBytes / 1024 / 1024)} MB`));
        return;
      }
      callback(null, chunk);
    },
  });
  try {
    await pipeline(
      Readable.fromWeb(response.body as Parameters<typeof Readable.fromWeb>[0]),
      limit,
      createWriteStream(partial, { mode: 0o600 }),
    );
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  const mimeType = file.mimetype ?? (contentType.split(';')[0]?.trim() || undefined);
  return {
    kind: mediaKindOf(mimeType),
    ...(mimeType === undefined ? {} : { mimeType }),
    fileName: name,
    sizeBytes: size,
    path,
    url,
  };
}

/** An outbound attachment as bytes, ready for files upload v2. */
export interface LoadedMedia {
  readonly bytes: Buffer;
  readonly fileName: string;
}

/** Reads an outbound attachment (bytes, a local file, or a URL) into memory, up to `maxBytes`. */
export async function loadOutboundMedia(
  media: OutboundMedia,
  index: number,
  options: { readonly maxBytes: number; readonly fetch: typeof fetch; readonly signal?: AbortSignal },
): Promise<LoadedMedia> {
  const fallbackName = media.fileName ?? `attachment-${index + 1}${extensionFor(media.mimeType)}`;
  const tooLarge = (size: number) =>
    new SlackChannelError(
      'SLACK_MEDIA_FAILED',
      `attachment ${index + 1} (${fallbackName}) is ${size} bytes, more than the ${options.maxBytes} allowed`,
      { details: { index, size } },
    );
  try {
    switch (media.source.type) {
      case 'bytes': {
        if (media.source.data.byteLength > options.maxBytes) throw tooLarge(media.source.data.byteLength);
        return { bytes: Buffer.from(media.source.data), fileName: fallbackName };
      }
      case 'path': {
        const bytes = await readFile(media.source.path);
        if (bytes.byteLength > options.maxBytes) throw tooLarge(bytes.byteLength);
        return {
          bytes,
          fileName: media.fileName ?? (media.source.path.split(/[/\\]/).pop() || fallbackName),
        };
      }
      case 'url': {
        const response = await options.fetch(media.source.url, {
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const bytes = Buffer.from(await response.arrayBuffer());
        if (bytes.byteLength > options.maxBytes) throw tooLarge(bytes.byteLength);
        const fromUrl = new URL(media.source.url).pathname.split('/').pop();
        return { bytes, fileName: media.fileName ?? (fromUrl ? decodeURIComponent(fromUrl) : fallbackName) };
      }
    }
  } catch (error) {
    if (SlackChannelError.isInstance(error)) throw error;
    throw new SlackChannelError(
      'SLACK_MEDIA_FAILED',
      `attachment ${index + 1} (${fallbackName}) could not be read: ${error instanceof Error ? error.message : String(error)}`,
      { details: { index }, cause: error },
    );
  }
}

function extensionFor(mimeType: string | undefined): string {
  const known: Readonly<Record<string, string>> = {
    'image/png': '.png',
    'image/jpeg': '.jpg',
    'image/gif': '.gif',
    'image/webp': '.webp',
    'application/pdf': '.pdf',
    'text/plain': '.txt',
    'audio/mpeg': '.mp3',
    'audio/ogg': '.ogg',
    'video/mp4': '.mp4',
  };
  return mimeType === undefined ? '' : (known[mimeType] ?? '');
}
