// One running Slack account (one workspace): a bolt App whose receiver is either an
// HTTPReceiver mounted on the gateway's own HTTP server, or a SocketModeReceiver; inbound
// events become InboundMessages, outbound messages go through the Web API.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  App,
  type Logger as BoltLogger,
  HTTPReceiver,
  LogLevel,
  SocketModeReceiver,
  webApi,
} from '@slack/bolt';
import type {
  ChannelAccount,
  ChannelAccountStatus,
  ChannelStartContext,
  ConversationTarget,
  EditRequest,
  InboundMedia,
  Logger,
  OutboundMessage,
  Peer,
  SendResult,
  Sleep,
} from '@switchboard/hooks';
import { defaultWebhookPath, type SlackAccountSettings } from './config.ts';
import { SlackChannelError } from './errors.ts';
import {
  conversationTypeOf,
  parseSlackMessageId,
  type SlackConversationType,
  type SlackMessageEvent,
  skipReason,
  slackMessageId,
  toInboundMessage,
} from './inbound.ts';
import { describeSlackFiles, downloadSlackFile, loadOutboundMedia } from './media.ts';
import { markdownToMrkdwn, slackMentions, splitMrkdwn } from './mrkdwn.ts';
import { createSocketConnection, type SocketConnection } from './socket.ts';
import { createSlackApi, type SlackApi } from './web-api.ts';

/** The settings of the account runtime that are not configuration (clock, limits, tuning). */
export interface SlackRuntimeOptions {
  readonly textLimit: number;
  readonly now: () => number;
  readonly sleep: Sleep;
  readonly fetch: typeof fetch;
  /** Retries of one rate-limited send, made by the gateway (attempts = this + 1). */
  readonly maxRateLimitRetries: number;
  /** The longest `Retry-After` the gateway waits out for a send. */
  readonly maxRateLimitWaitMs: number;
  readonly editIntervalMs: number;
  readonly socketPingTimeoutMs: number;
  readonly reconnectBaseMs: number;
  readonly reconnectMaxMs: number;
  readonly apiTimeoutMs: number;
}

/** How many entries the per-account caches (names, DM channels, last messages) keep. */
const cacheLimit = 2000;
const nameTtlMs = 60 * 60_000;

/** A bounded map: the oldest entry goes when it is full. */
function remember<Key, Value>(map: Map<Key, Value>, key: Key, value: Value): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > cacheLimit) map.delete(map.keys().next().value as Key);
}

function boltLogger(logger: Logger): BoltLogger {
  let level = LogLevel.INFO;
  const join = (parts: unknown[]) =>
    parts
      .map((part) => (part instanceof Error ? part.message : typeof part === 'string' ? part : String(part)))
      .join(' ');
  return {
    debug: (...parts: unknown[]) => logger.debug(`bolt: ${join(parts)}`),
    info: (...parts: unknown[]) => logger.info(`bolt: ${join(parts)}`),
    warn: (...parts: unknown[]) => logger.warn(`bolt: ${join(parts)}`),
    error: (...parts: unknown[]) => logger.error(`bolt: ${join(parts)}`),
    setLevel(next: LogLevel) {
      level = next;
    },
    getLevel: () => level,
    setName() {},
  };
}

/** Hosts a bot token may be sent to when downloading files. */
function trustedFileHost(apiHost: string): (host: string) => boolean {
  return (host) =>
    host === apiHost ||
    host === 'slack.com' ||
    host.endsWith('.slack.com') ||
    host.endsWith('.slack-edge.com') ||
    host.endsWith('.slack-files.com');
}

/** Starts one account. Resolves once it can send (and, in Socket Mode, is connected). */
export async function startSlackAccount(
  context: ChannelStartContext<SlackAccountSettings>,
  runtime: SlackRuntimeOptions,
): Promise<ChannelAccount> {
  const { account, accountId, logger, signal } = context;
  let status: ChannelAccountStatus = { state: 'starting' };
  const setStatus = (next: Partial<ChannelAccountStatus>) => {
    status = { ...status, ...next };
    if (
      next.error === undefined &&
      next.state !== undefined &&
      next.state !== 'error' &&
      next.state !== 'reconnecting'
    ) {
      const { error: _error, ...rest } = status;
      status = rest;
    }
    context.setStatus(status);
  };
  setStatus({ state: 'starting', detail: `connecting to ${new URL(account.slackApiUrl).host}` });

  const bolt = boltLogger(logger);
  const clientOptions: webApi.WebClientOptions = {
    slackApiUrl: account.slackApiUrl,
    // One attempt per call: failures are classified here and the gateway retries sends.
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: runtime.apiTimeoutMs,
    logger: bolt,
  };

  let fatal: SlackChannelError | undefined;
  let stopped = false;
  let socket: SocketConnection | undefined;
  const markFatal = (error: SlackChannelError) => {
    if (fatal !== undefined) return;
    fatal = error;
    logger.error('the Slack account stopped: its token was refused', { error: error.message });
    setStatus({
      state: 'error',
      error: error.message,
      detail: 'not retrying: fix the token in channels.slack',
    });
    void socket?.close();
  };
  const makeApi = (client: webApi.WebClient): SlackApi =>
    createSlackApi({
      client,
      accountId,
      logger,
      onAuthFailure: markFatal,
      onRateLimited: (method, waitMs) =>
        setStatus({
          detail: `rate limited by Slack on ${method}; Slack asked to wait ${Math.ceil(waitMs / 1000)} s`,
        }),
    });

  // Who the bot is. A refused token fails the start for good (not retryable).
  const identity = await makeApi(new webApi.WebClient(account.botToken, clientOptions)).call<{
    user_id?: string;
    bot_id?: string;
    user?: string;
    team_id?: string;
    team?: string;
  }>('auth.test', {});
  if (identity.user_id === undefined || identity.bot_id === undefined) {
    throw new SlackChannelError(
      'SLACK_AUTH_FAILED',
      `the token of Slack account "${accountId}" is not a bot token (auth.test gave no bot_id); use the xoxb- token`,
    );
  }
  const bot = { userId: identity.user_id, botId: identity.bot_id, name: identity.user };
  const workspace = { id: identity.team_id, name: identity.team };

  const webhookPath = account.webhookPath ?? defaultWebhookPath(accountId);
  const receiver =
    account.mode === 'http'
      ? new HTTPReceiver({
          signingSecret: account.signingSecret!,
          endpoints: [webhookPath],
          // Answer Slack only after the listener ran: the 200 means "journaled".
          processBeforeResponse: true,
          logger: bolt,
        })
      : new SocketModeReceiver({
          appToken: account.appToken!,
          logger: bolt,
          autoReconnectEnabled: false,
          clientPingTimeout: runtime.socketPingTimeoutMs,
          installerOptions: { clientOptions },
        });
  // With botId and botUserId given, bolt does not fire (and leave unawaited) its own
  // auth.test from the constructor: a dead token already failed above, with a clear error.
  const app = new App({
    token: account.botToken,
    botId: bot.botId,
    botUserId: bot.userId,
    receiver,
    logger: bolt,
    clientOptions,
    ignoreSelf: true,
    convoStore: false,
  });
  // A failed listener must fail processEvent, so the event is not acknowledged.
  app.error(async (error) => {
    throw error;
  });
  const api = makeApi(app.client);

  // ---------------------------------------------------------------------------------------
  // Lookups (best effort, cached): names and conversation kinds
  // ---------------------------------------------------------------------------------------

  const users = new Map<string, { at: number; name?: string; username?: string; isBot?: boolean }>();
  const conversations = new Map<string, { at: number; type?: SlackConversationType; name?: string }>();
  /** The DM channel (D…) of each user the bot talks to. */
  const directChannels = new Map<string, string>();
  /** The last journaled message ts per conversation, where group replies thread (typing). */
  const lastMessage = new Map<string, string>();

  async function lookupUser(userId: string) {
    const cached = users.get(userId);
    if (cached !== undefined && runtime.now() - cached.at < nameTtlMs) return cached;
    try {
      const result = await api.call<{
        user?: {
          name?: string;
          real_name?: string;
          is_bot?: boolean;
          profile?: { display_name?: string; real_name?: string };
        };
      }>('users.info', { user: userId });
      const profile = result.user?.profile;
      const name = profile?.display_name || profile?.real_name || result.user?.real_name || result.user?.name;
      const entry = {
        at: runtime.now(),
        ...(name ? { name } : {}),
        username: result.user?.name,
        ...(result.user?.is_bot === true ? { isBot: true } : {}),
      };
      remember(users, userId, entry);
      return entry;
    } catch (error) {
      logger.debug('users.info failed; the sender has no name', { userId, error: String(error) });
      return undefined;
    }
  }

  async function lookupConversation(channel: string) {
    const cached = conversations.get(channel);
    if (cached !== undefined && runtime.now() - cached.at < nameTtlMs) return cached;
    try {
      const result = await api.call<{
        channel?: {
          name?: string;
          is_im?: boolean;
          is_mpim?: boolean;
          is_private?: boolean;
          is_channel?: boolean;
        };
      }>('conversations.info', { channel });
      const info = result.channel;
      const type: SlackConversationType | undefined =
        info === undefined
          ? undefined
          : info.is_im
            ? 'im'
            : info.is_mpim
              ? 'mpim'
              : info.is_private && !info.is_channel
                ? 'group'
                : 'channel';
      const entry = {
        at: runtime.now(),
        type,
        ...(info?.name ? { name: info.name } : {}),
      };
      remember(conversations, channel, entry);
      return entry;
    } catch (error) {
      logger.debug('conversations.info failed', { channel, error: String(error) });
      return undefined;
    }
  }

  // ---------------------------------------------------------------------------------------
  // Inbound
  // ---------------------------------------------------------------------------------------

  /** Events handled recently (by event_id), so Slack's retries are answered without rework. */
  const handledEvents = new Map<string, Promise<void>>();

  async function handleEvent(event: SlackMessageEvent, body: Record<string, unknown>): Promise<void> {
    const eventId = typeof body.event_id === 'string' ? body.event_id : undefined;
    if (eventId === undefined) return processEvent(event, body, undefined);
    const previous = handledEvents.get(eventId);
    if (previous !== undefined) {
      logger.debug('a Slack retry of an event already handled', { eventId });
      return previous;
    }
    const work = processEvent(event, body, eventId);
    remember(handledEvents, eventId, work);
    // A failed attempt must run again when Slack retries.
    work.catch(() => {
      if (handledEvents.get(eventId) === work) handledEvents.delete(eventId);
    });
    return work;
  }

  async function processEvent(
    event: SlackMessageEvent,
    body: Record<string, unknown>,
    eventId: string | undefined,
  ): Promise<void> {
    if (fatal !== undefined || stopped) return;
    const skip = skipReason(event, bot);
    if (skip !== undefined) {
      logger.debug('Slack event ignored', { reason: skip, eventId });
      return;
    }
    const channel = event.channel!;
    let type = conversationTypeOf(event);
    let conversationName: string | undefined;
    if (type !== 'im') {
      const info = await lookupConversation(channel);
      type = type ?? info?.type;
      conversationName = info?.name;
    }
    if (type === undefined) type = 'channel';
    const author = event.user;
    const sender = author === undefined ? undefined : await lookupUser(author);
    // Names of the people mentioned, so the model reads "@alice" rather than an id.
    const mentioned = slackMentions(event.text ?? '').filter((id) => id !== bot.userId && id !== author);
    await Promise.all(mentioned.slice(0, 10).map((id) => lookupUser(id)));
    if (type === 'im' && author !== undefined) remember(directChannels, author, channel);

    let media: readonly InboundMedia[] = [];
    let notes: readonly string[] = [];
    if (event.files !== undefined && event.files.length > 0) {
      // Described only: the gateway downloads them if it admits the message (decision 0026).
      const described = describeSlackFiles(event.files, logger);
      media = described.media;
      notes = described.notes;
    }
    const teamId = typeof body.team_id === 'string' ? body.team_id : (event.team ?? workspace.id);
    const message = toInboundMessage(event, {
      accountId,
      teamId,
      botUserId: bot.userId,
      conversationType: type,
      conversationName,
      sender,
      userName: (userId) => users.get(userId)?.name,
      media,
      notes,
      eventId,
    });
    const outcome = await context.receive(message);
    setStatus({ lastInboundAt: runtime.now() });
    if (outcome.status === 'journaled') {
      const peerKey = message.peer.id;
      remember(lastMessage, peerKey, message.thread?.id ?? event.ts!);
    }
    logger.debug('Slack message handed to the gateway', {
      messageId: message.messageId,
      outcome: outcome.status,
    });
  }

  app.event('message', async ({ event, body }) => {
    await handleEvent(event as SlackMessageEvent, body as unknown as Record<string, unknown>);
  });
  app.event('app_mention', async ({ event, body }) => {
    await handleEvent(event as SlackMessageEvent, body as unknown as Record<string, unknown>);
  });

  // ---------------------------------------------------------------------------------------
  // Receiving: mount the HTTP route, or connect Socket Mode
  // ---------------------------------------------------------------------------------------

  const workspaceLabel = `${workspace.name ?? 'workspace'} (${workspace.id ?? 'unknown team'})`;
  /** The status detail while connected (restored once a rate-limit wait is over). */
  const connectedDetail =
    account.mode === 'http'
      ? `Events API at ${webhookPath}, ${workspaceLabel}`
      : `Socket Mode, ${workspaceLabel}`;
  if (receiver instanceof HTTPReceiver) {
    context.registerHttpRoute({
      path: webhookPath,
      auth: 'plugin',
      methods: ['POST'],
      handler(request: IncomingMessage, response: ServerResponse) {
        if (stopped) {
          response.writeHead(503, { 'content-type': 'text/plain' }).end('the Slack account is stopping');
          return;
        }
        try {
          receiver.requestListener(request, response);
        } catch (error) {
          logger.warn('a request to the Slack events route was not handled', { error: String(error) });
          if (!response.headersSent) response.writeHead(404).end();
        }
      },
    });
    setStatus({
      state: 'connected',
      detail: connectedDetail,
      identity: { id: bot.userId, name: bot.name },
    });
  } else {
    socket = createSocketConnection({
      receiver,
      app,
      accountId,
      logger,
      sleep: runtime.sleep,
      signal,
      reconnectBaseMs: runtime.reconnectBaseMs,
      reconnectMaxMs: runtime.reconnectMaxMs,
      onConnected: () =>
        setStatus({
          state: 'connected',
          detail: connectedDetail,
          identity: { id: bot.userId, name: bot.name },
        }),
      onReconnecting: (reason) =>
        setStatus({ state: 'reconnecting', error: reason, detail: 'reconnecting Socket Mode' }),
      onFatal: markFatal,
    });
    const connection = socket;
    const onAbort = () => void connection.close();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await connection.connect();
    } catch (error) {
      signal.removeEventListener('abort', onAbort);
      await connection.close();
      throw error;
    }
  }

  // ---------------------------------------------------------------------------------------
  // Outbound
  // ---------------------------------------------------------------------------------------

  const usable = (what: string) => {
    if (fatal !== undefined) throw fatal;
    if (stopped || signal.aborted) {
      throw new SlackChannelError(
        'SLACK_ACCOUNT_STOPPED',
        `Slack account "${accountId}" is stopped (${what})`,
      );
    }
  };

  /** The Slack channel id to post to: the DM channel for a user, the peer id otherwise. */
  async function channelFor(peer: Peer): Promise<string> {
    if (peer.id.trim() === '') {
      throw new SlackChannelError(
        'SLACK_INVALID_TARGET',
        `an outbound Slack message has an empty peer id (account "${accountId}")`,
      );
    }
    if (peer.kind !== 'direct' || !/^[UW]/.test(peer.id)) return peer.id;
    const known = directChannels.get(peer.id);
    if (known !== undefined) return known;
    const opened = await api.call<{ channel?: { id?: string } }>('conversations.open', { users: peer.id });
    const channel = opened.channel?.id;
    if (channel === undefined) {
      throw new SlackChannelError(
        'SLACK_INVALID_TARGET',
        `Slack opened no DM with ${peer.id} (account "${accountId}")`,
      );
    }
    remember(directChannels, peer.id, channel);
    return channel;
  }

  function threadOf(message: {
    readonly threadId?: string;
    readonly replyToMessageId?: string;
  }): string | undefined {
    if (message.threadId !== undefined) return message.threadId;
    return message.replyToMessageId === undefined
      ? undefined
      : parseSlackMessageId(message.replyToMessageId).ts;
  }

  /**
   * One attempt at a send. When a call fails after others already posted, the failure is made
   * permanent: a retry of the whole send would post those parts twice.
   */
  async function send(message: OutboundMessage): Promise<SendResult> {
    const messageIds: string[] = [];
    try {
      return await sendOnce(message, messageIds);
    } catch (error) {
      if (messageIds.length === 0 || !SlackChannelError.isInstance(error)) throw error;
      const failed = error as SlackChannelError;
      throw new SlackChannelError(
        failed.code,
        `${failed.message} (after ${messageIds.length} part(s) of the message were posted; not retried, so they are not posted twice)`,
        { cause: error, details: { ...failed.details, deliveredMessageIds: [...messageIds] } },
      );
    }
  }

  async function sendOnce(message: OutboundMessage, messageIds: string[]): Promise<SendResult> {
    usable('send');
    const channel = await channelFor(message.peer);
    const threadTs = threadOf(message);
    if (message.kind === 'text') {
      const chunks = splitMrkdwn(markdownToMrkdwn(message.text), runtime.textLimit);
      for (const text of chunks) {
        const posted = await api.call<{ channel?: string; ts?: string }>('chat.postMessage', {
          channel,
          text,
          thread_ts: threadTs,
          mrkdwn: true,
          unfurl_links: false,
          unfurl_media: false,
        });
        messageIds.push(slackMessageId(posted.channel ?? channel, posted.ts ?? ''));
      }
    } else {
      const caption = message.caption === undefined ? undefined : markdownToMrkdwn(message.caption);
      for (const [index, item] of message.media.entries()) {
        const loaded = await loadOutboundMedia(item, index, {
          maxBytes: account.mediaMaxMb * 1024 * 1024,
          fetch: runtime.fetch,
          signal,
        });
        const comment = index === 0 && caption !== undefined && caption !== '' ? caption : undefined;
        const upload = {
          file: loaded.bytes,
          filename: loaded.fileName,
          title: loaded.fileName,
          initial_comment: comment === undefined ? undefined : comment.slice(0, runtime.textLimit),
        };
        const uploaded = await api.run('files.uploadV2', () =>
          threadTs === undefined
            ? app.client.filesUploadV2({ ...upload, channel_id: channel })
            : app.client.filesUploadV2({ ...upload, channel_id: channel, thread_ts: threadTs }),
        );
        for (const completion of (uploaded.files ?? []) as Array<{ files?: Array<{ id?: string }> }>) {
          for (const file of completion.files ?? []) if (file.id !== undefined) messageIds.push(file.id);
        }
      }
    }
    setStatus({
      lastOutboundAt: runtime.now(),
      ...(status.detail?.startsWith('rate limited') && connectedDetail !== undefined
        ? { detail: connectedDetail }
        : {}),
    });
    return { messageIds };
  }

  /** Per message: the time of its last update and the newest text waiting to be written. */
  const edits = new Map<string, { lastAt: number; latest?: () => Promise<void>; running?: Promise<void> }>();

  async function drainEdits(key: string): Promise<void> {
    const state = edits.get(key)!;
    try {
      while (state.latest !== undefined) {
        const wait = state.lastAt + runtime.editIntervalMs - runtime.now();
        if (wait > 0) await runtime.sleep(wait, signal);
        const apply = state.latest;
        state.latest = undefined;
        state.lastAt = runtime.now();
        await apply();
      }
    } finally {
      state.running = undefined;
      state.latest = undefined;
    }
  }

  async function edit(request: EditRequest): Promise<{ messageId: string }> {
    usable('edit');
    const parsed = parseSlackMessageId(request.messageId);
    if (parsed.ts === '' || !/^\d+\.\d+$/.test(parsed.ts)) {
      throw new SlackChannelError(
        'SLACK_INVALID_TARGET',
        `cannot edit Slack message "${request.messageId}": expected "<channel>:<ts>" as returned by send`,
      );
    }
    const channel = parsed.channel ?? (await channelFor(request.peer));
    const key = slackMessageId(channel, parsed.ts);
    let text = markdownToMrkdwn(request.text);
    if (text.length > runtime.textLimit) text = `${text.slice(0, runtime.textLimit - 1)}…`;
    const state = edits.get(key) ?? { lastAt: Number.NEGATIVE_INFINITY };
    remember(edits, key, state);
    // Edits of one message are throttled; while one waits, a newer text replaces it.
    state.latest = async () => {
      await api.call('chat.update', { channel, ts: parsed.ts, text });
    };
    state.running ??= drainEdits(key);
    await state.running;
    setStatus({ lastOutboundAt: runtime.now() });
    return { messageId: key };
  }

  let typingSupported = account.typingStatus;
  async function typing(target: ConversationTarget): Promise<void> {
    usable('typing');
    if (!typingSupported) return;
    const threadTs =
      target.threadId ?? (target.peer.kind === 'direct' ? undefined : lastMessage.get(target.peer.id));
    if (threadTs === undefined) return;
    const channel = await channelFor(target.peer);
    try {
      await api.call('assistant.threads.setStatus', {
        channel_id: channel,
        thread_ts: threadTs,
        status: 'is typing…',
      });
    } catch (error) {
      const code = SlackChannelError.isInstance(error) ? error.code : undefined;
      if (code === 'SLACK_RATE_LIMITED' || code === 'SLACK_API_UNAVAILABLE') return;
      if (code === 'SLACK_AUTH_FAILED') throw error;
      // No assistant scope, not an assistant thread: Slack has no other typing API for bots.
      typingSupported = false;
      logger.info('Slack typing status is not available for this app; not trying again', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  return {
    send,
    // Retried by the gateway (decision 0023): a rate limit carries Slack's Retry-After.
    sendRetry: { attempts: runtime.maxRateLimitRetries + 1, maxWaitMs: runtime.maxRateLimitWaitMs },
    edit,
    typing,
    async downloadMedia(media, request) {
      usable('download a file');
      return downloadSlackFile(media, request, {
        botToken: account.botToken,
        dataDirectory: context.dataDirectory,
        maxBytes: Math.floor(account.mediaMaxMb * 1024 * 1024),
        trustedHost: trustedFileHost(new URL(account.slackApiUrl).host),
        fetch: runtime.fetch,
        signal,
      });
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await socket?.close();
      if (fatal === undefined) setStatus({ state: 'stopped', detail: 'stopped' });
    },
  };
}
