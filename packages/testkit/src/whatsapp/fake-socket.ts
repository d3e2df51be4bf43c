// A fake Baileys socket, built from real Baileys code, connected to a FakeWhatsApp world.
//
// WhatsApp's servers cannot be faked (the Noise handshake pins WhatsApp's certificate), so
// the seam is the socket: this object has the surface of `makeWASocket`'s return value that
// a channel uses, and everything behind that surface is Baileys' own:
// - `ev` is Baileys' `makeEventBuffer`, so `ev.on` and `ev.process` behave as in production;
// - inbound messages become `proto.WebMessageInfo.fromObject(...)` objects, with the v7 LID
//   key fields (`remoteJidAlt`, `participantAlt`, `addressingMode`) re-attached;
// - `sendMessage` runs the real `generateWAMessage`, so malformed content fails as it would,
//   and media is encrypted by Baileys and uploaded to the world's local "CDN";
// - own sends come back as `messages.upsert` with type `append` (Baileys' `emitOwnEvents`);
// - messages written while the device was disconnected come at the next login as one
//   `messages.upsert` of type `append` (WhatsApp's `offline` stanzas), then
//   `receivedPendingNotifications: true`; messages written while it is connected are `notify`;
// - linking shows real QR payloads (`buildPairingQRData` from the credentials' keys), and a
//   pair success updates `creds` and asks for a restart (515), as WhatsApp does.
import { readFile } from 'node:fs/promises';
import {
  type AnyMessageContent,
  buildPairingQRData,
  type Contact,
  type GroupMetadata,
  generateMessageIDV2,
  generateWAMessage,
  type MiscMessageGenerationOptions,
  makeEventBuffer,
  proto,
  type UserFacingSocketConfig,
  type WAMessage,
  type WAMessageKey,
  type WAPresence,
} from 'baileys';
import pino from 'pino';
import WebSocket from 'ws';
import { TestkitError } from '../shared/errors.ts';
import {
  boomError,
  type KeyExtras,
  type SocketFrame,
  type SocketRequest,
  type WireError,
  type WireMe,
  type WireMessage,
  type WorldFrame,
} from './protocol.ts';

/** The socket surface a WhatsApp channel drives; `makeWASocket`'s result has the same members. */
export interface FakeBaileysSocket {
  readonly ev: ReturnType<typeof makeEventBuffer>;
  readonly user: Contact | undefined;
  readonly signalRepository: { readonly lidMapping: { getPNForLID(lid: string): Promise<string | null> } };
  sendMessage(
    jid: string,
    content: AnyMessageContent,
    options?: MiscMessageGenerationOptions,
  ): Promise<WAMessage | undefined>;
  sendPresenceUpdate(type: WAPresence, toJid?: string): Promise<void>;
  readMessages(keys: WAMessageKey[]): Promise<void>;
  requestPairingCode(phoneNumber: string): Promise<string>;
  groupMetadata(jid: string): Promise<GroupMetadata>;
  updateMediaMessage(message: WAMessage): Promise<WAMessage>;
  end(error: Error | undefined): Promise<void>;
}

/** A socket factory with `makeWASocket`'s signature. */
export type FakeSocketFactory = (config: UserFacingSocketConfig) => FakeBaileysSocket;

/** Turns a message from the wire into the object Baileys would emit. */
export function messageFromWire(wire: WireMessage): WAMessage {
  const message = proto.WebMessageInfo.fromObject(wire.json) as WAMessage;
  // `fromObject` keeps protobuf fields only; v7 puts LID addressing next to them on the key.
  if (wire.keyExtras !== undefined && message.key !== undefined && message.key !== null) {
    Object.assign(message.key, wire.keyExtras);
  }
  return message;
}

/** Puts a message on the wire: protobuf JSON plus the key fields protobuf does not know. */
export function messageToWire(message: WAMessage): WireMessage {
  const json = proto.WebMessageInfo.toObject(
    proto.WebMessageInfo.fromObject(message as unknown as Record<string, unknown>),
    {
      longs: String,
      enums: String,
      bytes: String,
    },
  ) as Record<string, unknown>;
  const key = (message.key ?? {}) as KeyExtras;
  // Kept (decision 0028, rule 2): `keyExtras` is left out when Object.keys finds none.
  const keyExtras: KeyExtras = {
    ...(key.remoteJidAlt === undefined ? {} : { remoteJidAlt: key.remoteJidAlt }),
    ...(key.participantAlt === undefined ? {} : { participantAlt: key.participantAlt }),
    ...(key.addressingMode === undefined ? {} : { addressingMode: key.addressingMode }),
  };
  return Object.keys(keyExtras).length === 0 ? { json } : { json, keyExtras };
}

/**
 * Opens a fake socket to the world at `url` (`ws://127.0.0.1:<port>/ws/chat`, the world's
 * `socketUrl`). Use it as the channel's `makeSocket`: `(config) => createFakeBaileysSocket(config, url)`.
 */
export function createFakeBaileysSocket(config: UserFacingSocketConfig, url: string): FakeBaileysSocket {
  const target = new URL(url);
  if (target.hostname !== '127.0.0.1' && target.hostname !== 'localhost') {
    throw new TestkitError(
      'TESTKIT_INVALID_OPTIONS',
      `the fake WhatsApp world must be on 127.0.0.1, not ${target.host}`,
    );
  }
  const logger = config.logger ?? pino({ level: 'silent' });
  const ev = makeEventBuffer(logger);
  const creds = config.auth.creds;
  const browser = config.browser ?? ['Switchboard', 'Chrome', '124.0.0'];
  const cdnBase = `${target.protocol === 'wss:' ? 'https:' : 'http:'}//${target.host}/cdn`;
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  let user: Contact | undefined;
  let closed = false;
  const socket = new WebSocket(target);
  // As Baileys' socket does: credential updates are merged into the auth state it was given.
  ev.on('creds.update', (update) => Object.assign(creds, update));

  const send = (frame: SocketFrame) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
  };
  const request = (body: SocketRequest): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (closed || socket.readyState !== WebSocket.OPEN) {
        reject(boomError('Connection Closed', 428));
        return;
      }
      const id = nextId++;
      pending.set(id, { resolve, reject });
      send({ type: 'request', id, request: body });
    });

  const close = (error: WireError | undefined) => {
    if (closed) return;
    closed = true;
    user = undefined;
    const failure = boomError(
      error?.message ?? 'Connection Terminated',
      error?.statusCode ?? 428,
      error?.data,
    );
    for (const waiter of pending.values()) waiter.reject(boomError('Connection Closed', 428));
    pending.clear();
    if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING)
      socket.terminate();
    ev.emit('connection.update', {
      connection: 'close',
      lastDisconnect: { error: failure, date: new Date() },
    });
  };

  socket.on('open', () => {
    send({
      type: 'hello',
      registered: creds.me?.id !== undefined,
      me: creds.me === undefined ? undefined : toWireMe(creds.me),
    });
  });
  socket.on('message', (data) => {
    const frame = JSON.parse(String(data)) as WorldFrame;
    switch (frame.type) {
      case 'response': {
        const waiter = pending.get(frame.id);
        pending.delete(frame.id);
        if (frame.ok) waiter?.resolve(frame.result);
        else waiter?.reject(boomError(frame.error.message, frame.error.statusCode, frame.error.data));
        return;
      }
      case 'qr': {
        const qr = buildPairingQRData(
          frame.ref,
          Buffer.from(creds.noiseKey.public).toString('base64'),
          Buffer.from(creds.signedIdentityKey.public).toString('base64'),
          creds.advSecretKey,
          browser,
        );
        ev.emit('connection.update', { qr });
        return;
      }
      case 'pair-success': {
        // As WhatsApp does: the credentials now name the account, then the server asks for a restart.
        const me = {
          id: frame.me.id,
          ...(frame.me.lid ? { lid: frame.me.lid } : {}),
          ...(frame.me.name ? { name: frame.me.name } : {}),
        };
        ev.emit('creds.update', { me, registered: true, platform: 'smba' });
        ev.emit('connection.update', { isNewLogin: true, qr: undefined });
        return;
      }
      case 'open':
        user = {
          id: frame.me.id,
          ...(frame.me.lid ? { lid: frame.me.lid } : {}),
          ...(frame.me.name ? { name: frame.me.name } : {}),
        };
        ev.emit('connection.update', { connection: 'open', isOnline: true });
        return;
      case 'offline':
        // As Baileys on `<ib><offline/></ib>`: the messages kept while this device was away
        // have come (as an `append` upsert, before this frame).
        ev.emit('connection.update', { receivedPendingNotifications: true });
        return;
      case 'upsert':
        ev.emit('messages.upsert', { messages: frame.messages.map(messageFromWire), type: frame.upsertType });
        return;
      case 'close':
        close(frame.error);
        return;
    }
  });
  socket.on('close', () => close(undefined));
  socket.on('error', () => close(undefined));
  queueMicrotask(() =>
    ev.emit('connection.update', {
      connection: 'connecting',
      receivedPendingNotifications: false,
      qr: undefined,
    }),
  );

  const upload = async (encryptedFilePath: string, options: { mediaType: string }) => {
    const bytes = await readFile(encryptedFilePath);
    const response = await fetch(`${cdnBase}/upload?type=${encodeURIComponent(options.mediaType)}`, {
      method: 'POST',
      body: bytes,
    });
    if (!response.ok) throw boomError(`media upload failed with HTTP ${response.status}`, response.status);
    const { url: mediaUrl } = (await response.json()) as { url: string };
    // No directPath: with one, Baileys would build https://<host><directPath>; without, it fetches `url` as is.
    return { mediaUrl, directPath: undefined as unknown as string };
  };

  const fake: FakeBaileysSocket = {
    ev,
    get user() {
      return user;
    },
    signalRepository: {
      lidMapping: {
        getPNForLID: async (lid) => ((await request({ op: 'pn-for-lid', lid })) as string | null) ?? null,
      },
    },
    async sendMessage(jid, content, options = {}) {
      const me = creds.me;
      if (me === undefined || user === undefined) throw boomError('Connection Closed', 428);
      const message = await generateWAMessage(jid, content, {
        logger,
        userJid: me.id,
        upload,
        messageId: generateMessageIDV2(user.id),
        ...options,
      });
      await request({ op: 'relay', jid, message: messageToWire(message) });
      // Baileys' emitOwnEvents: the sent message comes back as an `append` upsert.
      process.nextTick(() => ev.emit('messages.upsert', { messages: [message], type: 'append' }));
      return message;
    },
    async sendPresenceUpdate(type, toJid) {
      if (closed) throw boomError('Connection Closed', 428);
      send({ type: 'presence', presence: type, jid: toJid });
    },
    async readMessages(keys) {
      if (closed) throw boomError('Connection Closed', 428);
      send({ type: 'read', keys: keys.map((key) => ({ ...key })) });
    },
    async requestPairingCode(phoneNumber) {
      return (await request({ op: 'pairing-code', phoneNumber })) as string;
    },
    async groupMetadata(jid) {
      return (await request({ op: 'group-metadata', jid })) as GroupMetadata;
    },
    async updateMediaMessage() {
      throw boomError('media re-upload is not supported by the fake', 404);
    },
    async end(error) {
      if (closed) return;
      closed = true;
      user = undefined;
      for (const waiter of pending.values()) waiter.reject(boomError('Connection Closed', 428));
      pending.clear();
      socket.close();
      ev.emit('connection.update', { connection: 'close', lastDisconnect: { error, date: new Date() } });
    },
  };
  return fake;
}

function toWireMe(me: Contact): WireMe {
  return {
    id: me.id,
    lid: me.lid,
    name: me.name,
  };
}

/** A factory for the channel's `makeSocket` option, bound to a world's socket URL. */
export function fakeSocketFactory(url: string): FakeSocketFactory {
  return (config) => createFakeBaileysSocket(config, url);
}
