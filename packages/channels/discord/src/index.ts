// @switchboard/channel-discord: Discord for Switchboard through discord.js. The default export
// is a plugin registering the channel; the gateway loads it when `channels.discord` is set.
import { definePlugin, type PluginDefinition } from '@switchboard/hooks';
import { createDiscordChannel } from './channel.ts';

export { createDiscordChannel, type DiscordChannelOptions } from './channel.ts';
export {
  admitGuildMessage,
  type DiscordAccountConfig,
  type DiscordGuildChannelConfig,
  type DiscordGuildConfig,
  type DiscordRateLimitConfig,
  discordAccountConfig,
  type GuildAdmission,
  type GuildAdmissionInput,
  normalizeDiscordAllowEntry,
} from './config.ts';
export { DiscordChannelError, type DiscordChannelErrorCode, discordChannelErrorCodes } from './errors.ts';
export { type MentionNames, renderDiscordText } from './inbound.ts';
export { discordTextLimit, splitDiscordText } from './split.ts';

/** The plugin the gateway registers for `channels.discord`. */
const discordPlugin: PluginDefinition = definePlugin({
  name: 'discord',
  version: '0.0.0',
  specVersion: 1,
  setup(api) {
    api.registerChannel(createDiscordChannel());
  },
});

export default discordPlugin;
