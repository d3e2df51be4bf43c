// @switchboard/testkit/whatsapp: fakes for the WhatsApp channel.
// - FakeWhatsApp: the world behind a fake Baileys socket built from real Baileys helpers
//   (WhatsApp's servers cannot be faked: their handshake pins WhatsApp's certificate).
// - FakeWhatsAppCloud: the WhatsApp Business Cloud API (Graph endpoints, signed webhooks).
// - Conformance drivers for both transports.

export {
  createWhatsAppBaileysConformanceDriver,
  createWhatsAppCloudConformanceDriver,
  socketFactoryModulePath,
  testSocketFactoryVariable,
  type WhatsAppBaileysConformanceDriver,
  type WhatsAppCloudConformanceDriver,
} from './conformance.ts';
export {
  createFakeWhatsAppCloud,
  type FakeCloudDelivery,
  type FakeCloudMedia,
  type FakeCloudSendOptions,
  type FakeCloudSentMessage,
  type FakeWhatsAppCloud,
  type FakeWhatsAppCloudOptions,
} from './fake-cloud.ts';
export {
  createFakeBaileysSocket,
  type FakeBaileysSocket,
  type FakeSocketFactory,
  fakeSocketFactory,
  messageFromWire,
  messageToWire,
} from './fake-socket.ts';
export {
  createFakeWhatsApp,
  type FakeWhatsApp,
  type FakeWhatsAppLinkState,
  type FakeWhatsAppMedia,
  type FakeWhatsAppMediaDownload,
  type FakeWhatsAppOptions,
  type FakeWhatsAppSendOptions,
  type FakeWhatsAppSentMessage,
  type FakeWhatsAppUser,
} from './fake-whatsapp.ts';
export { boomError, type KeyExtras, type WireMessage } from './protocol.ts';
// The entry a child gateway loads through SWITCHBOARD_WHATSAPP_TEST_SOCKET_FACTORY.
export { makeSocket } from './socket-factory-module.ts';
