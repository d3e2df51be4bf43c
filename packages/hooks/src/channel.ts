/**
 * The channel contract: what a chat-platform adapter (Telegram, Discord, Slack, WhatsApp,
 * or a third party's) implements, and the two message shapes that cross it.
 */
import type { ChannelAccessConfig, ChannelConfigSpec } from './channel-config.ts';
import type { Logger } from './logger.ts';
import type { DownloadedMedia, JsonValue, MediaDownloadOptions } from './media.ts';
import type { HttpRoute } from './plugin.ts';
import type { SendFailure, SendRetryPolicy } from './send-failure.ts';

// ---------------------------------------------------------------------------------------
// Conversations and people
// ---------------------------------------------------------------------------------------

/** The kind of conversation: a one-to-one DM, a group chat, or a channel/room. */
export type ChatType = 'direct' | 'group' | 'channel';

/**
 * A conversation on the platform, as routing sees it. For a DM the id is the other
 * person's id; for a group or channel it is the room's id.
 */
export interface Peer<Kind extends ChatType = ChatType> {
  readonly kind: Kind;
  readonly id: string;
  /** A display name (group title, channel name, user name), when the platform gives one. */
  readonly name?: string;
}

/** Who wrote an inbound message. */
export interface Sender {
  /** The platform's stable id for the user (what `allowFrom` lists). */
  readonly id: string;
  readonly name?: string;
  readonly username?: string;
  /** True when the platform marks the author as a bot. */
  readonly isBot?: boolean;
}

/** A thread or topic inside a conversation. */
export interface InboundThread {
  /** The platform's thread id (Slack `thread_ts`, Telegram topic id, Discord thread channel id). */
  readonly id: string;
  /**
   * The conversation the thread hangs off, when the platform models threads as their own
   * conversations (Discord threads); routing then also matches bindings on the parent.
   */
  readonly parentPeer?: Peer<'group' | 'channel'>;
}

/** The message an inbound message replies to or quotes. */
export interface ReplyReference {
  readonly messageId: string;
  readonly text?: string;
  readonly senderId?: string;
}

/** The kinds of media a message can carry. */
export type MediaKind = 'image' | 'audio' | 'voice' | 'video' | 'document' | 'sticker';

/**
 * A media attachment of an inbound message: described, not downloaded (decision 0026). A
 * channel sets `reference` (what its {@link ChannelAccount.downloadMedia} needs: a file id, a
 * URL, a media key) and the gateway fetches the bytes only for a message it admitted (after
 * access, pairing and the journal), with its size limits. The whole description is JSON, so
 * it survives the inbound journal and a restarted gateway can still fetch it.
 *
 * Older channels that download themselves set `path` (a local file) or `url` (a plain
 * http(s) URL the gateway streams, with the same limits); both still work.
 */
export interface InboundMedia {
  readonly kind: MediaKind;
  readonly mimeType?: string;
  readonly fileName?: string;
  /** The size the platform declares, when it does; the gateway skips a download it knows is too large. */
  readonly sizeBytes?: number;
  /** Channel-specific and JSON-serializable: handed back unchanged to `downloadMedia`. */
  readonly reference?: JsonValue;
  /** Legacy: where the gateway can fetch it without the channel's help (a plain http(s) URL). */
  readonly url?: string;
  /** Legacy: a local file the channel already downloaded. */
  readonly path?: string;
}

// ---------------------------------------------------------------------------------------
// Inbound
// ---------------------------------------------------------------------------------------

/** Fields every inbound message carries, whatever the chat type. */
export interface InboundMessageCore {
  /** The channel id (`telegram`, `discord`, ...): the `id` of the {@link ChannelPlugin}. */
  readonly channel: string;
  /** The account that received it (`default` when the channel has one account). */
  readonly accountId: string;
  /** The platform's message id, unique within (channel, accountId): the dedupe key. */
  readonly messageId: string;
  readonly sender: Sender;
  /** The text as the user wrote it (media-only messages: empty string or a caption). */
  readonly text: string;
  /** When the platform says it was sent, in milliseconds since the epoch. */
  readonly timestamp: number;
  /** Set when the message is in a thread or topic. */
  readonly thread?: InboundThread;
  readonly replyTo?: ReplyReference;
  readonly media?: readonly InboundMedia[];
  /** The platform's original event, for plugins that need more than the fields above. */
  readonly raw?: unknown;
  /** The workspace (Slack team) the conversation belongs to, for team-scoped routing. */
  readonly teamId?: string;
}

/** A message in a one-to-one conversation. `peer.id` is normally the sender's id. */
export interface DirectInboundMessage extends InboundMessageCore {
  readonly chatType: 'direct';
  readonly peer: Peer<'direct'>;
}

/** A message in a group chat or a channel. */
export interface GroupInboundMessage extends InboundMessageCore {
  readonly chatType: 'group' | 'channel';
  readonly peer: Peer<'group' | 'channel'>;
  /** True when the message mentions this account's bot (or replies to it). */
  readonly wasMentioned: boolean;
  /** Platform ids of the users mentioned in the message. */
  readonly mentions?: readonly string[];
  /** The Discord guild (server) the conversation belongs to. */
  readonly guildId?: string;
  /** The sender's role ids in the guild (Discord), for role-based routing. */
  readonly memberRoleIds?: readonly string[];
}

/**
 * A message a channel hands to the gateway with `context.receive`. Discriminated on
 * `chatType`; group-only facts (mentions, guild, team, roles) exist only on group messages.
 */
export type InboundMessage = DirectInboundMessage | GroupInboundMessage;

// ---------------------------------------------------------------------------------------
// Outbound
// ---------------------------------------------------------------------------------------

/** Where an outbound message, an edit or a typing indicator goes. */
export interface ConversationTarget {
  readonly peer: Peer;
  /** Send into this thread or topic. */
  readonly threadId?: string;
}

/** Fields every outbound message carries. */
export interface OutboundMessageCore extends ConversationTarget {
  readonly channel: string;
  readonly accountId: string;
  /** Reply to (quote) this platform message id. */
  readonly replyToMessageId?: string;
  /** Deliver without a notification, where the platform supports it. */
  readonly silent?: boolean;
}

/**
 * A text message. `text` is Markdown as the model wrote it, already split by the gateway
 * to fit {@link ChannelCapabilities.textLimit}; the channel renders it to its own markup
 * (see {@link MarkupFlavour}) and may split again if rendering makes it longer.
 */
export interface OutboundTextMessage extends OutboundMessageCore {
  readonly kind: 'text';
  readonly text: string;
}

/** Where the bytes of an outbound attachment come from. */
export type OutboundMediaSource =
  | { readonly type: 'url'; readonly url: string }
  | { readonly type: 'path'; readonly path: string }
  | { readonly type: 'bytes'; readonly data: Uint8Array };

/** An attachment to send. */
export interface OutboundMedia {
  readonly kind: MediaKind;
  readonly source: OutboundMediaSource;
  readonly mimeType?: string;
  readonly fileName?: string;
}

/** One or more attachments with an optional Markdown caption. */
export interface OutboundMediaMessage extends OutboundMessageCore {
  readonly kind: 'media';
  readonly media: readonly OutboundMedia[];
  readonly caption?: string;
}

/** A message the gateway asks a channel account to deliver. Discriminated on `kind`. */
export type OutboundMessage = OutboundTextMessage | OutboundMediaMessage;

/** What a delivery produced on the platform. */
export interface SendResult {
  /** The platform ids of the messages created, in order (a long text may become several). */
  readonly messageIds: readonly string[];
}

/** An edit of a message the account sent earlier. `text` is Markdown, as for sends. */
export interface EditRequest extends ConversationTarget {
  readonly messageId: string;
  readonly text: string;
}

// ---------------------------------------------------------------------------------------
// Capabilities
// ---------------------------------------------------------------------------------------

/**
 * The markup a platform renders. Outbound text is always Markdown; the channel converts
 * it. The gateway uses the flavour to keep chunks renderable and to tell the model what
 * the user will see.
 * - `markdown`: the platform renders Markdown itself (Discord).
 * - `telegram-html`: Telegram HTML (`parse_mode: HTML`).
 * - `slack-mrkdwn`: Slack mrkdwn.
 * - `whatsapp`: WhatsApp's `*bold*` `_italic_` `~strike~` subset.
 * - `plain`: no markup; the channel strips it.
 */
export type MarkupFlavour = 'markdown' | 'telegram-html' | 'slack-mrkdwn' | 'whatsapp' | 'plain';

/** What a channel can do. Static: known before any account starts. */
export interface ChannelCapabilities {
  /** The chat types the channel can deliver inbound messages for. */
  readonly chatTypes: readonly ChatType[];
  /** Messages can live in threads or topics (`thread` inbound, `threadId` outbound). */
  readonly threads: boolean;
  /** Inbound and outbound media are supported (`media` inbound, `kind: 'media'` outbound). */
  readonly media: boolean;
  /** Sent messages can be edited: the account implements `edit`. Needed for streaming previews. */
  readonly edits: boolean;
  /** A typing indicator exists: the account implements `typing`. */
  readonly typing: boolean;
  /** Reactions can be added: the account implements `react`. */
  readonly reactions: boolean;
  /** The most characters one outbound message may have (Telegram 4000, Discord 2000, ...). */
  readonly textLimit: number;
  /** A soft cap on lines per message (Discord clips tall messages at about 17). */
  readonly maxLinesPerMessage?: number;
  readonly markup: MarkupFlavour;
}

// ---------------------------------------------------------------------------------------
// Lifecycle
// ---------------------------------------------------------------------------------------

/** The connection state of one channel account. */
export type ChannelAccountState = 'starting' | 'connected' | 'reconnecting' | 'stopped' | 'error';

/** A snapshot of one account's health, shown by `status` and the operator UI. */
export interface ChannelAccountStatus {
  readonly state: ChannelAccountState;
  /** A human sentence about the state ("polling", "rate limited for 30 s", ...). No secrets. */
  readonly detail?: string;
  /** The last error message, when `state` is `error` or `reconnecting`. */
  readonly error?: string;
  /** The bot's own identity on the platform, once known. */
  readonly identity?: { readonly id: string; readonly name?: string };
  readonly lastInboundAt?: number;
  readonly lastOutboundAt?: number;
}

/**
 * How the gateway answered `receive`. Every outcome means the gateway is done with the
 * message, so the channel acknowledges it (advances its offset) for all of them:
 * - `journaled`: written to the durable inbound journal; it will be answered, even after a crash.
 * - `duplicate`: the same (channel, accountId, messageId) was journaled before.
 * - `dropped`: refused on purpose (access policy, pairing pending, not mentioned, claimed
 *   by a plugin, ...); `reason` says which.
 */
export type ReceiveOutcome =
  | { readonly status: 'journaled' }
  | { readonly status: 'duplicate' }
  | { readonly status: 'dropped'; readonly reason: string };

/**
 * A message a person wrote that the channel itself decided not to hand to the gateway,
 * reported with {@link ChannelStartContext.reportIgnored} so the operator can see why the bot
 * stayed silent. Carries ids only: never the message text.
 */
export interface IgnoredMessageReport {
  /**
   * Why, as a short stable kebab-case word from a small fixed set per channel
   * (`guild-not-listed`, `channel-not-listed`, `sender-not-allowed`). Counted per value, so
   * never put ids or free text here; anything else is recorded as `unknown`.
   */
  readonly reason: string;
  /** The conversation (what `Peer.id` would be), when known. */
  readonly chatId?: string;
  /** Who wrote it (what `Sender.id` would be). */
  readonly senderId?: string;
  /** The platform's message id (what `InboundMessage.messageId` would be). */
  readonly messageId?: string;
  /**
   * One sentence for the operator saying what would admit it, naming the thing and the config
   * key (`guild 123 is not listed under guilds`). No secrets, no message text.
   */
  readonly note?: string;
}

/**
 * What `start` receives for one account.
 *
 * Inbound messages go to `receive`. Its promise resolves once the message is durably
 * journaled (or deliberately dropped); only then should the channel acknowledge it to the
 * platform (advance a polling offset, answer a webhook 200, send a read receipt). If the
 * promise rejects, the gateway could not store the message: do not acknowledge, so the
 * platform delivers it again.
 */
export interface ChannelStartContext<Account = unknown> {
  readonly channelId: string;
  readonly accountId: string;
  /** The validated, merged configuration of this account, access fields included. */
  readonly account: Account & ChannelAccessConfig;
  /** Aborted when the gateway stops this account; stop polling and close sockets. */
  readonly signal: AbortSignal;
  /** A logger tagged with the channel and account. */
  readonly logger: Logger;
  /** Hands an inbound message to the gateway; see above for when to acknowledge. */
  receive(message: InboundMessage): Promise<ReceiveOutcome>;
  /**
   * Tells the gateway that a message a person wrote was not handed to `receive` because the
   * channel's own admission rules refused it (an unlisted guild or channel, a sender without a
   * listed role). The gateway counts it and lists it in `status`, and logs the first one per
   * conversation and reason at info (later ones at debug), so a silent bot can be explained.
   *
   * Contract: synchronous, cheap and never throws; call it once per refused message, on the
   * message path. Do not report what is not a person's message to the bot (its own messages,
   * system events, edits a setting ignores, malformed events): those are not decisions about
   * answering. Messages passed to `receive` are never reported here: the gateway records its
   * own decisions about them.
   */
  reportIgnored(report: IgnoredMessageReport): void;
  /** Replaces this account's status snapshot. Call it on every state change. */
  setStatus(status: ChannelAccountStatus): void;
  /**
   * A directory private to this account (mode 0700, inside the gateway's state directory):
   * keep credentials (linked-device keys), caches and downloaded media here, never elsewhere.
   */
  readonly dataDirectory: string;
  /**
   * Mounts an HTTP route on the gateway's own server for this account (a platform webhook).
   * The route authenticates its own requests (platform signatures), is removed when the
   * account stops, and its path must be unique on the gateway (include the account id).
   */
  registerHttpRoute(route: HttpRoute): void;
}

/**
 * A running account, returned by {@link ChannelPlugin.start}. Outbound calls resolve with
 * the platform's message ids once the platform accepted the message, and reject with an
 * error (ideally a `SwitchboardError` with `retryable` set) when it did not.
 *
 * Retrying is the gateway's job, not the account's: `send` makes one attempt (each platform
 * call once, SDK-internal retries off) and rejects with an error that
 * {@link ChannelAccount.classifySendFailure} (or the standard `classifySendFailure`) reads as
 * retryable, with the platform's retry-after, or permanent. The gateway retries it under
 * {@link ChannelAccount.sendRetry}, so one platform 429 costs exactly that many attempts.
 */
export interface ChannelAccount {
  send(message: OutboundMessage): Promise<SendResult>;
  /**
   * Reads a failure of `send`. Default: the standard `classifySendFailure` (`retryable` and
   * `details.retryAfterMs` of a `SwitchboardError`). Synchronous, never throws.
   */
  classifySendFailure?(error: unknown): SendFailure;
  /** How the gateway retries this account's sends (from the channel's config). Default: the gateway's. */
  readonly sendRetry?: SendRetryPolicy;
  /** Present when `capabilities.edits` is true. Resolves with the id of the edited message. */
  edit?(request: EditRequest): Promise<{ readonly messageId: string }>;
  /** Present when `capabilities.typing` is true. Shows "typing…" once; the gateway refreshes it. */
  typing?(target: ConversationTarget): Promise<void>;
  /**
   * Clears the typing indicator at once, where the platform can (WhatsApp "paused"). The
   * gateway calls it when a run ends (answered, silent, failed or aborted); platforms whose
   * indicator simply expires can leave it out.
   */
  stopTyping?(target: ConversationTarget): Promise<void>;
  /** Present when `capabilities.reactions` is true. `emoji` is a Unicode emoji. */
  react?(target: ConversationTarget & { readonly messageId: string; readonly emoji: string }): Promise<void>;
  /**
   * Present when `capabilities.media` is true and the account describes inbound media with a
   * `reference` (decision 0026). Downloads one attachment of a message the gateway admitted
   * into a file inside the account's `dataDirectory` and resolves with its path and size.
   *
   * Contract: called only after access, pairing and the journal, possibly after a restart
   * (`media` then comes from the journal, so it must work from `reference` alone). Enforces
   * `maxBytes` while streaming: as soon as more bytes arrived it stops the transfer and
   * rejects with a `MediaError` `MEDIA_TOO_LARGE` naming the size and the limit (a declared
   * size over the limit rejects before any byte is fetched). Any other failure rejects with
   * `MEDIA_DOWNLOAD_FAILED` (or a channel error); it never resolves with a partial file.
   * One attempt, no retries: the gateway tells the model the attachment could not be fetched.
   */
  downloadMedia?(media: InboundMedia, options: MediaDownloadOptions): Promise<DownloadedMedia>;
  /** Stops the account: ends the receive loop, flushes, closes connections. Called once. */
  stop(): Promise<void>;
}

/**
 * A chat-platform adapter. A channel package exports a factory that returns one
 * (`createTelegramChannel(options): ChannelPlugin`) and a plugin registers it with
 * `api.registerChannel`.
 *
 * The gateway reads `channels.<id>` from its configuration, validates it with `config`
 * (one entry per account under `accounts.<accountId>`, top-level values inherited), and
 * calls `start` once per enabled account. Access control (DM policy, pairing, allowlists,
 * mention gating) is applied by the gateway to every message passed to `receive`, using
 * the standard fields of {@link ChannelAccessConfig}; a channel never implements it.
 */
export interface ChannelPlugin<Account = unknown> {
  /** Lower-case id, the key under `channels.` (`telegram`). `[a-z0-9][a-z0-9_-]*`. */
  readonly id: string;
  /** A human name for UIs ("Telegram"). */
  readonly label: string;
  readonly capabilities: ChannelCapabilities;
  /** The account configuration schema, made with {@link defineChannelConfig}. */
  readonly config: ChannelConfigSpec<Account>;
  /**
   * Turns an `allowFrom` entry as an operator writes it into the platform id `Sender.id`
   * holds (strip `tg:` prefixes, normalise phone numbers). Defaults to trimming.
   */
  normalizeAllowEntry?(entry: string): string;
  /** Starts one account. Resolve once it can send; keep receiving in the background. */
  start(context: ChannelStartContext<Account>): Promise<ChannelAccount>;
}
