// FakeWhatsApp: the "world" behind fake Baileys sockets. It stands in for WhatsApp's
// servers and the people on them: it links the device (QR or pairing code), delivers what
// people write (real protobuf message shapes, LID addressing, real media encryption through a
// local CDN), records what the linked device sends, and injects faults (disconnect reasons,
// logout from the phone, rate limits). It listens on 127.0.0.1 (one port: the socket
// WebSocket at /ws/chat and the CDN at /cdn), so the socket can live in another process.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { downloadMediaMessage, prepareWAMessageMedia, proto, type WAMessage } from 'baileys';
import pino from 'pino';
import { type WebSocket, WebSocketServer } from 'ws';
import { TestkitError } from '../shared/errors.ts';
import { closeServer, listenOnLoopback } from '../shared/http-server.ts';
import { type ConditionWaiter, createConditionWaiter } from '../shared/waiter.ts';
import { type FakeSocketFactory, fakeSocketFactory, messageFromWire } from './fake-socket.ts';
import type { KeyExtras, SocketFrame, WireError, WireMe, WireMessage, WorldFrame } from './protocol.ts';
import { sentLog } from './sent-log.ts';

export interface FakeWhatsAppOptions {
  /** The linked account's phone number, digits only. Default `15550009999`. */
  readonly botNumber?: string;
  /** The linked account's LID, digits only. Default `200000000009999`. */
  readonly botLid?: string;
  readonly botName?: string;
  /** How messages address people: `lid` (WhatsApp's default now) or `pn`. Default `lid`. */
  readonly addressing?: 'lid' | 'pn';
  /** The phone scans the QR code (or enters the pairing code) as soon as it is shown. Default false. */
  readonly autoLink?: boolean;
  /** QR codes offered per connection before it closes with 408. Default 6. */
  readonly qrRefs?: number;
  /** How long each QR code lives. Default 20 s. */
  readonly qrIntervalMs?: number;
  readonly now?: () => number;
}

/** A person on the fake WhatsApp. */
export interface FakeWhatsAppUser {
  /** Digits only. */
  readonly phone: string;
  /** `+<digits>`: the id the channel reports (Sender.id, DM peer id). */
  readonly id: string;
  readonly jid: string;
  readonly lidJid: string;
  readonly name: string;
}

/** A message the linked device sent, as the world recorded it. */
export interface FakeWhatsAppSentMessage {
  readonly id: string;
  /** The JID it was sent to. */
  readonly jid: string;
  /** `+<digits>` for a person, the group JID for a group. */
  readonly conversationId: string;
  readonly kind: 'text' | 'image' | 'video' | 'audio' | 'document' | 'sticker' | 'other';
  /** The text or caption. */
  readonly text: string;
  /** The message id it quotes (`contextInfo.stanzaId`). */
  readonly quotedId?: string;
  readonly message: WAMessage;
  readonly at: number;
}

export interface FakeWhatsAppSendOptions {
  /** Write in this group instead of a DM. */
  readonly group?: string;
  /** Mention the linked account (`@<number>` and `contextInfo.mentionedJid`). */
  readonly mentionBot?: boolean;
  /** Quote (reply to) this message id. */
  readonly quote?: string;
  readonly id?: string;
}

export interface FakeWhatsAppMedia {
  readonly kind: 'image' | 'video' | 'audio' | 'voice' | 'document' | 'sticker';
  readonly bytes: Uint8Array;
  readonly mimeType: string;
  readonly fileName?: string;
  readonly caption?: string;
}

/** The world's view of the linked device. */
export interface FakeWhatsAppLinkState {
  readonly linked: boolean;
  /** Sockets connected now (open or still linking). */
  readonly connections: number;
  /** A socket is connected and logged in. */
  readonly open: boolean;
  /** Every QR ref offered, oldest first. */
  readonly qrRefs: readonly string[];
  /** Every pairing code handed out. */
  readonly pairingCodes: readonly string[];
  /** How many times a socket logged in. */
  readonly logins: number;
}

export interface FakeWhatsApp {
  start(): Promise<FakeWhatsApp>;
  close(): Promise<void>;
  /** `ws://127.0.0.1:<port>/ws/chat`: give it to `fakeSocketFactory` or as `waWebSocketUrl`. */
  readonly socketUrl: string;
  /** The channel's `makeSocket` for this world. */
  readonly makeSocket: FakeSocketFactory;
  /** The linked account: `<number>@s.whatsapp.net`, its LID JID and `+<number>`. */
  readonly bot: { readonly jid: string; readonly lidJid: string; readonly id: string; readonly name: string };
  addUser(phone: string, options?: { name?: string; lid?: string }): FakeWhatsAppUser;
  user(phone: string): FakeWhatsAppUser;
  /** Creates a group with the bot and these people; returns its JID (`jid` picks it). */
  createGroup(subject: string, members: readonly string[], jid?: string): string;
  /**
   * A person writes text (DM, or in a group). Resolves once the server accepted it. With a
   * device connected it arrives as a `notify` upsert; otherwise WhatsApp keeps it and delivers
   * it at the next login as an `append` upsert (an offline delivery), as Baileys emits those.
   */
  sendText(from: string, text: string, options?: FakeWhatsAppSendOptions): Promise<{ messageId: string }>;
  /** A person sends an attachment, encrypted by Baileys and stored on the CDN. */
  sendMedia(
    from: string,
    media: FakeWhatsAppMedia,
    options?: FakeWhatsAppSendOptions,
  ): Promise<{ messageId: string }>;
  /**
   * Delivers an already delivered message again (same id): live (`notify`) when a device is
   * connected, else with the offline backlog (`append`) at the next login.
   */
  redeliver(messageId: string): void;
  /** The phone scans the QR code being shown. */
  scanQr(): void;
  /** The phone enters a pairing code. */
  enterPairingCode(code: string): void;
  /** The phone removes the linked device: the connection closes with 401. */
  logoutDevice(): void;
  /** WhatsApp drops the connection with this disconnect reason (default 408, connection lost). */
  disconnect(statusCode?: number, message?: string): void;
  /** The next `count` connection attempts are closed at once with `statusCode`. */
  refuseNextConnections(count: number, statusCode: number): void;
  /** The next `count` sends are refused with 429 rate-overlimit and this retry-after. */
  rateLimitNextSends(count: number, retryAfterSeconds: number): void;
  rateLimitedSends(): number;
  readonly link: FakeWhatsAppLinkState;
  waitForLink(
    check: (state: FakeWhatsAppLinkState) => boolean,
    timeoutMs?: number,
  ): Promise<FakeWhatsAppLinkState>;
  /** What the linked device sent (to one conversation, or all). */
  sent(conversationId?: string): readonly FakeWhatsAppSentMessage[];
  waitForSent(
    conversationId: string,
    count: number,
    timeoutMs?: number,
  ): Promise<readonly FakeWhatsAppSentMessage[]>;
  /** Downloads and decrypts a sent attachment from the CDN with Baileys' `downloadMediaMessage`. */
  sentMedia(messageId: string): Promise<Uint8Array>;
  /** Presence updates (`composing`, `paused`, ...) the device sent. */
  presences(): ReadonlyArray<{ readonly presence: string; readonly jid?: string; readonly at: number }>;
  /** Message keys the device marked read. */
  readReceipts(): ReadonlyArray<Record<string, unknown>>;
}

interface Connection {
  readonly socket: WebSocket;
  state: 'hello' | 'linking' | 'open' | 'closed';
  qrTimer?: NodeJS.Timeout;
  refsLeft: number;
  pairingCode?: string;
}

const crockford = '123456789ABCDEFGHJKLMNPQRSTVWXYZ';

/** Creates a FakeWhatsApp world; call `start()`. */
export function createFakeWhatsApp(options: FakeWhatsAppOptions = {}): FakeWhatsApp {
  const botNumber = options.botNumber ?? '15550009999';
  const botLid = options.botLid ?? '200000000009999';
  const botName = options.botName ?? 'Switchboard Bot';
  const addressing = options.addressing ?? 'lid';
  const qrRefCount = options.qrRefs ?? 6;
  const qrIntervalMs = options.qrIntervalMs ?? 20_000;
  const now = options.now ?? Date.now;
  if (!/^\d{6,15}$/.test(botNumber)) {
    throw new TestkitError('TESTKIT_INVALID_OPTIONS', `botNumber: expected 6–15 digits, got "${botNumber}"`);
  }
  const logger = pino({ level: 'silent' });
  const users = new Map<string, FakeWhatsAppUser>();
  const lidToPhone = new Map<string, string>();
  const groups = new Map<string, { subject: string; members: string[] }>();
  const delivered = new Map<string, WireMessage>();
  const queue: WireMessage[] = [];
  const sent: FakeWhatsAppSentMessage[] = [];
  const presences: Array<{ presence: string; jid?: string; at: number }> = [];
  const reads: Array<Record<string, unknown>> = [];
  const cdn = new Map<string, Buffer>();
  const connections = new Set<Connection>();
  const qrRefs: string[] = [];
  const pairingCodes: string[] = [];
  const waiter: ConditionWaiter = createConditionWaiter({
    subject: 'FakeWhatsApp',
    defaultTimeoutMs: 10_000,
  });
  let linkedMe: WireMe | undefined;
  let deviceNumber = 0;
  let logins = 0;
  let refusals: { count: number; statusCode: number } | undefined;
  let rateLimit: { count: number; retryAfterSeconds: number } | undefined;
  let rateLimited = 0;
  let server: Server | undefined;
  let sockets: WebSocketServer | undefined;
  let port = 0;

  const bot = {
    jid: `${botNumber}@s.whatsapp.net`,
    lidJid: `${botLid}@lid`,
    id: `+${botNumber}`,
    name: botName,
  };

  const requireStarted = () => {
    if (port === 0) throw new TestkitError('TESTKIT_NOT_STARTED', 'FakeWhatsApp: call start() first');
  };
  const messageId = () => `3A${randomBytes(9).toString('hex').toUpperCase()}`;
  const seconds = () => String(Math.floor(now() / 1000));

  const send = (connection: Connection, frame: WorldFrame) => {
    if (connection.socket.readyState === connection.socket.OPEN)
      connection.socket.send(JSON.stringify(frame));
  };
  const closeConnection = (connection: Connection, error: WireError) => {
    if (connection.state === 'closed') return;
    clearTimeout(connection.qrTimer);
    send(connection, { type: 'close', error });
    connection.state = 'closed';
    connection.socket.close();
    connections.delete(connection);
    waiter.notify();
  };
  const openConnection = () =>
    [...connections].find(
      (connection) => connection.state === 'open' && connection.socket.readyState === connection.socket.OPEN,
    );
  const linkingConnection = () => [...connections].find((connection) => connection.state === 'linking');

  // Delivers what is queued to the open connection. A message written while a device is
  // connected reaches it live: Baileys emits it as a `notify` upsert.
  const flush = () => {
    const open = openConnection();
    if (open === undefined || queue.length === 0 || open.socket.readyState !== open.socket.OPEN) return;
    const messages = queue.splice(0, queue.length);
    send(open, { type: 'upsert', upsertType: 'notify', messages });
  };

  // Right after a login: what was written while no device was connected. WhatsApp sends those
  // stanzas marked `offline`, and Baileys 7 emits them as `append` upserts (messages-recv.js,
  // `upsertMessage(msg, node.attrs.offline ? 'append' : 'notify')`), buffered into one upsert
  // until the server's `<ib><offline count=…/></ib>` says the backlog is done, at which point
  // it flushes and reports `receivedPendingNotifications: true` (socket.js).
  const flushOffline = (connection: Connection) => {
    const messages = queue.splice(0, queue.length);
    if (messages.length > 0) send(connection, { type: 'upsert', upsertType: 'append', messages });
    send(connection, { type: 'offline', count: messages.length });
  };

  const deliver = (wire: WireMessage) => {
    const id = (wire.json.key as { id: string }).id;
    delivered.set(id, wire);
    queue.push(wire);
    flush();
  };

  const pairSuccess = (connection: Connection) => {
    deviceNumber += 1;
    linkedMe = {
      id: `${botNumber}:${deviceNumber}@s.whatsapp.net`,
      lid: `${botLid}:${deviceNumber}@lid`,
      name: botName,
    };
    clearTimeout(connection.qrTimer);
    send(connection, { type: 'pair-success', me: linkedMe });
    // WhatsApp then ends the stream and the client reconnects with its new credentials.
    setTimeout(
      () => closeConnection(connection, { statusCode: 515, message: 'Stream Errored (restart required)' }),
      5,
    );
    waiter.notify();
  };

  const offerQr = (connection: Connection) => {
    if (connection.state !== 'linking') return;
    if (connection.refsLeft === 0) {
      closeConnection(connection, { statusCode: 408, message: 'QR refs attempts ended' });
      return;
    }
    connection.refsLeft -= 1;
    const ref = `2@${randomBytes(24).toString('base64')}`;
    qrRefs.push(ref);
    send(connection, { type: 'qr', ref });
    waiter.notify();
    if (options.autoLink === true && connection.pairingCode === undefined) {
      setTimeout(() => {
        if (connection.state === 'linking' && connection.pairingCode === undefined) pairSuccess(connection);
      }, 5);
    }
    connection.qrTimer = setTimeout(() => offerQr(connection), qrIntervalMs);
    connection.qrTimer.unref();
  };

  const onHello = (connection: Connection, frame: Extract<SocketFrame, { type: 'hello' }>) => {
    if (refusals !== undefined && refusals.count > 0) {
      refusals.count -= 1;
      closeConnection(connection, { statusCode: refusals.statusCode, message: 'Connection Failure' });
      return;
    }
    if (!frame.registered) {
      connection.state = 'linking';
      offerQr(connection);
      return;
    }
    const user = frame.me?.id.split('@')[0]?.split(':')[0];
    if (linkedMe === undefined || user !== botNumber || frame.me?.id !== linkedMe.id) {
      closeConnection(connection, { statusCode: 401, message: 'Connection Failure' });
      return;
    }
    for (const other of connections) {
      if (other !== connection && other.state === 'open') {
        closeConnection(other, { statusCode: 440, message: 'Stream Errored (conflict)' });
      }
    }
    connection.state = 'open';
    logins += 1;
    send(connection, { type: 'open', me: linkedMe });
    flushOffline(connection);
    waiter.notify();
  };

  const conversationOf = (jid: string): string => {
    if (jid.endsWith('@g.us')) return jid;
    const user = jid.split('@')[0]?.split(':')[0] ?? jid;
    if (jid.endsWith('@lid')) {
      const phone = lidToPhone.get(user);
      return phone === undefined ? `${user}@lid` : `+${phone}`;
    }
    return `+${user}`;
  };

  const onRequest = async (
    connection: Connection,
    id: number,
    request: Extract<SocketFrame, { type: 'request' }>['request'],
  ) => {
    const reply = (result: unknown) => send(connection, { type: 'response', id, ok: true, result });
    const fail = (error: WireError) => send(connection, { type: 'response', id, ok: false, error });
    switch (request.op) {
      case 'relay': {
        if (connection.state !== 'open') {
          fail({ statusCode: 428, message: 'Connection Closed' });
          return;
        }
        if (rateLimit !== undefined && rateLimit.count > 0) {
          rateLimit.count -= 1;
          rateLimited += 1;
          fail({
            statusCode: 429,
            message: 'rate-overlimit',
            data: { retryAfter: rateLimit.retryAfterSeconds },
          });
          waiter.notify();
          return;
        }
        const message = messageFromWire(request.message);
        sent.push(describeSent(message, request.jid, conversationOf(request.jid), now()));
        reply(null);
        waiter.notify();
        return;
      }
      case 'group-metadata': {
        const group = groups.get(request.jid);
        if (group === undefined) {
          fail({ statusCode: 404, message: 'item-not-found' });
          return;
        }
        reply({
          id: request.jid,
          subject: group.subject,
          owner: bot.jid,
          participants: [
            { id: addressing === 'lid' ? bot.lidJid : bot.jid, admin: 'superadmin' },
            ...group.members.map((phone) => ({
              id: addressing === 'lid' ? users.get(phone)!.lidJid : users.get(phone)!.jid,
              admin: null,
            })),
          ],
          addressingMode: addressing,
        });
        return;
      }
      case 'pairing-code': {
        if (connection.state !== 'linking') {
          fail({ statusCode: 400, message: 'not waiting for a pairing' });
          return;
        }
        const code = Array.from(randomBytes(8), (byte) => crockford[byte % 32]).join('');
        connection.pairingCode = code;
        pairingCodes.push(code);
        reply(code);
        waiter.notify();
        if (options.autoLink === true) setTimeout(() => enterPairingCode(code), 5);
        return;
      }
      case 'pn-for-lid': {
        const user = request.lid.split('@')[0]?.split(':')[0] ?? '';
        const phone = lidToPhone.get(user);
        reply(phone === undefined ? null : `${phone}@s.whatsapp.net`);
        return;
      }
    }
  };

  const enterPairingCode = (code: string) => {
    const connection = [...connections].find(
      (candidate) => candidate.state === 'linking' && candidate.pairingCode === code,
    );
    if (connection === undefined)
      throw new TestkitError('TESTKIT_INVALID_OPTIONS', `no device is waiting for pairing code ${code}`);
    pairSuccess(connection);
  };

  const handleHttp = (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method === 'POST' && url.pathname === '/cdn/upload') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const id = randomBytes(12).toString('hex');
        cdn.set(id, Buffer.concat(chunks));
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ url: `http://127.0.0.1:${port}/cdn/${id}` }));
      });
      return;
    }
    const match = /^\/cdn\/([0-9a-f]+)$/.exec(url.pathname);
    const bytes = match === null ? undefined : cdn.get(match[1]!);
    if (request.method === 'GET' && bytes !== undefined) {
      response
        .writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length })
        .end(bytes);
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  };

  const keyFor = (
    from: FakeWhatsAppUser,
    chat: string | undefined,
    id: string,
  ): { key: Record<string, unknown>; extras: KeyExtras } => {
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
  };

  const contextInfoFor = (sendOptions: FakeWhatsAppSendOptions, chat: string | undefined) => {
    const context: Record<string, unknown> = {};
    if (sendOptions.mentionBot === true) context.mentionedJid = [addressing === 'lid' ? bot.lidJid : bot.jid];
    if (sendOptions.quote !== undefined) {
      const quoted = delivered.get(sendOptions.quote) ?? undefined;
      const ownSent = sent.find((message) => message.id === sendOptions.quote);
      context.stanzaId = sendOptions.quote;
      if (ownSent !== undefined) {
        context.participant = addressing === 'lid' ? bot.lidJid : bot.jid;
        context.quotedMessage = { conversation: ownSent.text };
      } else if (quoted !== undefined) {
        const key = quoted.json.key as { participant?: string; remoteJid?: string };
        context.participant = key.participant ?? key.remoteJid;
        context.quotedMessage = (quoted.json.message as Record<string, unknown>) ?? { conversation: '' };
      }
      if (chat !== undefined) context.remoteJid = chat;
    }
    return Object.keys(context).length === 0 ? undefined : context;
  };

  const world: FakeWhatsApp = {
    async start() {
      if (server !== undefined) return world;
      server = createServer(handleHttp);
      sockets = new WebSocketServer({ noServer: true });
      server.on('upgrade', (request, socket, head) => {
        if (new URL(request.url ?? '/', 'http://127.0.0.1').pathname !== '/ws/chat') {
          socket.destroy();
          return;
        }
        sockets?.handleUpgrade(request, socket, head, (ws) => {
          const connection: Connection = { socket: ws, state: 'hello', refsLeft: qrRefCount };
          connections.add(connection);
          ws.on('message', (data) => {
            const frame = JSON.parse(String(data)) as SocketFrame;
            if (frame.type === 'hello') onHello(connection, frame);
            else if (frame.type === 'request') void onRequest(connection, frame.id, frame.request);
            else if (frame.type === 'presence') {
              presences.push({
                presence: frame.presence,
                ...(frame.jid === undefined ? {} : { jid: frame.jid }),
                at: now(),
              });
              waiter.notify();
            } else if (frame.type === 'read') {
              reads.push(...frame.keys);
              waiter.notify();
            }
          });
          ws.on('close', () => {
            clearTimeout(connection.qrTimer);
            connection.state = 'closed';
            connections.delete(connection);
            waiter.notify();
          });
          waiter.notify();
        });
      });
      port = await listenOnLoopback(server);
      return world;
    },
    async close() {
      waiter.close();
      for (const connection of connections) {
        clearTimeout(connection.qrTimer);
        connection.socket.terminate();
      }
      connections.clear();
      sockets?.close();
      if (server !== undefined) await closeServer(server);
    },
    get socketUrl() {
      requireStarted();
      return `ws://127.0.0.1:${port}/ws/chat`;
    },
    get makeSocket() {
      return fakeSocketFactory(world.socketUrl);
    },
    bot,
    addUser(phone, userOptions = {}) {
      const digits = phone.replace(/\D/g, '');
      if (!/^\d{6,15}$/.test(digits))
        throw new TestkitError('TESTKIT_INVALID_OPTIONS', `addUser: "${phone}" is not a phone number`);
      const lid = userOptions.lid ?? `1${digits.padStart(14, '0')}`;
      const user: FakeWhatsAppUser = {
        phone: digits,
        id: `+${digits}`,
        jid: `${digits}@s.whatsapp.net`,
        lidJid: `${lid}@lid`,
        name: userOptions.name ?? `User ${digits.slice(-4)}`,
      };
      users.set(digits, user);
      lidToPhone.set(lid, digits);
      return user;
    },
    user(phone) {
      const user = users.get(phone.replace(/\D/g, ''));
      if (user === undefined)
        throw new TestkitError('TESTKIT_INVALID_OPTIONS', `no user ${phone}: call addUser first`);
      return user;
    },
    createGroup(subject, members, requested) {
      const jid =
        requested ?? `120363${String(randomBytes(6).readUIntBE(0, 6)).padStart(15, '0').slice(0, 12)}@g.us`;
      if (!/^\d+@g\.us$/.test(jid))
        throw new TestkitError('TESTKIT_INVALID_OPTIONS', `createGroup: "${jid}" is not a group JID`);
      groups.set(jid, { subject, members: members.map((member) => world.user(member).phone) });
      return jid;
    },
    async sendText(from, text, sendOptions = {}) {
      const user = world.user(from);
      const id = sendOptions.id ?? messageId();
      const chat = sendOptions.group;
      if (chat !== undefined && !groups.has(chat))
        throw new TestkitError('TESTKIT_INVALID_OPTIONS', `no group ${chat}`);
      const { key, extras } = keyFor(user, chat, id);
      const body = sendOptions.mentionBot === true ? `@${botNumber} ${text}` : text;
      const contextInfo = contextInfoFor(sendOptions, chat);
      const message =
        contextInfo === undefined
          ? { conversation: body }
          : { extendedTextMessage: { text: body, contextInfo } };
      deliver({
        json: { key, message, messageTimestamp: seconds(), pushName: user.name },
        keyExtras: extras,
      });
      return { messageId: id };
    },
    async sendMedia(from, media, sendOptions = {}) {
      const user = world.user(from);
      const id = sendOptions.id ?? messageId();
      const chat = sendOptions.group;
      const data = Buffer.from(media.bytes);
      const content =
        media.kind === 'image'
          ? {
              image: data,
              mimetype: media.mimeType,
              ...(media.caption === undefined ? {} : { caption: media.caption }),
            }
          : media.kind === 'video'
            ? {
                video: data,
                mimetype: media.mimeType,
                ...(media.caption === undefined ? {} : { caption: media.caption }),
              }
            : media.kind === 'audio' || media.kind === 'voice'
              ? { audio: data, mimetype: media.mimeType, ptt: media.kind === 'voice' }
              : media.kind === 'sticker'
                ? { sticker: data, mimetype: media.mimeType }
                : {
                    document: data,
                    mimetype: media.mimeType,
                    fileName: media.fileName ?? 'file',
                    ...(media.caption === undefined ? {} : { caption: media.caption }),
                  };
      // Real Baileys encryption (AES-256-CBC + HMAC, keys from a random mediaKey) and upload.
      const prepared = await prepareWAMessageMedia(content, {
        logger,
        upload: async (path) => {
          const stored = randomBytes(12).toString('hex');
          cdn.set(stored, await readFile(path));
          return {
            mediaUrl: `http://127.0.0.1:${port}/cdn/${stored}`,
            directPath: undefined as unknown as string,
          };
        },
      });
      const messageJson = proto.Message.toObject(prepared, {
        longs: String,
        enums: String,
        bytes: String,
      }) as Record<string, unknown>;
      const contextInfo = contextInfoFor(sendOptions, chat);
      if (contextInfo !== undefined) {
        for (const value of Object.values(messageJson)) {
          if (typeof value === 'object' && value !== null)
            (value as Record<string, unknown>).contextInfo = contextInfo;
        }
      }
      const { key, extras } = keyFor(user, chat, id);
      deliver({
        json: { key, message: messageJson, messageTimestamp: seconds(), pushName: user.name },
        keyExtras: extras,
      });
      return { messageId: id };
    },
    redeliver(id) {
      const wire = delivered.get(id);
      if (wire === undefined)
        throw new TestkitError('TESTKIT_INVALID_OPTIONS', `redeliver: no delivered message ${id}`);
      queue.push(wire);
      flush();
    },
    scanQr() {
      const connection = linkingConnection();
      if (connection === undefined)
        throw new TestkitError('TESTKIT_INVALID_OPTIONS', 'scanQr: no device is showing a QR code');
      pairSuccess(connection);
    },
    enterPairingCode,
    logoutDevice() {
      linkedMe = undefined;
      for (const connection of [...connections]) {
        if (connection.state === 'open')
          closeConnection(connection, { statusCode: 401, message: 'Stream Errored (conflict)' });
      }
    },
    disconnect(statusCode = 408, message = 'Connection was lost') {
      for (const connection of [...connections]) closeConnection(connection, { statusCode, message });
    },
    refuseNextConnections(count, statusCode) {
      refusals = { count, statusCode };
    },
    rateLimitNextSends(count, retryAfterSeconds) {
      rateLimit = { count, retryAfterSeconds };
    },
    rateLimitedSends: () => rateLimited,
    get link() {
      return {
        linked: linkedMe !== undefined,
        connections: connections.size,
        open: openConnection() !== undefined,
        qrRefs: [...qrRefs],
        pairingCodes: [...pairingCodes],
        logins,
      };
    },
    waitForLink(check, timeoutMs = 5_000) {
      return waiter.until({
        check: () => (check(world.link) ? world.link : undefined),
        awaited: 'the link state to match',
        arrived: () => `it is ${JSON.stringify(world.link)}`,
        timeoutMs,
      });
    },
    ...sentLog(sent, waiter),
    async sentMedia(id) {
      const record = sent.find((message) => message.id === id);
      if (record === undefined)
        throw new TestkitError('TESTKIT_INVALID_OPTIONS', `sentMedia: no sent message ${id}`);
      return new Uint8Array(await downloadMediaMessage(record.message, 'buffer', {}));
    },
    presences: () => [...presences],
    readReceipts: () => [...reads],
  };
  return world;
}

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
    ...(quotedId === undefined || quotedId === null ? {} : { quotedId }),
    message,
    at,
  };
}
