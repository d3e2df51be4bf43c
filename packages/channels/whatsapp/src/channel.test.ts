import type { ChannelAccount } from '@switchboard/hooks';
import { createFakeWhatsApp, createFakeWhatsAppCloud } from '@switchboard/testkit/whatsapp';
import { describe, expect, it } from 'vitest';
import { createTestContext } from '../test/start-context.ts';
import { createWhatsAppChannel, whatsappCapabilities } from './channel.ts';
import plugin from './index.ts';

describe('the WhatsApp channel plugin', () => {
  it('is a plugin that registers the whatsapp channel', () => {
    const channels: unknown[] = [];
    expect(plugin.name).toBe('whatsapp');
    plugin.setup({ registerChannel: (channel: unknown) => channels.push(channel) } as never);
    expect(channels).toHaveLength(1);
    expect(channels[0]).toMatchObject({
      id: 'whatsapp',
      label: 'WhatsApp',
      capabilities: whatsappCapabilities,
    });
    expect(whatsappCapabilities).toMatchObject({
      textLimit: 4000,
      markup: 'whatsapp',
      typing: true,
      edits: false,
      media: true,
    });
  });

  it('runs a linked-device account and a Cloud API account side by side', async () => {
    const world = await createFakeWhatsApp({ autoLink: true }).start();
    const cloud = await createFakeWhatsAppCloud({ webhookRetry: { attempts: 1, delayMs: 0 } }).start();
    const alice = world.addUser('+15551230001', { name: 'Alice' });
    const channel = createWhatsAppChannel({ makeSocket: world.makeSocket, printQr: () => {} });
    const config = {
      dmPolicy: 'open',
      accounts: {
        personal: { transport: 'baileys' },
        business: { transport: 'cloud', ...cloud.credentials },
      },
    };
    const personal = createTestContext(channel, config, 'personal');
    const business = createTestContext(channel, config, 'business');
    const accounts: ChannelAccount[] = [];
    try {
      accounts.push(await channel.start(personal.context), await channel.start(business.context));
      expect(business.routes[0]?.path).toBe('/webhooks/whatsapp/business');
      cloud.setWebhook(`${await business.serveRoutes()}${business.routes[0]!.path}`);
      await personal.waitForStatus((status) => status.state === 'connected');
      await world.sendText(alice.phone, 'to my friend');
      await cloud.sendText(alice.phone, 'to the shop');
      const [viaPhone] = await personal.waitForReceived(1);
      expect(viaPhone).toMatchObject({
        accountId: 'personal',
        text: 'to my friend',
        sender: { id: '+15551230001' },
      });
      expect(business.received).toMatchObject([
        { accountId: 'business', text: 'to the shop', sender: { id: '+15551230001' } },
      ]);
      await accounts[0]!.send({
        channel: 'whatsapp',
        accountId: 'personal',
        kind: 'text',
        peer: viaPhone!.peer,
        text: 'hi friend',
      });
      await accounts[1]!.send({
        channel: 'whatsapp',
        accountId: 'business',
        kind: 'text',
        peer: viaPhone!.peer,
        text: 'hi customer',
      });
      expect(world.sent(alice.id).map((message) => message.text)).toEqual(['hi friend']);
      expect(cloud.sent(alice.id).map((message) => message.text)).toEqual(['hi customer']);
    } finally {
      for (const account of accounts) await account.stop();
      await personal.close();
      await business.close();
      await world.close();
      await cloud.close();
    }
  });
});
