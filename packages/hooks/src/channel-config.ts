/**
 * Channel configuration: the standard access vocabulary every channel shares, and the
 * account model (`channels.<id>` with `accounts.<accountId>`) that the gateway validates
 * at startup.
 */
import { z } from 'zod';
import type { ChannelPlugin } from './channel.ts';
import { type ConfigIssue, describeIssues, joinKeyPath } from './key-path.ts';
import { PluginError } from './plugin-error.ts';

/**
 * Who may talk to the bot in direct messages.
 * - `pairing` (default): an unknown sender gets a pairing code and nothing reaches a model
 *   until an operator approves it; approved senders join the account's allowlist.
 * - `allowlist`: only senders listed in `allowFrom`; others are ignored.
 * - `open`: anyone.
 * - `disabled`: DMs are ignored.
 */
export type DmPolicy = 'pairing' | 'allowlist' | 'open' | 'disabled';

/**
 * Which group chats and channels the bot answers in.
 * - `allowlist` (default): only conversations listed under `groups` (or all, with a `"*"` key).
 * - `open`: every group the bot is in.
 * - `disabled`: never in groups.
 */
export type GroupPolicy = 'allowlist' | 'open' | 'disabled';

/** Per-group settings under `groups.<groupId>` (or `groups["*"]` for all). */
export interface GroupAccessConfig {
  /** Overrides the account's `requireMention` in this group. */
  readonly requireMention?: boolean;
  /** Only these senders may trigger the bot in this group. */
  readonly allowFrom?: readonly string[];
}

/**
 * The access fields every channel account accepts, with their defaults. The channel does
 * not implement them: the gateway's access layer applies them to every inbound message.
 */
export interface ChannelAccessConfig {
  /** `false` keeps the account configured but not started. Default `true`. */
  readonly enabled: boolean;
  /** Default `pairing`. */
  readonly dmPolicy: DmPolicy;
  /** Sender ids allowed to DM the bot and to use commands; `"*"` means anyone. Default `[]`. */
  readonly allowFrom: readonly string[];
  /** Default `allowlist`. */
  readonly groupPolicy: GroupPolicy;
  /** Group and channel ids the bot answers in (keys), with per-group settings. Default `{}`. */
  readonly groups: Readonly<Record<string, GroupAccessConfig>>;
  /** In groups, answer only when mentioned (or replied to). Default `true`. */
  readonly requireMention: boolean;
}

const idList = z.array(z.union([z.string().min(1), z.number()]).transform((entry) => String(entry).trim()));

const accessShape = {
  enabled: z.boolean().default(true),
  dmPolicy: z.enum(['pairing', 'allowlist', 'open', 'disabled']).default('pairing'),
  allowFrom: idList.default([]),
  groupPolicy: z.enum(['allowlist', 'open', 'disabled']).default('allowlist'),
  groups: z
    .record(z.string(), z.object({ requireMention: z.boolean().optional(), allowFrom: idList.optional() }))
    .default({}),
  requireMention: z.boolean().default(true),
};

/** The keys of {@link ChannelAccessConfig}; a channel's own account schema may not use them. */
export const channelAccessKeys: readonly string[] = Object.freeze(Object.keys(accessShape));

/** The zod schema of the access fields alone, for tools that validate them separately. */
export const channelAccessConfigSchema: z.ZodType<ChannelAccessConfig> = z.object(accessShape);

/**
 * A channel's configuration schema, made by {@link defineChannelConfig}. `schema` validates
 * one account's merged configuration (the channel's own fields plus the access fields).
 */
export interface ChannelConfigSpec<Account> {
  readonly schema: z.ZodType<Account & ChannelAccessConfig>;
  /** Every key an account may carry (the channel's own plus the access keys). */
  readonly keys: ReadonlySet<string>;
}

const accountIdPattern = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const reservedKeys = new Set([...channelAccessKeys, 'accounts']);

/**
 * Declares the configuration a channel account needs, as a zod object of the channel's
 * own fields (tokens, API base URLs, chunk limits, ...). The standard access fields of
 * {@link ChannelAccessConfig} are added for you; do not declare them.
 *
 * @example
 * const config = defineChannelConfig(z.object({
 *   botToken: z.string().min(1),
 *   apiRoot: z.url().default('https://api.telegram.org'),
 * }));
 */
export function defineChannelConfig<Shape extends z.ZodRawShape>(
  accountSchema: z.ZodObject<Shape>,
): ChannelConfigSpec<z.output<z.ZodObject<Shape>>> {
  const ownKeys = Object.keys(accountSchema.shape);
  const clashing = ownKeys.filter((key) => reservedKeys.has(key));
  if (clashing.length > 0) {
    throw new PluginError(
      'PLUGIN_INVALID_REGISTRATION',
      `Channel config schema declares reserved key(s) ${clashing.map((key) => `"${key}"`).join(', ')}; ` +
        'the access fields and "accounts" are added by defineChannelConfig.',
      { details: { keys: clashing } },
    );
  }
  const full = accountSchema.extend(accessShape).superRefine((account, context) => {
    const access = account as unknown as ChannelAccessConfig;
    if (access.dmPolicy === 'allowlist' && access.allowFrom.length === 0) {
      context.addIssue({
        code: 'custom',
        path: ['allowFrom'],
        message: 'dmPolicy "allowlist" needs at least one sender id in allowFrom',
      });
    }
  });
  return {
    schema: full as unknown as z.ZodType<z.output<z.ZodObject<Shape>> & ChannelAccessConfig>,
    keys: new Set([...ownKeys, ...channelAccessKeys]),
  };
}

/** One account of a channel after validation. */
export interface ResolvedChannelAccount<Account> {
  readonly accountId: string;
  /** The key path of the account's own block (`channels.telegram.accounts.work`, or `channels.telegram`). */
  readonly path: string;
  readonly config: Account & ChannelAccessConfig;
}

export interface ResolveChannelAccountsOptions {
  /** The key path of the channel's block. Defaults to `channels.<id>`. */
  readonly path?: string;
  /** The plugin that registered the channel, named in errors. */
  readonly plugin?: string;
}

/** The accounts of one channel, plus warnings about keys that were ignored. */
export interface ResolvedChannelAccounts<Account> {
  readonly accounts: ReadonlyArray<ResolvedChannelAccount<Account>>;
  readonly warnings: readonly string[];
}

/** The account id used when a channel block has no `accounts` map. */
export const defaultAccountId = 'default';

/**
 * Validates a channel's configuration block (`channels.<id>`) and returns its accounts.
 *
 * - No block (`undefined`): the channel is not configured; no accounts.
 * - No `accounts` map: one account, `default`, made of the top-level fields.
 * - With `accounts.<accountId>`: one account per entry; top-level fields are inherited
 *   (shallow: an account's `groups` replaces the top-level `groups`).
 *
 * Every problem in every account is collected and thrown as one `PluginError`
 * (`PLUGIN_INVALID_CHANNEL_CONFIG`) whose message lists each key path. Unknown keys are
 * not errors; they come back as warnings.
 */
export function resolveChannelAccounts<Account>(
  channel: Pick<ChannelPlugin<Account>, 'id' | 'config'>,
  value: unknown,
  options: ResolveChannelAccountsOptions = {},
): ResolvedChannelAccounts<Account> {
  const base = options.path ?? `channels.${channel.id}`;
  if (value === undefined || value === null) return { accounts: [], warnings: [] };
  const issues: ConfigIssue[] = [];
  const warnings: string[] = [];
  if (!isPlainObject(value)) {
    throw channelConfigError(channel.id, options.plugin, [{ path: base, message: 'expected an object' }]);
  }
  const { accounts: accountsValue, ...topLevel } = value;
  for (const key of Object.keys(topLevel)) {
    if (!channel.config.keys.has(key)) warnings.push(`${base}.${key}: unknown key, ignored`);
  }

  const blocks: Array<{ accountId: string; path: string; own: Record<string, unknown> }> = [];
  if (
    accountsValue === undefined ||
    (isPlainObject(accountsValue) && Object.keys(accountsValue).length === 0)
  ) {
    blocks.push({ accountId: defaultAccountId, path: base, own: {} });
  } else if (!isPlainObject(accountsValue)) {
    issues.push({ path: `${base}.accounts`, message: 'expected an object keyed by account id' });
  } else {
    for (const [accountId, own] of Object.entries(accountsValue)) {
      const path = `${base}.accounts.${accountId}`;
      if (!accountIdPattern.test(accountId)) {
        issues.push({
          path,
          message: 'account ids use letters, digits, "-" and "_" and start with a letter or digit',
        });
        continue;
      }
      if (!isPlainObject(own)) {
        issues.push({ path, message: 'expected an object' });
        continue;
      }
      for (const key of Object.keys(own)) {
        if (!channel.config.keys.has(key)) warnings.push(`${path}.${key}: unknown key, ignored`);
      }
      blocks.push({ accountId, path, own });
    }
  }

  const accounts: Array<ResolvedChannelAccount<Account>> = [];
  for (const block of blocks) {
    const merged = { ...topLevel, ...block.own };
    const parsed = channel.config.schema.safeParse(merged);
    if (parsed.success) {
      accounts.push({ accountId: block.accountId, path: block.path, config: parsed.data });
      continue;
    }
    for (const issue of parsed.error.issues) {
      const key = issue.path[0];
      const inherited = typeof key === 'string' && !(key in block.own) && key in topLevel;
      issues.push({ path: joinKeyPath(inherited ? base : block.path, issue.path), message: issue.message });
    }
  }
  if (issues.length > 0) throw channelConfigError(channel.id, options.plugin, dedupeIssues(issues));
  return { accounts, warnings };
}

function channelConfigError(
  channelId: string,
  plugin: string | undefined,
  issues: readonly ConfigIssue[],
): PluginError {
  const owner = plugin === undefined ? '' : ` (plugin "${plugin}")`;
  return new PluginError(
    'PLUGIN_INVALID_CHANNEL_CONFIG',
    `Invalid configuration for channel "${channelId}"${owner}:\n${describeIssues(issues)}`,
    { details: { channel: channelId, plugin, issues } },
  );
}

function dedupeIssues(issues: readonly ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
