// FakeWhatsApp: the "world" behind fake Baileys sockets. It stands in for WhatsApp's
// servers and the people on them: it links the device (QR or pairing code), delivers what
// people write (real protobuf message shapes, LID addressing, real media encryption through a
// local CDN), records what the linked device sends, and injects faults (disconnect reasons,
// logout from the phone, rate limits). It listens on 127.0.0.1 (one port: the socket
// WebSocket at /ws/chat and the CDN at /cdn), so the socket can live in another process.
//
// This module is the public handle; the parts live in `baileys/`: `world.ts` (the bot,
// people, groups and records), `connections.ts` (hello, linking, logins, connection faults),
// `delivery.ts` (live and offline delivery), `incoming.ts` (the messages people write),
// `socket-requests.ts` (the socket's requests: sends, group metadata, pairing codes) and
// `server.ts` (the WebSocket and the CDN on one port).
import { downloadMediaMessage } from 'baileys';
import { TestkitError } from '../shared/errors.ts';
import { type ConditionWaiter, createConditionWaiter } from '../shared/waiter.ts';
import { WhatsAppConnections } from './baileys/connections.ts';
import { MessageDelivery } from './baileys/delivery.ts';
import { incomingMedia, incomingText } from './baileys/incoming.ts';
import { WhatsAppServer } from './baileys/server.ts';
import { SocketRequests } from './baileys/socket-requests.ts';
import type { FakeWhatsApp, FakeWhatsAppOptions } from './baileys/types.ts';
import { WhatsAppWorld } from './baileys/world.ts';
import { fakeSocketFactory } from './fake-socket.ts';
import { sentLog } from './sent-log.ts';

export type {
  FakeWhatsApp,
  FakeWhatsAppLinkState,
  FakeWhatsAppMedia,
  FakeWhatsAppMediaDownload,
  FakeWhatsAppOptions,
  FakeWhatsAppSendOptions,
  FakeWhatsAppSentMessage,
  FakeWhatsAppUser,
} from './baileys/types.ts';

/** Creates a FakeWhatsApp world; call `start()`. */
export function createFakeWhatsApp(options: FakeWhatsAppOptions = {}): FakeWhatsApp {
  const world = new WhatsAppWorld(options);
  const waiter: ConditionWaiter = createConditionWaiter({
    subject: 'FakeWhatsApp',
    defaultTimeoutMs: 10_000,
  });
  const notify = (): void => waiter.notify();
  const connections: WhatsAppConnections = new WhatsAppConnections({
    botNumber: world.botNumber,
    botLid: world.botLid,
    botName: world.bot.name,
    qrRefCount: options.qrRefs ?? 6,
    qrIntervalMs: options.qrIntervalMs ?? 20_000,
    autoLink: options.autoLink === true,
    notify,
    onLogin: (connection) => delivery.flushOffline(connection),
  });
  const delivery = new MessageDelivery(world, connections);
  const requests = new SocketRequests(world, connections, notify);
  const server = new WhatsAppServer({ world, connections, requests, notify });

  const handle: FakeWhatsApp = {
    async start() {
      await server.start();
      return handle;
    },
    async close() {
      waiter.close();
      await server.close();
    },
    get socketUrl() {
      return server.socketUrl;
    },
    get makeSocket() {
      return fakeSocketFactory(handle.socketUrl);
    },
    bot: world.bot,
    addUser: (phone, userOptions) => world.addUser(phone, userOptions),
    user: (phone) => world.user(phone),
    createGroup: (subject, members, jid) => world.createGroup(subject, members, jid),
    async sendText(from, text, sendOptions = {}) {
      const message = incomingText(world, from, text, sendOptions);
      delivery.deliver(message.wire);
      return { messageId: message.id };
    },
    async sendMedia(from, media, sendOptions = {}) {
      const message = await incomingMedia(world, from, media, sendOptions, (bytes) =>
        server.storeMedia(bytes),
      );
      delivery.deliver(message.wire);
      return { messageId: message.id };
    },
    redeliver: (messageId) => delivery.redeliver(messageId),
    scanQr: () => connections.scanQr(),
    enterPairingCode: (code) => connections.enterPairingCode(code),
    logoutDevice: () => connections.logoutDevice(),
    disconnect: (statusCode = 408, message = 'Connection was lost') =>
      connections.disconnect(statusCode, message),
    refuseNextConnections: (count, statusCode) => connections.refuseNextConnections(count, statusCode),
    rateLimitNextSends: (count, retryAfterSeconds) => requests.rateLimit.limitNext(count, retryAfterSeconds),
    rateLimitedSends: () => requests.rateLimit.refused,
    mediaDownloads: () => [...server.mediaDownloads],
    get link() {
      return connections.link;
    },
    waitForLink(check, timeoutMs = 5_000) {
      return waiter.until({
        check: () => (check(handle.link) ? handle.link : undefined),
        awaited: 'the link state to match',
        arrived: () => `it is ${JSON.stringify(handle.link)}`,
        timeoutMs,
      });
    },
    ...sentLog(world.sent, waiter),
    async sentMedia(id) {
      const record = world.sent.find((message) => message.id === id);
      if (record === undefined)
        throw new TestkitError('TESTKIT_INVALID_OPTIONS', `sentMedia: no sent message ${id}`);
      return new Uint8Array(await downloadMediaMessage(record.message, 'buffer', {}));
    },
    presences: () => [...world.presences],
    readReceipts: () => [...world.reads],
  };
  return handle;
}
