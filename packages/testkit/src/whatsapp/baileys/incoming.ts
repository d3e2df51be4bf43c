// What people write on the fake WhatsApp, built as WhatsApp delivers it: real protobuf
// message shapes with LID (or phone-number) addressing, mentions and quotes in
// `contextInfo`, and attachments encrypted by Baileys (`prepareWAMessageMedia`) and stored on
// the world's CDN.
import { readFile } from 'node:fs/promises';
import { prepareWAMessageMedia, proto } from 'baileys';
import pino from 'pino';
import { TestkitError } from '../../shared/errors.ts';
import type { KeyExtras, WireMessage } from '../protocol.ts';
import type { FakeWhatsAppMedia, FakeWhatsAppSendOptions, FakeWhatsAppUser } from './types.ts';
import type { WhatsAppWorld } from './world.ts';

/** A message a person wrote, ready to deliver, and its id. */
interface IncomingMessage {
  readonly id: string;
  readonly wire: WireMessage;
}

/** Stores encrypted media bytes on the CDN and returns their download URL. */
export type StoreMedia = (bytes: Buffer) => string;

const logger = pino({ level: 'silent' });

/** The text message `from` writes (a DM, or in `options.group`). */
export function incomingText(
  world: WhatsAppWorld,
  from: string,
  text: string,
  sendOptions: FakeWhatsAppSendOptions,
): IncomingMessage {
  const user = world.user(from);
  const id = sendOptions.id ?? world.messageId();
  const chat = sendOptions.group;
  if (chat !== undefined && !world.hasGroup(chat))
    throw new TestkitError('TESTKIT_INVALID_OPTIONS', `no group ${chat}`);
  const { key, extras } = keyFor(world, user, chat, id);
  const body = sendOptions.mentionBot === true ? `@${world.botNumber} ${text}` : text;
  const contextInfo = contextInfoFor(world, sendOptions, chat);
  const message =
    contextInfo === undefined ? { conversation: body } : { extendedTextMessage: { text: body, contextInfo } };
  return {
    id,
    wire: {
      json: { key, message, messageTimestamp: world.seconds(), pushName: user.name },
      keyExtras: extras,
    },
  };
}

/** The attachment `from` sends, encrypted with a random media key and uploaded to the CDN. */
export async function incomingMedia(
  world: WhatsAppWorld,
  from: string,
  media: FakeWhatsAppMedia,
  sendOptions: FakeWhatsAppSendOptions,
  storeMedia: StoreMedia,
): Promise<IncomingMessage> {
  const user = world.user(from);
  const id = sendOptions.id ?? world.messageId();
  const chat = sendOptions.group;
  // Real Baileys encryption (AES-256-CBC + HMAC, keys from a random mediaKey) and upload.
  const prepared = await prepareWAMessageMedia(mediaContent(media), {
    logger,
    upload: async (path) => ({
      mediaUrl: storeMedia(await readFile(path)),
      directPath: undefined as unknown as string,
    }),
  });
  const messageJson = proto.Message.toObject(prepared, {
    longs: String,
    enums: String,
    bytes: String,
  }) as Record<string, unknown>;
  const contextInfo = contextInfoFor(world, sendOptions, chat);
  if (contextInfo !== undefined) {
    for (const value of Object.values(messageJson)) {
      if (typeof value === 'object' && value !== null)
        (value as Record<string, unknown>).contextInfo = contextInfo;
    }
  }
  const { key, extras } = keyFor(world, user, chat, id);
  return {
    id,
    wire: {
      json: { key, message: messageJson, messageTimestamp: world.seconds(), pushName: user.name },
      keyExtras: extras,
    },
  };
}

/** The `AnyMediaMessageContent` Baileys prepares for an attachment. */
function mediaContent(media: FakeWhatsAppMedia) {
  const data = Buffer.from(media.bytes);
  const caption = media.caption === undefined ? {} : { caption: media.caption };
  switch (media.kind) {
    case 'image':
      return { image: data, mimetype: media.mimeType, ...caption };
    case 'video':
      return { video: data, mimetype: media.mimeType, ...caption };
    case 'audio':
    case 'voice':
      return { audio: data, mimetype: media.mimeType, ptt: media.kind === 'voice' };
    case 'sticker':
      return { sticker: data, mimetype: media.mimeType };
    default:
      return { document: data, mimetype: media.mimeType, fileName: media.fileName ?? 'file', ...caption };
  }
}

function keyFor(
  world: WhatsAppWorld,
  from: FakeWhatsAppUser,
  chat: string | undefined,
  id: string,
): { key: Record<string, unknown>; extras: KeyExtras } {
  const { addressing } = world;
  const primary = addressing === 'lid' ? from.lidJid : from.jid;
  const alternate = addressing === 'lid' ? from.jid : from.lidJid;
  if (chat === undefined) {
    return {
      key: { remoteJid: primary, fromMe: false, id },
      extras: { remoteJidAlt: alternate, addressingMode: addressing },
    };
  }
  return {
    key: { remoteJid: chat, fromMe: false, id, participant: primary },
    extras: { participantAlt: alternate, addressingMode: addressing },
  };
}

function contextInfoFor(
  world: WhatsAppWorld,
  sendOptions: FakeWhatsAppSendOptions,
  chat: string | undefined,
): Record<string, unknown> | undefined {
  const context: Record<string, unknown> = {};
  if (sendOptions.mentionBot === true) context.mentionedJid = [world.botAddress];
  if (sendOptions.quote !== undefined) {
    const quoted = world.delivered.get(sendOptions.quote) ?? undefined;
    const ownSent = world.sent.find((message) => message.id === sendOptions.quote);
    context.stanzaId = sendOptions.quote;
    if (ownSent !== undefined) {
      context.participant = world.botAddress;
      context.quotedMessage = { conversation: ownSent.text };
    } else if (quoted !== undefined) {
      const key = quoted.json.key as { participant?: string; remoteJid?: string };
      context.participant = key.participant ?? key.remoteJid;
      context.quotedMessage = (quoted.json.message as Record<string, unknown>) ?? { conversation: '' };
    }
    if (chat !== undefined) context.remoteJid = chat;
  }
  return Object.keys(context).length === 0 ? undefined : context;
}
