// Attachments: inbound files are described, and downloaded into the account's private data
// directory only when the gateway asks (`downloadMedia`, decision 0026); outbound media is
// read (bounded by mediaMaxMb) into buffers for discord.js to upload as multipart `files[n]`.
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import {
  assertDeclaredSize,
  type DownloadedMedia,
  type InboundMedia,
  type MediaDownloadOptions,
  MediaError,
  type MediaKind,
  type OutboundMedia,
  writeBoundedStream,
} from '@switchboard/hooks';
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

/** What `InboundMedia.reference` holds for a Discord attachment: enough to fetch it after a restart. */
interface DiscordAttachmentReference {
  readonly attachmentId: string;
  /** The signed CDN URL as the message carried it (it expires; see `refreshUrl`). */
  readonly url: string;
  readonly channelId: string;
  readonly messageId: string;
}

/**
 * Describes a message's attachments for the gateway (decision 0026): nothing is downloaded
 * here; the gateway calls `downloadMedia` for a message it admitted.
 */
export function describeAttachments(
  attachments: readonly InboundAttachment[],
  message: { readonly channelId: string; readonly messageId: string; readonly flags: number },
): InboundMedia[] {
  const voice = (message.flags & voiceMessageFlag) !== 0;
  return attachments.map(
    (attachment): InboundMedia => ({
      kind: kindOf(attachment.contentType, voice),
      ...(attachment.contentType === null ? {} : { mimeType: attachment.contentType }),
      fileName: attachment.name,
      sizeBytes: attachment.size,
      reference: {
        attachmentId: attachment.id,
        url: attachment.url,
        channelId: message.channelId,
        messageId: message.messageId,
      },
    }),
  );
}

function attachmentReferenceOf(media: InboundMedia): DiscordAttachmentReference {
  const reference = media.reference as Record<string, unknown> | null | undefined;
  if (
    typeof reference === 'object' &&
    reference !== null &&
    !Array.isArray(reference) &&
    ['attachmentId', 'url', 'channelId', 'messageId'].every((key) => typeof reference[key] === 'string')
  ) {
    return reference as unknown as DiscordAttachmentReference;
  }
  throw new MediaError(
    'MEDIA_INVALID_REFERENCE',
    `a Discord ${media.kind} has no attachment reference (attachmentId, url, channelId, messageId): ${JSON.stringify(media.reference)}`,
  );
}

export interface AttachmentDownloadOptions {
  /** `<dataDirectory>/media`. */
  readonly directory: string;
  /** The account's own limit (`mediaMaxMb`); the smaller of it and the gateway's applies. */
  readonly maxBytes: number;
  readonly fetch: typeof fetch;
  /** Aborted when the account stops. */
  readonly signal: AbortSignal;
  /**
   * A fresh URL for the attachment (the message fetched again through discord.js), for a
   * signed CDN link that expired since the message arrived; undefined when it is gone.
   */
  readonly refreshUrl: (reference: DiscordAttachmentReference) => Promise<string | undefined>;
}

/**
 * Downloads one described attachment (ChannelAccount.downloadMedia) into the media directory,
 * streaming it and stopping as soon as it passes the limit. A 403 or 404 from the CDN (an
 * expired link) is retried once with a refreshed URL.
 */
export async function downloadAttachment(
  media: InboundMedia,
  request: MediaDownloadOptions,
  options: AttachmentDownloadOptions,
): Promise<DownloadedMedia> {
  const reference = attachmentReferenceOf(media);
  const maxBytes = Math.min(request.maxBytes, options.maxBytes);
  const signal = AbortSignal.any([request.signal, options.signal]);
  const what = `Discord attachment ${media.fileName ?? reference.attachmentId} of message ${reference.messageId}`;
  assertDeclaredSize(what, media.sizeBytes, maxBytes);
  const get = async (url: string): Promise<Response> => {
    try {
      return await options.fetch(url, { signal: AbortSignal.any([signal, AbortSignal.timeout(60_000)]) });
    } catch (error) {
      throw new MediaError(
        'MEDIA_DOWNLOAD_FAILED',
        `downloading ${what} failed: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error, retryable: true },
      );
    }
  };
  let response = await get(reference.url);
  if (response.status === 403 || response.status === 404) {
    await response.body?.cancel().catch(() => undefined);
    const fresh = await options.refreshUrl(reference).catch(() => undefined);
    if (fresh !== undefined && fresh !== reference.url) response = await get(fresh);
  }
  if (!response.ok || response.body === null) {
    await response.body?.cancel().catch(() => undefined);
    throw new MediaError('MEDIA_DOWNLOAD_FAILED', `downloading ${what} failed with HTTP ${response.status}`, {
      retryable: response.status >= 500,
      details: { status: response.status },
    });
  }
  try {
    assertDeclaredSize(what, Number(response.headers.get('content-length') ?? Number.NaN), maxBytes);
  } catch (error) {
    await response.body.cancel().catch(() => undefined);
    throw error;
  }
  const path = join(
    options.directory,
    `${reference.messageId}-${reference.attachmentId}-${safeFileName(media.fileName ?? 'file')}`,
  );
  const sizeBytes = await writeBoundedStream(response.body, path, { maxBytes, what, signal });
  return { path, sizeBytes };
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
