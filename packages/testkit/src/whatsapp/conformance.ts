// Conformance drivers for the WhatsApp channel: one per transport. The gateway under test
// runs in a child process, so the Baileys driver cannot hand it a socket factory: it names
// testkit's whatsapp entry module in SWITCHBOARD_WHATSAPP_TEST_SOCKET_FACTORY (with
// NODE_ENV=test; see `environment()`), and points the account's `webSocketUrl` at the world.
import type {
  ChannelConformanceDriver,
  ConformanceConversation,
  ConformanceUser,
  ObservedReply,
} from '../conformance/index.ts';
import { TestkitError } from '../shared/errors.ts';
import { createFakeWhatsAppCloud, type FakeCloudSentMessage, type FakeWhatsAppCloud } from './fake-cloud.ts';
import { createFakeWhatsApp, type FakeWhatsApp, type FakeWhatsAppSentMessage } from './fake-whatsapp.ts';

const phones: Readonly<Record<ConformanceUser, string>> = {
  alice: '15551230001',
  bob: '15551230002',
  mallory: '15551230003',
};
const names: Readonly<Record<ConformanceUser, string>> = { alice: 'Alice', bob: 'Bob', mallory: 'Mallory' };

/** The environment variable the channel reads for a test socket factory module. */
export const testSocketFactoryVariable = 'SWITCHBOARD_WHATSAPP_TEST_SOCKET_FACTORY';

/**
 * The module a child gateway loads as its socket factory: this package's whatsapp entry
 * (it exports `makeSocket`), as a source file or as the built one.
 */
export function socketFactoryModulePath(): string {
  const here = new URL(import.meta.url);
  const entry = here.pathname.endsWith('.ts') ? new URL('./index.ts', here) : here;
  return decodeURIComponent(entry.pathname);
}

/** A Baileys conformance driver, plus what the child gateway's environment must hold. */
export interface WhatsAppBaileysConformanceDriver extends ChannelConformanceDriver {
  /** The world behind the fake sockets (after `start`). */
  readonly world: FakeWhatsApp;
  /** Variables the gateway process needs: the test socket factory and NODE_ENV=test. */
  environment(): Record<string, string>;
}

const baileysGroup = '120363000000000001@g.us';

export function createWhatsAppBaileysConformanceDriver(): WhatsAppBaileysConformanceDriver {
  let world: FakeWhatsApp | undefined;
  const started = (): FakeWhatsApp => {
    if (world === undefined)
      throw new TestkitError('TESTKIT_NOT_STARTED', 'the WhatsApp driver is not started');
    return world;
  };
  const observed = (message: FakeWhatsAppSentMessage): ObservedReply => ({
    text: message.text,
    platformMessageId: message.id,
    replyToMessageId: message.quotedId,
  });
  const direct = (user: ConformanceUser): ConformanceConversation => ({
    kind: 'direct',
    id: `+${phones[user]}`,
  });
  const group: ConformanceConversation = { kind: 'group', id: baileysGroup };
  return {
    channelId: 'whatsapp',
    textLimit: 4000,
    get world() {
      return started();
    },
    async start() {
      world = await createFakeWhatsApp({ autoLink: true }).start();
      for (const user of Object.keys(phones) as ConformanceUser[])
        world.addUser(phones[user], { name: names[user] });
      world.createGroup('Conformance', Object.values(phones), baileysGroup);
    },
    async stop() {
      await world?.close();
    },
    environment() {
      return { [testSocketFactoryVariable]: socketFactoryModulePath(), NODE_ENV: 'test' };
    },
    userId: (user) => `+${phones[user]}`,
    group,
    channelConfig(access) {
      return { transport: 'baileys', webSocketUrl: started().socketUrl, ...access };
    },
    async sendDirect(user, text) {
      const { messageId } = await started().sendText(phones[user], text);
      return { messageId, conversation: direct(user) };
    },
    async sendGroup(user, text, mention) {
      const { messageId } = await started().sendText(phones[user], text, {
        group: baileysGroup,
        mentionBot: mention,
      });
      return { messageId, conversation: group };
    },
    async sendImage(user, caption, image) {
      const { messageId } = await started().sendMedia(phones[user], {
        kind: 'image',
        bytes: image.bytes,
        mimeType: image.mimeType,
        fileName: image.fileName,
        caption,
      });
      return { messageId, conversation: direct(user) };
    },
    async redeliver(messageId) {
      started().redeliver(messageId);
    },
    replies: (conversation) => started().sent(conversation.id).map(observed),
    async waitForReplies(conversation, count, timeoutMs = 15_000) {
      return (await started().waitForSent(conversation.id, count, timeoutMs)).map(observed);
    },
    rateLimitNextSends: (count, retryAfterSeconds) => started().rateLimitNextSends(count, retryAfterSeconds),
    rateLimitedSends: () => started().rateLimitedSends(),
  };
}

/** A Cloud API conformance driver. */
export interface WhatsAppCloudConformanceDriver extends ChannelConformanceDriver {
  readonly cloud: FakeWhatsAppCloud;
}

export function createWhatsAppCloudConformanceDriver(): WhatsAppCloudConformanceDriver {
  let cloud: FakeWhatsAppCloud | undefined;
  let groupId: string | undefined;
  const started = (): FakeWhatsAppCloud => {
    if (cloud === undefined)
      throw new TestkitError('TESTKIT_NOT_STARTED', 'the WhatsApp Cloud driver is not started');
    return cloud;
  };
  const observed = (message: FakeCloudSentMessage): ObservedReply => ({
    text: message.text,
    platformMessageId: message.id,
    replyToMessageId: message.replyToId,
  });
  const direct = (user: ConformanceUser): ConformanceConversation => ({
    kind: 'direct',
    id: `+${phones[user]}`,
  });
  const accepted = <T extends { status: number; attempts: number }>(delivery: T): T => {
    if (delivery.status !== 200) {
      throw new TestkitError(
        'TESTKIT_WAIT_TIMEOUT',
        `the gateway's webhook answered ${delivery.status || 'nothing'} after ${delivery.attempts} attempt(s)`,
      );
    }
    return delivery;
  };
  const driver: WhatsAppCloudConformanceDriver = {
    channelId: 'whatsapp',
    textLimit: 4000,
    get cloud() {
      return started();
    },
    async start() {
      cloud = await createFakeWhatsAppCloud().start();
      groupId = cloud.createGroup('Conformance');
    },
    async stop() {
      await cloud?.close();
    },
    userId: (user) => `+${phones[user]}`,
    get group(): ConformanceConversation {
      if (groupId === undefined)
        throw new TestkitError('TESTKIT_NOT_STARTED', 'the WhatsApp Cloud driver is not started');
      return { kind: 'group', id: groupId };
    },
    channelConfig(access) {
      return { transport: 'cloud', ...started().credentials, ...access };
    },
    onGatewayStarted({ httpUrl }) {
      started().setWebhook(`${httpUrl}/webhooks/whatsapp/default`);
    },
    async sendDirect(user, text) {
      const { messageId } = accepted(await started().sendText(phones[user], text, { name: names[user] }));
      return { messageId, conversation: direct(user) };
    },
    async sendGroup(user, text, mention) {
      const { messageId } = accepted(
        await started().sendText(phones[user], text, {
          name: names[user],
          group: driver.group.id,
          mentionBusiness: mention,
        }),
      );
      return { messageId, conversation: driver.group };
    },
    async sendImage(user, caption, image) {
      const { messageId } = accepted(
        await started().sendMedia(
          phones[user],
          { kind: 'image', bytes: image.bytes, mimeType: image.mimeType, fileName: image.fileName, caption },
          { name: names[user] },
        ),
      );
      return { messageId, conversation: direct(user) };
    },
    async redeliver(messageId) {
      accepted(await started().redeliver(messageId));
    },
    replies: (conversation) => started().sent(conversation.id).map(observed),
    async waitForReplies(conversation, count, timeoutMs = 15_000) {
      return (await started().waitForSent(conversation.id, count, timeoutMs)).map(observed);
    },
    rateLimitNextSends: (count, retryAfterSeconds) => started().rateLimitNextSends(count, retryAfterSeconds),
    rateLimitedSends: () => started().rateLimitedSends(),
  };
  return driver;
}
