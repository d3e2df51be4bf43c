// @switchboard/channel-slack: Slack through @slack/bolt, over the Events API (HTTP, mounted
// on the gateway's server) or Socket Mode. The default export is the plugin the gateway loads.
import { definePlugin, type PluginDefinition } from '@switchboard/hooks';
import { createSlackChannel } from './channel.ts';

export {
  createSlackChannel,
  normalizeSlackAllowEntry,
  type SlackChannelOptions,
  slackTextLimit,
} from './channel.ts';
export {
  defaultWebhookPath,
  type SlackAccountConfig,
  type SlackAccountSettings,
  slackChannelConfig,
} from './config.ts';
export { SlackChannelError, type SlackChannelErrorCode, slackChannelErrorCodes } from './errors.ts';
export { parseSlackMessageId, slackMessageId } from './inbound.ts';
export {
  escapeMrkdwn,
  markdownToMrkdwn,
  type SlackTextContext,
  slackMentions,
  slackToText,
  splitMrkdwn,
} from './mrkdwn.ts';

/** The version of this package, reported to the plugin registry. */
export const slackChannelVersion = '0.0.0';

const plugin: PluginDefinition = definePlugin({
  name: 'slack',
  version: slackChannelVersion,
  specVersion: 1,
  description: 'Slack through @slack/bolt: Events API over HTTP and Socket Mode.',
  setup(api) {
    api.registerChannel(createSlackChannel());
  },
});

export default plugin;
