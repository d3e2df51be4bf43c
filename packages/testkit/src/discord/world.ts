// The world of the fake Discord: the bot, users, guilds (roles, members, channels, threads),
// DM channels, messages by id and by channel, hosted attachments and enforced nonces.
// Changes that live sessions see are handed to `dispatch` (the gateway sends them).
import { TestkitError } from '../shared/errors.ts';
import type {
  FakeDiscordAttachmentInput,
  FakeDiscordChannelInput,
  FakeDiscordGuild,
  FakeDiscordGuildInput,
} from './fake-discord-types.ts';
import type { GuildState, HostedFile, Session } from './state.ts';
import {
  type DiscordApiAttachment,
  type DiscordApiChannel,
  type DiscordApiGuild,
  type DiscordApiMember,
  type DiscordApiMessage,
  type DiscordApiRole,
  type DiscordApiUser,
  discordChannelTypes,
  discordIntents,
} from './types.ts';

/** What the world needs from the rest of the fake. */
export interface DiscordWorldOptions {
  readonly now: () => number;
  readonly nextId: () => string;
  readonly bot: DiscordApiUser;
  /** `http://127.0.0.1:<port>`; throws before start. */
  readonly baseUrl: () => string;
  /** Sends an event to every live session whose `payloadFor` is not undefined. */
  readonly dispatch: (type: string, payloadFor: (session: Session) => unknown) => void;
}

/** The world's state (live maps) and operations; `require…` throw TESTKIT_INVALID_OPTIONS naming the driver method. */
export interface DiscordWorld {
  readonly bot: DiscordApiUser;
  readonly users: Map<string, DiscordApiUser>;
  readonly guilds: Map<string, GuildState>;
  readonly channels: Map<string, DiscordApiChannel>;
  readonly messagesById: Map<string, DiscordApiMessage>;
  readonly messagesByChannel: Map<string, DiscordApiMessage[]>;
  /** Hosted attachments by URL path. */
  readonly files: Map<string, HostedFile>;
  /** Messages the bot posted with `enforce_nonce`, by `<channelId>:<nonce>`. */
  readonly nonces: Map<string, DiscordApiMessage>;
  /** The current time as an ISO string. */
  iso(): string;
  requireUser(userId: string, what: string): DiscordApiUser;
  requireChannel(channelId: string, what: string): DiscordApiChannel;
  requireGuild(guildId: string, what: string): GuildState;
  /** A guild member with these roles, joined now. */
  member(roles: readonly string[]): DiscordApiMember;
  /** The GUILD_CREATE payload of a guild (with its members). */
  guildCreatePayload(state: GuildState): DiscordApiGuild;
  addUser(input: { id?: string; username: string; globalName?: string }): DiscordApiUser;
  addGuild(input: FakeDiscordGuildInput): FakeDiscordGuild;
  addChannel(guildId: string, input: FakeDiscordChannelInput): DiscordApiChannel;
  setMember(guildId: string, userId: string, roleIds?: readonly string[]): void;
  createThread(parentChannelId: string, input: { id?: string; name: string }): DiscordApiChannel;
  dmChannel(userId: string): DiscordApiChannel;
  /** Hosts an attachment's bytes under `/attachments/…` and returns the attachment. */
  hostFile(channelId: string, input: FakeDiscordAttachmentInput): DiscordApiAttachment;
  parseMentions(
    content: string,
    guild: GuildState | undefined,
  ): Pick<DiscordApiMessage, 'mentions' | 'mention_roles' | 'mention_everyone'>;
  storeMessage(message: DiscordApiMessage): void;
  /** The message `messageId` when it is in `channel`. */
  referenceFor(channel: DiscordApiChannel, messageId: string): DiscordApiMessage | undefined;
  buildMessage(
    channel: DiscordApiChannel,
    author: DiscordApiUser,
    content: string,
    extra: {
      attachments?: DiscordApiAttachment[];
      referenced?: DiscordApiMessage;
      flags?: number;
      nonce?: string | number;
    },
  ): DiscordApiMessage;
}

export function createDiscordWorld({
  now,
  nextId,
  bot,
  baseUrl,
  dispatch,
}: DiscordWorldOptions): DiscordWorld {
  const dispatchToAll = dispatch;
  const iso = (): string => new Date(now()).toISOString();
  const users = new Map<string, DiscordApiUser>([[bot.id, bot]]);
  const guilds = new Map<string, GuildState>();
  const channels = new Map<string, DiscordApiChannel>();
  const dmByUser = new Map<string, string>();
  const messagesById = new Map<string, DiscordApiMessage>();
  const messagesByChannel = new Map<string, DiscordApiMessage[]>();
  const files = new Map<string, HostedFile>();
  /** Messages the bot posted with `enforce_nonce`, by `<channelId>:<nonce>`. */
  const nonces = new Map<string, DiscordApiMessage>();

  function requireUser(userId: string, what: string): DiscordApiUser {
    const user = users.get(userId);
    if (user === undefined)
      throw new TestkitError(
        'TESTKIT_INVALID_OPTIONS',
        `FakeDiscord.${what}: no user ${userId}; addUser() first`,
      );
    return user;
  }

  function requireChannel(channelId: string, what: string): DiscordApiChannel {
    const channel = channels.get(channelId);
    if (channel === undefined)
      throw new TestkitError('TESTKIT_INVALID_OPTIONS', `FakeDiscord.${what}: no channel ${channelId}`);
    return channel;
  }

  function member(roles: readonly string[]): DiscordApiMember {
    return { nick: null, roles: [...roles], joined_at: iso(), deaf: false, mute: false, flags: 0 };
  }

  function guildChannel(
    guildId: string,
    input: FakeDiscordChannelInput,
    position: number,
  ): DiscordApiChannel {
    const type =
      input.type === 'forum'
        ? discordChannelTypes.guildForum
        : input.type === 'announcement'
          ? discordChannelTypes.guildAnnouncement
          : discordChannelTypes.guildText;
    return {
      id: input.id ?? nextId(),
      type,
      guild_id: guildId,
      name: input.name,
      position,
      parent_id: null,
      topic: null,
      nsfw: false,
      last_message_id: null,
      permission_overwrites: [],
      rate_limit_per_user: 0,
      flags: 0,
    };
  }

  function guildCreatePayload(state: GuildState): DiscordApiGuild {
    const members = [...state.members.entries()].map(([userId, entry]) => ({
      ...entry,
      user: users.get(userId) ?? bot,
    }));
    return { ...state.api, members, member_count: members.length };
  }

  function addUser(input: { id?: string; username: string; globalName?: string }): DiscordApiUser {
    const user: DiscordApiUser = {
      id: input.id ?? nextId(),
      username: input.username,
      global_name: input.globalName ?? null,
      discriminator: '0',
      avatar: null,
    };
    users.set(user.id, user);
    return user;
  }

  function addGuild(input: FakeDiscordGuildInput): FakeDiscordGuild {
    const id = input.id ?? nextId();
    if (guilds.has(id))
      throw new TestkitError('TESTKIT_INVALID_OPTIONS', `FakeDiscord.addGuild: guild ${id} exists`);
    const everyone: DiscordApiRole = role(id, '@everyone', 0);
    const declared = (input.roles ?? []).map((entry, index) =>
      role(entry.id ?? nextId(), entry.name, index + 1),
    );
    const botRole = role(nextId(), bot.username, declared.length + 1, {
      managed: true,
      tags: { bot_id: bot.id },
    });
    const guildChannels = (input.channels ?? [{ name: 'general' }]).map((entry, index) =>
      guildChannel(id, entry, index),
    );
    for (const channel of guildChannels) channels.set(channel.id, channel);
    const botRoleIds = [botRole.id, ...(input.botRoles ?? [])];
    for (const roleId of input.botRoles ?? []) {
      if (!declared.some((entry) => entry.id === roleId))
        throw new TestkitError(
          'TESTKIT_INVALID_OPTIONS',
          `FakeDiscord.addGuild: botRoles lists ${roleId}, which is not one of the guild's roles`,
        );
    }
    const state: GuildState = {
      api: {
        id,
        name: input.name,
        icon: null,
        owner_id: bot.id,
        roles: [everyone, ...declared, botRole],
        emojis: [],
        stickers: [],
        features: [],
        channels: guildChannels,
        threads: [],
        members: [],
        member_count: 1,
        large: false,
        unavailable: false,
        joined_at: iso(),
        voice_states: [],
        presences: [],
        stage_instances: [],
        guild_scheduled_events: [],
        soundboard_sounds: [],
        preferred_locale: 'en-US',
        premium_tier: 0,
        verification_level: 0,
        default_message_notifications: 0,
        explicit_content_filter: 0,
        mfa_level: 0,
        nsfw_level: 0,
        system_channel_flags: 0,
        afk_timeout: 300,
      },
      members: new Map([[bot.id, member(botRoleIds)]]),
      botRoleId: botRole.id,
    };
    guilds.set(id, state);
    dispatchToAll('GUILD_CREATE', (session) =>
      session.intents & discordIntents.guilds ? guildCreatePayload(state) : undefined,
    );
    return {
      id,
      name: input.name,
      channels: Object.fromEntries(guildChannels.map((channel) => [channel.name ?? channel.id, channel.id])),
      roles: Object.fromEntries([...declared, botRole].map((entry) => [entry.name, entry.id])),
    };
  }

  function role(
    id: string,
    name: string,
    position: number,
    extra: Partial<Pick<DiscordApiRole, 'managed' | 'tags'>> = {},
  ): DiscordApiRole {
    return {
      id,
      name,
      color: 0,
      hoist: false,
      position,
      permissions: '0',
      managed: false,
      mentionable: true,
      flags: 0,
      ...extra,
    };
  }

  function requireGuild(guildId: string, what: string): GuildState {
    const state = guilds.get(guildId);
    if (state === undefined)
      throw new TestkitError('TESTKIT_INVALID_OPTIONS', `FakeDiscord.${what}: no guild ${guildId}`);
    return state;
  }

  function addChannel(guildId: string, input: FakeDiscordChannelInput): DiscordApiChannel {
    const state = requireGuild(guildId, 'addChannel');
    const channel = guildChannel(guildId, input, state.api.channels.length);
    state.api.channels.push(channel);
    channels.set(channel.id, channel);
    dispatchToAll('CHANNEL_CREATE', (session) =>
      session.intents & discordIntents.guilds ? channel : undefined,
    );
    return channel;
  }

  function setMember(guildId: string, userId: string, roleIds: readonly string[] = []): void {
    const state = requireGuild(guildId, 'setMember');
    requireUser(userId, 'setMember');
    for (const roleId of roleIds) {
      if (!state.api.roles.some((entry) => entry.id === roleId))
        throw new TestkitError(
          'TESTKIT_INVALID_OPTIONS',
          `FakeDiscord.setMember: guild ${guildId} has no role ${roleId}`,
        );
    }
    state.members.set(userId, member(roleIds));
  }

  function createThread(parentChannelId: string, input: { id?: string; name: string }): DiscordApiChannel {
    const parent = requireChannel(parentChannelId, 'createThread');
    if (parent.guild_id === undefined)
      throw new TestkitError(
        'TESTKIT_INVALID_OPTIONS',
        `FakeDiscord.createThread: ${parentChannelId} is not a guild channel`,
      );
    const state = requireGuild(parent.guild_id, 'createThread');
    const thread: DiscordApiChannel = {
      id: input.id ?? nextId(),
      type: discordChannelTypes.publicThread,
      guild_id: parent.guild_id,
      parent_id: parent.id,
      name: input.name,
      owner_id: bot.id,
      last_message_id: null,
      rate_limit_per_user: 0,
      message_count: 0,
      member_count: 1,
      thread_metadata: {
        archived: false,
        auto_archive_duration: 1440,
        archive_timestamp: iso(),
        locked: false,
      },
      flags: 0,
    };
    state.api.threads.push(thread);
    channels.set(thread.id, thread);
    dispatchToAll('THREAD_CREATE', (session) =>
      session.intents & discordIntents.guilds ? { ...thread, newly_created: true } : undefined,
    );
    return thread;
  }

  function dmChannel(userId: string): DiscordApiChannel {
    const existing = dmByUser.get(userId);
    if (existing !== undefined) return channels.get(existing)!;
    const user = requireUser(userId, 'dmChannel');
    const channel: DiscordApiChannel = {
      id: nextId(),
      type: discordChannelTypes.dm,
      last_message_id: null,
      recipients: [user],
      flags: 0,
    };
    channels.set(channel.id, channel);
    dmByUser.set(userId, channel.id);
    return channel;
  }

  function hostFile(channelId: string, input: FakeDiscordAttachmentInput): DiscordApiAttachment {
    const id = nextId();
    const path = `/attachments/${channelId}/${id}/${encodeURIComponent(input.fileName)}`;
    const contentType = input.contentType ?? 'application/octet-stream';
    files.set(path, { bytes: input.bytes, contentType });
    const url = `${baseUrl()}${path}`;
    return {
      id,
      filename: input.fileName,
      size: input.bytes.byteLength,
      url,
      proxy_url: url,
      content_type: contentType,
      width: null,
      height: null,
    };
  }

  function parseMentions(
    content: string,
    guild: GuildState | undefined,
  ): Pick<DiscordApiMessage, 'mentions' | 'mention_roles' | 'mention_everyone'> {
    const mentioned = new Map<string, DiscordApiUser & { member?: DiscordApiMember }>();
    for (const match of content.matchAll(/<@!?(\d+)>/g)) {
      const user = users.get(match[1]!);
      if (user === undefined) continue;
      const entry = guild?.members.get(user.id);
      mentioned.set(user.id, entry === undefined ? { ...user } : { ...user, member: entry });
    }
    const roles = new Set<string>();
    for (const match of content.matchAll(/<@&(\d+)>/g)) {
      if (guild?.api.roles.some((entry) => entry.id === match[1])) roles.add(match[1]!);
    }
    return {
      mentions: [...mentioned.values()],
      mention_roles: [...roles],
      mention_everyone: guild !== undefined && /@(everyone|here)\b/.test(content),
    };
  }

  function storeMessage(message: DiscordApiMessage): void {
    messagesById.set(message.id, message);
    const list = messagesByChannel.get(message.channel_id) ?? [];
    list.push(message);
    messagesByChannel.set(message.channel_id, list);
    const channel = channels.get(message.channel_id);
    if (channel !== undefined) {
      channel.last_message_id = message.id;
      if (channel.message_count !== undefined) channel.message_count += 1;
    }
  }

  function referenceFor(channel: DiscordApiChannel, messageId: string): DiscordApiMessage | undefined {
    const target = messagesById.get(messageId);
    return target?.channel_id === channel.id ? target : undefined;
  }

  function buildMessage(
    channel: DiscordApiChannel,
    author: DiscordApiUser,
    content: string,
    extra: {
      attachments?: DiscordApiAttachment[];
      referenced?: DiscordApiMessage;
      flags?: number;
      nonce?: string | number;
    },
  ): DiscordApiMessage {
    const guild = channel.guild_id === undefined ? undefined : guilds.get(channel.guild_id);
    const referenced = extra.referenced;
    const authorMember = guild?.members.get(author.id);
    return {
      id: nextId(),
      channel_id: channel.id,
      guild_id: guild?.api.id,
      author,
      member: authorMember,
      content,
      timestamp: iso(),
      edited_timestamp: null,
      tts: false,
      ...parseMentions(content, guild),
      attachments: extra.attachments ?? [],
      embeds: [],
      pinned: false,
      type: referenced === undefined ? 0 : 19,
      flags: extra.flags ?? 0,
      nonce: extra.nonce,
      ...(referenced === undefined
        ? {}
        : {
            message_reference: {
              message_id: referenced.id,
              channel_id: channel.id,
              guild_id: guild?.api.id,
            },
            referenced_message: { ...referenced, referenced_message: null },
          }),
    };
  }

  return {
    bot,
    users,
    guilds,
    channels,
    messagesById,
    messagesByChannel,
    files,
    nonces,
    iso,
    requireUser,
    requireChannel,
    requireGuild,
    member,
    guildCreatePayload,
    addUser,
    addGuild,
    addChannel,
    setMember,
    createThread,
    dmChannel,
    hostFile,
    parseMentions,
    storeMessage,
    referenceFor,
    buildMessage,
  };
}
