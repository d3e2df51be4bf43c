// The test-only socket factory a child-process gateway loads by path
// (SWITCHBOARD_WHATSAPP_TEST_SOCKET_FACTORY, honoured only with NODE_ENV=test): it connects
// each socket the channel opens to the FakeWhatsApp world named by the account's
// `webSocketUrl` (Baileys' `waWebSocketUrl`).
import type { UserFacingSocketConfig } from 'baileys';
import { TestkitError } from '../shared/errors.ts';
import { createFakeBaileysSocket, type FakeBaileysSocket } from './fake-socket.ts';

/** `makeWASocket`'s signature, connected to the world at `config.waWebSocketUrl`. */
export function makeSocket(config: UserFacingSocketConfig): FakeBaileysSocket {
  const url = config.waWebSocketUrl;
  if (url === undefined) {
    throw new TestkitError(
      'TESTKIT_INVALID_OPTIONS',
      'the fake WhatsApp socket needs the world URL: set channels.whatsapp.webSocketUrl to FakeWhatsApp.socketUrl',
    );
  }
  return createFakeBaileysSocket(config, String(url));
}
