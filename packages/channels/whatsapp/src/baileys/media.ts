// Inbound media of a linked-device account (decision 0026): a message's attachment is
// described with what Baileys needs to fetch and decrypt it later (the message key and the
// media sub-message: URL, direct path, media key, hashes), and downloaded only when the
// gateway asks, for a message it admitted, streamed through Baileys' decryption into the
// account's data directory with the size limit enforced as the bytes arrive.
import {
  assertDeclaredSize,
  type ByteSource,
  type DownloadedMedia,
  type InboundMedia,
  type JsonValue,
  type MediaDownloadOptions,
  MediaError,
  writeBoundedStream,
} from '@switchboard/hooks';
import { getContentType, normalizeMessageContent, proto, type WAMessage } from 'baileys';
import { inboundMediaPath } from '../media.ts';
import type { WhatsAppSocket } from './socket.ts';

/** Downloads and decrypts an inbound media message (Baileys' `downloadMediaMessage`, as a stream). */
export type MediaDownloader = (message: WAMessage, socket: WhatsAppSocket | undefined) => Promise<ByteSource>;

/** Fields of the media sub-message that Baileys does not need to download it. */
const droppedFields = new Set(['jpegThumbnail', 'contextInfo', 'caption', 'streamingSidecar']);

/**
 * What `InboundMedia.reference` holds: the message key and the media sub-message as protobuf
 * JSON (bytes as base64). It carries the attachment's media key, which decrypts that one file
 * only: the journal (inside the 0700 state directory) keeps it so a restarted gateway can
 * still download the attachment.
 */
export function baileysMediaReference(message: WAMessage): JsonValue | undefined {
  const content = normalizeMessageContent(message.message);
  const type = getContentType(content ?? undefined);
  if (content === undefined || content === null || type === undefined) return undefined;
  const json = proto.Message.toObject(proto.Message.create({ [type]: content[type] }), {
    longs: Number,
    enums: String,
    bytes: String,
  }) as Record<string, Record<string, unknown>>;
  const body = json[type];
  if (body === undefined) return undefined;
  for (const field of droppedFields) delete body[field];
  return {
    key: {
      ...(message.key.remoteJid ? { remoteJid: message.key.remoteJid } : {}),
      ...(message.key.id ? { id: message.key.id } : {}),
      ...(message.key.participant ? { participant: message.key.participant } : {}),
      fromMe: message.key.fromMe === true,
    },
    message: { [type]: body } as JsonValue,
  };
}

function messageOf(media: InboundMedia): WAMessage {
  const reference = media.reference as Record<string, unknown> | null | undefined;
  const key = typeof reference === 'object' && reference !== null ? reference.key : undefined;
  const content = typeof reference === 'object' && reference !== null ? reference.message : undefined;
  if (typeof key !== 'object' || key === null || typeof content !== 'object' || content === null) {
    throw new MediaError(
      'MEDIA_INVALID_REFERENCE',
      `a WhatsApp ${media.kind} has no Baileys media reference (key, message): ${JSON.stringify(media.reference)}`,
    );
  }
  return {
    key: key as WAMessage['key'],
    message: proto.Message.fromObject(content as Record<string, unknown>),
  };
}

export interface BaileysMediaDownloadOptions {
  readonly dataDirectory: string;
  /** The account's own limit (`mediaMaxMb`); the smaller of it and the gateway's applies. */
  readonly maxBytes: number;
  readonly download: MediaDownloader;
  /** The open socket (for re-upload requests of expired media), if connected. */
  readonly socket: () => WhatsAppSocket | undefined;
}

/** ChannelAccount.downloadMedia of a linked-device account. */
export async function downloadBaileysMedia(
  media: InboundMedia,
  request: MediaDownloadOptions,
  options: BaileysMediaDownloadOptions,
): Promise<DownloadedMedia> {
  const message = messageOf(media);
  const maxBytes = Math.min(request.maxBytes, options.maxBytes);
  const messageId = message.key.id ?? 'unknown';
  const what = `WhatsApp ${media.kind}${media.fileName === undefined ? '' : ` ${media.fileName}`} of message ${messageId}`;
  assertDeclaredSize(what, media.sizeBytes, maxBytes);
  let source: ByteSource;
  try {
    source = await options.download(message, options.socket());
  } catch (error) {
    throw new MediaError(
      'MEDIA_DOWNLOAD_FAILED',
      `downloading ${what} failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const path = inboundMediaPath(options.dataDirectory, messageId, 0, media.mimeType, media.fileName);
  try {
    const sizeBytes = await writeBoundedStream(source, path, { maxBytes, what, signal: request.signal });
    return { path, sizeBytes };
  } catch (error) {
    if (error instanceof MediaError || request.signal.aborted) throw error;
    throw new MediaError(
      'MEDIA_DOWNLOAD_FAILED',
      `downloading ${what} failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
