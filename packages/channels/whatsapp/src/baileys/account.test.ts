// The baileys transport end to end: the channel drives testkit's fake Baileys socket (real
// Baileys event buffer, message protobufs, generateWAMessage and media crypto) connected to a
// FakeWhatsApp world over 127.0.0.1.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type ChannelAccount, type InboundMessage, sendWithRetry } from '@switchboard/hooks';
import { createFakeWhatsApp, type FakeWhatsApp, type FakeWhatsAppUser } from '@switchboard/testkit/whatsapp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualTimers, createTestContext, type TestContext } from '../../test/start-context.ts';
import { createWhatsAppChannel, type WhatsAppChannelOptions } from '../channel.ts';
import type { WhatsAppError } from '../errors.ts';
import type { BaileysConnectionState } from './connection.ts';

const png = Uint8Array.from(
  Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  ),
);

let world: FakeWhatsApp;
let alice: FakeWhatsAppUser;
let bob: FakeWhatsAppUser;
let open: Array<{ test: TestContext; account?: ChannelAccount }> = [];

beforeEach(async () => {
  world = await createFakeWhatsApp({ autoLink: true }).start();
  alice = world.addUser('+1 555 123 0001', { name: 'Alice' });
  bob = world.addUser('+1 555 123 0002', { name: 'Bob' });
});

afterEach(async () => {
  for (const { test, account } of open) {
    await account?.stop();
    await test.close();
  }
  open = [];
  await world.close();
});

interface Started {
  readonly test: TestContext;
  readonly account: ChannelAccount;
  readonly states: BaileysConnectionState[];
  readonly qrs: string[];
}

async function startAccount(
  config: Record<string, unknown> = {},
  options: WhatsAppChannelOptions = {},
  waitConnected = true,
): Promise<Started> {
  const states: BaileysConnectionState[] = [];
  const qrs: string[] = [];
  const channel = createWhatsAppChannel({
    makeSocket: world.makeSocket,
    printQr: (_rendered, qr) => qrs.push(qr),
    onConnectionState: (_account, state) => states.push(state),
    random: () => 0.5,
    ...options,
  });
  const test = createTestContext(channel, {
    transport: 'baileys',
    dmPolicy: 'open',
    reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
    ...config,
  });
  const entry: { test: TestContext; account?: ChannelAccount } = { test };
  open.push(entry);
  const account = await channel.start(test.context);
  entry.account = account;
  if (waitConnected) await test.waitForStatus((status) => status.state === 'connected');
  return { test, account, states, qrs };
}

const text = (peerId: string, body: string, extra: Record<string, unknown> = {}) =>
  ({
    channel: 'whatsapp',
    accountId: 'default',
    kind: 'text',
    peer: { kind: 'direct', id: peerId },
    text: body,
    ...extra,
  }) as const;

describe('linking', () => {
  it('shows a QR code (printed and in the status), links when the phone scans it, and keeps credentials 0600', async () => {
    const manual = createFakeWhatsApp({ autoLink: false });
    await world.close();
    world = await manual.start();
    const { test, qrs, states } = await startAccount({}, {}, false);
    const linking = await test.waitForStatus((status) => status.detail?.includes('qr: ') === true);
    expect(linking.state).toBe('starting');
    expect(qrs[0]).toMatch(/^https:\/\/wa\.me\/settings\/linked_devices#2@/);
    expect(linking.detail).toContain(qrs[0]);
    world.scanQr();
    const connected = await test.waitForStatus((status) => status.state === 'connected');
    expect(connected.identity).toEqual({ id: '+15550009999', name: 'Switchboard Bot' });
    // Linking ends with WhatsApp's "restart required" (515), answered by reconnecting at once.
    expect(states.map((state) => state.type)).toEqual(['connecting', 'linking', 'connecting', 'open']);
    const auth = join(test.dataDirectory, 'auth');
    expect(statSync(auth).mode & 0o777).toBe(0o700);
    const creds = join(auth, 'creds.json');
    expect(statSync(creds).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(creds, 'utf8')).me.id).toMatch(/^15550009999:\d+@s\.whatsapp\.net$/);
  });

  it('links with a pairing code instead of a QR code when pairingPhoneNumber is set', async () => {
    await world.close();
    world = await createFakeWhatsApp({ autoLink: false }).start();
    const { test, qrs } = await startAccount({ pairingPhoneNumber: '+1 555 000 9999' }, {}, false);
    const waiting = await test.waitForStatus((status) =>
      /enter [0-9A-Z]{4}-[0-9A-Z]{4}/.test(status.detail ?? ''),
    );
    const code = /enter ([0-9A-Z]{4})-([0-9A-Z]{4})/.exec(waiting.detail ?? '')!;
    expect(qrs).toEqual([]);
    world.enterPairingCode(`${code[1]}${code[2]}`);
    await test.waitForStatus((status) => status.state === 'connected');
  });

  it('logs in again with the saved credentials after a restart, without a new QR code', async () => {
    const first = await startAccount();
    await first.account.stop();
    const channel = createWhatsAppChannel({ makeSocket: world.makeSocket, printQr: () => {} });
    const again = createTestContext(channel, { transport: 'baileys' });
    // Same data directory: the credentials saved by the first run.
    Object.assign(again.context, { dataDirectory: first.test.dataDirectory });
    const account = await channel.start({ ...again.context, dataDirectory: first.test.dataDirectory });
    open.push({ test: again, account });
    await again.waitForStatus((status) => status.state === 'connected');
    expect(world.link.qrRefs).toHaveLength(1);
    expect(world.link.logins).toBe(2);
  });
});

describe('inbound', () => {
  it('hands a DM to the gateway with the E.164 sender id (LID addressing resolved), then marks it read', async () => {
    const { test } = await startAccount();
    const { messageId } = await world.sendText(alice.phone, 'hello bot');
    const [message] = await test.waitForReceived(1);
    expect(message).toMatchObject({
      channel: 'whatsapp',
      accountId: 'default',
      chatType: 'direct',
      messageId,
      text: 'hello bot',
      peer: { kind: 'direct', id: '+15551230001', name: 'Alice' },
      sender: { id: '+15551230001', name: 'Alice' },
    });
    expect(JSON.stringify(message?.raw)).toContain('"remoteJidAlt":"15551230001@s.whatsapp.net"');
    await expect.poll(() => world.readReceipts().map((key) => key.id)).toEqual([messageId]);
  });

  it('does not mark read what the gateway dropped, nor what it could not store', async () => {
    const { test } = await startAccount();
    test.outcome = (message) => {
      if (message.text === 'fail') throw new Error('disk full');
      if (message.text === 'not allowed') return { status: 'dropped', reason: 'pairing-required' };
      return { status: 'journaled' };
    };
    await world.sendText(alice.phone, 'not allowed');
    await world.sendText(alice.phone, 'fail');
    const { messageId } = await world.sendText(alice.phone, 'fine');
    // The failing one is tried three times (0.5 s, 1 s apart) before it is given up.
    await test.waitForReceived(2, 5_000);
    expect(test.received.map((message) => message.text)).toEqual(['not allowed', 'fine']);
    await expect.poll(() => world.readReceipts().map((key) => key.id)).toEqual([messageId]);
  });

  it('ignores its own sends, which Baileys re-emits as append upserts', async () => {
    const { test, account } = await startAccount();
    await account.send(text(alice.id, 'from the bot'));
    await world.sendText(alice.phone, 'from alice');
    const received = await test.waitForReceived(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(test.received.map((message) => message.text)).toEqual(['from alice']);
    expect(received).toHaveLength(1);
  });

  it('takes in what people wrote while the account was down (offline deliveries: append upserts) and marks it read, still ignoring its own sends', async () => {
    const first = await startAccount();
    // Own sends come back as append upserts too (emitOwnEvents), before and after the restart.
    await first.account.send(text(alice.id, 'sent before going down'));
    await world.waitForSent(alice.id, 1);
    await first.account.stop();
    await world.waitForLink((state) => !state.open);
    const group = world.createGroup('Team chat', [alice.phone, bob.phone]);
    const { messageId: fromAlice } = await world.sendText(alice.phone, 'written while you were down');
    const { messageId: fromBob } = await world.sendText(bob.phone, 'anyone there?', {
      group,
      mentionBot: true,
    });

    const channel = createWhatsAppChannel({ makeSocket: world.makeSocket, printQr: () => {} });
    const again = createTestContext(channel, { transport: 'baileys', dmPolicy: 'open' });
    const account = await channel.start({ ...again.context, dataDirectory: first.test.dataDirectory });
    open.push({ test: again, account });
    const received = await again.waitForReceived(2);
    expect(received.map((message) => [message.messageId, message.chatType, message.text])).toEqual([
      [fromAlice, 'direct', 'written while you were down'],
      [fromBob, 'group', '@15550009999 anyone there?'],
    ]);
    expect(received[0]).toMatchObject({ sender: { id: alice.id, name: 'Alice' } });
    expect(received[1]).toMatchObject({ wasMentioned: true, peer: { kind: 'group', id: group } });
    await expect.poll(() => world.readReceipts().map((key) => key.id)).toEqual([fromAlice, fromBob]);

    await account.send(text(alice.id, 'sorry, I was away'));
    const { messageId: live } = await world.sendText(alice.phone, 'no problem');
    await again.waitForReceived(3);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(again.received.map((message) => message.messageId)).toEqual([fromAlice, fromBob, live]);
    expect(first.test.received).toEqual([]);
    expect(world.sent(alice.id).map((message) => message.text)).toEqual([
      'sent before going down',
      'sorry, I was away',
    ]);
  });

  it('sets wasMentioned in groups from mentionedJid (the bot LID) and from replies to the bot', async () => {
    const { test, account } = await startAccount();
    const group = world.createGroup('Team chat', [alice.phone, bob.phone]);
    await world.sendText(bob.phone, 'just humans here', { group });
    const { messageId: mentionId } = await world.sendText(bob.phone, 'what is 2+2?', {
      group,
      mentionBot: true,
    });
    const [plain, mentioned] = (await test.waitForReceived(2)) as [InboundMessage, InboundMessage];
    expect(plain).toMatchObject({
      chatType: 'group',
      wasMentioned: false,
      peer: { kind: 'group', id: group, name: 'Team chat' },
    });
    expect(plain.sender.id).toBe('+15551230002');
    expect(mentioned).toMatchObject({
      wasMentioned: true,
      mentions: ['200000000009999@lid'],
      messageId: mentionId,
    });
    const { messageIds } = await account.send({
      ...text(group, 'four'),
      peer: { kind: 'group', id: group },
      replyToMessageId: mentionId,
    });
    const [reply] = await world.waitForSent(group, 1);
    expect(reply).toMatchObject({ text: 'four', quotedId: mentionId, id: messageIds[0] });
    await world.sendText(alice.phone, 'thanks!', { group, quote: messageIds[0] });
    const replyToBot = (await test.waitForReceived(3))[2]!;
    expect(replyToBot).toMatchObject({
      wasMentioned: true,
      replyTo: { messageId: messageIds[0], text: 'four' },
    });
  });

  it('describes inbound media without downloading it; downloadMedia decrypts it into the data directory (0600)', async () => {
    const { test, account } = await startAccount();
    await world.sendMedia(alice.phone, {
      kind: 'image',
      bytes: png,
      mimeType: 'image/png',
      caption: 'a pixel',
    });
    const [message] = await test.waitForReceived(1);
    expect(message?.text).toBe('a pixel');
    const media = message?.media?.[0];
    expect(media).toMatchObject({ kind: 'image', mimeType: 'image/png', sizeBytes: png.byteLength });
    expect(media?.path).toBeUndefined();
    expect(world.mediaDownloads()).toEqual([]);
    expect(existsSync(join(test.dataDirectory, 'media'))).toBe(false);
    // The journal keeps `raw` without key material; the reference carries what the download needs.
    expect(JSON.stringify(message?.raw)).not.toMatch(/"mediaKey":/);
    expect(JSON.stringify(media?.reference)).toMatch(/"mediaKey":"[A-Za-z0-9+/=]+"/);

    // Through JSON, as a journaled message comes back after a restart.
    const downloaded = await account.downloadMedia!(JSON.parse(JSON.stringify(media)), {
      maxBytes: 1024 * 1024,
      signal: new AbortController().signal,
    });
    expect(downloaded.sizeBytes).toBe(png.byteLength);
    expect(new Uint8Array(readFileSync(downloaded.path))).toEqual(png);
    expect(statSync(downloaded.path).mode & 0o777).toBe(0o600);
    expect(downloaded.path.startsWith(join(test.dataDirectory, 'media'))).toBe(true);
    expect(world.mediaDownloads().map((download) => download.status)).toEqual([200]);
  });

  it('stops decrypting a download once it passes the limit, before the whole file crossed the socket', async () => {
    const { test, account } = await startAccount();
    const size = 24 * 1024 * 1024;
    await world.sendMedia(alice.phone, {
      kind: 'document',
      bytes: new Uint8Array(size).fill(5),
      mimeType: 'application/pdf',
      fileName: 'huge.pdf',
    });
    const [message] = await test.waitForReceived(1);
    // WhatsApp states the size; a description without it must still be stopped mid-stream.
    const { sizeBytes: _declared, ...undeclared } = message!.media![0]!;
    await expect(
      account.downloadMedia!(undeclared, { maxBytes: 256 * 1024, signal: new AbortController().signal }),
    ).rejects.toMatchObject({ code: 'MEDIA_TOO_LARGE', details: { maxBytes: 256 * 1024 } });
    const [download] = world.mediaDownloads();
    expect(download?.bytesSent).toBeGreaterThan(256 * 1024);
    expect(download?.bytesSent).toBeLessThan(size / 2);
    expect(readdirSync(join(test.dataDirectory, 'media'))).toEqual([]);
    // With the size declared, nothing is fetched at all.
    await expect(
      account.downloadMedia!(message!.media![0]!, {
        maxBytes: 256 * 1024,
        signal: new AbortController().signal,
      }),
    ).rejects.toMatchObject({ code: 'MEDIA_TOO_LARGE', details: { sizeBytes: size } });
    expect(world.mediaDownloads()).toHaveLength(1);
  });

  it('rejects with MEDIA_DOWNLOAD_FAILED when the download fails (expired media)', async () => {
    const { test, account } = await startAccount(
      {},
      {
        downloadMedia: async () => {
          throw new Error('media expired (410)');
        },
      },
    );
    await world.sendMedia(alice.phone, { kind: 'image', bytes: png, mimeType: 'image/png', caption: 'look' });
    const [message] = await test.waitForReceived(1);
    expect(message?.text).toBe('look');
    await expect(
      account.downloadMedia!(message!.media![0]!, {
        maxBytes: 1024 * 1024,
        signal: new AbortController().signal,
      }),
    ).rejects.toMatchObject({
      code: 'MEDIA_DOWNLOAD_FAILED',
      message: expect.stringContaining('media expired (410)'),
    });
  });

  it('hands over a media-only message over mediaMaxMb described, and refuses to download it', async () => {
    const { test, account } = await startAccount({ mediaMaxMb: 0.001 });
    await world.sendMedia(alice.phone, {
      kind: 'document',
      bytes: new Uint8Array(4096),
      mimeType: 'application/pdf',
      fileName: 'big.pdf',
    });
    const [message] = await test.waitForReceived(1);
    expect(message?.text).toBe('');
    expect(message?.media?.[0]).toMatchObject({ kind: 'document', fileName: 'big.pdf', sizeBytes: 4096 });
    await expect(
      account.downloadMedia!(message!.media![0]!, {
        maxBytes: 1024 * 1024,
        signal: new AbortController().signal,
      }),
    ).rejects.toMatchObject({ code: 'MEDIA_TOO_LARGE', details: { sizeBytes: 4096, maxBytes: 1048 } });
    expect(world.mediaDownloads()).toEqual([]);
  });
});

describe('outbound', () => {
  it('renders Markdown, splits long text at the limit and quotes only the first part', async () => {
    const { account } = await startAccount();
    const { messageId } = await world.sendText(alice.phone, 'write a lot');
    const paragraph = `**Bold** start ${'lorem ipsum '.repeat(60)}`;
    const long = Array.from({ length: 12 }, () => paragraph).join('\n\n');
    const { messageIds } = await account.send(text(alice.id, long, { replyToMessageId: messageId }));
    const sent = await world.waitForSent(alice.id, messageIds.length);
    expect(sent.length).toBeGreaterThanOrEqual(3);
    expect(sent.map((message) => message.id)).toEqual(messageIds);
    for (const message of sent) expect(message.text.length).toBeLessThanOrEqual(4000);
    expect(sent[0]?.text.startsWith('*Bold* start')).toBe(true);
    expect(sent[0]?.quotedId).toBe(messageId);
    expect(sent.slice(1).every((message) => message.quotedId === undefined)).toBe(true);
  });

  it('sends attachments through the real upload crypto, with the caption on the first one', async () => {
    const { account } = await startAccount();
    const document = new TextEncoder().encode('quarterly numbers');
    const { messageIds } = await account.send({
      channel: 'whatsapp',
      accountId: 'default',
      kind: 'media',
      peer: { kind: 'direct', id: alice.id },
      caption: 'the **report**',
      media: [
        {
          kind: 'document',
          source: { type: 'bytes', data: document },
          mimeType: 'text/plain',
          fileName: 'q3.txt',
        },
        { kind: 'image', source: { type: 'bytes', data: png }, mimeType: 'image/png' },
      ],
    });
    const sent = await world.waitForSent(alice.id, 2);
    expect(sent.map((message) => [message.kind, message.text])).toEqual([
      ['document', 'the *report*'],
      ['image', ''],
    ]);
    expect(await world.sentMedia(messageIds[0]!)).toEqual(document);
    expect(await world.sentMedia(messageIds[1]!)).toEqual(png);
  });

  it('makes one attempt on a rate limit and fails retryable with the wait, never retrying itself', async () => {
    const { account } = await startAccount();
    world.rateLimitNextSends(1, 0.02);
    await expect(account.send(text(alice.id, 'once'))).rejects.toMatchObject({
      code: 'WHATSAPP_RATE_LIMITED',
      retryable: true,
      details: { retryAfterMs: 20 },
    });
    expect(world.rateLimitedSends()).toBe(1);
    expect(world.sent(alice.id)).toEqual([]);
    expect(account.sendRetry).toEqual({ attempts: 4, maxWaitMs: 30_000 });
  });

  // Through sendWithRetry, the gateway's one retry layer, as every send goes.
  it('waits out a rate limit (429 rate-overlimit) and delivers', async () => {
    const { account } = await startAccount();
    world.rateLimitNextSends(2, 0.02);
    const { messageIds } = await sendWithRetry(account, text(alice.id, 'eventually'));
    expect(world.rateLimitedSends()).toBe(2);
    expect(world.sent(alice.id).map((message) => message.id)).toEqual(messageIds);
  });

  it('gives up on a long rate limit with a retryable WHATSAPP_RATE_LIMITED', async () => {
    const { account } = await startAccount(
      {},
      { rateLimitRetry: { maxAttempts: 2, defaultWaitMs: 10, maxWaitMs: 50 } },
    );
    world.rateLimitNextSends(5, 0.01);
    const error = (await sendWithRetry(account, text(alice.id, 'too fast')).catch(
      (caught: unknown) => caught,
    )) as WhatsAppError;
    expect(error.code).toBe('WHATSAPP_RATE_LIMITED');
    expect(error.retryable).toBe(true);
    expect(world.rateLimitedSends()).toBe(2);
  });

  it('refuses a peer id that is not an address, naming it', async () => {
    const { account } = await startAccount();
    await expect(account.send(text('alice', 'hi'))).rejects.toThrow(/"alice" is neither a phone number/);
    await expect(
      account.send({ ...text('family', 'hi'), peer: { kind: 'group', id: 'family' } }),
    ).rejects.toMatchObject({
      code: 'WHATSAPP_INVALID_TARGET',
    });
  });

  it('shows typing while the gateway refreshes it and sends paused once it stops', async () => {
    const timers = createManualTimers();
    const { account, test } = await startAccount({}, { timers, now: () => timers.now }, false);
    const connected = () => test.statuses.at(-1)?.state === 'connected';
    for (let turn = 0; turn < 400 && !connected(); turn += 1) {
      timers.advance(0);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(connected()).toBe(true);
    const target = { peer: { kind: 'direct' as const, id: alice.id } };
    await account.typing?.(target);
    timers.advance(6_000);
    await account.typing?.(target);
    timers.advance(6_000);
    await account.typing?.(target);
    // The gateway's run ended: no more refreshes. The lease (1.5 × the 6 s interval) runs out.
    timers.advance(8_999);
    await expect
      .poll(() => world.presences().map((entry) => entry.presence))
      .toEqual(['composing', 'composing', 'composing']);
    timers.advance(1);
    await expect
      .poll(() => world.presences().map((entry) => entry.presence))
      .toEqual(['composing', 'composing', 'composing', 'paused']);
    expect(world.presences().every((entry) => entry.jid === alice.jid)).toBe(true);
  });
});

describe('the supervised connection', () => {
  it('reconnects with backoff after a lost connection and gets what was sent meanwhile', async () => {
    const { test, states } = await startAccount();
    world.refuseNextConnections(2, 503);
    world.disconnect(408);
    await world.sendText(alice.phone, 'while you were away');
    const [message] = await test.waitForReceived(1, 5_000);
    expect(message?.text).toBe('while you were away');
    const backoffs = states.filter((state) => state.type === 'backing_off');
    expect(backoffs.map((state) => [state.attempt, state.statusCode, state.delayMs])).toEqual([
      [1, 408, 20],
      [2, 503, 40],
      [3, 503, 80],
    ]);
    expect(
      test.statuses.some(
        (status) => status.state === 'reconnecting' && status.error === 'service unavailable (503)',
      ),
    ).toBe(true);
    expect(test.statuses.at(-1)?.state).toBe('connected');
  });

  it('stops and asks to relink when the phone logs the device out (401), and removes the old credentials', async () => {
    const { test, account, states } = await startAccount();
    world.logoutDevice();
    const status = await test.waitForStatus((candidate) => candidate.state === 'error');
    expect(status.detail).toMatch(/link it again with a new QR code/);
    expect(states.at(-1)).toEqual({ type: 'logged_out', reason: 'logged out' });
    const error = (await account
      .send(text(alice.id, 'hello?'))
      .catch((caught: unknown) => caught)) as WhatsAppError;
    expect(error.code).toBe('WHATSAPP_LOGGED_OUT');
    expect(error.retryable).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(world.link.connections).toBe(0);
    expect(world.link.logins).toBe(1);
    await expect
      .poll(() => {
        try {
          readFileSync(join(test.dataDirectory, 'auth', 'creds.json'));
          return 'present';
        } catch {
          return 'gone';
        }
      })
      .toBe('gone');
  });

  it('stops cleanly: status stopped, the socket closed, no reconnect', async () => {
    const { test, account } = await startAccount();
    await account.stop();
    expect(test.statuses.at(-1)).toMatchObject({ state: 'stopped' });
    await expect.poll(() => world.link.connections).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(world.link.logins).toBe(1);
    await expect(account.send(text(alice.id, 'after stop'))).rejects.toMatchObject({
      code: 'WHATSAPP_NOT_CONNECTED',
    });
  });
});
