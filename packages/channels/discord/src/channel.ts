// The Discord channel: one discord.js Client per account, receiving over the gateway
// WebSocket (guild channels, threads, DMs) and sending over REST.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  type ChannelAccount,
  type ChannelAccountStatus,
  type ChannelPlugin,
  type ChannelStartContext,
  type ConversationTarget,
  type InboundMessage,
  type OutboundMessage,
  type SendResult,
  sleep,
} from '@switchboard/hooks';
import { renderDiscordMarkdown } from '@switchboard/markdown';
import {
  ChannelType,
  Client,
  DiscordAPIError,
  DiscordjsErrorCodes,
  Events,
  GatewayIntentBits,
  HTTPError,
  type Message,
  MessageFlags,
  Options,
  Partials,
  RateLimitError,
  RESTEvents,
  type SendableChannels,
} from 'discord.js';
import {
  admitGuildMessage,
  type DiscordAccountConfig,
  discordAccountConfig,
  guildAdmissionNote,
  normalizeDiscordAllowEntry,
} from './config.ts';
import { DiscordChannelError } from './errors.ts';
import { toInboundMessage } from './inbound.ts';
import { downloadAttachment, type PreparedFile, prepareOutboundMedia, pruneMedia } from './media.ts';
import { discordTextLimit, splitDiscordText } from './split.ts';

export interface DiscordChannelOptions {
  /** The fetch used to download inbound attachments and outbound media given by URL. */
  readonly fetch?: typeof fetch;
  /** The clock (status timestamps, media retention). Default `Date.now`. */
  readonly now?: () => number;
  /** How long `start` waits for READY and the guilds. Default 60 s. */
  readonly readyTimeoutMs?: number;
  /**
   * Waits between attempts when the gateway could not take an inbound message (Discord
   * never redelivers a gateway event, so the channel retries). Default 250, 1000, 4000 ms.
   */
  readonly receiveRetryDelaysMs?: readonly number[];
  /** Downloaded media older than this is deleted when an account starts. Default 7 days. */
  readonly mediaRetentionMs?: number;
}

/** Discord's close codes the channel explains. */
const closeCodes = { authenticationFailed: 4004, invalidIntents: 4013, disallowedIntents: 4014 } as const;

const fullIntents = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.DirectMessages,
  GatewayIntentBits.MessageContent,
];
const intentsWithoutContent = fullIntents.filter((intent) => intent !== GatewayIntentBits.MessageContent);

const privilegedIntentHelp =
  'The Message Content intent is not enabled for this bot. Turn it on in the Discord Developer Portal ' +
  '(your application \u2192 Bot \u2192 Privileged Gateway Intents \u2192 Message Content Intent). Until then the ' +
  'bot only sees the text of DMs and of messages that mention it.';

const maxDmChannels = 1000;

/** Which request a rate limit is about: the method and the bucket route. */
function rateLimitKey(method: string, route: string): string {
  return `${method.toUpperCase()} ${route}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Turns a discord.js / REST failure into the channel's error, `retryable` set as it should be. */
function toChannelError(error: unknown, what: string): DiscordChannelError {
  if (error instanceof DiscordChannelError) return error;
  if (error instanceof RateLimitError) {
    return new DiscordChannelError(
      'DISCORD_RATE_LIMITED',
      `${what}: Discord rate-limited ${error.method.toUpperCase()} ${error.route} for ${Math.ceil(error.retryAfter)} ms`,
      { cause: error, retryable: true, details: { retryAfterMs: error.retryAfter, global: error.global } },
    );
  }
  if (error instanceof DiscordAPIError) {
    const details = { status: error.status, code: error.code, method: error.method, url: error.url };
    if (error.status === 401)
      return new DiscordChannelError(
        'DISCORD_INVALID_TOKEN',
        `${what}: Discord rejected the bot token (HTTP 401)`,
        {
          cause: error,
          details,
        },
      );
    if (error.status >= 500)
      return new DiscordChannelError(
        'DISCORD_API_UNAVAILABLE',
        `${what}: Discord answered HTTP ${error.status}`,
        {
          cause: error,
          retryable: true,
          details,
        },
      );
    return new DiscordChannelError(
      'DISCORD_SEND_REJECTED',
      `${what}: Discord refused it (HTTP ${error.status}, code ${error.code}: ${error.message})`,
      { cause: error, details },
    );
  }
  if (error instanceof HTTPError) {
    return new DiscordChannelError(
      'DISCORD_API_UNAVAILABLE',
      `${what}: Discord answered HTTP ${error.status}`,
      {
        cause: error,
        retryable: true,
        details: { status: error.status, method: error.method, url: error.url },
      },
    );
  }
  return new DiscordChannelError('DISCORD_API_UNAVAILABLE', `${what}: ${messageOf(error)}`, {
    cause: error,
    retryable: true,
  });
}

function closeCodeOf(error: unknown, lastCloseCode: number | undefined): number | undefined {
  if (lastCloseCode !== undefined) return lastCloseCode;
  const message = messageOf(error);
  if (/disallowed intents/i.test(message)) return closeCodes.disallowedIntents;
  if (/invalid intents/i.test(message)) return closeCodes.invalidIntents;
  if (/authentication failed/i.test(message)) return closeCodes.authenticationFailed;
  return undefined;
}

function isInvalidToken(error: unknown, closeCode: number | undefined): boolean {
  if (closeCode === closeCodes.authenticationFailed) return true;
  if (error instanceof DiscordAPIError && error.status === 401) return true;
  return (error as { code?: unknown } | null)?.code === DiscordjsErrorCodes.TokenInvalid;
}

/**
 * Creates the Discord channel plugin. Register it from a plugin's `setup`
 * (`api.registerChannel(createDiscordChannel())`); the package's default export does that.
 */
export function createDiscordChannel(
  options: DiscordChannelOptions = {},
): ChannelPlugin<DiscordAccountConfig> {
  const now = options.now ?? Date.now;
  const download = options.fetch ?? fetch;
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  const receiveRetryDelays = options.receiveRetryDelaysMs ?? [250, 1000, 4000];
  const mediaRetentionMs = options.mediaRetentionMs ?? 7 * 24 * 60 * 60_000;
  /** Which account runs each token: one gateway session per token. */
  const tokenOwners = new Map<string, string>();

  async function start(context: ChannelStartContext<DiscordAccountConfig>): Promise<ChannelAccount> {
    const { account, logger, signal } = context;
    const where =
      context.accountId === 'default' ? 'channels.discord' : `channels.discord.accounts.${context.accountId}`;
    const owner = tokenOwners.get(account.token);
    if (owner !== undefined && owner !== context.accountId)
      throw new DiscordChannelError(
        'DISCORD_DUPLICATE_TOKEN',
        `${where}.token is the same bot token as account "${owner}"; one token runs one gateway session`,
        { details: { accountId: context.accountId, otherAccountId: owner } },
      );
    tokenOwners.set(account.token, context.accountId);

    const mediaDirectory = join(context.dataDirectory, 'media');
    const mediaMaxBytes = Math.floor(account.mediaMaxMb * 1024 * 1024);
    const maxWaitMs = account.rateLimit.maxWaitSeconds * 1000;
    /** Routes whose last response was a 429, so `rejectOnRateLimit` tells it from pacing. */
    const answered429 = new Set<string>();
    let identity: { id: string; name: string } | undefined;
    let lastInboundAt: number | undefined;
    let lastOutboundAt: number | undefined;
    let status: Omit<ChannelAccountStatus, 'identity' | 'lastInboundAt' | 'lastOutboundAt'> = {
      state: 'starting',
    };
    const publish = (): void =>
      context.setStatus({
        ...status,
        identity,
        lastInboundAt,
        lastOutboundAt,
      });
    const setStatus = (next: typeof status): void => {
      status = next;
      publish();
    };
    setStatus({ state: 'starting', detail: 'connecting to the Discord gateway' });

    let active: Client | undefined;
    let started = false;
    let stopped = false;
    let lastCloseCode: number | undefined;
    const queues = new Map<string, Promise<void>>();
    const dmChannels = new Map<string, SendableChannels>();
    let botUserId = '';
    // Messages can arrive between READY and the end of start(); they wait for this.
    let markStarted: () => void = () => undefined;
    const startedGate = new Promise<void>((resolve) => {
      markStarted = resolve;
    });

    function createClient(intents: readonly GatewayIntentBits[]): Client {
      const client = new Client({
        intents: [...intents],
        // DM channels are not cached before their first message; without this, DMs are dropped.
        partials: [Partials.Channel],
        rest: {
          api: account.restApi,
          // One attempt per request (decision 0023): the gateway retries sends. A 429 Discord
          // answered surfaces as a RateLimitError carrying its retry-after, and so does a wait
          // longer than maxWaitSeconds. The client's own pacing (the 50 requests/s global
          // budget, a bucket it knows is empty) stays inside the client: a short wait before
          // the request goes out, never an error and never a second request.
          retries: 0,
          timeout: 15_000,
          rejectOnRateLimit: (limit) =>
            answered429.delete(rateLimitKey(limit.method, limit.route)) || limit.retryAfter > maxWaitMs,
        },
        makeCache: Options.cacheWithLimits({
          ...Options.DefaultMakeCacheSettings,
          MessageManager: 50,
          PresenceManager: 0,
          ReactionManager: 0,
          GuildMemberManager: {
            maxSize: 500,
            keepOverLimit: (member) => member.id === member.client.user.id,
          },
          UserManager: { maxSize: 2000, keepOverLimit: (user) => user.id === user.client.user.id },
        }),
        allowedMentions: { parse: ['users'], repliedUser: false },
        failIfNotExists: false,
        enforceNonce: true,
      });
      client.rest.on(RESTEvents.Response, (request, response) => {
        if (response.status === 429) answered429.add(rateLimitKey(request.method, request.route));
      });
      client.on(Events.MessageCreate, (message) => {
        if (client === active) onMessage(client, message);
      });
      client.on(Events.ShardDisconnect, (event) => {
        lastCloseCode = event.code;
        if (client !== active || !started || stopped) return;
        const explanation =
          event.code === closeCodes.authenticationFailed
            ? `Discord rejected the bot token (gateway close 4004); fix ${where}.token`
            : event.code === closeCodes.disallowedIntents
              ? privilegedIntentHelp
              : `the Discord gateway closed the connection with code ${event.code} and it cannot be resumed`;
        logger.error('the Discord gateway connection ended for good', {
          code: event.code,
          error: explanation,
        });
        setStatus({
          state: 'error',
          error: explanation,
          detail: 'not reconnecting: fix the configuration and restart',
        });
      });
      client.on(Events.ShardReconnecting, () => {
        if (client !== active || !started || stopped) return;
        logger.warn('the Discord gateway connection dropped; reconnecting');
        setStatus({ state: 'reconnecting', detail: 'gateway connection lost; resuming the session' });
      });
      client.on(Events.ShardResume, (_shardId, replayed) => {
        if (client !== active || !started || stopped) return;
        logger.info('resumed the Discord gateway session', { replayedEvents: replayed });
        setStatus(connectedStatus());
      });
      client.on(Events.ShardReady, () => {
        if (client !== active || !started || stopped) return;
        logger.info('started a new Discord gateway session');
        setStatus(connectedStatus());
      });
      client.on(Events.ShardError, (error) => {
        if (client === active && !stopped)
          logger.warn('Discord gateway connection error', { error: messageOf(error) });
      });
      client.on(Events.Error, (error) => {
        if (client === active && !stopped) logger.error('discord.js error', { error: messageOf(error) });
      });
      client.on(Events.Warn, (warning) => {
        if (client === active && !stopped) logger.warn(`discord.js: ${warning}`);
      });
      return client;
    }

    let degraded = false;
    const connectedStatus = (): typeof status => ({
      state: 'connected',
      detail: degraded
        ? `connected without the Message Content intent. ${privilegedIntentHelp}`
        : `connected to ${active?.guilds.cache.size ?? 0} guild(s)`,
    });

    async function login(intents: readonly GatewayIntentBits[]): Promise<Client> {
      lastCloseCode = undefined;
      const client = createClient(intents);
      active = client;
      let timer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      const ready = new Promise<void>((resolve, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no READY from the Discord gateway within ${readyTimeoutMs} ms`)),
          readyTimeoutMs,
        );
        onAbort = () => reject(new Error('the account was stopped while connecting'));
        signal.addEventListener('abort', onAbort, { once: true });
        client.once(Events.ClientReady, () => resolve());
      });
      try {
        await Promise.race([client.login(account.token), ready]);
        await ready;
        return client;
      } catch (error) {
        ready.catch(() => undefined);
        active = undefined;
        await client.destroy().catch(() => undefined);
        throw error;
      } finally {
        clearTimeout(timer);
        if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
      }
    }

    function startError(error: unknown): DiscordChannelError {
      const closeCode = closeCodeOf(error, lastCloseCode);
      if (isInvalidToken(error, closeCode))
        return new DiscordChannelError(
          'DISCORD_INVALID_TOKEN',
          `Discord rejected the bot token of ${where}.token (${closeCode === closeCodes.authenticationFailed ? 'gateway close 4004' : 'HTTP 401'}); copy a fresh token from the Developer Portal (Bot \u2192 Reset Token)`,
          { cause: error },
        );
      if (closeCode === closeCodes.disallowedIntents || closeCode === closeCodes.invalidIntents)
        return new DiscordChannelError(
          'DISCORD_DISALLOWED_INTENTS',
          `the Discord gateway refused the intents of ${where} (close ${closeCode}) even without Message Content; check the bot's Privileged Gateway Intents in the Developer Portal`,
          { cause: error },
        );
      return new DiscordChannelError(
        'DISCORD_CONNECT_FAILED',
        `could not connect ${where} to Discord at ${account.restApi}: ${messageOf(error)}`,
        { cause: error, retryable: true },
      );
    }

    let client: Client;
    try {
      try {
        client = await login(fullIntents);
      } catch (error) {
        if (closeCodeOf(error, lastCloseCode) !== closeCodes.disallowedIntents || signal.aborted)
          throw startError(error);
        logger.warn(privilegedIntentHelp, { code: closeCodes.disallowedIntents });
        client = await login(intentsWithoutContent).catch((retryError: unknown) => {
          throw startError(retryError);
        });
        degraded = true;
      }
    } catch (error) {
      tokenOwners.delete(account.token);
      setStatus({ state: 'error', error: messageOf(error) });
      throw error;
    }

    const user = client.user;
    if (user === null) {
      tokenOwners.delete(account.token);
      await client.destroy();
      throw new DiscordChannelError('DISCORD_CONNECT_FAILED', `${where}: READY carried no bot user`, {
        retryable: true,
      });
    }
    botUserId = user.id;
    identity = { id: botUserId, name: user.username };
    started = true;
    markStarted();
    setStatus(connectedStatus());
    logger.info(
      degraded ? 'connected to Discord without the Message Content intent' : 'connected to Discord',
      {
        bot: user.username,
        guilds: client.guilds.cache.size,
      },
    );
    void pruneMedia(mediaDirectory, mediaRetentionMs, now())
      .then((removed) => {
        if (removed > 0) logger.debug('pruned old downloaded media', { removed });
      })
      .catch(() => undefined);

    const onAbort = (): void => {
      stopped = true;
      void client.destroy();
    };
    signal.addEventListener('abort', onAbort, { once: true });

    // ----- inbound --------------------------------------------------------------------

    function onMessage(from: Client, message: Message): void {
      if (stopped || message.author.id === from.user?.id) return;
      // Joins, pins, "thread created" and other system messages carry nothing to answer.
      if (message.system) return;
      if (message.channel.type === ChannelType.GroupDM) return;
      if (!message.inGuild() && message.channel.isSendable()) rememberDm(message.author.id, message.channel);
      const key = message.channelId;
      const previous = queues.get(key) ?? Promise.resolve();
      const next = previous
        .then(() => handle(message))
        .catch((error: unknown) => {
          logger.error('could not handle an inbound Discord message', {
            messageId: message.id,
            error: messageOf(error),
          });
        })
        .finally(() => {
          if (queues.get(key) === next) queues.delete(key);
        });
      queues.set(key, next);
    }

    async function handle(message: Message): Promise<void> {
      await startedGate;
      if (stopped) return;
      if (message.inGuild()) {
        const channel = message.channel;
        const thread = channel.isThread() ? channel : undefined;
        const admission = admitGuildMessage(account.guilds, {
          guildId: message.guildId,
          channelId: thread?.parentId ?? channel.id,
          threadId: thread?.id,
          senderId: message.author.id,
          roleIds: message.member === null ? [] : [...message.member.roles.cache.keys()],
        });
        if (!admission.admitted) {
          logger.debug('ignored a guild message', { messageId: message.id, reason: admission.reason });
          context.reportIgnored({
            reason: admission.reason,
            chatId: channel.id,
            senderId: message.author.id,
            messageId: message.id,
            note: guildAdmissionNote(admission.reason, message.guildId, thread?.parentId ?? channel.id),
          });
          return;
        }
      }
      const inbound = toInboundMessage(message, {
        channelId: 'discord',
        accountId: context.accountId,
        botUserId,
      });
      if (inbound === undefined) return;
      await receive(inbound);
    }

    async function receive(inbound: InboundMessage): Promise<void> {
      for (let attempt = 0; ; attempt += 1) {
        try {
          const outcome = await context.receive(inbound);
          if (outcome.status === 'dropped')
            logger.debug('the gateway dropped a message', {
              messageId: inbound.messageId,
              reason: outcome.reason,
            });
          lastInboundAt = now();
          publish();
          return;
        } catch (error) {
          const delay = receiveRetryDelays[attempt];
          if (delay === undefined || signal.aborted) {
            logger.error('the gateway could not take an inbound message; Discord does not redeliver it', {
              messageId: inbound.messageId,
              error: messageOf(error),
            });
            return;
          }
          await sleep(delay, signal).catch(() => undefined);
        }
      }
    }

    // ----- outbound -------------------------------------------------------------------

    function ensureRunning(what: string): void {
      if (stopped)
        throw new DiscordChannelError('DISCORD_NOT_CONNECTED', `${what}: the ${where} account is stopped`);
    }

    /**
     * Runs one REST call, once: a failure leaves as a DiscordChannelError the gateway classifies
     * (a 429 retryable with Discord's retry-after); the gateway retries sends.
     */
    async function once<T>(what: string, operation: () => Promise<T>): Promise<T> {
      try {
        return await operation();
      } catch (error) {
        const failure = toChannelError(error, what);
        if (failure.code === 'DISCORD_INVALID_TOKEN') {
          logger.error(failure.message);
          setStatus({ state: 'error', error: failure.message, detail: `fix ${where}.token` });
        }
        if (error instanceof RateLimitError)
          logger.warn('rate limited by Discord', { route: error.route, retryAfterMs: error.retryAfter });
        throw failure;
      }
    }

    function rememberDm(userId: string, channel: SendableChannels): void {
      dmChannels.delete(userId);
      dmChannels.set(userId, channel);
      if (dmChannels.size > maxDmChannels) dmChannels.delete(dmChannels.keys().next().value!);
    }

    async function resolveChannel(target: ConversationTarget, what: string): Promise<SendableChannels> {
      if (target.peer.kind === 'direct') {
        const userId = target.peer.id;
        // Snowflakes are unique across users and channels: a "direct" peer that names a
        // known guild channel or thread (a delivery to a session's last route) goes there.
        const known = client.channels.cache.get(userId);
        if (known !== undefined && !known.isDMBased() && known.isSendable()) return known;
        if (!/^\d+$/.test(userId))
          throw new DiscordChannelError(
            'DISCORD_INVALID_TARGET',
            `${what}: "${userId}" is not a Discord user id`,
          );
        const cached = dmChannels.get(userId);
        if (cached !== undefined) return cached;
        const dm = await once(what, () => client.users.createDM(userId));
        rememberDm(userId, dm);
        return dm;
      }
      const id = target.threadId ?? target.peer.id;
      const channel = client.channels.cache.get(id) ?? (await once(what, () => client.channels.fetch(id)));
      if (channel === null || !channel.isSendable())
        throw new DiscordChannelError(
          'DISCORD_INVALID_TARGET',
          `${what}: channel ${id} cannot receive messages`,
        );
      return channel;
    }

    function sentNow(): void {
      lastOutboundAt = now();
      publish();
    }

    /**
     * One attempt at a send. When a post fails after others already went out, the failure is
     * made permanent: a retry of the whole send would post those parts twice.
     */
    async function send(message: OutboundMessage): Promise<SendResult> {
      const ids: string[] = [];
      try {
        return await sendOnce(message, ids);
      } catch (error) {
        if (ids.length === 0 || !(error instanceof DiscordChannelError)) throw error;
        throw new DiscordChannelError(
          error.code,
          `${error.message} (after ${ids.length} part(s) of the message were posted; not retried, so they are not posted twice)`,
          { cause: error, details: { ...error.details, deliveredMessageIds: [...ids] } },
        );
      }
    }

    async function sendOnce(message: OutboundMessage, ids: string[]): Promise<SendResult> {
      const what = `send to discord ${message.peer.kind} ${message.threadId ?? message.peer.id}`;
      ensureRunning(what);
      const channel = await resolveChannel(message, what);
      const flags = message.silent === true ? MessageFlags.SuppressNotifications : undefined;
      let reply =
        message.replyToMessageId === undefined
          ? undefined
          : { messageReference: message.replyToMessageId, failIfNotExists: false };
      const post = async (content: string | undefined, files: readonly PreparedFile[]): Promise<void> => {
        // One nonce per message: a retry after a lost answer cannot post it twice.
        const nonce = randomBytes(12).toString('base64url');
        const sent = await once<Message>(what, () =>
          channel.send({
            content,
            ...(files.length === 0 ? {} : { files: [...files] }),
            reply,
            flags,
            nonce,
            enforceNonce: true,
          }),
        );
        reply = undefined;
        ids.push(sent.id);
      };
      const texts = splitDiscordText(
        renderDiscordMarkdown(message.kind === 'text' ? message.text : (message.caption ?? '')),
      );
      if (message.kind === 'text') {
        if (texts.length === 0)
          throw new DiscordChannelError(
            'DISCORD_SEND_REJECTED',
            `${what}: the message is empty; Discord refuses empty messages`,
          );
        for (const text of texts) await post(text, []);
      } else {
        const files = await Promise.all(
          message.media.map((media, index) =>
            prepareOutboundMedia(media, index, { maxBytes: mediaMaxBytes, fetch: download, signal }),
          ),
        );
        // A caption that fits rides on the first upload; a longer one goes ahead as text.
        const caption = texts.length === 1 ? texts[0] : undefined;
        if (texts.length > 1) for (const text of texts) await post(text, []);
        for (let index = 0; index < files.length; index += 10) {
          await post(index === 0 ? caption : undefined, files.slice(index, index + 10));
        }
      }
      sentNow();
      return { messageIds: ids };
    }

    return {
      send,
      // Retried by the gateway (decision 0023): a 429 carries Discord's retry-after.
      sendRetry: { attempts: account.rateLimit.maxRetries + 1, maxWaitMs },
      async edit(request) {
        const what = `edit discord message ${request.messageId}`;
        ensureRunning(what);
        if (request.text.length > discordTextLimit)
          throw new DiscordChannelError(
            'DISCORD_SEND_REJECTED',
            `${what}: the text is ${request.text.length} characters; Discord allows ${discordTextLimit}`,
          );
        const channel = await resolveChannel(request, what);
        const edited = await once<Message>(what, () =>
          channel.messages.edit(request.messageId, { content: request.text }),
        );
        sentNow();
        return { messageId: edited.id };
      },
      async typing(target) {
        const what = `typing in discord ${target.threadId ?? target.peer.id}`;
        ensureRunning(what);
        const channel = await resolveChannel(target, what);
        // The indicator is refreshed every few seconds anyway: never wait on a rate limit for it.
        await once(what, () => channel.sendTyping());
      },
      async react(target) {
        const what = `react to discord message ${target.messageId}`;
        ensureRunning(what);
        const channel = await resolveChannel(target, what);
        await once(what, () => channel.messages.react(target.messageId, target.emoji));
      },
      async downloadMedia(media, request) {
        ensureRunning('download a discord attachment');
        return downloadAttachment(media, request, {
          directory: mediaDirectory,
          maxBytes: mediaMaxBytes,
          fetch: download,
          signal,
          async refreshUrl(reference) {
            const channel = await client.channels.fetch(reference.channelId);
            if (channel === null || !channel.isTextBased()) return undefined;
            // From Discord, not the cache: the cached message holds the same expired link.
            const message = await channel.messages.fetch({ message: reference.messageId, force: true });
            return message.attachments.get(reference.attachmentId)?.url;
          },
        });
      },
      async stop() {
        stopped = true;
        signal.removeEventListener('abort', onAbort);
        await client.destroy();
        await Promise.allSettled([...queues.values()]);
        tokenOwners.delete(account.token);
        setStatus({ state: 'stopped' });
      },
    };
  }

  return {
    id: 'discord',
    label: 'Discord',
    capabilities: {
      chatTypes: ['direct', 'channel'],
      threads: true,
      media: true,
      edits: true,
      typing: true,
      reactions: true,
      textLimit: discordTextLimit,
      maxLinesPerMessage: 17,
      markup: 'markdown',
    },
    config: discordAccountConfig,
    normalizeAllowEntry: normalizeDiscordAllowEntry,
    start,
  };
}
