// Baileys messages → Switchboard inbound messages.
import type { InboundMessage, MediaKind, ReplyReference } from '@switchboard/hooks';
import { getContentType, normalizeMessageContent, proto, toNumber, type WAMessage } from 'baileys';
import { isGroupJid, parseJid, userIdFromJid } from '../address.ts';

/** A media attachment found in a message, before it is downloaded. */
interface PendingMedia {
  readonly kind: MediaKind;
  readonly mimeType?: string;
  readonly fileName?: string;
  readonly sizeBytes?: number;
}

/** An inbound message ready for `receive`, and the attachment still to download (if any). */
export interface ConvertedInbound {
  readonly message: InboundMessage;
  readonly media?: PendingMedia;
}

export interface InboundContext {
  readonly channel: string;
  readonly accountId: string;
  /** The linked account's own JIDs (phone number and LID), device suffix removed. */
  readonly ownJids: readonly string[];
  /** The phone-number JID of a LID, when known. */
  resolvePhoneJid(lid: string): Promise<string | undefined>;
  /** The group's subject, when it can be fetched. */
  groupName(jid: string): Promise<string | undefined>;
}

/** The kinds of message content a person writes; everything else (reactions, protocol, ...) is skipped. */
const mediaTypes: Readonly<Record<string, MediaKind>> = {
  imageMessage: 'image',
  videoMessage: 'video',
  audioMessage: 'audio',
  documentMessage: 'document',
  stickerMessage: 'sticker',
};

/** `123:4@s.whatsapp.net` → `123@s.whatsapp.net`. */
export function bareJid(jid: string): string {
  const parsed = parseJid(jid);
  return parsed === undefined ? jid : `${parsed.user}@${parsed.server}`;
}

/**
 * Converts one `messages.upsert` message. Returns undefined for what the gateway should not
 * see: the account's own messages, status updates, channels (newsletters), broadcast lists,
 * reactions, protocol and key-distribution messages.
 */
export async function convertInbound(
  message: WAMessage,
  context: InboundContext,
): Promise<ConvertedInbound | undefined> {
  const key = message.key as WAMessage['key'] & {
    remoteJidAlt?: string;
    participantAlt?: string;
  };
  const chatJid = key.remoteJid ?? undefined;
  const messageId = key.id ?? undefined;
  if (chatJid === undefined || messageId === undefined || key.fromMe === true) return undefined;
  if (chatJid === 'status@broadcast' || chatJid.endsWith('@broadcast') || chatJid.endsWith('@newsletter')) {
    return undefined;
  }
  const content = normalizeMessageContent(message.message);
  const type = getContentType(content ?? undefined);
  if (content === undefined || content === null || type === undefined) return undefined;

  let text = '';
  let contextInfo: proto.IContextInfo | null | undefined;
  let media: PendingMedia | undefined;
  const mediaKind = mediaTypes[type];
  if (type === 'conversation') {
    text = content.conversation ?? '';
  } else if (type === 'extendedTextMessage') {
    text = content.extendedTextMessage?.text ?? '';
    contextInfo = content.extendedTextMessage?.contextInfo;
  } else if (mediaKind !== undefined) {
    const body = content[type as keyof proto.IMessage] as
      | {
          caption?: string | null;
          mimetype?: string | null;
          fileName?: string | null;
          fileLength?: number | Long | null;
          ptt?: boolean | null;
          contextInfo?: proto.IContextInfo | null;
        }
      | undefined;
    text = body?.caption ?? '';
    contextInfo = body?.contextInfo;
    const kind: MediaKind = mediaKind === 'audio' && body?.ptt === true ? 'voice' : mediaKind;
    const size =
      body?.fileLength === undefined || body.fileLength === null ? undefined : toNumber(body.fileLength);
    media = {
      kind,
      ...(body?.mimetype ? { mimeType: body.mimetype } : {}),
      ...(body?.fileName ? { fileName: body.fileName } : {}),
      ...(size === undefined || Number.isNaN(size) ? {} : { sizeBytes: size }),
    };
  } else if (type === 'locationMessage' || type === 'liveLocationMessage') {
    const location = content.locationMessage ?? content.liveLocationMessage;
    const place = [content.locationMessage?.name, content.locationMessage?.address]
      .filter(Boolean)
      .join(', ');
    text = `[location] ${location?.degreesLatitude ?? '?'}, ${location?.degreesLongitude ?? '?'}${place === '' ? '' : ` (${place})`}`;
    contextInfo = location?.contextInfo;
  } else if (type === 'contactMessage') {
    text = `[contact] ${content.contactMessage?.displayName ?? ''}`.trim();
  } else {
    return undefined;
  }

  const timestampSeconds =
    message.messageTimestamp === undefined || message.messageTimestamp === null
      ? undefined
      : toNumber(message.messageTimestamp);
  const timestamp =
    timestampSeconds === undefined || Number.isNaN(timestampSeconds) ? Date.now() : timestampSeconds * 1000;
  const senderName = message.pushName ?? undefined;
  const replyTo = await replyReference(contextInfo, context);
  const core = {
    channel: context.channel,
    accountId: context.accountId,
    messageId,
    text,
    timestamp,
    replyTo,
    raw: compactRaw(message),
  };

  if (isGroupJid(chatJid)) {
    const participant = key.participant ?? undefined;
    if (participant === undefined) return undefined;
    const senderJid = await phoneJidOf(participant, key.participantAlt, context);
    const mentioned = (contextInfo?.mentionedJid ?? []).map(bareJid);
    const own = new Set(context.ownJids.map(bareJid));
    const repliesToUs =
      contextInfo?.stanzaId !== undefined &&
      contextInfo?.stanzaId !== null &&
      typeof contextInfo.participant === 'string' &&
      own.has(bareJid(contextInfo.participant));
    const name = await context.groupName(chatJid).catch(() => undefined);
    return {
      message: {
        ...core,
        chatType: 'group',
        peer: { kind: 'group', id: chatJid, name },
        sender: { id: userIdFromJid(senderJid), name: senderName },
        wasMentioned: mentioned.some((jid) => own.has(jid)) || repliesToUs,
        ...(mentioned.length === 0 ? {} : { mentions: mentioned.map(userIdFromJid) }),
      },
      media,
    };
  }

  const senderJid = await phoneJidOf(chatJid, key.remoteJidAlt, context);
  const senderId = userIdFromJid(senderJid);
  return {
    message: {
      ...core,
      chatType: 'direct',
      peer: { kind: 'direct', id: senderId, name: senderName },
      sender: { id: senderId, name: senderName },
    },
    media,
  };
}

/** Fields left out of `raw`: key material and thumbnails (the journal keeps `raw`). */
const rawDropped = new Set([
  'mediaKey',
  'messageSecret',
  'jpegThumbnail',
  'thumbnailSha256',
  'thumbnailEncSha256',
]);

/** The message as plain JSON (protobuf JSON form plus the LID key fields), without key material. */
export function compactRaw(message: WAMessage): unknown {
  const json = proto.WebMessageInfo.toObject(
    proto.WebMessageInfo.fromObject(message as unknown as Record<string, unknown>),
    {
      longs: Number,
      enums: String,
      bytes: String,
    },
  ) as { key?: Record<string, unknown> };
  const key = message.key as Record<string, unknown> | null | undefined;
  for (const extra of ['remoteJidAlt', 'participantAlt', 'addressingMode']) {
    if (key?.[extra] !== undefined && json.key !== undefined) json.key[extra] = key[extra];
  }
  return JSON.parse(
    JSON.stringify(json, (name, value: unknown) => (rawDropped.has(name) ? undefined : value)),
  );
}

/** Prefers the phone-number JID: the alternate address WhatsApp sent, else Baileys' LID mapping. */
async function phoneJidOf(
  jid: string,
  alternate: string | undefined,
  context: InboundContext,
): Promise<string> {
  if (!jid.endsWith('@lid')) return bareJid(jid);
  if (alternate !== undefined && !alternate.endsWith('@lid')) return bareJid(alternate);
  const mapped = await context.resolvePhoneJid(bareJid(jid)).catch(() => undefined);
  return mapped === undefined ? bareJid(jid) : bareJid(mapped);
}

async function replyReference(
  contextInfo: proto.IContextInfo | null | undefined,
  context: InboundContext,
): Promise<ReplyReference | undefined> {
  const quotedId = contextInfo?.stanzaId;
  if (quotedId === undefined || quotedId === null || quotedId === '') return undefined;
  const quoted = normalizeMessageContent(contextInfo?.quotedMessage ?? undefined);
  const quotedText =
    quoted?.conversation ??
    quoted?.extendedTextMessage?.text ??
    quoted?.imageMessage?.caption ??
    quoted?.videoMessage?.caption ??
    quoted?.documentMessage?.caption ??
    undefined;
  const participant = contextInfo?.participant ?? undefined;
  const senderJid = participant === undefined ? undefined : await phoneJidOf(participant, undefined, context);
  return {
    messageId: quotedId,
    text: quotedText ?? undefined,
    senderId: senderJid === undefined ? undefined : userIdFromJid(senderJid),
  };
}
