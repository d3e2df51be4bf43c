// The configuration of one Slack account (`channels.slack`, or `channels.slack.accounts.<id>`).
import {
  type ChannelAccessConfig,
  type ChannelConfigSpec,
  defineChannelConfig,
  type GroupAccessConfig,
  z,
} from '@switchboard/hooks';

const idList = z.array(z.union([z.string().min(1), z.number()]).transform((entry) => String(entry).trim()));

/**
 * Per-channel settings under `channels.<channelId>` (OpenClaw's Slack key). Each entry is an
 * alias of the standard `groups.<channelId>` entry: listing a channel allowlists it.
 */
const slackChannelEntry = z.object({
  /** Answer only when mentioned in this channel (default: the account's `requireMention`). */
  requireMention: z.boolean().optional(),
  /** Only these user ids may trigger the bot in this channel. */
  allowFrom: idList.optional(),
  /** OpenClaw's name for `allowFrom`. */
  users: idList.optional(),
});

const accountSchema = z.object({
  /**
   * How events arrive: `socket` (Socket Mode: an outbound WebSocket, no public URL needed;
   * needs `appToken`) or `http` (the Events API POSTs to the gateway; needs `signingSecret`).
   */
  mode: z.enum(['socket', 'http']).default('socket'),
  /** The bot token (`xoxb-…`) of the workspace. */
  botToken: z.string().min(1),
  /** The app-level token (`xapp-…`, scope `connections:write`) for Socket Mode. */
  appToken: z.string().min(1).optional(),
  /** The app's signing secret, for the v0 signatures of HTTP events. */
  signingSecret: z.string().min(1).optional(),
  /** The Web API base (a local Slack, a proxy). Default `https://slack.com/api/`. */
  slackApiUrl: z
    .url()
    .default('https://slack.com/api/')
    .transform((url) => (url.endsWith('/') ? url : `${url}/`)),
  /** Where HTTP events are mounted on the gateway's server. Default `/slack/<accountId>/events`. */
  webhookPath: z
    .string()
    .regex(/^\/[^?#\s]*$/, 'must start with "/" and have no query string')
    .optional(),
  /** Per-channel access (`channels.<C…>.requireMention`); merged into `groups`. */
  channels: z.record(z.string().min(1), slackChannelEntry).default({}),
  /** Inbound files larger than this are not downloaded. Default 20. */
  mediaMaxMb: z.number().positive().max(1024).default(20),
  /** Show "is typing…" with `assistant.threads.setStatus` while a reply is written. Default true. */
  typingStatus: z.boolean().default(true),
});

/** Per-channel settings under `channels.<channelId>`. */
interface SlackChannelEntry {
  readonly requireMention?: boolean;
  readonly allowFrom?: readonly string[];
  readonly users?: readonly string[];
}

/** One Slack account's own settings, after validation and defaults. */
export interface SlackAccountSettings {
  readonly mode: 'socket' | 'http';
  readonly botToken: string;
  readonly appToken?: string;
  readonly signingSecret?: string;
  readonly slackApiUrl: string;
  readonly webhookPath?: string;
  readonly channels: Readonly<Record<string, SlackChannelEntry>>;
  readonly mediaMaxMb: number;
  readonly typingStatus: boolean;
}

// The schema's output must fit the interface above (checked at compile time).
type ParsedSettings = z.output<typeof accountSchema>;
const _schemaMatchesInterface: (parsed: ParsedSettings) => SlackAccountSettings = (parsed) => parsed;
void _schemaMatchesInterface;

/** One Slack account's configuration as `start` receives it: its own settings plus the access fields. */
export type SlackAccountConfig = SlackAccountSettings & ChannelAccessConfig;

const base: ChannelConfigSpec<ParsedSettings> = defineChannelConfig(accountSchema);

function mergeChannelsIntoGroups(account: SlackAccountConfig): SlackAccountConfig {
  const entries = Object.entries(account.channels);
  if (entries.length === 0) return account;
  const fromChannels: Record<string, GroupAccessConfig> = {};
  for (const [channelId, entry] of entries) {
    const allowFrom = entry.allowFrom ?? entry.users;
    fromChannels[channelId] = {
      requireMention: entry.requireMention,
      allowFrom,
    };
  }
  // An explicit `groups.<id>` entry wins over the `channels.<id>` alias of the same id.
  return { ...account, groups: { ...fromChannels, ...account.groups } };
}

const schema: z.ZodType<SlackAccountConfig> = (base.schema as z.ZodType<SlackAccountConfig>)
  .superRefine((account, context) => {
    if (account.mode === 'socket' && account.appToken === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['appToken'],
        message: 'mode "socket" needs an app-level token (xapp-…) in appToken; or set mode to "http"',
      });
    }
    if (account.mode === 'http' && account.signingSecret === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['signingSecret'],
        message:
          'mode "http" needs the app\'s signingSecret to verify Slack\'s requests; or set mode to "socket"',
      });
    }
  })
  .transform(mergeChannelsIntoGroups);

/**
 * The Slack account schema, as the gateway validates `channels.slack` (and each of its
 * `accounts.<id>`): the fields above plus the standard access fields. `channels.<id>` entries
 * become `groups.<id>` entries, so the gateway's access layer sees them.
 */
export const slackChannelConfig: ChannelConfigSpec<SlackAccountSettings> = {
  schema,
  keys: base.keys,
};

/** The default path of an account's HTTP events route. */
export function defaultWebhookPath(accountId: string): string {
  return `/slack/${accountId}/events`;
}
