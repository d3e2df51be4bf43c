// The Discord API objects the fake stores and serves, in the wire shape (snake_case) that
// discord.js parses. Only the fields discord.js 14 reads on the paths the fake covers.

/** Discord channel types the fake models (discord-api-types `ChannelType`). */
export const discordChannelTypes = {
  guildText: 0,
  dm: 1,
  guildAnnouncement: 5,
  publicThread: 11,
  privateThread: 12,
  guildForum: 15,
} as const;

/** Gateway intent bits (discord-api-types `GatewayIntentBits`). */
export const discordIntents = {
  guilds: 1,
  guildMembers: 2,
  guildMessages: 512,
  directMessages: 4096,
  messageContent: 32768,
} as const;

/** The gateway close codes the fake uses. */
export const discordCloseCodes = {
  unknownError: 4000,
  authenticationFailed: 4004,
  invalidSeq: 4007,
  disallowedIntents: 4014,
} as const;

/** Discord's JSON error codes the fake answers with. */
export const discordErrorCodes = {
  unknownChannel: 10003,
  unknownMessage: 10008,
  unknownUser: 10013,
  cannotSendEmptyMessage: 50006,
  invalidFormBody: 50035,
} as const;

export interface DiscordApiUser {
  id: string;
  username: string;
  global_name: string | null;
  discriminator: string;
  avatar: string | null;
  bot?: boolean;
}

export interface DiscordApiRole {
  id: string;
  name: string;
  color: number;
  hoist: boolean;
  position: number;
  permissions: string;
  managed: boolean;
  mentionable: boolean;
  flags: number;
  tags?: { bot_id?: string };
}

export interface DiscordApiMember {
  user?: DiscordApiUser;
  nick: string | null;
  roles: string[];
  joined_at: string;
  deaf: boolean;
  mute: boolean;
  flags: number;
}

export interface DiscordApiThreadMetadata {
  archived: boolean;
  auto_archive_duration: number;
  archive_timestamp: string;
  locked: boolean;
}

export interface DiscordApiChannel {
  id: string;
  type: number;
  guild_id?: string;
  name?: string;
  position?: number;
  parent_id?: string | null;
  topic?: string | null;
  nsfw?: boolean;
  last_message_id?: string | null;
  permission_overwrites?: unknown[];
  rate_limit_per_user?: number;
  recipients?: DiscordApiUser[];
  owner_id?: string;
  thread_metadata?: DiscordApiThreadMetadata;
  message_count?: number;
  member_count?: number;
  flags?: number;
}

export interface DiscordApiAttachment {
  id: string;
  filename: string;
  size: number;
  url: string;
  proxy_url: string;
  content_type?: string;
  width?: number | null;
  height?: number | null;
}

export interface DiscordApiMessageReference {
  message_id?: string;
  channel_id?: string;
  guild_id?: string;
  fail_if_not_exists?: boolean;
}

export interface DiscordApiMessage {
  id: string;
  channel_id: string;
  guild_id?: string;
  author: DiscordApiUser;
  member?: DiscordApiMember;
  content: string;
  timestamp: string;
  edited_timestamp: string | null;
  tts: boolean;
  mention_everyone: boolean;
  mentions: Array<DiscordApiUser & { member?: DiscordApiMember }>;
  mention_roles: string[];
  attachments: DiscordApiAttachment[];
  embeds: unknown[];
  pinned: boolean;
  type: number;
  flags: number;
  message_reference?: DiscordApiMessageReference;
  referenced_message?: DiscordApiMessage | null;
  nonce?: string | number;
}

export interface DiscordApiGuild {
  id: string;
  name: string;
  icon: string | null;
  owner_id: string;
  roles: DiscordApiRole[];
  emojis: unknown[];
  stickers: unknown[];
  features: string[];
  channels: DiscordApiChannel[];
  threads: DiscordApiChannel[];
  members: DiscordApiMember[];
  member_count: number;
  large: boolean;
  unavailable: boolean;
  joined_at: string;
  voice_states: unknown[];
  presences: unknown[];
  stage_instances: unknown[];
  guild_scheduled_events: unknown[];
  soundboard_sounds: unknown[];
  preferred_locale: string;
  premium_tier: number;
  verification_level: number;
  default_message_notifications: number;
  explicit_content_filter: number;
  mfa_level: number;
  nsfw_level: number;
  system_channel_flags: number;
  afk_timeout: number;
}
