// createTelegramChannel: the ChannelPlugin. One grammY `Bot` per account, long polling by
// default or a webhook on the gateway's HTTP server, every inbound message handed to the
// gateway before Telegram is told it arrived.
import { join } from 'node:path';
import {
  type ChannelAccount,
  type ChannelAccountStatus,
  type ChannelPlugin,
  type ChannelStartContext,
  type InboundMessage,
  type Sleep,
  sleep as systemSleep,
} from '@switchboard/hooks';
import { Bot, type Context } from 'grammy';
import type { Message, Update, UserFromGetMe } from 'grammy/types';
import { apiSignal, classifyTelegramError, classifyTelegramSendFailure, toChannelError } from './api.ts';
import { type TelegramAccountConfig, telegramConfig } from './config.ts';
import { TelegramChannelError } from './errors.ts';
import { compileMentionPatterns, type MessageSource, mapMessage } from './inbound.ts';
import { createMediaDownloader, describeMedia } from './media.ts';
import { createBlockedChats, createOutbound } from './outbound.ts';
import { type Poller, type PollerEvent, startPolling } from './poller.ts';
import { createWebhookRoute, resolveWebhookSecret } from './webhook.ts';

/** Options of {@link createTelegramChannel}; all for tests and special deployments. */
export interface TelegramChannelOptions {
  /** Replaces `fetch` for Bot API calls (grammY's client) and file downloads. */
  readonly fetch?: typeof fetch;
  /** Clock for status timestamps and the blocked-chat cool-off. Default `Date.now`. */
  readonly now?: () => number;
  /** How the polling loop waits (retry_after, backoff); must reject when the signal aborts. */
  readonly sleep?: Sleep;
  /** Jitter source for backoff, in [0, 1). Default `Math.random`. */
  readonly random?: () => number;
  /** Downloaded media older than this is deleted when an account starts. Default 7 days. */
  readonly mediaRetentionMs?: number;
}

/** The update types the channel asks Telegram for. */
export const telegramAllowedUpdates: readonly string[] = Object.freeze([
  'message',
  'edited_message',
  'channel_post',
  'edited_channel_post',
]);

/** `tg:123` and `telegram:123` are `123`: allowFrom entries are numeric Telegram user ids. */
export function normalizeTelegramAllowEntry(entry: string): string {
  return entry.trim().replace(/^(?:telegram|tg):/i, '');
}

function configPath(accountId: string, key: string): string {
  return accountId === 'default'
    ? `channels.telegram.${key}`
    : `channels.telegram.accounts.${accountId}.${key}`;
}

/**
 * The Telegram channel. Register it from a plugin (`api.registerChannel(createTelegramChannel())`);
 * the package's default export does exactly that.
 */
export function createTelegramChannel(
  options: TelegramChannelOptions = {},
): ChannelPlugin<TelegramAccountConfig> {
  // One poller per token: Telegram answers 409 to a second one.
  const tokensInUse = new Map<string, string>();
  return {
    id: 'telegram',
    label: 'Telegram',
    capabilities: {
      chatTypes: ['direct', 'group', 'channel'],
      threads: true,
      media: true,
      edits: true,
      typing: true,
      reactions: false,
      textLimit: 4000,
      markup: 'telegram-html',
    },
    config: telegramConfig,
    normalizeAllowEntry: normalizeTelegramAllowEntry,
    start: (context) => startAccount(context, options, tokensInUse),
  };
}

async function startAccount(
  context: ChannelStartContext<TelegramAccountConfig>,
  options: TelegramChannelOptions,
  tokensInUse: Map<string, string>,
): Promise<ChannelAccount> {
  const { account, accountId, logger } = context;
  const token = account.botToken;
  const holder = tokensInUse.get(token);
  if (holder !== undefined && holder !== accountId) {
    throw new TelegramChannelError(
      'TELEGRAM_DUPLICATE_TOKEN',
      `${configPath(accountId, 'botToken')} is the same bot token as account "${holder}"; Telegram allows one poller per token, so give each account its own bot`,
      { details: { accountId, otherAccountId: holder } },
    );
  }
  tokensInUse.set(token, accountId);

  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? systemSleep;
  const random = options.random ?? Math.random;
  const controller = new AbortController();
  const signal = AbortSignal.any([context.signal, controller.signal]);
  const sendRetry = {
    attempts: account.sendRetry.attempts,
    maxWaitMs: account.sendRetry.maxWaitSeconds * 1000,
  };

  // Status: the current state plus what every snapshot carries.
  let current: ChannelAccountStatus = { state: 'starting', detail: 'connecting to Telegram' };
  let identity: { id: string; name?: string } | undefined;
  let lastInboundAt: number | undefined;
  let lastOutboundAt: number | undefined;
  const publish = (next: ChannelAccountStatus = current) => {
    current = next;
    const blockedCount = blocked?.size ?? 0;
    const detail =
      blockedCount === 0 || next.state === 'stopped'
        ? next.detail
        : `${next.detail ?? next.state}; ${blockedCount} chat(s) blocked the bot`;
    context.setStatus({
      ...next,
      detail,
      identity,
      lastInboundAt,
      lastOutboundAt,
    });
  };
  let blocked: ReturnType<typeof createBlockedChats> | undefined;
  publish();

  const bot = new Bot(token, {
    client: {
      apiRoot: account.apiRoot,
      timeoutSeconds: Math.max(60, account.pollingTimeoutSeconds + 30),
      fetch: options.fetch,
    },
  });

  const fail = (error: unknown, what: string): never => {
    tokensInUse.delete(token);
    const failure = classifyTelegramError(error);
    const converted =
      failure.kind === 'unauthorized'
        ? new TelegramChannelError(
            'TELEGRAM_INVALID_TOKEN',
            `Telegram rejected the bot token of account "${accountId}" (401 Unauthorized): check ${configPath(accountId, 'botToken')}`,
            { cause: error, details: { accountId } },
          )
        : toChannelError(failure, `${what} for Telegram account "${accountId}"`, error);
    publish({
      state: 'error',
      error: converted.message,
      detail: converted.retryable
        ? 'start failed; the gateway retries'
        : 'not retrying: fix the configuration',
    });
    throw converted;
  };

  let me: UserFromGetMe;
  try {
    // One attempt: a retryable failure fails start, and the gateway restarts the account with backoff.
    me = await bot.api.getMe(apiSignal(signal));
  } catch (error) {
    return fail(error, 'getMe');
  }
  bot.botInfo = me;
  identity = { id: String(me.id), name: me.username === undefined ? undefined : `@${me.username}` };

  blocked = createBlockedChats(now, () => publish());
  const chats = blocked;
  const mapping = {
    accountId,
    botId: me.id,
    botUsername: me.username ?? '',
    mentionPatterns: compileMentionPatterns(account.mentionPatterns),
  };
  const downloader = createMediaDownloader({
    api: bot.api,
    apiRoot: account.apiRoot,
    token,
    directory: join(context.dataDirectory, 'media'),
    maxBytes: Math.floor(account.mediaMaxMb * 1024 * 1024),
    fetch: options.fetch ?? fetch,
    signal,
  });
  void downloader.prune(options.mediaRetentionMs ?? 7 * 24 * 60 * 60_000, now()).catch(() => undefined);

  // Inbound. Errors are not caught here: they make handleUpdate reject, so the poller does
  // not advance its offset and the webhook answers 500: Telegram delivers the update again.
  bot.on(['message', 'edited_message', 'channel_post', 'edited_channel_post'], async (ctx: Context) => {
    const update = ctx.update;
    const source: MessageSource =
      update.message !== undefined
        ? 'message'
        : update.edited_message !== undefined
          ? 'edited_message'
          : update.channel_post !== undefined
            ? 'channel_post'
            : 'edited_channel_post';
    const message = (update.message ??
      update.edited_message ??
      update.channel_post ??
      update.edited_channel_post) as Message;
    const edited = source === 'edited_message' || source === 'edited_channel_post';
    if (edited && account.editedMessages === 'ignore') return;
    const mapped = mapMessage(message, source, mapping);
    if (mapped.kind === 'skip') {
      logger.debug('telegram update skipped', { updateId: update.update_id, reason: mapped.reason });
      return;
    }
    chats.unblock(String(message.chat.id));
    let inbound: InboundMessage = mapped.message;
    if (mapped.media.length > 0) {
      // Described only: the gateway downloads them if it admits the message (decision 0026).
      const media = mapped.media.map((reference) =>
        describeMedia(message.chat.id, message.message_id, reference),
      );
      inbound = { ...inbound, media };
    }
    const outcome = await context.receive(inbound);
    if (outcome.status === 'dropped') {
      logger.debug('telegram message dropped by the gateway', {
        messageId: inbound.messageId,
        reason: outcome.reason,
      });
    }
    lastInboundAt = now();
    publish();
  });

  const outbound = createOutbound({
    api: bot.api,
    signal,
    linkPreview: account.linkPreview,
    blocked: chats,
    onSent: () => {
      lastOutboundAt = now();
      publish();
    },
    onUnauthorized: (error) => {
      publish({
        state: 'error',
        error: error.message,
        detail: 'the bot token was rejected; fix botToken and restart',
      });
    },
    onRateLimited: (seconds) => {
      logger.info('telegram rate limit on a send; the gateway retries after it', {
        retryAfterSeconds: seconds,
      });
    },
  });

  let poller: Poller | undefined;
  const webhook = account.webhook;
  if (webhook === undefined) {
    try {
      // getUpdates answers 409 while a webhook is set.
      await bot.api.deleteWebhook({ drop_pending_updates: false }, apiSignal(signal));
    } catch (error) {
      return fail(error, 'deleteWebhook');
    }
    poller = startPolling({
      api: bot.api,
      handle: (update: Update) => bot.handleUpdate(update),
      timeoutSeconds: account.pollingTimeoutSeconds,
      allowedUpdates: telegramAllowedUpdates,
      signal,
      sleep,
      random,
      onEvent: (event) => onPollerEvent(event),
    });
    publish({ state: 'connected', detail: 'long polling' });
  } else {
    const path = webhook.path ?? `/telegram/${accountId}/webhook`;
    let secretToken: string;
    try {
      secretToken = await resolveWebhookSecret(webhook.secretToken, context.dataDirectory);
    } catch (error) {
      tokensInUse.delete(token);
      throw new TelegramChannelError(
        'TELEGRAM_API_ERROR',
        `could not keep a webhook secret in ${context.dataDirectory}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error, retryable: true },
      );
    }
    context.registerHttpRoute(createWebhookRoute({ bot, path, secretToken, logger }));
    try {
      await bot.api.setWebhook(
        webhook.url,
        {
          secret_token: secretToken,
          allowed_updates: [...telegramAllowedUpdates] as never,
          drop_pending_updates: false,
        },
        apiSignal(signal),
      );
    } catch (error) {
      return fail(error, 'setWebhook');
    }
    publish({ state: 'connected', detail: `webhook ${path}` });
  }

  function onPollerEvent(event: PollerEvent): void {
    const seconds = (ms: number) => Math.max(1, Math.round(ms / 1000));
    switch (event.type) {
      case 'connected':
        publish({ state: 'connected', detail: 'long polling' });
        return;
      case 'network':
        logger.warn('telegram polling failed; retrying', {
          error: event.failure.description,
          retryInMs: event.retryInMs,
        });
        publish({
          state: 'reconnecting',
          error: event.failure.description,
          detail: `cannot reach the Bot API; retrying in ${seconds(event.retryInMs)} s`,
        });
        return;
      case 'conflict':
        logger.error('telegram polling conflict: another process uses this bot token', {
          error: event.failure.description,
          retryInMs: event.retryInMs,
        });
        publish({
          state: 'error',
          error: event.failure.description,
          detail: `409 Conflict: another bot instance polls with this token (or a webhook is set); retrying in ${seconds(event.retryInMs)} s. Stop the other instance or give this account its own bot.`,
        });
        return;
      case 'rate_limited':
        publish({
          state: 'reconnecting',
          detail: `rate limited by Telegram; polling again in ${seconds(event.retryInMs)} s`,
        });
        return;
      case 'unauthorized':
        logger.error('telegram rejected the bot token; polling stopped', {
          error: event.failure.description,
        });
        publish({
          state: 'error',
          error: `Telegram rejected the bot token (401 Unauthorized): ${event.failure.description}`,
          detail: `polling stopped: fix ${configPath(accountId, 'botToken')} and restart the gateway`,
        });
        return;
      case 'handler_failed':
        logger.warn('an update was not handed to the gateway; Telegram will deliver it again', {
          updateId: event.updateId,
          error: event.error instanceof Error ? event.error.message : String(event.error),
          retryInMs: event.retryInMs,
        });
        publish({
          state: 'reconnecting',
          error: event.error instanceof Error ? event.error.message : String(event.error),
          detail: `update ${event.updateId} not taken yet; asking Telegram again in ${seconds(event.retryInMs)} s`,
        });
        return;
    }
  }

  let stopped = false;
  const running = <T>(what: string, task: () => Promise<T>): Promise<T> => {
    if (stopped || signal.aborted) {
      return Promise.reject(
        new TelegramChannelError(
          'TELEGRAM_NOT_RUNNING',
          `${what}: Telegram account "${accountId}" is stopped`,
        ),
      );
    }
    return task();
  };

  return {
    send: (message) => running('send', () => outbound.send(message)),
    classifySendFailure: classifyTelegramSendFailure,
    sendRetry,
    edit: (request) => running('edit', () => outbound.edit(request)),
    typing: (target) => running('typing', () => outbound.typing(target)),
    downloadMedia: (media, request) => running('downloadMedia', () => downloader.download(media, request)),
    async stop() {
      if (stopped) return;
      stopped = true;
      controller.abort();
      if (poller !== undefined) {
        // A handler still waiting on the gateway must not hold shutdown for long.
        const giveUp = new AbortController();
        await Promise.race([poller.done, systemSleep(10_000, giveUp.signal).catch(() => undefined)]);
        giveUp.abort();
      }
      tokensInUse.delete(token);
      publish({ state: 'stopped' });
    },
  };
}
