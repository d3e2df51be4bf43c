// A fake Discord on one real HTTP server (127.0.0.1, port 0): the REST API under /api/v10
// and the gateway WebSocket under /gateway. The real discord.js talks to it through
// `rest: { api: fake.restApi }`; the gateway URL follows from `GET /gateway/bot`, and READY
// carries a `resume_gateway_url` pointing back here, so reconnects and RESUMEs stay local.
//
// One fake serves one bot (one token). A test builds the world (users, guilds, channels,
// threads), writes messages as users, reads what the bot sent, and injects faults: 429 with
// retry-after, HTTP errors, a revoked token (401 / close 4004), a missing privileged intent
// (close 4014), op 7 RECONNECT, dropped connections and invalid sessions.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import { TestkitError } from '../shared/errors.ts';
import { closeServer, listenOnLoopback } from '../shared/http-server.ts';
import { createConditionWaiter, whenTrue } from '../shared/waiter.ts';
import { createSnowflakeGenerator } from './snowflake.ts';
import {
  type DiscordApiAttachment,
  type DiscordApiChannel,
  type DiscordApiGuild,
  type DiscordApiMember,
  type DiscordApiMessage,
  type DiscordApiRole,
  type DiscordApiUser,
  discordChannelTypes,
  discordCloseCodes,
  discordErrorCodes,
  discordIntents,
} from './types.ts';

/** The most characters Discord accepts in a message's `content`. */
export const discordContentLimit = 2000;

export interface FakeDiscordOptions {
  /** The bot token the fake accepts (REST `Authorization: Bot <token>`, gateway IDENTIFY). */
  readonly token?: string;
  /** The bot user. */
  readonly bot?: { readonly id?: string; readonly username?: string };
  /** `heartbeat_interval` sent in HELLO. Default 41250 ms, as Discord. */
  readonly heartbeatIntervalMs?: number;
  /**
   * Whether the Message Content privileged intent is enabled for the bot "in the developer
   * portal". When false, an IDENTIFY asking for it is closed with 4014. Default true.
   */
  readonly messageContentIntent?: boolean;
  /** How many dispatches a session keeps for RESUME replays. Default 1000. */
  readonly replayBufferSize?: number;
  /** The clock for ids and timestamps. Default `Date.now`. */
  readonly now?: () => number;
}

/** A file a user attaches to a message. */
export interface FakeDiscordAttachmentInput {
  readonly bytes: Uint8Array;
  readonly fileName: string;
  readonly contentType?: string;
}

export interface FakeDiscordSendOptions {
  readonly attachments?: readonly FakeDiscordAttachmentInput[];
  /** The id of a message in the same channel this one replies to. */
  readonly replyTo?: string;
}

/** A file the bot uploaded, as the fake received it. */
export interface FakeDiscordUpload {
  readonly field: string;
  readonly fileName: string;
  readonly contentType: string;
  readonly bytes: Uint8Array;
}

/** One REST request, as the fake saw it. */
export interface RecordedDiscordRequest {
  readonly method: string;
  /** The path after `/api/v<n>`, e.g. `/channels/123/messages`. */
  readonly path: string;
  readonly status: number;
  readonly authorization: string | undefined;
  readonly userAgent: string | undefined;
  readonly contentType: string | undefined;
  /** The JSON body (for multipart: the parsed `payload_json`). */
  readonly json: unknown;
  readonly files: readonly FakeDiscordUpload[];
  readonly at: number;
}

/** A typing indicator the bot triggered. */
export interface FakeDiscordTyping {
  readonly channelId: string;
  readonly at: number;
}

/** A reaction the bot added. */
export interface FakeDiscordReaction {
  readonly channelId: string;
  readonly messageId: string;
  readonly emoji: string;
}

/** An edit the bot made. */
export interface FakeDiscordEdit {
  readonly channelId: string;
  readonly messageId: string;
  readonly content: string;
}

/** A gateway session, as the driver sees it. */
export interface FakeDiscordSessionInfo {
  readonly id: string;
  readonly connected: boolean;
  readonly intents: number;
  readonly resumes: number;
  readonly sequence: number;
}

/** Answer matching REST requests with 429 Too Many Requests. */
export interface RateLimitFault {
  /** How many requests get the 429. Default 1. */
  readonly count?: number;
  /** The `Retry-After` header and `retry_after` field, in seconds. Default 1. */
  readonly retryAfterSeconds?: number;
  /** Only this HTTP method (e.g. `POST`). Default any. */
  readonly method?: string;
  /** Only paths (after `/api/v10`) matching this. Default any. */
  readonly path?: RegExp;
  /** Mark the limit global (`X-RateLimit-Global`). Default false. */
  readonly global?: boolean;
}

/** Answer matching REST requests with an HTTP error. */
export interface ErrorFault {
  readonly status: number;
  readonly count?: number;
  /** Discord's JSON error code. Default 0. */
  readonly code?: number;
  readonly message?: string;
  readonly method?: string;
  readonly path?: RegExp;
}

/** A guild's channel as the driver declares it. */
export interface FakeDiscordChannelInput {
  readonly id?: string;
  readonly name: string;
  /** Default `text`. */
  readonly type?: 'text' | 'announcement' | 'forum';
}

export interface FakeDiscordGuildInput {
  readonly id?: string;
  readonly name: string;
  readonly channels?: readonly FakeDiscordChannelInput[];
  /** Roles besides @everyone (whose id is the guild id). */
  readonly roles?: ReadonlyArray<{ readonly id?: string; readonly name: string }>;
  /** Role ids (from `roles`) the bot's member holds. The bot always holds its managed role. */
  readonly botRoles?: readonly string[];
}

/** What the driver gets back for a guild it created. */
export interface FakeDiscordGuild {
  readonly id: string;
  readonly name: string;
  /** Channel ids by name. */
  readonly channels: Readonly<Record<string, string>>;
  /** Role ids by name (including the bot's managed role under the bot's username). */
  readonly roles: Readonly<Record<string, string>>;
}

export interface FakeDiscordWaitOptions {
  readonly timeoutMs?: number;
}

/** The running fake: REST + gateway, a driver API and fault injection. */
export interface FakeDiscord {
  /** Starts listening on 127.0.0.1:0. Resolves with the fake itself. */
  start(): Promise<FakeDiscord>;
  /** Closes every socket and the server. */
  close(): Promise<void>;
  /** `http://127.0.0.1:<port>/api`: the `rest.api` option of discord.js (it appends `/v10`). */
  readonly restApi: string;
  /** `http://127.0.0.1:<port>`. */
  readonly baseUrl: string;
  /** `ws://127.0.0.1:<port>/gateway`: what `GET /gateway/bot` and READY point at. */
  readonly gatewayUrl: string;
  /** The token the fake currently accepts. */
  readonly token: string;
  readonly bot: DiscordApiUser;

  // The world -------------------------------------------------------------------------
  addUser(input: {
    readonly id?: string;
    readonly username: string;
    readonly globalName?: string;
  }): DiscordApiUser;
  addGuild(input: FakeDiscordGuildInput): FakeDiscordGuild;
  /** Adds a channel to a guild (CHANNEL_CREATE to live sessions). */
  addChannel(guildId: string, input: FakeDiscordChannelInput): DiscordApiChannel;
  /** Makes a user a member of a guild with these role ids (replacing earlier roles). */
  setMember(guildId: string, userId: string, roleIds?: readonly string[]): void;
  /** Opens a public thread under a guild channel (THREAD_CREATE to live sessions). */
  createThread(
    parentChannelId: string,
    input: { readonly id?: string; readonly name: string },
  ): DiscordApiChannel;
  /** The DM channel between the bot and a user (created on first use). */
  dmChannel(userId: string): DiscordApiChannel;
  channel(channelId: string): DiscordApiChannel | undefined;

  // Users write -------------------------------------------------------------------------
  /** A user DMs the bot. Dispatches MESSAGE_CREATE (channel_type 1) to live sessions. */
  sendDirect(userId: string, content: string, options?: FakeDiscordSendOptions): DiscordApiMessage;
  /** A user writes in a guild channel or thread (MESSAGE_CREATE with guild_id and member). */
  sendToChannel(
    channelId: string,
    userId: string,
    content: string,
    options?: FakeDiscordSendOptions,
  ): DiscordApiMessage;
  /** Dispatches MESSAGE_CREATE for an existing message again (same id). */
  redeliver(messageId: string): void;

  // What the bot did ----------------------------------------------------------------------
  message(messageId: string): DiscordApiMessage | undefined;
  /** Every message in a channel, oldest first. */
  messages(channelId: string): readonly DiscordApiMessage[];
  /** The messages the bot sent to a channel, oldest first. */
  botMessages(channelId: string): readonly DiscordApiMessage[];
  /** Resolves once the bot sent at least `count` messages to the channel. */
  waitForBotMessages(
    channelId: string,
    count: number,
    options?: FakeDiscordWaitOptions,
  ): Promise<readonly DiscordApiMessage[]>;
  readonly requests: readonly RecordedDiscordRequest[];
  readonly typings: readonly FakeDiscordTyping[];
  readonly edits: readonly FakeDiscordEdit[];
  readonly reactions: readonly FakeDiscordReaction[];
  /** How many requests got a 429 so far. */
  readonly rateLimitedCount: number;
  /** Heartbeats (op 1) received, each answered with op 11 HEARTBEAT_ACK. */
  readonly heartbeatCount: number;
  /** IDENTIFYs and RESUMEs received so far. */
  readonly identifyCount: number;
  readonly resumeCount: number;
  sessions(): readonly FakeDiscordSessionInfo[];
  /** Resolves once a session is connected and READY (or RESUMED). */
  waitForSession(options?: FakeDiscordWaitOptions): Promise<FakeDiscordSessionInfo>;
  /** Resolves once `predicate` holds; re-checked after every change the fake sees. */
  waitFor(predicate: () => boolean, description: string, options?: FakeDiscordWaitOptions): Promise<void>;

  // Faults ------------------------------------------------------------------------------
  rateLimitNext(fault?: RateLimitFault): void;
  failNext(fault: ErrorFault): void;
  /** Invalidates the current token: REST answers 401, live sessions close with 4004. */
  revokeToken(): void;
  /** Accepts a new token from now on (the old one gets 401 / 4004). */
  setToken(token: string): void;
  /** Turns the Message Content intent on or off "in the developer portal". */
  setMessageContentIntent(enabled: boolean): void;
  /** Sends op 7 RECONNECT to every connected session (the client resumes). */
  forceReconnect(): void;
  /** Closes every gateway connection with `code` (default 4000: the client resumes), or drops it. */
  dropConnections(options?: { readonly code?: number; readonly abrupt?: boolean }): void;
  /** Sends op 9 INVALID_SESSION (not resumable by default) to every connected session. */
  invalidateSessions(resumable?: boolean): void;
}

interface Session {
  readonly id: string;
  readonly intents: number;
  sequence: number;
  socket: WebSocket | undefined;
  ready: boolean;
  resumes: number;
  readonly events: Array<{ s: number; t: string; d: unknown }>;
}

interface PendingFault<Fault> {
  fault: Fault;
  remaining: number;
}

interface GuildState {
  readonly api: DiscordApiGuild;
  readonly members: Map<string, DiscordApiMember>;
  readonly botRoleId: string;
}

/** A file part of a parsed multipart body. */
interface FormFile {
  readonly name: string;
  readonly type: string;
  arrayBuffer(): Promise<ArrayBuffer>;
}

interface HostedFile {
  readonly bytes: Uint8Array;
  readonly contentType: string;
}

const jsonHeaders = { 'content-type': 'application/json' };
const maxBodyBytes = 64 * 1024 * 1024;
const defaultWaitMs = 10_000;

/** Creates a fake Discord. Call `start()` before use. */
export function createFakeDiscord(options: FakeDiscordOptions = {}): FakeDiscord {
  const now = options.now ?? Date.now;
  const nextId = createSnowflakeGenerator(now);
  const heartbeatIntervalMs = options.heartbeatIntervalMs ?? 41_250;
  const replayBufferSize = options.replayBufferSize ?? 1000;
  let token = options.token ?? `fake-discord.${randomBytes(12).toString('hex')}`;
  let tokenValid = true;
  let messageContentAllowed = options.messageContentIntent ?? true;

  const bot: DiscordApiUser = {
    id: options.bot?.id ?? nextId(),
    username: options.bot?.username ?? 'switchboard-bot',
    global_name: null,
    discriminator: '0',
    avatar: null,
    bot: true,
  };
  const applicationId = nextId();

  const users = new Map<string, DiscordApiUser>([[bot.id, bot]]);
  const guilds = new Map<string, GuildState>();
  const channels = new Map<string, DiscordApiChannel>();
  const dmByUser = new Map<string, string>();
  const messagesById = new Map<string, DiscordApiMessage>();
  const messagesByChannel = new Map<string, DiscordApiMessage[]>();
  const files = new Map<string, HostedFile>();
  /** Messages the bot posted with `enforce_nonce`, by `<channelId>:<nonce>`. */
  const nonces = new Map<string, DiscordApiMessage>();
  const sessions = new Map<string, Session>();
  const requests: RecordedDiscordRequest[] = [];
  const typings: FakeDiscordTyping[] = [];
  const edits: FakeDiscordEdit[] = [];
  const reactions: FakeDiscordReaction[] = [];
  const rateLimits: Array<PendingFault<RateLimitFault>> = [];
  const errorFaults: Array<PendingFault<ErrorFault>> = [];
  const waiter = createConditionWaiter({ subject: 'FakeDiscord', defaultTimeoutMs: defaultWaitMs });
  let rateLimitedCount = 0;
  let identifyCount = 0;
  let heartbeatCount = 0;
  let resumeCount = 0;

  let server: Server | undefined;
  let sockets: WebSocketServer | undefined;
  let port = 0;
  let closed = false;

  const notify = (): void => waiter.notify();

  const requirePort = (): number => {
    if (port === 0) throw new TestkitError('TESTKIT_NOT_STARTED', 'FakeDiscord: call start() before use');
    return port;
  };
  const baseUrl = (): string => `http://127.0.0.1:${requirePort()}`;
  const gatewayUrl = (): string => `ws://127.0.0.1:${requirePort()}/gateway`;
  const iso = (): string => new Date(now()).toISOString();

  // ----- the world --------------------------------------------------------------------

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

  function dispatchToAll(type: string, payloadFor: (session: Session) => unknown): void {
    for (const session of sessions.values()) {
      const payload = payloadFor(session);
      if (payload !== undefined) pushEvent(session, type, payload);
    }
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

  // ----- messages ---------------------------------------------------------------------

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
      ...(guild === undefined ? {} : { guild_id: guild.api.id }),
      author,
      ...(authorMember === undefined ? {} : { member: authorMember }),
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
      ...(extra.nonce === undefined ? {} : { nonce: extra.nonce }),
      ...(referenced === undefined
        ? {}
        : {
            message_reference: {
              message_id: referenced.id,
              channel_id: channel.id,
              ...(guild === undefined ? {} : { guild_id: guild.api.id }),
            },
            referenced_message: { ...referenced, referenced_message: null },
          }),
    };
  }

  /** The MESSAGE_CREATE payload one session gets, or undefined when its intents exclude it. */
  function messagePayload(session: Session, message: DiscordApiMessage): unknown {
    const channel = channels.get(message.channel_id);
    const isDirect = channel?.type === discordChannelTypes.dm;
    const needed = isDirect ? discordIntents.directMessages : discordIntents.guildMessages;
    if ((session.intents & needed) === 0) return undefined;
    const seesContent =
      (session.intents & discordIntents.messageContent) !== 0 ||
      isDirect ||
      message.author.id === bot.id ||
      message.mentions.some((user) => user.id === bot.id);
    return {
      ...message,
      channel_type: channel?.type ?? discordChannelTypes.guildText,
      ...(seesContent ? {} : { content: '', embeds: [], attachments: [] }),
    };
  }

  function dispatchMessage(type: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE', message: DiscordApiMessage): void {
    dispatchToAll(type, (session) => messagePayload(session, message));
  }

  function userMessage(
    channel: DiscordApiChannel,
    author: DiscordApiUser,
    content: string,
    options: FakeDiscordSendOptions,
    what: string,
  ): DiscordApiMessage {
    let referenced: DiscordApiMessage | undefined;
    if (options.replyTo !== undefined) {
      referenced = referenceFor(channel, options.replyTo);
      if (referenced === undefined)
        throw new TestkitError(
          'TESTKIT_INVALID_OPTIONS',
          `FakeDiscord.${what}: replyTo ${options.replyTo} is not a message in channel ${channel.id}`,
        );
    }
    const attachments = (options.attachments ?? []).map((input) => hostFile(channel.id, input));
    const message = buildMessage(channel, author, content, {
      attachments,
      ...(referenced === undefined ? {} : { referenced }),
    });
    storeMessage(message);
    dispatchMessage('MESSAGE_CREATE', message);
    notify();
    return message;
  }

  function sendDirect(
    userId: string,
    content: string,
    options: FakeDiscordSendOptions = {},
  ): DiscordApiMessage {
    const author = requireUser(userId, 'sendDirect');
    return userMessage(dmChannel(userId), author, content, options, 'sendDirect');
  }

  function sendToChannel(
    channelId: string,
    userId: string,
    content: string,
    options: FakeDiscordSendOptions = {},
  ): DiscordApiMessage {
    const channel = requireChannel(channelId, 'sendToChannel');
    if (channel.guild_id === undefined)
      throw new TestkitError(
        'TESTKIT_INVALID_OPTIONS',
        `FakeDiscord.sendToChannel: ${channelId} is a DM channel; use sendDirect`,
      );
    const author = requireUser(userId, 'sendToChannel');
    const state = requireGuild(channel.guild_id, 'sendToChannel');
    if (!state.members.has(userId)) state.members.set(userId, member([]));
    return userMessage(channel, author, content, options, 'sendToChannel');
  }

  function redeliver(messageId: string): void {
    const message = messagesById.get(messageId);
    if (message === undefined)
      throw new TestkitError('TESTKIT_INVALID_OPTIONS', `FakeDiscord.redeliver: no message ${messageId}`);
    dispatchMessage('MESSAGE_CREATE', message);
  }

  // ----- the gateway ------------------------------------------------------------------

  function send(socket: WebSocket, frame: unknown): void {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
  }

  function pushEvent(session: Session, type: string, payload: unknown): void {
    session.sequence += 1;
    const event = { s: session.sequence, t: type, d: payload };
    session.events.push(event);
    if (session.events.length > replayBufferSize) session.events.shift();
    if (session.socket !== undefined && session.ready)
      send(session.socket, { op: 0, t: type, s: event.s, d: payload });
  }

  function stripBotPrefix(value: unknown): string {
    const text = typeof value === 'string' ? value : '';
    return text.startsWith('Bot ') ? text.slice(4) : text;
  }

  function identify(
    socket: WebSocket,
    data: Record<string, unknown>,
    bind: (session: Session) => void,
  ): void {
    identifyCount += 1;
    if (!tokenValid || stripBotPrefix(data.token) !== token) {
      socket.close(discordCloseCodes.authenticationFailed, 'Authentication failed.');
      notify();
      return;
    }
    const intents = Number(data.intents ?? 0);
    if ((intents & discordIntents.messageContent) !== 0 && !messageContentAllowed) {
      socket.close(discordCloseCodes.disallowedIntents, 'Disallowed intent(s).');
      notify();
      return;
    }
    // A fresh IDENTIFY replaces sessions nobody is connected to (a restarted client).
    for (const [id, existing] of sessions) if (existing.socket === undefined) sessions.delete(id);
    const session: Session = {
      id: randomBytes(16).toString('hex'),
      intents,
      sequence: 0,
      socket,
      ready: false,
      resumes: 0,
      events: [],
    };
    sessions.set(session.id, session);
    bind(session);
    session.sequence += 1;
    send(socket, {
      op: 0,
      t: 'READY',
      s: session.sequence,
      d: {
        v: 10,
        user: { ...bot, verified: true, mfa_enabled: false, flags: 0 },
        guilds: [...guilds.keys()].map((id) => ({ id, unavailable: true })),
        session_id: session.id,
        resume_gateway_url: gatewayUrl(),
        shard: [0, 1],
        application: { id: applicationId, flags: 0 },
        private_channels: [],
      },
    });
    session.ready = true;
    if (intents & discordIntents.guilds) {
      for (const state of guilds.values()) pushEvent(session, 'GUILD_CREATE', guildCreatePayload(state));
    }
    notify();
  }

  function resume(socket: WebSocket, data: Record<string, unknown>, bind: (session: Session) => void): void {
    resumeCount += 1;
    if (!tokenValid || stripBotPrefix(data.token) !== token) {
      socket.close(discordCloseCodes.authenticationFailed, 'Authentication failed.');
      notify();
      return;
    }
    const session = sessions.get(String(data.session_id));
    if (session === undefined) {
      send(socket, { op: 9, d: false });
      notify();
      return;
    }
    const from = Number(data.seq ?? 0);
    if (from > session.sequence) {
      socket.close(discordCloseCodes.invalidSeq, 'Invalid seq.');
      notify();
      return;
    }
    if (session.socket !== undefined && session.socket !== socket)
      session.socket.close(discordCloseCodes.unknownError, 'Session resumed elsewhere.');
    session.socket = socket;
    session.resumes += 1;
    bind(session);
    for (const event of session.events)
      if (event.s > from) send(socket, { op: 0, t: event.t, s: event.s, d: event.d });
    session.sequence += 1;
    send(socket, { op: 0, t: 'RESUMED', s: session.sequence, d: {} });
    session.ready = true;
    notify();
  }

  function onConnection(socket: WebSocket): void {
    let session: Session | undefined;
    const bind = (bound: Session): void => {
      session = bound;
    };
    send(socket, { op: 10, d: { heartbeat_interval: heartbeatIntervalMs } });
    socket.on('message', (raw: RawData) => {
      let frame: { op?: unknown; d?: unknown };
      try {
        frame = JSON.parse(raw.toString()) as { op?: unknown; d?: unknown };
      } catch {
        socket.close(4002, 'Error while decoding payload.');
        return;
      }
      const data = (typeof frame.d === 'object' && frame.d !== null ? frame.d : {}) as Record<
        string,
        unknown
      >;
      switch (frame.op) {
        case 1:
          heartbeatCount += 1;
          send(socket, { op: 11 });
          notify();
          return;
        case 2:
          if (session !== undefined) {
            socket.close(4005, 'Already authenticated.');
            return;
          }
          identify(socket, data, bind);
          return;
        case 6:
          resume(socket, data, bind);
          return;
        case 3:
        case 4:
        case 8:
          return;
        default:
          socket.close(4001, 'Unknown opcode.');
      }
    });
    socket.on('close', (code: number) => {
      if (session === undefined || session.socket !== socket) return;
      session.socket = undefined;
      session.ready = false;
      // A normal close from the client ends the session; anything else leaves it resumable.
      if (code === 1000 || code === 1001) sessions.delete(session.id);
      notify();
    });
  }

  // ----- REST -------------------------------------------------------------------------

  interface RestRequest {
    readonly method: string;
    readonly path: string;
    readonly json: unknown;
    readonly files: readonly FakeDiscordUpload[];
  }

  interface RestReply {
    readonly status: number;
    readonly body?: unknown;
    readonly headers?: Readonly<Record<string, string>>;
  }

  const error = (status: number, code: number, message: string, errors?: unknown): RestReply => ({
    status,
    body: { message, code, ...(errors === undefined ? {} : { errors }) },
  });

  function contentError(content: unknown): RestReply | undefined {
    if (content === undefined || content === null) return undefined;
    if (typeof content !== 'string')
      return error(400, discordErrorCodes.invalidFormBody, 'Invalid Form Body', {
        content: {
          _errors: [{ code: 'STRING_TYPE_CONVERT', message: 'Could not interpret the value as string.' }],
        },
      });
    if (content.length > discordContentLimit)
      return error(400, discordErrorCodes.invalidFormBody, 'Invalid Form Body', {
        content: {
          _errors: [
            { code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${discordContentLimit} or fewer in length.` },
          ],
        },
      });
    return undefined;
  }

  function postMessage(channel: DiscordApiChannel, request: RestRequest): RestReply {
    const body = (typeof request.json === 'object' && request.json !== null ? request.json : {}) as Record<
      string,
      unknown
    >;
    const invalid = contentError(body.content);
    if (invalid !== undefined) return invalid;
    const nonce =
      typeof body.nonce === 'string' || typeof body.nonce === 'number' ? String(body.nonce) : undefined;
    if (nonce !== undefined && body.enforce_nonce === true) {
      // Discord answers a repeated nonce with the message it created the first time.
      const earlier = nonces.get(`${channel.id}:${nonce}`);
      if (earlier !== undefined) return { status: 200, body: earlier };
    }
    const content = typeof body.content === 'string' ? body.content : '';
    const embeds = Array.isArray(body.embeds) ? body.embeds : [];
    const stickers = Array.isArray(body.sticker_ids) ? body.sticker_ids : [];
    if (content.trim() === '' && request.files.length === 0 && embeds.length === 0 && stickers.length === 0)
      return error(400, discordErrorCodes.cannotSendEmptyMessage, 'Cannot send an empty message');
    let referenced: DiscordApiMessage | undefined;
    const reference = body.message_reference as Record<string, unknown> | undefined;
    if (reference !== undefined && reference !== null && typeof reference.message_id === 'string') {
      referenced = referenceFor(channel, reference.message_id);
      if (referenced === undefined && reference.fail_if_not_exists !== false)
        return error(400, discordErrorCodes.invalidFormBody, 'Invalid Form Body', {
          message_reference: {
            _errors: [{ code: 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE', message: 'Unknown message' }],
          },
        });
    }
    const attachments = request.files.map((file) =>
      hostFile(channel.id, { bytes: file.bytes, fileName: file.fileName, contentType: file.contentType }),
    );
    const message = buildMessage(channel, bot, content, {
      attachments,
      ...(referenced === undefined ? {} : { referenced }),
      flags: typeof body.flags === 'number' ? body.flags : 0,
      ...(typeof body.nonce === 'string' || typeof body.nonce === 'number' ? { nonce: body.nonce } : {}),
    });
    message.embeds = embeds;
    if (nonce !== undefined && body.enforce_nonce === true) nonces.set(`${channel.id}:${nonce}`, message);
    storeMessage(message);
    dispatchMessage('MESSAGE_CREATE', message);
    return { status: 200, body: message };
  }

  function patchMessage(channel: DiscordApiChannel, messageId: string, request: RestRequest): RestReply {
    const message = referenceFor(channel, messageId);
    if (message === undefined) return error(404, discordErrorCodes.unknownMessage, 'Unknown Message');
    if (message.author.id !== bot.id)
      return error(403, 50005, 'Cannot edit a message authored by another user');
    const body = (typeof request.json === 'object' && request.json !== null ? request.json : {}) as Record<
      string,
      unknown
    >;
    const invalid = contentError(body.content);
    if (invalid !== undefined) return invalid;
    if (typeof body.content === 'string') {
      message.content = body.content;
      const guild = channel.guild_id === undefined ? undefined : guilds.get(channel.guild_id);
      Object.assign(message, parseMentions(body.content, guild));
    }
    if (request.files.length > 0)
      message.attachments = request.files.map((file) =>
        hostFile(channel.id, { bytes: file.bytes, fileName: file.fileName, contentType: file.contentType }),
      );
    message.edited_timestamp = iso();
    edits.push({ channelId: channel.id, messageId, content: message.content });
    dispatchMessage('MESSAGE_UPDATE', message);
    return { status: 200, body: message };
  }

  function route(request: RestRequest): RestReply {
    const { method, path } = request;
    const segments = path.split('/').filter((segment) => segment !== '');
    const [first, second, third, fourth, fifth, sixth, seventh] = segments;
    if (method === 'GET' && first === 'gateway' && (second === undefined || second === 'bot')) {
      return {
        status: 200,
        body:
          second === 'bot'
            ? {
                url: gatewayUrl(),
                shards: 1,
                session_start_limit: {
                  total: 1000,
                  remaining: 999,
                  reset_after: 14_400_000,
                  max_concurrency: 1,
                },
              }
            : { url: gatewayUrl() },
      };
    }
    if (first === 'users') {
      if (method === 'GET' && second === '@me' && third === undefined) return { status: 200, body: bot };
      if (method === 'POST' && second === '@me' && third === 'channels') {
        const recipient = (request.json as { recipient_id?: unknown } | null)?.recipient_id;
        if (typeof recipient !== 'string' || !users.has(recipient))
          return error(400, discordErrorCodes.unknownUser, 'Unknown User');
        return { status: 200, body: dmChannel(recipient) };
      }
      if (method === 'GET' && second !== undefined && third === undefined) {
        const user = users.get(second);
        return user === undefined
          ? error(404, discordErrorCodes.unknownUser, 'Unknown User')
          : { status: 200, body: user };
      }
    }
    if (first === 'channels' && second !== undefined) {
      const channel = channels.get(second);
      if (channel === undefined) return error(404, discordErrorCodes.unknownChannel, 'Unknown Channel');
      if (method === 'GET' && third === undefined) return { status: 200, body: channel };
      if (method === 'POST' && third === 'typing' && fourth === undefined) {
        typings.push({ channelId: channel.id, at: now() });
        return { status: 204 };
      }
      if (third === 'messages') {
        if (method === 'POST' && fourth === undefined) return postMessage(channel, request);
        if (method === 'GET' && fourth === undefined)
          return { status: 200, body: [...(messagesByChannel.get(channel.id) ?? [])].reverse().slice(0, 50) };
        if (fourth !== undefined && fifth === undefined) {
          if (method === 'PATCH') return patchMessage(channel, fourth, request);
          if (method === 'GET') {
            const message = referenceFor(channel, fourth);
            return message === undefined
              ? error(404, discordErrorCodes.unknownMessage, 'Unknown Message')
              : { status: 200, body: message };
          }
        }
        if (
          method === 'PUT' &&
          fourth !== undefined &&
          fifth === 'reactions' &&
          sixth !== undefined &&
          seventh === '@me'
        ) {
          if (referenceFor(channel, fourth) === undefined)
            return error(404, discordErrorCodes.unknownMessage, 'Unknown Message');
          reactions.push({ channelId: channel.id, messageId: fourth, emoji: decodeURIComponent(sixth) });
          return { status: 204 };
        }
      }
    }
    return error(404, 0, '404: Not Found');
  }

  function takeFault<Fault extends { method?: string; path?: RegExp }>(
    list: Array<PendingFault<Fault>>,
    method: string,
    path: string,
  ): Fault | undefined {
    const index = list.findIndex(
      (entry) =>
        (entry.fault.method === undefined || entry.fault.method.toUpperCase() === method) &&
        (entry.fault.path === undefined || entry.fault.path.test(path)),
    );
    if (index === -1) return undefined;
    const entry = list[index]!;
    entry.remaining -= 1;
    if (entry.remaining <= 0) list.splice(index, 1);
    return entry.fault;
  }

  async function readRequest(request: IncomingMessage): Promise<Buffer | undefined> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request) {
      size += (chunk as Buffer).length;
      if (size > maxBodyBytes) return undefined;
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  }

  async function parseBody(
    contentType: string | undefined,
    raw: Buffer,
  ): Promise<{ json: unknown; files: FakeDiscordUpload[] } | undefined> {
    if (raw.length === 0) return { json: undefined, files: [] };
    if (contentType?.startsWith('multipart/form-data')) {
      // undici parses the standard multipart discord.js writes. The global FormData type is
      // an empty interface when a DOM-like global is in scope, so its entries are typed here.
      const form = (await new Response(new Uint8Array(raw), {
        headers: { 'content-type': contentType },
      }).formData()) as unknown as Iterable<[string, string | FormFile]>;
      const uploads: FakeDiscordUpload[] = [];
      let json: unknown;
      for (const [field, value] of form) {
        if (typeof value === 'string') {
          if (field === 'payload_json') json = JSON.parse(value);
          continue;
        }
        uploads.push({
          field,
          fileName: value.name,
          contentType: value.type === '' ? 'application/octet-stream' : value.type,
          bytes: new Uint8Array(await value.arrayBuffer()),
        });
      }
      return { json, files: uploads };
    }
    return { json: JSON.parse(raw.toString('utf8')), files: [] };
  }

  function writeReply(response: ServerResponse, reply: RestReply): void {
    if (reply.status === 204) {
      // No content-type on a 204: @discordjs/rest would JSON.parse('') and fail.
      response.writeHead(204, reply.headers ?? {});
      response.end();
      return;
    }
    response.writeHead(reply.status, { ...jsonHeaders, ...reply.headers });
    response.end(JSON.stringify(reply.body ?? null));
  }

  async function handleHttp(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method === 'GET' && url.pathname.startsWith('/attachments/')) {
      const file = files.get(url.pathname);
      if (file === undefined) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
        return;
      }
      response.writeHead(200, {
        'content-type': file.contentType,
        'content-length': String(file.bytes.byteLength),
      });
      response.end(Buffer.from(file.bytes));
      return;
    }
    const match = /^\/api\/v(\d+)(\/.*)$/.exec(url.pathname);
    if (match === null) {
      writeReply(response, error(404, 0, '404: Not Found'));
      return;
    }
    const method = (request.method ?? 'GET').toUpperCase();
    const path = match[2]!;
    const authorization = request.headers.authorization;
    const contentType = request.headers['content-type'];
    const raw = await readRequest(request);
    const record = (status: number, json: unknown, uploads: readonly FakeDiscordUpload[]): void => {
      requests.push({
        method,
        path,
        status,
        authorization,
        userAgent: request.headers['user-agent'],
        contentType,
        json,
        files: uploads,
        at: now(),
      });
      notify();
    };
    if (raw === undefined) {
      record(413, undefined, []);
      writeReply(response, error(413, 40005, 'Request entity too large'));
      return;
    }
    let parsed: { json: unknown; files: FakeDiscordUpload[] } | undefined;
    try {
      parsed = await parseBody(contentType, raw);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined) {
      record(400, undefined, []);
      writeReply(response, error(400, 50109, 'The request body contains invalid JSON.'));
      return;
    }
    if (!tokenValid || authorization !== `Bot ${token}`) {
      record(401, parsed.json, parsed.files);
      writeReply(response, error(401, 0, '401: Unauthorized'));
      return;
    }
    const limited = takeFault(rateLimits, method, path);
    if (limited !== undefined) {
      rateLimitedCount += 1;
      const retryAfter = limited.retryAfterSeconds ?? 1;
      record(429, parsed.json, parsed.files);
      writeReply(response, {
        status: 429,
        headers: {
          'retry-after': String(retryAfter),
          'x-ratelimit-scope': limited.global === true ? 'global' : 'user',
          ...(limited.global === true ? { 'x-ratelimit-global': 'true' } : {}),
        },
        body: {
          message: 'You are being rate limited.',
          retry_after: retryAfter,
          global: limited.global === true,
        },
      });
      return;
    }
    const failure = takeFault(errorFaults, method, path);
    if (failure !== undefined) {
      record(failure.status, parsed.json, parsed.files);
      writeReply(
        response,
        error(failure.status, failure.code ?? 0, failure.message ?? `${failure.status}: injected failure`),
      );
      return;
    }
    const reply = route({ method, path, json: parsed.json, files: parsed.files });
    record(reply.status, parsed.json, parsed.files);
    writeReply(response, reply);
  }

  function onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (path !== '/gateway' || sockets === undefined) {
      socket.destroy();
      return;
    }
    sockets.handleUpgrade(request, socket, head, (connection) => onConnection(connection));
  }

  // ----- the driver object ------------------------------------------------------------

  function waitFor(
    predicate: () => boolean,
    description: string,
    waitOptions: FakeDiscordWaitOptions = {},
  ): Promise<void> {
    return waiter
      .until({ check: whenTrue(predicate), awaited: description, timeoutMs: waitOptions.timeoutMs })
      .then(() => undefined);
  }

  const sessionInfo = (session: Session): FakeDiscordSessionInfo => ({
    id: session.id,
    connected: session.socket !== undefined && session.ready,
    intents: session.intents,
    resumes: session.resumes,
    sequence: session.sequence,
  });

  const botMessages = (channelId: string): DiscordApiMessage[] =>
    (messagesByChannel.get(channelId) ?? []).filter((message) => message.author.id === bot.id);

  const fake: FakeDiscord = {
    async start() {
      if (closed) throw new TestkitError('TESTKIT_CLOSED', 'FakeDiscord: start() after close()');
      if (server !== undefined) return fake;
      sockets = new WebSocketServer({ noServer: true });
      server = createServer((request, response) => {
        handleHttp(request, response).catch((failure: unknown) => {
          if (!response.headersSent) writeReply(response, error(500, 0, `fake failure: ${String(failure)}`));
        });
      });
      server.on('upgrade', onUpgrade);
      port = await listenOnLoopback(server);
      return fake;
    },
    async close() {
      if (closed) return;
      closed = true;
      waiter.close();
      for (const client of sockets?.clients ?? []) client.terminate();
      sockets?.close();
      if (server !== undefined) await closeServer(server);
    },
    get restApi() {
      return `${baseUrl()}/api`;
    },
    get baseUrl() {
      return baseUrl();
    },
    get gatewayUrl() {
      return gatewayUrl();
    },
    get token() {
      return token;
    },
    bot,
    addUser,
    addGuild,
    addChannel,
    setMember,
    createThread,
    dmChannel,
    channel: (channelId) => channels.get(channelId),
    sendDirect,
    sendToChannel,
    redeliver,
    message: (messageId) => messagesById.get(messageId),
    messages: (channelId) => [...(messagesByChannel.get(channelId) ?? [])],
    botMessages,
    async waitForBotMessages(channelId, count, waitOptions) {
      await waiter.until({
        check: whenTrue(() => botMessages(channelId).length >= count),
        awaited: `${count} bot message(s) in channel ${channelId}`,
        arrived: () => `${botMessages(channelId).length} posted`,
        timeoutMs: waitOptions?.timeoutMs,
      });
      return botMessages(channelId);
    },
    requests,
    typings,
    edits,
    reactions,
    get rateLimitedCount() {
      return rateLimitedCount;
    },
    get heartbeatCount() {
      return heartbeatCount;
    },
    get identifyCount() {
      return identifyCount;
    },
    get resumeCount() {
      return resumeCount;
    },
    sessions: () => [...sessions.values()].map(sessionInfo),
    async waitForSession(waitOptions) {
      const connected = (): Session | undefined =>
        [...sessions.values()].find((session) => session.socket !== undefined && session.ready);
      await waitFor(() => connected() !== undefined, 'a connected gateway session', waitOptions);
      return sessionInfo(connected()!);
    },
    waitFor,
    rateLimitNext(fault = {}) {
      rateLimits.push({ fault, remaining: fault.count ?? 1 });
    },
    failNext(fault) {
      errorFaults.push({ fault, remaining: fault.count ?? 1 });
    },
    revokeToken() {
      tokenValid = false;
      for (const session of sessions.values())
        session.socket?.close(discordCloseCodes.authenticationFailed, 'Authentication failed.');
    },
    setToken(next) {
      token = next;
      tokenValid = true;
    },
    setMessageContentIntent(enabled) {
      messageContentAllowed = enabled;
    },
    forceReconnect() {
      for (const session of sessions.values())
        if (session.socket !== undefined) send(session.socket, { op: 7, d: null });
    },
    dropConnections(dropOptions = {}) {
      for (const session of sessions.values()) {
        const socket = session.socket;
        if (socket === undefined) continue;
        if (dropOptions.abrupt === true) socket.terminate();
        else socket.close(dropOptions.code ?? discordCloseCodes.unknownError, 'Dropped by the fake.');
      }
    },
    invalidateSessions(resumable = false) {
      for (const session of sessions.values()) {
        if (session.socket === undefined) continue;
        send(session.socket, { op: 9, d: resumable });
        if (!resumable) sessions.delete(session.id);
      }
    },
  };
  return fake;
}
