// FakeWhatsApp driven as a Baileys user drives a socket: real auth state from Baileys'
// useMultiFileAuthState, real event handling (ev.on / ev.process), real media download.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AnyMessageContent,
  type BaileysEventMap,
  type ConnectionState,
  downloadMediaMessage,
  proto,
  useMultiFileAuthState,
  type WAMessage,
} from 'baileys';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFakeBaileysSocket, type FakeBaileysSocket } from './fake-socket.ts';
import { createFakeWhatsApp, type FakeWhatsApp, type FakeWhatsAppUser } from './fake-whatsapp.ts';

let world: FakeWhatsApp;
let alice: FakeWhatsAppUser;
let sockets: FakeBaileysSocket[] = [];

beforeEach(async () => {
  world = await createFakeWhatsApp({ qrRefs: 2, qrIntervalMs: 40 }).start();
  alice = world.addUser('+15551230001', { name: 'Alice' });
});

afterEach(async () => {
  for (const socket of sockets) await socket.end(undefined);
  sockets = [];
  await world.close();
});

type Auth = Awaited<ReturnType<typeof useMultiFileAuthState>>;

async function freshAuth(): Promise<Auth> {
  return useMultiFileAuthState(join(mkdtempSync(join(tmpdir(), 'fake-whatsapp-auth-')), 'auth'));
}

function connect(auth: Auth): FakeBaileysSocket {
  const socket = createFakeBaileysSocket({ auth: auth.state }, world.socketUrl);
  socket.ev.on('creds.update', () => void auth.saveCreds());
  sockets.push(socket);
  return socket;
}

function next<Event extends keyof BaileysEventMap>(
  socket: FakeBaileysSocket,
  event: Event,
  check: (value: BaileysEventMap[Event]) => boolean = () => true,
): Promise<BaileysEventMap[Event]> {
  return new Promise((resolve) => {
    const listener = (value: BaileysEventMap[Event]) => {
      if (!check(value)) return;
      socket.ev.off(event, listener);
      resolve(value);
    };
    socket.ev.on(event, listener);
  });
}

const closed = (update: Partial<ConnectionState>) => update.connection === 'close';
const statusOf = (update: Partial<ConnectionState>) =>
  (update.lastDisconnect?.error as { output?: { statusCode?: number } } | undefined)?.output?.statusCode;

async function linked(): Promise<{ auth: Auth; socket: FakeBaileysSocket }> {
  const auth = await freshAuth();
  const first = connect(auth);
  await next(first, 'connection.update', (update) => update.qr !== undefined);
  const restart = next(first, 'connection.update', closed);
  world.scanQr();
  expect(statusOf(await restart)).toBe(515);
  const socket = connect(auth);
  await next(socket, 'connection.update', (update) => update.connection === 'open');
  return { auth, socket };
}

describe('FakeWhatsApp linking', () => {
  it('shows real QR payloads built from the credentials, then pairs and asks for a restart (515)', async () => {
    const auth = await freshAuth();
    const socket = connect(auth);
    const updates: Array<Partial<ConnectionState>> = [];
    socket.ev.on('connection.update', (update) => updates.push(update));
    const { qr } = await next(socket, 'connection.update', (update) => update.qr !== undefined);
    expect(updates[0]).toMatchObject({ connection: 'connecting' });
    const noiseKey = Buffer.from(auth.state.creds.noiseKey.public).toString('base64');
    expect(qr).toMatch(/^https:\/\/wa\.me\/settings\/linked_devices#2@/);
    expect(qr?.split(',')).toContain(noiseKey);
    const credsUpdate = next(socket, 'creds.update');
    const restart = next(socket, 'connection.update', closed);
    world.scanQr();
    expect((await credsUpdate).me?.id).toBe('15550009999:1@s.whatsapp.net');
    expect(statusOf(await restart)).toBe(515);
    expect(auth.state.creds.me).toMatchObject({
      id: '15550009999:1@s.whatsapp.net',
      lid: '200000000009999:1@lid',
    });
    const again = connect(auth);
    await next(again, 'connection.update', (update) => update.connection === 'open');
    expect(again.user).toEqual({
      id: '15550009999:1@s.whatsapp.net',
      lid: '200000000009999:1@lid',
      name: 'Switchboard Bot',
    });
    expect(world.link).toMatchObject({ linked: true, open: true, logins: 1 });
  });

  it('rotates QR codes and closes with 408 when none was scanned', async () => {
    const socket = connect(await freshAuth());
    const qrs: string[] = [];
    socket.ev.on('connection.update', (update) => {
      if (update.qr !== undefined) qrs.push(update.qr);
    });
    expect(statusOf(await next(socket, 'connection.update', closed))).toBe(408);
    expect(qrs).toHaveLength(2);
    expect(new Set(qrs).size).toBe(2);
  });

  it('hands out a pairing code and links when the phone enters it', async () => {
    const socket = connect(await freshAuth());
    await next(socket, 'connection.update', (update) => update.qr !== undefined);
    const code = await socket.requestPairingCode('15550009999');
    expect(code).toMatch(/^[1-9A-HJ-NP-TV-Z]{8}$/);
    const restart = next(socket, 'connection.update', closed);
    expect(() => world.enterPairingCode('WRONG123')).toThrow(
      /no device is waiting for pairing code WRONG123/,
    );
    world.enterPairingCode(code);
    expect(statusOf(await restart)).toBe(515);
  });

  it('refuses old credentials after the phone logged the device out (401), and replaces a second session (440)', async () => {
    const { auth, socket } = await linked();
    const second = connect(auth);
    const replaced = next(socket, 'connection.update', closed);
    await next(second, 'connection.update', (update) => update.connection === 'open');
    expect(statusOf(await replaced)).toBe(440);
    const loggedOut = next(second, 'connection.update', closed);
    world.logoutDevice();
    expect(statusOf(await loggedOut)).toBe(401);
    const third = connect(auth);
    expect(statusOf(await next(third, 'connection.update', closed))).toBe(401);
  });

  it('drops connections with the reason codes it is told to', async () => {
    const { auth, socket } = await linked();
    const dropped = next(socket, 'connection.update', closed);
    world.refuseNextConnections(1, 503);
    world.disconnect(428);
    expect(statusOf(await dropped)).toBe(428);
    const refused = connect(auth);
    expect(statusOf(await next(refused, 'connection.update', closed))).toBe(503);
    const accepted = connect(auth);
    await next(accepted, 'connection.update', (update) => update.connection === 'open');
  });

  it('only talks to a world on 127.0.0.1', () => {
    expect(() => createFakeBaileysSocket({ auth: {} as never }, 'ws://example.com/ws/chat')).toThrow(
      /must be on 127\.0\.0\.1/,
    );
  });
});

describe('FakeWhatsApp messages', () => {
  it('delivers protobuf messages with the LID key fields re-attached, through ev.on and ev.process alike', async () => {
    const { socket } = await linked();
    const viaProcess: WAMessage[] = [];
    socket.ev.process(async (events) => {
      if (events['messages.upsert']?.type === 'notify')
        viaProcess.push(...events['messages.upsert'].messages);
    });
    const upsert = next(socket, 'messages.upsert');
    const { messageId } = await world.sendText(alice.phone, 'hi there');
    const { messages, type } = await upsert;
    expect(type).toBe('notify');
    const [message] = messages;
    expect(message).toBeInstanceOf(proto.WebMessageInfo);
    expect(message?.key).toMatchObject({
      remoteJid: alice.lidJid,
      remoteJidAlt: alice.jid,
      addressingMode: 'lid',
      fromMe: false,
      id: messageId,
    });
    expect(message?.message?.conversation).toBe('hi there');
    expect(message?.pushName).toBe('Alice');
    await expect.poll(() => viaProcess.map((entry) => entry.key?.id)).toEqual([messageId]);
  });

  it('keeps messages while no device is connected and delivers them on login as an append upsert, as Baileys emits offline deliveries', async () => {
    const { auth, socket } = await linked();
    await socket.end(undefined);
    await world.waitForLink((state) => !state.open);
    const { messageId: first } = await world.sendText(alice.phone, 'while offline');
    const { messageId: second } = await world.sendText(alice.phone, 'still offline');
    const again = connect(auth);
    const order: string[] = [];
    again.ev.on('connection.update', (update) => {
      if (update.connection === 'open') order.push('open');
      if (update.receivedPendingNotifications === true) order.push('received pending notifications');
    });
    again.ev.on('messages.upsert', ({ type }) => order.push(`upsert ${type}`));
    const upsert = next(again, 'messages.upsert');
    const backlog = next(
      again,
      'connection.update',
      (update) => update.receivedPendingNotifications === true,
    );
    const { messages, type } = await upsert;
    expect(type).toBe('append');
    expect(
      messages.map((message) => [message.key?.id, message.key?.fromMe, message.message?.conversation]),
    ).toEqual([
      [first, false, 'while offline'],
      [second, false, 'still offline'],
    ]);
    await backlog;
    expect(order).toEqual(['open', 'upsert append', 'received pending notifications']);
    // Once connected, what people write arrives live again.
    const live = next(again, 'messages.upsert');
    await world.sendText(alice.phone, 'back online');
    expect((await live).type).toBe('notify');
  });

  it('puts mentions, quotes and group participants where WhatsApp does', async () => {
    const { socket } = await linked();
    const group = world.createGroup('Team', [alice.phone]);
    const first = next(socket, 'messages.upsert');
    const { messageId } = await world.sendText(alice.phone, 'ping', { group, mentionBot: true });
    const [mention] = (await first).messages;
    expect(mention?.key).toMatchObject({
      remoteJid: group,
      participant: alice.lidJid,
      participantAlt: alice.jid,
    });
    expect(mention?.message?.extendedTextMessage).toMatchObject({
      text: '@15550009999 ping',
      contextInfo: { mentionedJid: [world.bot.lidJid] },
    });
    const second = next(socket, 'messages.upsert');
    await world.sendText(alice.phone, 'pong', { group, quote: messageId });
    expect((await second).messages[0]?.message?.extendedTextMessage?.contextInfo).toMatchObject({
      stanzaId: messageId,
      participant: alice.lidJid,
      quotedMessage: { extendedTextMessage: { text: '@15550009999 ping' } },
    });
    expect(await socket.groupMetadata(group)).toMatchObject({
      subject: 'Team',
      participants: expect.any(Array),
    });
    expect(await socket.signalRepository.lidMapping.getPNForLID(alice.lidJid)).toBe(alice.jid);
    expect(await socket.signalRepository.lidMapping.getPNForLID('1@lid')).toBeNull();
  });

  it('sends through the real generateWAMessage: quoted replies, own sends echoed as append, bad content refused', async () => {
    const { socket } = await linked();
    const upsert = next(socket, 'messages.upsert');
    await world.sendText(alice.phone, 'question');
    const [question] = (await upsert).messages;
    const echoed = next(socket, 'messages.upsert', (value) => value.type === 'append');
    const sent = await socket.sendMessage(alice.jid, { text: 'answer' }, { quoted: question! });
    expect((await echoed).messages[0]?.key?.id).toBe(sent?.key.id);
    expect(world.sent(alice.id)).toMatchObject([
      { text: 'answer', quotedId: question?.key?.id, kind: 'text', jid: alice.jid },
    ]);
    await expect(
      socket.sendMessage(alice.jid, { contacts: { contacts: [] } } as AnyMessageContent),
    ).rejects.toThrow(/require atleast 1 contact/);
    expect(world.sent(alice.id)).toHaveLength(1);
  });

  it('round-trips media through the local CDN with the real crypto, both ways', async () => {
    const { socket } = await linked();
    const bytes = new TextEncoder().encode('a document body');
    const sent = await socket.sendMessage(alice.jid, {
      document: Buffer.from(bytes),
      mimetype: 'text/plain',
      fileName: 'a.txt',
    });
    expect(sent?.message?.documentMessage?.directPath ?? '').toBe('');
    expect(await world.sentMedia(sent!.key.id!)).toEqual(bytes);
    const upsert = next(socket, 'messages.upsert');
    await world.sendMedia(alice.phone, {
      kind: 'document',
      bytes,
      mimeType: 'text/plain',
      fileName: 'b.txt',
      caption: 'see',
    });
    const [inbound] = (await upsert).messages;
    expect(inbound?.message?.documentMessage).toMatchObject({
      fileName: 'b.txt',
      caption: 'see',
      mimetype: 'text/plain',
    });
    expect(new Uint8Array(await downloadMediaMessage(inbound!, 'buffer', {}))).toEqual(bytes);
  });

  it('refuses sends with 429 rate-overlimit when told to, and records presence and read receipts', async () => {
    const { socket } = await linked();
    world.rateLimitNextSends(1, 3);
    const error = (await socket.sendMessage(alice.jid, { text: 'x' }).catch((caught: unknown) => caught)) as {
      output: { statusCode: number };
      data: { retryAfter: number };
      message: string;
    };
    expect(error).toMatchObject({
      message: 'rate-overlimit',
      output: { statusCode: 429 },
      data: { retryAfter: 3 },
    });
    expect(world.rateLimitedSends()).toBe(1);
    await socket.sendMessage(alice.jid, { text: 'y' });
    await socket.sendPresenceUpdate('composing', alice.jid);
    await socket.readMessages([{ remoteJid: alice.jid, id: 'ABC', fromMe: false }]);
    await expect
      .poll(() => world.presences().map((entry) => [entry.presence, entry.jid]))
      .toEqual([['composing', alice.jid]]);
    await expect
      .poll(() => world.readReceipts())
      .toEqual([{ remoteJid: alice.jid, id: 'ABC', fromMe: false }]);
    expect(world.sent(alice.id).map((message) => message.text)).toEqual(['y']);
  });

  it('redelivers a message with the same id', async () => {
    const { socket } = await linked();
    const ids: string[] = [];
    socket.ev.on('messages.upsert', ({ messages }) =>
      ids.push(...messages.map((message) => message.key?.id ?? '')),
    );
    const { messageId } = await world.sendText(alice.phone, 'once');
    world.redeliver(messageId);
    await expect.poll(() => ids).toEqual([messageId, messageId]);
    expect(() => world.redeliver('nope')).toThrow(/no delivered message nope/);
  });

  it('times out a wait with a message saying what it waited for', async () => {
    await expect(world.waitForSent(alice.id, 1, 30)).rejects.toThrow(
      /1 message\(s\) sent to \+15551230001, got 0/,
    );
  });
});
