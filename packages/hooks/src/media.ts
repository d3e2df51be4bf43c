// Lazy inbound media (decision 0026): what a channel's `downloadMedia` receives and returns,
// the one error a download fails with, and the bounded stream writer every channel uses, so
// a size limit is enforced while the bytes arrive, never after the whole body was read.
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { type ErrorCodeTable, SwitchboardError } from './errors.ts';

/**
 * A JSON value. `InboundMedia.reference` is one, so the inbound journal can store a message's
 * media and a restarted gateway can still fetch it.
 */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/** How the gateway asks for one attachment. */
export interface MediaDownloadOptions {
  /** The most bytes the gateway accepts; the download aborts as soon as it has received more. */
  readonly maxBytes: number;
  /** Aborted when the turn is stopped or the account stops. */
  readonly signal: AbortSignal;
}

/** A downloaded attachment: a file inside the account's data directory. */
export interface DownloadedMedia {
  readonly path: string;
  readonly sizeBytes: number;
  /** The type the platform (or the file's first bytes) says, when it differs from the description. */
  readonly mimeType?: string;
}

/** A code of {@link MediaError}; each is documented in {@link mediaErrorCodes}. */
export type MediaErrorCode =
  | 'MEDIA_TOO_LARGE'
  | 'MEDIA_DOWNLOAD_FAILED'
  | 'MEDIA_INVALID_REFERENCE'
  | 'MEDIA_UNAVAILABLE';

/** Every code a {@link MediaError} can carry, with the sentence that documents it. */
export const mediaErrorCodes: Readonly<Record<MediaErrorCode, string>> & ErrorCodeTable = {
  MEDIA_TOO_LARGE:
    'An inbound attachment is larger than the limit the gateway asked for; the download was stopped when the limit was passed (details: sizeBytes or receivedBytes, maxBytes).',
  MEDIA_DOWNLOAD_FAILED:
    'The platform refused or failed an inbound attachment download (HTTP status, network error, expired link); `retryable` says whether a later attempt may work.',
  MEDIA_INVALID_REFERENCE:
    "An inbound attachment's `reference` is not one this channel wrote (a journal from another version, a hand-edited record).",
  MEDIA_UNAVAILABLE:
    'The account that received an inbound attachment is not running or cannot download media, so the attachment cannot be fetched now.',
};

/** The error every `downloadMedia` fails with (or the gateway raises around it). */
export class MediaError extends SwitchboardError<MediaErrorCode> {}

/** A size in a form an operator reads: `5 MB`, `812 KB`, `96 bytes`. */
export function formatByteSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number((bytes / (1024 * 1024)).toFixed(1))} MB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))} KB`;
  return `${bytes} bytes`;
}

/** The MEDIA_TOO_LARGE error for `what`, known (declared) to be `sizeBytes`, or seen passing the limit. */
function mediaTooLargeError(
  what: string,
  maxBytes: number,
  size: { readonly sizeBytes: number } | { readonly receivedBytes: number },
): MediaError {
  const message =
    'sizeBytes' in size
      ? `${what} is ${formatByteSize(size.sizeBytes)} (${size.sizeBytes} bytes); the limit is ${formatByteSize(maxBytes)} (${maxBytes} bytes)`
      : `${what} passed the limit of ${formatByteSize(maxBytes)} (${maxBytes} bytes) after ${size.receivedBytes} bytes; the download was stopped`;
  return new MediaError('MEDIA_TOO_LARGE', message, { details: { ...size, maxBytes } });
}

/** Throws MEDIA_TOO_LARGE when a declared size (Content-Length, the platform's file size) is over the limit. */
export function assertDeclaredSize(
  what: string,
  declared: number | null | undefined,
  maxBytes: number,
): void {
  if (typeof declared === 'number' && Number.isFinite(declared) && declared > maxBytes)
    throw mediaTooLargeError(what, maxBytes, { sizeBytes: declared });
}

/** A byte source: a fetch `Response.body`, a Node stream or any async iterable of chunks. */
export type ByteSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export interface BoundedStreamOptions {
  readonly maxBytes: number;
  /** Names the attachment in errors (`image photo.jpg of message 42`). */
  readonly what: string;
  readonly signal?: AbortSignal;
}

function toNodeReadable(source: ByteSource): Readable {
  if (source instanceof Readable) return source;
  if (typeof (source as ReadableStream<Uint8Array>).getReader === 'function')
    return Readable.fromWeb(source as WebReadableStream<Uint8Array>);
  return Readable.from(source as AsyncIterable<Uint8Array>);
}

/** Counts bytes and fails with MEDIA_TOO_LARGE the moment they pass the limit. */
function byteLimit(options: BoundedStreamOptions, counted: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      counted.bytes += chunk.length;
      if (counted.bytes > options.maxBytes) {
        callback(mediaTooLargeError(options.what, options.maxBytes, { receivedBytes: counted.bytes }));
        return;
      }
      callback(null, chunk);
    },
  });
}

/**
 * Streams `source` into the file `path` (mode 0600; written to `<path>.part`, then renamed,
 * so a half-written file never has the final name). Once more than `maxBytes` arrived the
 * source is destroyed (the connection is closed, so the rest is never transferred), the
 * partial file removed, and MEDIA_TOO_LARGE thrown. Resolves with the byte count.
 */
export async function writeBoundedStream(
  source: ByteSource,
  path: string,
  options: BoundedStreamOptions,
): Promise<number> {
  const counted = { bytes: 0 };
  const temporary = `${path}.${process.pid}.${Date.now().toString(36)}.part`;
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  try {
    await pipeline(
      toNodeReadable(source),
      byteLimit(options, counted),
      createWriteStream(temporary, { mode: 0o600 }),
      { signal: options.signal ?? new AbortController().signal },
    );
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return counted.bytes;
}

/** Like {@link writeBoundedStream} into memory, for bytes the caller needs whole anyway. */
export async function readBoundedStream(source: ByteSource, options: BoundedStreamOptions): Promise<Buffer> {
  const counted = { bytes: 0 };
  const chunks: Buffer[] = [];
  const limit = byteLimit(options, counted);
  await pipeline(
    toNodeReadable(source),
    limit,
    async (stream: AsyncIterable<Buffer>) => {
      for await (const chunk of stream) chunks.push(chunk);
    },
    { signal: options.signal ?? new AbortController().signal },
  );
  return Buffer.concat(chunks);
}
