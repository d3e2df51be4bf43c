// The cloud transport end to end: the account's webhook route served on 127.0.0.1, testkit's
// FakeWhatsAppCloud sending signed webhooks to it and answering its Graph API calls.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type ChannelAccount, sendWithRetry } from '@switchboard/hooks';
import { createFakeWhatsAppCloud, type FakeWhatsAppCloud } from '@switchboard/testkit/whatsapp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/start-context.ts';
import { createWhatsAppChannel, type WhatsAppChannelOptions } from '../channel.ts';
import type { WhatsAppError } from '../errors.ts';

const alice = '15551230001';
let cloud: FakeWhatsAppCloud;
let running: Array<{ test: TestContext; account?: ChannelAccount }> = [];

beforeEach(async () => {
  cloud = await createFakeWhatsAppCloud({ webhookRetry: { attempts: 1, delayMs: 0 } }).start();
});

afterEach(async () => {
  for (const { test, account } of running) {
    await account?.stop();
    await test.close();
  }
  running = [];
  await cloud.close();
});

async function startCloud(config: Record<string, unknown> = {}, options: WhatsAppChannelOptions = {}) {
  const channel = createWhatsAppChannel(options);
  const test = createTestContext(channel, {
    transport: 'cloud',
    dmPolicy: 'open',
    ...cloud.credentials,
    ...config,
  });
  const entry: { test: TestContext; account?: ChannelAccount } = { test };
  running.push(entry);
  const account = await channel.start(test.context);
  entry.account = account;
  const base = await test.serveRoutes();
  cloud.setWebhook(`${base}${test.routes[0]!.path}`);
  return { test, account };
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

describe('the Cloud API webhook', () => {
  it('mounts one route per account, reports the business number, and answers the verify handshake', async () => {
    const { test } = await startCloud();
    expect(test.routes.map((route) => [route.path, route.auth, route.methods])).toEqual([
      ['/webhooks/whatsapp/default', 'plugin', ['GET', 'POST']],
    ]);
    expect(test.statuses.at(-1)).toMatchObject({
      state: 'connected',
      identity: { id: '+15550001111', name: 'Switchboard Support' },
    });
    const good = await cloud.verifyWebhook();
    expect(good).toMatchObject({ status: 200, body: good.challenge });
    const bad = await cloud.verifyWebhook('not-the-token');
    expect(bad.status).toBe(403);
    expect(bad.body).not.toContain(bad.challenge);
  });

  it('refuses a payload with a bad or missing signature with 401 and processes nothing', async () => {
    const { test } = await startCloud();
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '1',
          changes: [
            {
              field: 'messages',
              value: {
                metadata: { phone_number_id: cloud.credentials.phoneNumberId },
                messages: [
                  { from: alice, id: 'wamid.forged', timestamp: '1', type: 'text', text: { body: 'forged' } },
                ],
              },
            },
          ],
        },
      ],
    });
    const forged = `sha256=${'0'.repeat(64)}`;
    expect((await cloud.postWebhook(body, { 'x-hub-signature-256': forged })).status).toBe(401);
    expect((await cloud.postWebhook(body)).status).toBe(401);
    expect((await cloud.postWebhook(body, { 'x-hub-signature-256': 'sha256=abc' })).status).toBe(401);
    // Signed over different bytes (re-serialized JSON): refused too.
    const reformatted = JSON.stringify(JSON.parse(body), null, 2);
    expect((await cloud.postWebhook(reformatted, { 'x-hub-signature-256': cloud.sign(body) })).status).toBe(
      401,
    );
    expect(test.received).toEqual([]);
    expect((await cloud.postWebhook(body, { 'x-hub-signature-256': cloud.sign(body) })).status).toBe(200);
    expect(test.received.map((message) => message.text)).toEqual(['forged']);
  });

  it('hands messages to the gateway before answering 200, then marks them read', async () => {
    const { test } = await startCloud();
    const delivery = await cloud.sendText(alice, 'hello business', { name: 'Alice' });
    expect(delivery.status).toBe(200);
    expect(test.received).toHaveLength(1);
    expect(test.received[0]).toMatchObject({
      chatType: 'direct',
      messageId: delivery.messageId,
      text: 'hello business',
      peer: { kind: 'direct', id: '+15551230001', name: 'Alice' },
      sender: { id: '+15551230001', name: 'Alice' },
    });
    await expect.poll(() => cloud.reads()).toEqual([{ messageId: delivery.messageId, typing: false }]);
  });

  it('answers 500 when the gateway cannot store the message, so Meta delivers it again', async () => {
    const { test } = await startCloud();
    test.outcome = () => {
      throw new Error('journal unavailable');
    };
    const failed = await cloud.sendText(alice, 'try me');
    expect(failed.status).toBe(500);
    expect(cloud.reads()).toEqual([]);
    test.outcome = () => ({ status: 'journaled' });
    expect((await cloud.redeliver(failed.messageId)).status).toBe(200);
    expect(test.received.map((message) => message.messageId)).toEqual([failed.messageId]);
  });

  it('ignores payloads for another phone number id and reads statuses without handing them on', async () => {
    const { test, account } = await startCloud();
    const other = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          changes: [
            {
              field: 'messages',
              value: {
                metadata: { phone_number_id: '999' },
                messages: [{ from: alice, id: 'x', type: 'text', text: { body: 'not ours' } }],
              },
            },
          ],
        },
      ],
    });
    expect((await cloud.postWebhook(other, { 'x-hub-signature-256': cloud.sign(other) })).status).toBe(200);
    await cloud.sendText(alice, 'ours');
    const { messageIds } = await account.send(text('+15551230001', 'reply'));
    expect((await cloud.sendStatus(messageIds[0]!, 'delivered')).status).toBe(200);
    expect((await cloud.sendStatus(messageIds[0]!, 'failed', 131047)).status).toBe(200);
    expect(test.received.map((message) => message.text)).toEqual(['ours']);
  });

  it('describes inbound media without downloading it; downloadMedia fetches it through the Graph API', async () => {
    const { test, account } = await startCloud();
    const bytes = new TextEncoder().encode('%PDF-1.4 a tiny pdf');
    await cloud.sendMedia(alice, {
      kind: 'document',
      bytes,
      mimeType: 'application/pdf',
      fileName: 'terms.pdf',
      caption: 'please read',
    });
    await cloud.sendMedia(alice, {
      kind: 'voice',
      bytes: new Uint8Array([1, 2, 3]),
      mimeType: 'audio/ogg; codecs=opus',
    });
    const [document, voice] = test.received;
    expect(document).toMatchObject({
      text: 'please read',
      media: [{ kind: 'document', mimeType: 'application/pdf', fileName: 'terms.pdf' }],
    });
    expect(document?.media?.[0]?.path).toBeUndefined();
    expect(voice?.media?.[0]).toMatchObject({ kind: 'voice' });
    expect(cloud.mediaDownloads()).toEqual([]);
    expect(existsSync(join(test.dataDirectory, 'media'))).toBe(false);

    const signal = new AbortController().signal;
    // Through JSON, as a journaled message comes back after a restart.
    const pdf = await account.downloadMedia!(JSON.parse(JSON.stringify(document!.media![0])), {
      maxBytes: 1024 * 1024,
      signal,
    });
    expect(pdf).toMatchObject({ sizeBytes: bytes.byteLength, mimeType: 'application/pdf' });
    expect(new Uint8Array(readFileSync(pdf.path))).toEqual(bytes);
    expect(statSync(pdf.path).mode & 0o777).toBe(0o600);
    const ogg = await account.downloadMedia!(voice!.media![0]!, { maxBytes: 1024 * 1024, signal });
    expect(ogg.sizeBytes).toBe(3);
    expect(ogg.path.endsWith('.ogg')).toBe(true);
    expect(cloud.mediaDownloads().map((download) => download.status)).toEqual([200, 200]);
    expect(cloud.unauthorizedRequests()).toBe(0);
  });

  it('refuses media over the limit by the size the Graph API states, before downloading a byte', async () => {
    const { test, account } = await startCloud();
    await cloud.sendMedia(alice, { kind: 'image', bytes: new Uint8Array(64 * 1024), mimeType: 'image/jpeg' });
    const [message] = test.received;
    await expect(
      account.downloadMedia!(message!.media![0]!, { maxBytes: 1024, signal: new AbortController().signal }),
    ).rejects.toMatchObject({
      code: 'MEDIA_TOO_LARGE',
      message: expect.stringContaining('64 KB (65536 bytes); the limit is 1 KB (1024 bytes)'),
    });
    expect(cloud.mediaDownloads()).toEqual([]);
  });

  it('marks group messages mentioned by @number or by a reply to the business', async () => {
    const { test, account } = await startCloud();
    const group = cloud.createGroup('Support room');
    await cloud.sendText(alice, 'humans only', { group });
    const mention = await cloud.sendText(alice, 'can you help?', { group, mentionBusiness: true });
    expect(
      test.received.map((message) => [
        message.chatType,
        message.chatType === 'group' && message.wasMentioned,
      ]),
    ).toEqual([
      ['group', false],
      ['group', true],
    ]);
    expect(test.received[0]?.peer).toEqual({ kind: 'group', id: group });
    const { messageIds } = await account.send({
      ...text(group, 'sure'),
      peer: { kind: 'group', id: group },
      replyToMessageId: mention.messageId,
    });
    expect(cloud.sent(group)).toMatchObject([
      { recipientType: 'group', text: 'sure', replyToId: mention.messageId },
    ]);
    await cloud.sendText(alice, 'thanks', { group, replyTo: messageIds[0] });
    expect(test.received[2]).toMatchObject({
      wasMentioned: true,
      replyTo: { messageId: messageIds[0], senderId: '+15550001111' },
    });
  });
});

describe('sending through the Graph API', () => {
  it('renders and splits text, replying with context on the first part', async () => {
    const { account } = await startCloud();
    const { messageId } = await cloud.sendText(alice, 'tell me everything');
    const long = Array.from({ length: 10 }, (_, index) => `__Part ${index}__ ${'words '.repeat(90)}`).join(
      '\n\n',
    );
    const { messageIds } = await account.send(text('+15551230001', long, { replyToMessageId: messageId }));
    const sent = cloud.sent('+15551230001');
    expect(sent.map((message) => message.id)).toEqual(messageIds);
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(sent[0]).toMatchObject({ replyToId: messageId, type: 'text' });
    expect(sent[0]?.text.startsWith('*Part 0* words')).toBe(true);
    expect(sent[0]?.body).toMatchObject({
      recipient_type: 'individual',
      to: alice,
      text: { preview_url: false },
    });
    expect(sent.slice(1).every((message) => message.replyToId === undefined)).toBe(true);
  });

  it('surfaces the 24-hour window clearly: WHATSAPP_OUTSIDE_SERVICE_WINDOW, not retryable', async () => {
    const { account } = await startCloud();
    await cloud.sendText(alice, 'hi');
    cloud.expireServiceWindow(alice);
    const error = (await account
      .send(text('+15551230001', 'late reply'))
      .catch((caught: unknown) => caught)) as WhatsAppError;
    expect(error.code).toBe('WHATSAPP_OUTSIDE_SERVICE_WINDOW');
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(
      /more than 24 hours have passed since the user last wrote .*131047.*template/,
    );
    expect(error.details).toMatchObject({ httpStatus: 400, graphCode: 131047 });
  });

  it('uploads outbound media, then sends it by id with the caption on the first item', async () => {
    const { account } = await startCloud();
    await cloud.sendText(alice, 'send me the file');
    const bytes = new TextEncoder().encode('report body');
    await account.send({
      channel: 'whatsapp',
      accountId: 'default',
      kind: 'media',
      peer: { kind: 'direct', id: '+15551230001' },
      caption: 'the **report**',
      media: [
        {
          kind: 'document',
          source: { type: 'bytes', data: bytes },
          mimeType: 'text/plain',
          fileName: 'report.txt',
        },
        { kind: 'image', source: { type: 'url', url: 'https://example.com/chart.png' } },
      ],
    });
    expect(cloud.uploads()).toEqual([
      { id: expect.any(String), mimeType: 'text/plain', fileName: 'report.txt', bytes },
    ]);
    const sent = cloud.sent('+15551230001');
    expect(sent.map((message) => [message.type, message.text])).toEqual([
      ['document', 'the *report*'],
      ['image', ''],
    ]);
    expect(sent[0]?.mediaId).toBe(cloud.uploads()[0]?.id);
    expect(sent[0]?.body).toMatchObject({ document: { filename: 'report.txt' } });
    expect(sent[1]?.link).toBe('https://example.com/chart.png');
  });

  it('waits out a rate limit (130429 with Retry-After) and delivers', async () => {
    const { account } = await startCloud();
    await cloud.sendText(alice, 'hi');
    cloud.rateLimitNextSends(1, 0.02);
    const { messageIds } = await sendWithRetry(account, text('+15551230001', 'after the limit'));
    expect(cloud.rateLimitedSends()).toBe(1);
    expect(cloud.sent('+15551230001').map((message) => message.id)).toEqual(messageIds);
  });

  it('shows typing by marking the last inbound message read with typing_indicator, throttled', async () => {
    let clock = 1_000_000;
    const { account } = await startCloud({}, { now: () => clock });
    const { messageId } = await cloud.sendText(alice, 'question');
    await expect.poll(() => cloud.reads()).toHaveLength(1);
    const target = { peer: { kind: 'direct' as const, id: '+15551230001' } };
    await account.typing?.(target);
    clock += 6_000;
    await account.typing?.(target);
    clock += 15_000;
    await account.typing?.(target);
    expect(cloud.reads()).toEqual([
      { messageId, typing: false },
      { messageId, typing: true },
      { messageId, typing: true },
    ]);
    await account.typing?.({ peer: { kind: 'direct', id: '+15559999999' } });
    expect(cloud.reads()).toHaveLength(3);
  });

  it('fails to start with a clear, non-retryable error when the access token is refused', async () => {
    const channel = createWhatsAppChannel();
    const test = createTestContext(channel, {
      transport: 'cloud',
      ...cloud.credentials,
      accessToken: 'expired',
    });
    running.push({ test });
    const error = (await channel.start(test.context).catch((caught: unknown) => caught)) as WhatsAppError;
    expect(error.code).toBe('WHATSAPP_GRAPH_AUTH_FAILED');
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/checking phone number id 100000000000001: .*refused the access token/);
    expect(test.routes).toEqual([]);
  });

  it('fails to start with a retryable error when the Graph API cannot be reached', async () => {
    const channel = createWhatsAppChannel();
    const test = createTestContext(channel, {
      transport: 'cloud',
      ...cloud.credentials,
      graphBase: 'http://127.0.0.1:1',
    });
    running.push({ test });
    await expect(channel.start(test.context)).rejects.toMatchObject({
      code: 'WHATSAPP_GRAPH_ERROR',
      retryable: true,
    });
  });
});
