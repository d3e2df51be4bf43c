// The Slack channel plugin: capabilities, configuration and the account factory.
import { type ChannelPlugin, type Sleep, sleep } from '@switchboard/hooks';
import { startSlackAccount } from './account.ts';
import { type SlackAccountSettings, slackChannelConfig } from './config.ts';

/** Slack renders up to 40,000 characters, but recommends 4,000 per message for readability. */
export const slackTextLimit = 4000;

export interface SlackChannelOptions {
  /** Clock for statuses, caches and edit throttling. Default `Date.now`. */
  readonly now?: () => number;
  /** Waits (reconnect backoff, edit throttling). Default a real timer. */
  readonly sleep?: Sleep;
  /** Used for file downloads and URL attachments. Default the global `fetch`. */
  readonly fetch?: typeof fetch;
  /**
   * How many times the gateway retries one rate-limited send before it fails (retryable):
   * the account's `sendRetry.attempts` is this + 1. Default 3.
   */
  readonly maxRateLimitRetries?: number;
  /** The longest `Retry-After` the gateway waits out for one send. Default 60 000 ms. */
  readonly maxRateLimitWaitMs?: number;
  /** The shortest interval between two `chat.update` calls on one message. Default 1000 ms. */
  readonly editIntervalMs?: number;
  /** Socket Mode: ping interval and pong timeout of the connection. Default 5000 ms. */
  readonly socketPingTimeoutMs?: number;
  /** Socket Mode: first delay between reconnect attempts (doubling). Default 1000 ms. */
  readonly reconnectBaseMs?: number;
  /** Socket Mode: longest delay between reconnect attempts. Default 60 000 ms. */
  readonly reconnectMaxMs?: number;
  /** Timeout of one Web API request. Default 30 000 ms. */
  readonly apiTimeoutMs?: number;
}

/**
 * Creates the Slack channel: one bolt App per configured account (workspace), receiving
 * through the Events API over HTTP (mounted on the gateway's server) or Socket Mode.
 */
export function createSlackChannel(options: SlackChannelOptions = {}): ChannelPlugin<SlackAccountSettings> {
  const runtime = {
    textLimit: slackTextLimit,
    now: options.now ?? Date.now,
    sleep: options.sleep ?? sleep,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    maxRateLimitRetries: options.maxRateLimitRetries ?? 3,
    maxRateLimitWaitMs: options.maxRateLimitWaitMs ?? 60_000,
    editIntervalMs: options.editIntervalMs ?? 1000,
    socketPingTimeoutMs: options.socketPingTimeoutMs ?? 5000,
    reconnectBaseMs: options.reconnectBaseMs ?? 1000,
    reconnectMaxMs: options.reconnectMaxMs ?? 60_000,
    apiTimeoutMs: options.apiTimeoutMs ?? 30_000,
  } satisfies Parameters<typeof startSlackAccount>[1];
  return {
    id: 'slack',
    label: 'Slack',
    capabilities: {
      chatTypes: ['direct', 'group', 'channel'],
      threads: true,
      media: true,
      edits: true,
      typing: true,
      reactions: false,
      textLimit: slackTextLimit,
      markup: 'slack-mrkdwn',
    },
    config: slackChannelConfig,
    normalizeAllowEntry: normalizeSlackAllowEntry,
    start: (context) => startSlackAccount(context, runtime),
  };
}

/**
 * How an `allowFrom` entry maps to a Slack user id: `slack:U123`, `user:U123`, `<@U123>`
 * and `<@U123|name>` all become `U123`; ids are upper-cased (`u123` → `U123`).
 */
export function normalizeSlackAllowEntry(entry: string): string {
  const trimmed = entry
    .trim()
    .replace(/^(slack|user):/i, '')
    .replace(/^<@([A-Za-z0-9]+)(\|[^>]*)?>$/, '$1');
  // Slack ids are upper case with at least one digit (U012AB3CD); names are left alone.
  return /^[uwb](?=[a-z]*\d)[a-z0-9]+$/i.test(trimmed) ? trimmed.toUpperCase() : trimmed;
}
