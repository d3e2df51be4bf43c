// @switchboard/testkit/discord: a fake Discord (REST API + gateway WebSocket) for tests and
// benches, driven by the real discord.js through `rest.api`, plus the conformance driver.

export {
  createDiscordConformanceDriver,
  type DiscordConformanceDriver,
  type DiscordConformanceDriverOptions,
} from './conformance-driver.ts';
export {
  createFakeDiscord,
  discordContentLimit,
  type ErrorFault,
  type FakeDiscord,
  type FakeDiscordAttachmentInput,
  type FakeDiscordChannelInput,
  type FakeDiscordEdit,
  type FakeDiscordGuild,
  type FakeDiscordGuildInput,
  type FakeDiscordOptions,
  type FakeDiscordReaction,
  type FakeDiscordSendOptions,
  type FakeDiscordSessionInfo,
  type FakeDiscordTyping,
  type FakeDiscordUpload,
  type FakeDiscordWaitOptions,
  type RateLimitFault,
  type RecordedDiscordRequest,
} from './fake-discord.ts';
export { createSnowflakeGenerator, discordEpoch, snowflakeTimestamp } from './snowflake.ts';
export {
  type DiscordApiAttachment,
  type DiscordApiChannel,
  type DiscordApiGuild,
  type DiscordApiMember,
  type DiscordApiMessage,
  type DiscordApiMessageReference,
  type DiscordApiRole,
  type DiscordApiThreadMetadata,
  type DiscordApiUser,
  discordChannelTypes,
  discordCloseCodes,
  discordErrorCodes,
  discordIntents,
} from './types.ts';
