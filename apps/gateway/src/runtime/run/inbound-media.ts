// The media of an admitted channel message, fetched when its turn builds the user message
// (decision 0026): channels only describe attachments, so nothing is downloaded for a
// message the gateway refused. Images (and stickers) go to the model inline; other kinds are
// named in a line of text and not downloaded at all, since the model could not read them.
import { readFile, stat } from 'node:fs/promises';
import {
  assertDeclaredSize,
  formatByteSize,
  type ImageContent,
  type InboundMedia,
  type Logger,
  MediaError,
  readBoundedStream,
  SwitchboardError,
} from '@switchboard/hooks';
import type { ChannelManager } from '../channels.ts';

/** Images the model accepts inline: the most bytes fetched for one attachment. */
const maxInlineImageBytes = 5 * 1024 * 1024;

/** How long a plain-URL fetch (legacy `url` media) may take. */
const urlFetchTimeoutMs = 15_000;

export interface InboundMediaServices {
  /** Where the account that received a message is found; its `downloadMedia` fetches `reference` media. */
  readonly channels: Pick<ChannelManager, 'account'>;
  readonly logger: Logger;
}

/** Where the media came from (the account whose `downloadMedia` fetches it). */
export interface InboundMediaOrigin {
  readonly channel: string;
  readonly accountId: string;
  /** The platform message, for the log line. */
  readonly messageId?: string;
}

/** What the model sees of a message's media. */
export interface LoadedInboundMedia {
  readonly images: ImageContent[];
  /** One line per attachment the model does not see inline (or sees with a file name). */
  readonly notes: string[];
}

function labelOf(item: InboundMedia): string {
  return `[${item.kind}${item.fileName === undefined ? '' : `: ${item.fileName}`}${item.mimeType === undefined ? '' : ` (${item.mimeType})`}]`;
}

function describe(item: InboundMedia): string {
  return `${item.kind}${item.fileName === undefined ? '' : ` ${item.fileName}`}`;
}

/** The sentence the model reads for an attachment it does not get. */
function noteFor(label: string, error: unknown): string {
  if (error instanceof MediaError && error.code === 'MEDIA_TOO_LARGE') {
    const limit = error.details?.maxBytes;
    return `${label} (the attachment was too large to fetch${typeof limit === 'number' ? `: over the ${formatByteSize(limit)} limit` : ''}; you cannot see it)`;
  }
  return `${label} (the attachment could not be fetched; you cannot see it)`;
}

/**
 * Fetches the bytes of one image attachment, at most `maxBytes`: from the account's
 * `downloadMedia` for a `reference`, or (older channels) from `path` or a plain http(s) `url`.
 */
async function fetchImageBytes(
  item: InboundMedia,
  origin: InboundMediaOrigin,
  services: InboundMediaServices,
  signal: AbortSignal,
): Promise<{ bytes: Buffer; mimeType: string | undefined }> {
  const what = `${describe(item)} of ${origin.channel} message ${origin.messageId ?? '?'}`;
  assertDeclaredSize(what, item.sizeBytes, maxInlineImageBytes);
  if (item.reference !== undefined) {
    const account = services.channels.account(origin.channel, origin.accountId)?.running;
    if (account?.downloadMedia === undefined) {
      throw new MediaError(
        'MEDIA_UNAVAILABLE',
        `${what}: account ${origin.channel}:${origin.accountId} is ${account === undefined ? 'not running' : 'unable to download media'}`,
      );
    }
    const downloaded = await account.downloadMedia(item, { maxBytes: maxInlineImageBytes, signal });
    const bytes = await readFile(downloaded.path);
    // The contract says the account stops at the limit; a file over it is refused all the same.
    assertDeclaredSize(what, bytes.length, maxInlineImageBytes);
    return { bytes, mimeType: downloaded.mimeType ?? item.mimeType };
  }
  if (item.path !== undefined) {
    assertDeclaredSize(what, (await stat(item.path)).size, maxInlineImageBytes);
    return { bytes: await readFile(item.path), mimeType: item.mimeType };
  }
  if (item.url !== undefined && /^https?:/i.test(item.url)) {
    const response = await fetch(item.url, {
      signal: AbortSignal.any([signal, AbortSignal.timeout(urlFetchTimeoutMs)]),
    });
    if (!response.ok || response.body === null) {
      await response.body?.cancel().catch(() => undefined);
      throw new MediaError('MEDIA_DOWNLOAD_FAILED', `${what}: HTTP ${response.status}`, {
        details: { status: response.status },
      });
    }
    try {
      assertDeclaredSize(
        what,
        Number(response.headers.get('content-length') ?? Number.NaN),
        maxInlineImageBytes,
      );
    } catch (error) {
      await response.body.cancel().catch(() => undefined);
      throw error;
    }
    const bytes = await readBoundedStream(response.body, { maxBytes: maxInlineImageBytes, what, signal });
    return { bytes, mimeType: item.mimeType };
  }
  throw new MediaError('MEDIA_INVALID_REFERENCE', `${what}: neither a reference, a path nor an http(s) url`);
}

/**
 * Turns a message's media into what the model sees: images as image blocks, anything else as
 * a line naming it. An attachment that cannot be fetched (too large, failed, account gone)
 * becomes a line telling the model so, and a warning in the log naming why.
 */
export async function loadInboundMedia(
  media: readonly InboundMedia[],
  origin: InboundMediaOrigin,
  services: InboundMediaServices,
  signal: AbortSignal,
): Promise<LoadedInboundMedia> {
  const images: ImageContent[] = [];
  const notes: string[] = [];
  for (const item of media) {
    const label = labelOf(item);
    if (item.kind !== 'image' && item.kind !== 'sticker') {
      notes.push(label);
      continue;
    }
    try {
      const { bytes, mimeType } = await fetchImageBytes(item, origin, services, signal);
      images.push({ type: 'image', mediaType: mimeType ?? 'image/jpeg', data: bytes.toString('base64') });
      if (item.fileName !== undefined) notes.push(label);
    } catch (error) {
      if (signal.aborted) throw error;
      const code = SwitchboardError.isInstance(error) ? error.code : 'MEDIA_DOWNLOAD_FAILED';
      services.logger.warn(
        code === 'MEDIA_TOO_LARGE'
          ? 'inbound media too large: the model is told it could not see it'
          : 'inbound media could not be fetched: the model is told it could not see it',
        {
          channel: origin.channel,
          accountId: origin.accountId,
          // Keeps the spreads (decision 0028, rule 1): log fields are merged over the logger's own.
          ...(origin.messageId === undefined ? {} : { messageId: origin.messageId }),
          kind: item.kind,
          ...(item.fileName === undefined ? {} : { fileName: item.fileName }),
          code,
          error: error instanceof Error ? error.message : String(error),
        },
      );
      notes.push(noteFor(label, error));
    }
  }
  return { images, notes };
}
