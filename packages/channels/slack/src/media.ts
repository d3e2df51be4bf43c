// Files: inbound Slack files described for the gateway and downloaded with the bot token into
// the account's data directory only when it asks (decision 0026), and outbound attachments
// read into bytes for files upload v2.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  assertDeclaredSize,
  type DownloadedMedia,
  type InboundMedia,
  type Logger,
  type MediaDownloadOptions,
  MediaError,
  type MediaKind,
  type OutboundMedia,
  readBoundedStream,
  writeBoundedStream,
} from '@switchboard/hooks';
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

/** What `InboundMedia.reference` holds for a Slack file: enough to fetch it after a restart. */
interface SlackFileReference {
  readonly fileId: string;
  /** `url_private_download` (or `url_private`): fetched with the bot token. */
  readonly url: string;
}

/** What describing a message's files produced: media for the gateway, notes for the text. */
export interface DescribedFiles {
  readonly media: InboundMedia[];
  /** One line per file Slack does not let the bot fetch (deleted, hidden, Slack Connect). */
  readonly notes: string[];
}

/**
 * Describes each file of a message for the gateway (decision 0026): nothing is downloaded
 * here; the gateway calls `downloadMedia` for a message it admits. A file Slack will not
 * hand over (tombstone, hidden by the plan's limit, Slack Connect, no URL) becomes a note.
 */
export function describeSlackFiles(files: readonly SlackFile[], logger: Logger): DescribedFiles {
  const media: InboundMedia[] = [];
  const notes: string[] = [];
  for (const file of files) {
    const name = file.name ?? file.title ?? file.id;
    const url = file.url_private_download ?? file.url_private;
    const problem =
      file.mode === 'tombstone' || file.mode === 'hidden_by_limit'
        ? 'the file is not available'
        : file.file_access === 'check_file_info'
          ? 'the file needs files.info (Slack Connect)'
          : url === undefined
            ? 'Slack gave no download URL'
            : undefined;
    if (problem !== undefined || url === undefined) {
      logger.warn('a Slack file cannot be downloaded', { fileId: file.id, reason: problem });
      notes.push(`[attachment ${name} cannot be downloaded: ${problem}]`);
      continue;
    }
    media.push({
      kind: mediaKindOf(file.mimetype),
      mimeType: file.mimetype,
      fileName: name,
      sizeBytes: file.size,
      reference: { fileId: file.id, url },
    });
  }
  return { media, notes };
}

function fileReferenceOf(media: InboundMedia): SlackFileReference {
  const reference = media.reference as Record<string, unknown> | null | undefined;
  if (
    typeof reference === 'object' &&
    reference !== null &&
    !Array.isArray(reference) &&
    typeof reference.fileId === 'string' &&
    typeof reference.url === 'string'
  ) {
    return reference as unknown as SlackFileReference;
  }
  throw new MediaError(
    'MEDIA_INVALID_REFERENCE',
    `a Slack ${media.kind} has no file reference (fileId, url): ${JSON.stringify(media.reference)}`,
  );
}

export interface SlackDownloadOptions {
  readonly botToken: string;
  /** The account's private directory; files go to `<dataDirectory>/media/`. */
  readonly dataDirectory: string;
  /** The account's own limit (`mediaMaxMb`); the smaller of it and the gateway's applies. */
  readonly maxBytes: number;
  /** Hosts the bot token may be sent to (Slack's file hosts and the configured API host). */
  readonly trustedHost: (host: string) => boolean;
  readonly fetch: typeof fetch;
  /** Aborted when the account stops. */
  readonly signal: AbortSignal;
}

/**
 * Downloads one described file (ChannelAccount.downloadMedia) with the bot token, streaming it
 * into `<dataDirectory>/media/` and stopping as soon as it passes the limit.
 */
export async function downloadSlackFile(
  media: InboundMedia,
  request: MediaDownloadOptions,
  options: SlackDownloadOptions,
): Promise<DownloadedMedia> {
  const reference = fileReferenceOf(media);
  const maxBytes = Math.min(request.maxBytes, options.maxBytes);
  const signal = AbortSignal.any([request.signal, options.signal]);
  const name = media.fileName ?? reference.fileId;
  const what = `Slack file ${name} (${reference.fileId})`;
  assertDeclaredSize(what, media.sizeBytes, maxBytes);
  const host = new URL(reference.url).host;
  if (!options.trustedHost(host))
    throw new MediaError('MEDIA_INVALID_REFERENCE', `${what}: its URL host ${host} is not a Slack host`);
  let response: Response;
  try {
    response = await options.fetch(reference.url, {
      headers: { authorization: `Bearer ${options.botToken}` },
      redirect: 'follow',
      signal,
    });
  } catch (error) {
    throw new MediaError(
      'MEDIA_DOWNLOAD_FAILED',
      `downloading ${what} failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error, retryable: true },
    );
  }
  if (!response.ok || response.body === null) {
    await response.body?.cancel().catch(() => undefined);
    throw new MediaError('MEDIA_DOWNLOAD_FAILED', `downloading ${what} failed with HTTP ${response.status}`, {
      retryable: response.status >= 500,
      details: { status: response.status },
    });
  }
  const contentType = response.headers.get('content-type') ?? '';
  if (contentType.startsWith('text/html') && media.mimeType !== 'text/html') {
    await response.body.cancel().catch(() => undefined);
    throw new MediaError(
      'MEDIA_DOWNLOAD_FAILED',
      `${what}: Slack answered with a sign-in page (the bot token lacks the files:read scope)`,
    );
  }
  try {
    assertDeclaredSize(what, Number(response.headers.get('content-length') ?? Number.NaN), maxBytes);
  } catch (error) {
    await response.body.cancel().catch(() => undefined);
    throw error;
  }
  const path = join(
    options.dataDirectory,
    'media',
    `${safeFileName(reference.fileId)}-${safeFileName(name)}`,
  );
  const sizeBytes = await writeBoundedStream(response.body, path, { maxBytes, what, signal });
  const mimeType = media.mimeType ?? (contentType.split(';')[0]?.trim() || undefined);
  return { path, sizeBytes, mimeType };
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
        const response = await options.fetch(media.source.url, { signal: options.signal });
        if (!response.ok || response.body === null) throw new Error(`HTTP ${response.status}`);
        const declared = Number(response.headers.get('content-length') ?? Number.NaN);
        if (Number.isFinite(declared) && declared > options.maxBytes) {
          await response.body.cancel().catch(() => undefined);
          throw tooLarge(declared);
        }
        let bytes: Buffer;
        try {
          bytes = await readBoundedStream(response.body, {
            maxBytes: options.maxBytes,
            what: `attachment ${index + 1} (${fallbackName})`,
          });
        } catch (error) {
          if (!(error instanceof MediaError)) throw error;
          throw new SlackChannelError(
            'SLACK_MEDIA_FAILED',
            `attachment ${index + 1} (${fallbackName}) passed the ${options.maxBytes} bytes allowed; the download was stopped`,
            { details: { index, maxBytes: options.maxBytes } },
          );
        }
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
