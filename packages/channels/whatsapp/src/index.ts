// @switchboard/channel-whatsapp: WhatsApp for Switchboard, through Baileys (a personal
// number as a linked device) or the WhatsApp Business Cloud API, chosen per account.
import { definePlugin, type PluginDefinition } from '@switchboard/hooks';
import { createWhatsAppChannel } from './channel.ts';

export {
  cloudRecipientFromPeerId,
  jidFromPeerId,
  normalizeAllowEntry,
  toE164,
  userIdFromJid,
} from './address.ts';
export {
  type BackoffPolicy,
  type BaileysConnectionState,
  defaultBackoff,
  describeState,
  disconnectReasons,
} from './baileys/connection.ts';
export type { MediaDownloader } from './baileys/media.ts';
export { encodeQr, type QrCode, renderQrForTerminal } from './baileys/qr-code.ts';
export type { MakeWhatsAppSocket, WhatsAppSocket, WhatsAppSocketConfig } from './baileys/socket.ts';
export { testSocketFactoryVariable } from './baileys/socket-factory.ts';
export {
  createWhatsAppChannel,
  type WhatsAppChannelOptions,
  whatsappCapabilities,
  whatsappTextLimit,
} from './channel.ts';
export { defaultWebhookPath } from './cloud/account.ts';
export { verifyWebhookSignature } from './cloud/webhook.ts';
export { type WhatsAppAccountConfig, whatsappChannelConfig } from './config.ts';
export { WhatsAppError, type WhatsAppErrorCode, whatsappErrorCodes } from './errors.ts';
export { markdownToWhatsApp, renderWhatsAppMessages, splitWhatsAppText } from './format.ts';
export { defaultRateLimitRetry, type RateLimitRetryPolicy } from './retry.ts';
export type { Timers } from './timers.ts';

/** The plugin the gateway loads when `channels.whatsapp` is configured. */
const plugin: PluginDefinition = definePlugin({
  name: 'whatsapp',
  version: '0.0.0',
  specVersion: 1,
  setup(api) {
    api.registerChannel(createWhatsAppChannel());
  },
});

export default plugin;
