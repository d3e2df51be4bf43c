// Webhook mode: the route the account mounts on the gateway's HTTP server (stood in for by
// a node:http server that dispatches to registered routes), the secret token, and
// redelivery when the gateway could not take an update.
import { readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { HttpRoute } from '@switchboard/hooks';
import { createFakeTelegram, type FakeTelegram } from '@switchboard/testkit/telegram';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, startTestAccount, stopTestAccounts } from './support.ts';

let fake: FakeTelegram;
let server: Server;
let gatewayUrl: string;
let routes: HttpRoute[] = [];

beforeEach(async () => {
  fake = await createFakeTelegram({ webhookRetryMs: 10 }).start();
  routes = [];
  server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const route = routes.find(
      (candidate) =>
        candidate.path === path && (candidate.methods ?? [request.method]).includes(request.method ?? ''),
    );
    if (route === undefined) {
      response.writeHead(404).end();
      return;
    }
    void route.handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  gatewayUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await stopTestAccounts();
  await fake.close();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
});

const publicUrl = 'https://bot.example.test/telegram/default/webhook';

describe('webhook mode', () => {
  it('mounts its route, registers the webhook with the secret, and never polls', async () => {
    const test = await startTestAccount(fake, {
      config: { webhook: { url: publicUrl, secretToken: 'sekret_123' } },
    });
    routes.push(...test.routes);
    expect(test.routes.map((route) => [route.path, route.auth, route.methods])).toEqual([
      ['/telegram/default/webhook', 'plugin', ['POST']],
    ]);
    expect(fake.webhook).toEqual({
      url: publicUrl,
      secretToken: 'sekret_123',
      allowedUpdates: ['message', 'edited_message', 'channel_post', 'edited_channel_post'],
    });
    expect(fake.requestsFor('setWebhook')[0]?.params).toMatchObject({ drop_pending_updates: false });
    expect(test.status()).toMatchObject({ state: 'connected', detail: 'webhook /telegram/default/webhook' });

    fake.setWebhookOrigin(gatewayUrl);
    fake.pushMessage({ chat: 11, text: 'pushed to us' });
    await eventually(() => test.received.length === 1, 'the webhook update');
    expect(test.received[0]).toMatchObject({ text: 'pushed to us', chatType: 'direct' });
    await eventually(() => fake.pendingUpdates.length === 0, 'the update confirmed by the 200');
    expect(fake.requestsFor('getUpdates')).toEqual([]);
  });

  it('answers 401 to a request without the right secret, and hands nothing over', async () => {
    const test = await startTestAccount(fake, {
      config: { webhook: { url: publicUrl, secretToken: 'sekret_123' } },
    });
    routes.push(...test.routes);
    const update = JSON.stringify({
      update_id: 1,
      message: {
        message_id: 1,
        date: 1,
        chat: { id: 5, type: 'private' },
        from: { id: 5, is_bot: false, first_name: 'X' },
        text: 'forged',
      },
    });
    const forged = await fetch(`${gatewayUrl}/telegram/default/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'guess' },
      body: update,
    });
    expect(forged.status).toBe(401);
    const bare = await fetch(`${gatewayUrl}/telegram/default/webhook`, { method: 'POST', body: update });
    expect(bare.status).toBe(401);
    expect(test.received).toEqual([]);
  });

  it('answers 500 when the gateway could not take the update, so Telegram delivers it again', async () => {
    let failures = 1;
    const test = await startTestAccount(fake, {
      config: { webhook: { url: publicUrl, secretToken: 'sekret_123' } },
      async receive() {
        if (failures > 0) {
          failures -= 1;
          throw new Error('journal unavailable');
        }
        return { status: 'journaled' };
      },
    });
    routes.push(...test.routes);
    fake.setWebhookOrigin(gatewayUrl);
    fake.pushMessage({ chat: 12, text: 'try again' });
    await eventually(() => test.received.length === 1, 'the redelivered update');
    // The update is recorded as received before the gateway's answer reaches the fake,
    // so wait for the fake to log that second answer too.
    await eventually(() => fake.webhookDeliveries.length === 2, 'the answer to the redelivery');
    expect(fake.webhookDeliveries.map((delivery) => delivery.status)).toEqual([500, 200]);
  });

  it('generates a secret when none is configured and keeps it in the data directory', async () => {
    const test = await startTestAccount(fake, {
      accountId: 'ops',
      config: { webhook: { url: 'https://bot.example.test/hooks/tg-ops', path: '/hooks/tg-ops' } },
    });
    routes.push(...test.routes);
    const secret = fake.webhook?.secretToken;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    const file = join(test.dataDirectory, 'webhook-secret');
    expect((await readFile(file, 'utf8')).trim()).toBe(secret);
    expect(((await stat(file)).mode & 0o777).toString(8)).toBe('600');
    expect(test.routes[0]?.path).toBe('/hooks/tg-ops');
    fake.setWebhookOrigin(gatewayUrl);
    fake.pushMessage({ chat: 13, text: 'custom path' });
    await eventually(() => test.received.length === 1, 'the update on the custom path');
    expect(test.received[0]?.accountId).toBe('ops');
  });
});
