// The configuration of one Telegram account (`channels.telegram`, or
// `channels.telegram.accounts.<id>` with the top level inherited). The access fields
// (dmPolicy, allowFrom, groupPolicy, groups, requireMention, enabled) are added by
// defineChannelConfig and applied by the gateway.
import { type ChannelConfigSpec, defineChannelConfig, z } from '@switchboard/hooks';

/** Webhook mode: Telegram POSTs updates to the gateway's own HTTP server. */
export interface TelegramWebhookConfig {
  /** The public HTTPS URL Telegram calls (your reverse proxy in front of the gateway). */
  readonly url: string;
  /**
   * Sent by Telegram in `X-Telegram-Bot-Api-Secret-Token` and checked on every request.
   * When left out, one is generated and kept in the account's data directory.
   */
  readonly secretToken?: string;
  /** The path mounted on the gateway's HTTP server. Default `/telegram/<accountId>/webhook`. */
  readonly path?: string;
}

/** How one Telegram account is configured (after defaults). */
export interface TelegramAccountConfig {
  /** The token from @BotFather (`123456789:AA…`); `${TELEGRAM_BOT_TOKEN}` works. */
  readonly botToken: string;
  /** The Bot API server, without a trailing slash. Default `https://api.telegram.org`. */
  readonly apiRoot: string;
  /** Long-poll wait per `getUpdates` call, in seconds (1–50). Default 30. */
  readonly pollingTimeoutSeconds: number;
  /** Set to receive updates by webhook instead of long polling. */
  readonly webhook?: TelegramWebhookConfig;
  /**
   * What happens when a user edits a message: `ignore` (default; the edit is acknowledged
   * and dropped) or `as-new` (each edit is handed over as a new message whose id is
   * `<chat>:<message>:edit:<edit_date>`, so every distinct edit is answered once).
   */
  readonly editedMessages: 'ignore' | 'as-new';
  /** Inbound files larger than this are not downloaded (the message still arrives). Default 20. */
  readonly mediaMaxMb: number;
  /** Case-insensitive regular expressions that count as a mention in groups (besides @bot and replies). */
  readonly mentionPatterns: readonly string[];
  /** Let Telegram show link previews in replies. Default true. */
  readonly linkPreview: boolean;
  /** How a send answered with 429 (or a 5xx, or a refused connection) is retried. */
  readonly sendRetry: {
    /** Attempts per send, the first included (1–10); the gateway makes them (decision 0023). Default 4. */
    readonly attempts: number;
    /** A `retry_after` longer than this is not waited for; the send fails as retryable. Default 60. */
    readonly maxWaitSeconds: number;
  };
}

const botTokenPattern = /^\d+:[A-Za-z0-9_-]+$/;
const secretTokenPattern = /^[A-Za-z0-9_-]{1,256}$/;

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, 'iu');
    return true;
  } catch {
    return false;
  }
}

const accountSchema = z.object({
  botToken: z
    .string({ error: 'expected the bot token from @BotFather (a string like 123456789:AA…)' })
    .trim()
    .regex(
      botTokenPattern,
      'expected a bot token like 123456789:AA… (digits, a colon, then letters, digits, _ or -)',
    ),
  apiRoot: z
    .url({ protocol: /^https?$/, error: 'expected an http(s) URL such as https://api.telegram.org' })
    .transform((value) => value.replace(/\/+$/, ''))
    .default('https://api.telegram.org'),
  pollingTimeoutSeconds: z.int().min(1).max(50).default(30),
  webhook: z
    .object({
      url: z.url({ protocol: /^https?$/, error: 'expected the public http(s) URL Telegram should call' }),
      secretToken: z
        .string()
        .regex(secretTokenPattern, 'expected 1-256 characters from A-Z, a-z, 0-9, _ and -')
        .optional(),
      path: z
        .string()
        .regex(/^\/[^?#\s]*$/, 'expected a path starting with / and without a query')
        .optional(),
    })
    .optional(),
  editedMessages: z.enum(['ignore', 'as-new']).default('ignore'),
  mediaMaxMb: z.number().positive().max(2000).default(20),
  mentionPatterns: z
    .array(z.string().refine(compiles, { error: 'expected a valid regular expression' }))
    .default([]),
  linkPreview: z.boolean().default(true),
  sendRetry: z
    .object({
      attempts: z.int().min(1).max(10).default(4),
      maxWaitSeconds: z.number().min(0).max(3600).default(60),
    })
    .default({ attempts: 4, maxWaitSeconds: 60 }),
});

/** The configuration spec of the channel: the schema above plus the access fields. */
export const telegramConfig: ChannelConfigSpec<TelegramAccountConfig> = defineChannelConfig(accountSchema);
