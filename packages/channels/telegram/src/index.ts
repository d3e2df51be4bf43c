// @switchboard/channel-telegram: Telegram through grammY. The default export is the plugin
// the gateway loads when `channels.telegram` is configured; `createTelegramChannel` is the
// channel itself, for plugins and tests that register it their own way.
import { definePlugin, type PluginDefinition } from '@switchboard/hooks';
import { createTelegramChannel } from './channel.ts';

export {
  createTelegramChannel,
  normalizeTelegramAllowEntry,
  type TelegramChannelOptions,
  telegramAllowedUpdates,
} from './channel.ts';
export { type TelegramAccountConfig, type TelegramWebhookConfig, telegramConfig } from './config.ts';
export { TelegramChannelError, type TelegramChannelErrorCode, telegramChannelErrorCodes } from './errors.ts';
export {
  escapeHtml,
  markdownToTelegramHtml,
  type TelegramHtmlChunk,
  telegramCaptionLimit,
  telegramTextLimit,
} from './markdown.ts';

const telegramPlugin: PluginDefinition = definePlugin({
  name: 'telegram',
  version: '0.0.0',
  specVersion: 1,
  description: 'Telegram bots through grammY: long polling or webhooks, groups, forum topics, media.',
  setup(api) {
    api.registerChannel(createTelegramChannel());
  },
});

export default telegramPlugin;
