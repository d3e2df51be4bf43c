// The public types of the fake Discord: its options, what it records (requests, typings,
// edits, reactions, sessions), the faults it injects and the handle itself.
import type { DiscordApiChannel, DiscordApiMessage, DiscordApiUser } from './types.ts';

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

/** A GET of a hosted attachment (`/attachments/…`, Discord's CDN). */
export interface FakeDiscordDownload {
  readonly path: string;
  readonly status: number;
  /**
   * The bytes handed to the socket so far: the body goes out in 64 KiB chunks with
   * backpressure and stops when the client hangs up, so an early abort leaves this below the size.
   */
  readonly bytesSent: number;
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
  /** Every download of a hosted attachment, oldest first. */
  readonly attachmentDownloads: readonly FakeDiscordDownload[];
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
