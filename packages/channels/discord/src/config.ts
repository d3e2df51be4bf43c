// The account configuration of channels.discord (and channels.discord.accounts.<id>), and how
// the Discord-shaped `guilds` tree maps onto the gateway's flat access fields.
import {
  type ChannelAccessConfig,
  type ChannelConfigSpec,
  defineChannelConfig,
  type GroupAccessConfig,
  z,
} from '@switchboard/hooks';

/** Per-channel settings under `guilds.<guildId>.channels.<channelId>`. */
export interface DiscordGuildChannelConfig {
  /** Overrides the guild's `requireMention` in this channel. */
  readonly requireMention?: boolean;
}

/** Settings of one guild (server) under `guilds.<guildId>` (or `guilds["*"]` for any guild). */
export interface DiscordGuildConfig {
  /** In this guild's channels, answer only when mentioned. Default: the account's `requireMention`. */
  readonly requireMention?: boolean;
  /**
   * The channels the bot answers in, by id (an array, or a map with per-channel settings).
   * Absent, or with a `"*"` entry: every channel of the guild. Threads count as their parent.
   */
  readonly channels?: Readonly<Record<string, DiscordGuildChannelConfig>>;
  /** Only senders holding one of these role ids (or listed in `users`) may trigger the bot. */
  readonly roles?: readonly string[];
  /** Only these user ids (or holders of `roles`) may trigger the bot. */
  readonly users?: readonly string[];
}

/** How rate-limited sends are retried (by the gateway; the REST client makes one attempt). */
export interface DiscordRateLimitConfig {
  /** Retries of one send that Discord answered with 429 (attempts = this + 1). Default 3. */
  readonly maxRetries: number;
  /** The longest single wait accepted; a longer `retry-after` fails the call at once. Default 60. */
  readonly maxWaitSeconds: number;
}

/** One Discord account's own configuration (the access fields are added by the gateway). */
export interface DiscordAccountConfig {
  /** The bot token (Developer Portal → Bot → Token). */
  readonly token: string;
  /** The REST API base without the version (discord.js appends `/v10`). Default `https://discord.com/api`. */
  readonly restApi: string;
  /** Guild (server) access, keyed by guild id or `"*"`. Default `{}`: the standard `groups` apply. */
  readonly guilds: Readonly<Record<string, DiscordGuildConfig>>;
  /** The largest attachment downloaded (inbound) or uploaded (outbound), in MB. Default 25. */
  readonly mediaMaxMb: number;
  readonly rateLimit: DiscordRateLimitConfig;
}

const idMessage =
  'expected a Discord id: digits, written as a string (JSON numbers this large lose precision)';
const snowflake = z
  .string()
  .trim()
  .regex(/^\d{1,20}$/, idMessage);
const snowflakeOrWildcard = z.union([snowflake, z.literal('*')], { error: `${idMessage}, or "*"` });

const guildChannelSchema = z.object({ requireMention: z.boolean().optional() });

const guildSchema = z.object({
  requireMention: z.boolean().optional(),
  channels: z
    .union([z.array(snowflakeOrWildcard), z.record(snowflakeOrWildcard, guildChannelSchema)], {
      error: 'expected a list of channel ids, or a map of channel id to { requireMention }',
    })
    .transform(
      (value): Record<string, DiscordGuildChannelConfig> =>
        Array.isArray(value) ? Object.fromEntries(value.map((id) => [id, {}])) : value,
    )
    .optional(),
  roles: z.array(snowflake).optional(),
  users: z.array(snowflake).optional(),
});

const accountSchema = z.object({
  token: z
    .string({ error: 'expected the bot token as a string' })
    .trim()
    .min(1, 'the bot token is required (Developer Portal \u2192 Bot \u2192 Token)')
    .transform((token) => (token.startsWith('Bot ') ? token.slice(4).trim() : token)),
  restApi: z
    .url({ protocol: /^https?$/, error: 'expected an http(s) URL such as https://discord.com/api' })
    .default('https://discord.com/api')
    .transform((url) => url.replace(/\/+$/, '').replace(/\/v\d+$/, '')),
  guilds: z.record(snowflakeOrWildcard, guildSchema).default({}),
  mediaMaxMb: z.number().positive().max(1024).default(25),
  rateLimit: z
    .object({
      maxRetries: z.int().min(0).max(10).default(3),
      maxWaitSeconds: z.number().positive().max(3600).default(60),
    })
    .prefault({}),
});

const base = defineChannelConfig(accountSchema);

type Account = DiscordAccountConfig & ChannelAccessConfig;

/**
 * Maps `guilds` onto the gateway's standard `groups` (keyed by conversation id), so the
 * gateway's access layer applies the guild's mention rules. Explicit `groups` entries win.
 * - every channel a guild lists becomes `groups.<channelId>` with the channel's (or the
 *   guild's) `requireMention`;
 * - `groups["*"]` is added for the rest: channels of guilds that admit every channel, and
 *   threads (their own conversation ids are not known in advance). It carries the
 *   `requireMention` of the guilds that admit every channel, when they set one.
 * Guild, channel, role and user admission is applied by the channel itself before a message
 * reaches the gateway (see `admitGuildMessage`).
 */
function mapGuildsOntoGroups(account: Account, context: z.core.$RefinementCtx<Account>): Account {
  const guilds = Object.entries(account.guilds);
  if (guilds.length === 0) return account;
  const derived: Record<string, GroupAccessConfig> = {};
  const wildcardMention = new Map<boolean, string>();
  for (const [guildId, guild] of guilds) {
    const channels = guild.channels;
    for (const [channelId, channel] of Object.entries(channels ?? {})) {
      if (channelId === '*') continue;
      const requireMention = channel.requireMention ?? guild.requireMention;
      derived[channelId] = requireMention === undefined ? {} : { requireMention };
    }
    if (channels !== undefined && !('*' in channels)) continue;
    const requireMention = channels?.['*']?.requireMention ?? guild.requireMention;
    if (requireMention !== undefined && !wildcardMention.has(requireMention))
      wildcardMention.set(requireMention, guildId);
  }
  if (wildcardMention.size > 1 && account.groups['*'] === undefined) {
    context.issues.push({
      code: 'custom',
      path: ['guilds', wildcardMention.get(false)!, 'requireMention'],
      message:
        `guilds ${wildcardMention.get(true)} and ${wildcardMention.get(false)} both admit every channel but set ` +
        'different requireMention values; the gateway keys mention rules by channel, so list the channels of ' +
        'one of them (guilds.<id>.channels) or set groups["*"].requireMention explicitly',
      input: account.guilds,
    });
    return account;
  }
  const [onlyValue] = wildcardMention.keys();
  derived['*'] = onlyValue === undefined ? {} : { requireMention: onlyValue };
  return { ...account, groups: { ...derived, ...account.groups } };
}

/** The configuration spec of a Discord account: its own fields plus the access fields. */
export const discordAccountConfig: ChannelConfigSpec<DiscordAccountConfig> = {
  schema: base.schema.transform(mapGuildsOntoGroups),
  keys: base.keys,
};

/** Turns an `allowFrom` entry (`123`, `discord:123`, `user:123`, `<@123>`) into a user id. */
export function normalizeDiscordAllowEntry(entry: string): string {
  const trimmed = entry.trim();
  const mention = /^<@!?(\d+)>$/.exec(trimmed);
  if (mention !== null) return mention[1]!;
  return trimmed.replace(/^(discord|user):/i, '');
}

/** What the channel needs to know about a guild message to admit it. */
export interface GuildAdmissionInput {
  readonly guildId: string;
  /** The channel id, or for a thread its parent channel's id. */
  readonly channelId: string;
  /** For a thread, its own id (a guild may list a thread directly). */
  readonly threadId?: string;
  readonly senderId: string;
  readonly roleIds: readonly string[];
}

/** Why a guild message was not handed to the gateway. */
export type GuildAdmission =
  | { readonly admitted: true }
  | {
      readonly admitted: false;
      readonly reason: 'guild-not-listed' | 'channel-not-listed' | 'sender-not-allowed';
    };

/**
 * The Discord-only part of guild access, which the gateway's vocabulary cannot express:
 * which guilds, which channels of a guild (threads by their parent), and which users or
 * roles. Applied only when `guilds` is configured; mention rules are left to the gateway.
 */
export function admitGuildMessage(
  guilds: Readonly<Record<string, DiscordGuildConfig>>,
  input: GuildAdmissionInput,
): GuildAdmission {
  if (Object.keys(guilds).length === 0) return { admitted: true };
  const guild = guilds[input.guildId] ?? guilds['*'];
  if (guild === undefined) return { admitted: false, reason: 'guild-not-listed' };
  const channels = guild.channels;
  if (
    channels !== undefined &&
    !('*' in channels) &&
    !(input.channelId in channels) &&
    !(input.threadId !== undefined && input.threadId in channels)
  )
    return { admitted: false, reason: 'channel-not-listed' };
  if (guild.users !== undefined || guild.roles !== undefined) {
    const listed = guild.users?.includes(input.senderId) ?? false;
    const holdsRole = guild.roles?.some((role) => input.roleIds.includes(role)) ?? false;
    if (!listed && !holdsRole) return { admitted: false, reason: 'sender-not-allowed' };
  }
  return { admitted: true };
}

/**
 * One sentence for the operator on what would admit a guild message `admitGuildMessage`
 * refused, naming the ids and the config key (relative to the account). No message text.
 */
export function guildAdmissionNote(
  reason: Extract<GuildAdmission, { admitted: false }>['reason'],
  guildId: string,
  channelId: string,
): string {
  switch (reason) {
    case 'guild-not-listed':
      return `guild ${guildId} is not listed under guilds; add guilds.${guildId} to answer there`;
    case 'channel-not-listed':
      return `channel ${channelId} is not listed under guilds.${guildId}.channels`;
    case 'sender-not-allowed':
      return `the sender is not in the guild's users and holds none of its roles (guilds.${guildId}.users, .roles)`;
  }
}
