// FakeWhatsAppCloud driven the way a Cloud API client talks to Meta: fetch with a Bearer
// token against the Graph endpoints, and a webhook receiver that checks the signature.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFakeWhatsAppCloud, type FakeWhatsAppCloud } from './fake-cloud.ts';

let cloud: FakeWhatsAppCloud;
let receiver: Server | undefined;

beforeEach(async () => {
  cloud = await createFakeWhatsAppCloud({ webhookRetry: { attempts: 3, delayMs: 10 } }).start();
});

afterEach(async () => {
  await cloud.close();
  if (receiver !== undefined) {
    const closing = receiver;
    receiver = undefined;
    await new Promise<void>((resolve) => {
      closing.close(() => resolve());
      closing.closeAllConnections();
    });
  }
});

interface Received {
  readonly body: string;
  readonly signature: string | undefined;
  readonly query: URLSearchParams;
  readonly method: string;
}

/** A webhook endpoint answering with the statuses given in turn (then 200). */
async function webhookReceiver(statuses: number[] = []): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  receiver = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      received.push({
        body: Buffer.concat(chunks).toString('utf8'),
        signature: request.headers['x-hub-signature-256'] as string | undefined,
        query: url.searchParams,
        method: request.method ?? '',
      });
      if (request.method === 'GET') {
        const ok = url.searchParams.get('hub.verify_token') === 'test-verify-token';
        response.writeHead(ok ? 200 : 403).end(ok ? (url.searchParams.get('hub.challenge') ?? '') : 'no');
        return;
      }
      response.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, received };
}

const graph = (path: string, init: RequestInit = {}, token = 'test-access-token') =>
  fetch(`${cloud.graphBase}/v21.0${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(init.headers ?? {}),
    },
  });

const sendText = (to: string, body: string, extra: Record<string, unknown> = {}) =>
  graph('/100000000000001/messages', {
    method: 'POST',
    body: JSON.stringify({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to,
      type: 'text',
      text: { body },
      ...extra,
    }),
  });

describe('FakeWhatsAppCloud webhooks', () => {
  it('signs each payload with HMAC-SHA256 of the raw body under the app secret, in the Meta shape', async () => {
    const { url, received } = await webhookReceiver();
    cloud.setWebhook(url);
    const delivery = await cloud.sendText('15551230001', 'hello', { name: 'Alice' });
    expect(delivery).toMatchObject({ status: 200, attempts: 1 });
    const [hit] = received;
    expect(hit?.signature).toBe(
      `sha256=${createHmac('sha256', 'test-app-secret').update(hit!.body).digest('hex')}`,
    );
    expect(JSON.parse(hit!.body)).toMatchObject({
      object: 'whatsapp_business_account',
      entry: [
        {
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550001111', phone_number_id: '100000000000001' },
                contacts: [{ profile: { name: 'Alice' }, wa_id: '15551230001' }],
                messages: [
                  { from: '15551230001', id: delivery.messageId, type: 'text', text: { body: 'hello' } },
                ],
              },
            },
          ],
        },
      ],
    });
  });

  it('retries a delivery the endpoint refused, like Meta, and redelivers on demand', async () => {
    const { url, received } = await webhookReceiver([500, 503]);
    cloud.setWebhook(url);
    const delivery = await cloud.sendText('15551230001', 'again');
    expect(delivery).toMatchObject({ status: 200, attempts: 3 });
    expect(await cloud.redeliver(delivery.messageId)).toMatchObject({ status: 200, attempts: 1 });
    expect(new Set(received.map((hit) => hit.body)).size).toBe(1);
    expect(received).toHaveLength(4);
  });

  it('performs the subscription handshake with the verify token', async () => {
    const { url, received } = await webhookReceiver();
    cloud.setWebhook(url);
    const answer = await cloud.verifyWebhook();
    expect(answer).toEqual({ status: 200, body: answer.challenge, challenge: answer.challenge });
    expect(received[0]?.query.get('hub.mode')).toBe('subscribe');
    expect((await cloud.verifyWebhook('wrong')).status).toBe(403);
  });
});

describe('FakeWhatsAppCloud Graph API', () => {
  it('refuses a wrong token with error 190', async () => {
    const response = await graph('/100000000000001', {}, 'nope');
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: unknown }).error).toMatchObject({
      code: 190,
      type: 'OAuthException',
    });
    expect(cloud.unauthorizedRequests()).toBe(1);
  });

  it('describes the phone number', async () => {
    expect(await (await graph('/100000000000001?fields=display_phone_number,verified_name')).json()).toEqual({
      display_phone_number: '+1 555-000-1111',
      verified_name: 'Switchboard Support',
      id: '100000000000001',
    });
  });

  it('keeps the 24-hour window: free-form text only to people who wrote in the last day (131047)', async () => {
    const { url } = await webhookReceiver();
    cloud.setWebhook(url);
    const stranger = await sendText('15559990000', 'hello?');
    expect(stranger.status).toBe(400);
    expect(((await stranger.json()) as { error: unknown }).error).toMatchObject({ code: 131047 });
    const { messageId } = await cloud.sendText('15551230001', 'hi');
    const reply = await sendText('15551230001', 'welcome', { context: { message_id: messageId } });
    expect(reply.status).toBe(200);
    const body = (await reply.json()) as { messages: Array<{ id: string }> };
    expect(cloud.sent('+15551230001')).toMatchObject([
      { id: body.messages[0]!.id, text: 'welcome', replyToId: messageId },
    ]);
    cloud.expireServiceWindow('15551230001');
    expect((await sendText('15551230001', 'late')).status).toBe(400);
  });

  it('validates text bodies and rate-limits on demand with 130429 and Retry-After', async () => {
    const { url } = await webhookReceiver();
    cloud.setWebhook(url);
    await cloud.sendText('15551230001', 'hi');
    expect(
      ((await (await sendText('15551230001', 'x'.repeat(4097))).json()) as { error: { code: number } }).error
        .code,
    ).toBe(100);
    cloud.rateLimitNextSends(1, 2);
    const limited = await sendText('15551230001', 'fast');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(((await limited.json()) as { error: { code: number } }).error.code).toBe(130429);
    expect((await sendText('15551230001', 'ok now')).status).toBe(200);
    expect(cloud.rateLimitedSends()).toBe(1);
  });

  it('uploads media (multipart), describes it and serves it only with the token', async () => {
    const form = new FormData();
    form.set('messaging_product', 'whatsapp');
    form.set('type', 'image/png');
    form.set('file', new Blob([new Uint8Array([9, 8, 7])], { type: 'image/png' }), 'dot.png');
    const upload = await fetch(`${cloud.graphBase}/v21.0/100000000000001/media`, {
      method: 'POST',
      headers: { authorization: 'Bearer test-access-token' },
      body: form,
    });
    const { id } = (await upload.json()) as { id: string };
    expect(cloud.uploads()).toEqual([
      { id, mimeType: 'image/png', fileName: 'dot.png', bytes: new Uint8Array([9, 8, 7]) },
    ]);
    const info = (await (await graph(`/${id}`)).json()) as { url: string; sha256: string; file_size: number };
    expect(info.file_size).toBe(3);
    expect((await fetch(info.url)).status).toBe(401);
    const bytes = await (
      await fetch(info.url, { headers: { authorization: 'Bearer test-access-token' } })
    ).arrayBuffer();
    expect(new Uint8Array(bytes)).toEqual(new Uint8Array([9, 8, 7]));
  });

  it('records read receipts with or without the typing indicator, and sends to groups it knows', async () => {
    const group = cloud.createGroup('Room');
    const read = await graph('/100000000000001/messages', {
      method: 'POST',
      body: JSON.stringify({
        messaging_product: 'whatsapp',
        status: 'read',
        message_id: 'wamid.1',
        typing_indicator: { type: 'text' },
      }),
    });
    expect(await read.json()).toEqual({ success: true });
    expect(cloud.reads()).toEqual([{ messageId: 'wamid.1', typing: true }]);
    const toGroup = await graph('/100000000000001/messages', {
      method: 'POST',
      body: JSON.stringify({
        messaging_product: 'whatsapp',
        recipient_type: 'group',
        to: group,
        type: 'text',
        text: { body: 'hi all' },
      }),
    });
    expect(toGroup.status).toBe(200);
    expect(cloud.sent(group)).toMatchObject([{ recipientType: 'group', text: 'hi all' }]);
    const unknown = await graph('/100000000000001/messages', {
      method: 'POST',
      body: JSON.stringify({
        messaging_product: 'whatsapp',
        recipient_type: 'group',
        to: 'nope',
        type: 'text',
        text: { body: 'x' },
      }),
    });
    expect(unknown.status).toBe(400);
  });
});
