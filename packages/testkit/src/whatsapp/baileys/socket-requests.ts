// The requests a fake Baileys socket makes of the world, answered as WhatsApp answers them:
// `relay` (a send, recorded; refused when not logged in or rate-limited), `group-metadata`,
// `pairing-code` and `pn-for-lid`.
import type { proto, WAMessage } from 'baileys';
import { messageFromWire } from '../fake-socket.ts';
import type { SocketFrame, WireError } from '../protocol.ts';
import { SendRateLimit } from '../send-rate-limit.ts';
import type { Connection, WhatsAppConnections } from './connections.ts';
import type { FakeWhatsAppSentMessage } from './types.ts';
import type { WhatsAppWorld } from './world.ts';

type SocketRequest = Extract<SocketFrame, { type: 'request' }>['request'];

export class SocketRequests {
  readonly #world: WhatsAppWorld;
  readonly #connections: WhatsAppConnections;
  readonly #notify: () => void;
  /** Sends refused with 429 rate-overlimit (`rateLimitNextSends`). */
  readonly rateLimit: SendRateLimit = new SendRateLimit();

  /** `notify` is called after each change a wait may be watching (a send recorded or refused). */
  constructor(world: WhatsAppWorld, connections: WhatsAppConnections, notify: () => void) {
    this.#world = world;
    this.#connections = connections;
    this.#notify = notify;
  }

  /** Answers request `id` of `connection` with a `response` frame. */
  handle(connection: Connection, id: number, request: SocketRequest): void {
    const reply = (result: unknown) =>
      this.#connections.send(connection, { type: 'response', id, ok: true, result });
    const fail = (error: WireError) =>
      this.#connections.send(connection, { type: 'response', id, ok: false, error });
    const world = this.#world;
    switch (request.op) {
      case 'relay': {
        if (connection.state !== 'open') {
          fail({ statusCode: 428, message: 'Connection Closed' });
          return;
        }
        const retryAfter = this.rateLimit.take();
        if (retryAfter !== undefined) {
          fail({ statusCode: 429, message: 'rate-overlimit', data: { retryAfter } });
          this.#notify();
          return;
        }
        const message = messageFromWire(request.message);
        world.sent.push(describeSent(message, request.jid, world.conversationOf(request.jid), world.now()));
        reply(null);
        this.#notify();
        return;
      }
      case 'group-metadata': {
        const metadata = world.groupMetadata(request.jid);
        if (metadata === undefined) fail({ statusCode: 404, message: 'item-not-found' });
        else reply(metadata);
        return;
      }
      case 'pairing-code': {
        if (connection.state !== 'linking') {
          fail({ statusCode: 400, message: 'not waiting for a pairing' });
          return;
        }
        reply(this.#connections.createPairingCode(connection));
        return;
      }
      case 'pn-for-lid': {
        const user = request.lid.split('@')[0]?.split(':')[0] ?? '';
        const phone = world.phoneForLid(user);
        reply(phone === undefined ? null : `${phone}@s.whatsapp.net`);
        return;
      }
    }
  }
}

/** What the world records of a message the linked device sent. */
function describeSent(
  message: WAMessage,
  jid: string,
  conversationId: string,
  at: number,
): FakeWhatsAppSentMessage {
  const content = message.message ?? {};
  const kinds = [
    ['imageMessage', 'image'],
    ['videoMessage', 'video'],
    ['audioMessage', 'audio'],
    ['documentMessage', 'document'],
    ['stickerMessage', 'sticker'],
  ] as const;
  let kind: FakeWhatsAppSentMessage['kind'] = 'other';
  let text = '';
  let contextInfo: proto.IContextInfo | null | undefined;
  if (content.conversation) {
    kind = 'text';
    text = content.conversation;
  } else if (content.extendedTextMessage) {
    kind = 'text';
    text = content.extendedTextMessage.text ?? '';
    contextInfo = content.extendedTextMessage.contextInfo;
  } else {
    for (const [field, name] of kinds) {
      const body = content[field] as
        | { caption?: string | null; contextInfo?: proto.IContextInfo | null }
        | null
        | undefined;
      if (body) {
        kind = name;
        text = body.caption ?? '';
        contextInfo = body.contextInfo;
      }
    }
  }
  const quotedId = contextInfo?.stanzaId ?? undefined;
  return {
    id: message.key?.id ?? '',
    jid,
    conversationId,
    kind,
    text,
    quotedId: quotedId ?? undefined,
    message,
    at,
  };
}
