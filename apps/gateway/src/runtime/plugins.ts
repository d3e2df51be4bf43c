/**
 * Plugins and channels at start-up, and the same checks for `switchboard config validate`:
 * every configured plugin is found and imported (no `setup` runs), its `config` is checked
 * against its own schema, and every configured built-in channel's `channels.<id>` against
 * the channel's schema, all reported as `ConfigProblem`s with full key paths. A configured
 * plugin that cannot load stops start-up unless its entry says `optional: true`
 * (docs/decisions/0010-config-validation.md).
 */
import { resolve } from 'node:path';
import {
  type ChannelConfigSpec,
  type FoundPlugins,
  findPlugins,
  type Logger,
  type PluginDefinition,
  PluginError,
  type PluginLoadFailure,
  type PluginLoadReport,
  type PluginRegistry,
  pluginsConfigSchema,
  registerPlugins,
  resolveChannelAccounts,
} from '@switchboard/hooks';
import { closestKey } from '../config/did-you-mean.ts';
import { ConfigError, type ConfigProblem, formatProblems, sortProblems } from '../config/errors.ts';
import { checkGatewayConfig, type LoadConfigOptions, readConfigFile } from '../config/load.ts';
import type { GatewayConfig } from '../config/schema.ts';
import { findUnknownKeys } from '../config/unknown-keys.ts';
import { checkConfig, unknownKeyProblem } from '../config/validate.ts';

/** A channel shipped with the gateway: the plugin that registers it and its config schema. */
interface BuiltinChannel {
  readonly plugin: PluginDefinition;
  readonly config: ChannelConfigSpec<unknown>;
}

/**
 * The channels shipped with the gateway. A channel's package (and its platform SDK) is
 * imported only when `channels.<id>` is configured, so an unused SDK costs no start time
 * and no memory.
 */
const builtinChannels: Readonly<Record<string, () => Promise<BuiltinChannel>>> = {
  telegram: async () => {
    const module = await import('@switchboard/channel-telegram');
    return { plugin: module.default, config: module.telegramConfig as ChannelConfigSpec<unknown> };
  },
  discord: async () => {
    const module = await import('@switchboard/channel-discord');
    return { plugin: module.default, config: module.discordAccountConfig as ChannelConfigSpec<unknown> };
  },
  slack: async () => {
    const module = await import('@switchboard/channel-slack');
    return { plugin: module.default, config: module.slackChannelConfig as ChannelConfigSpec<unknown> };
  },
  whatsapp: async () => {
    const module = await import('@switchboard/channel-whatsapp');
    return { plugin: module.default, config: module.whatsappChannelConfig as ChannelConfigSpec<unknown> };
  },
};

/** The ids of the channels shipped with the gateway. */
export const builtinChannelIds: readonly string[] = Object.freeze(Object.keys(builtinChannels));

/** Package names resolve from the gateway's own folder (its node_modules and those above). */
const baseDirectory = resolve(import.meta.dirname, '..', '..');

export interface PluginCheckInput {
  /** `channels` as configured (after `${VAR}` substitution). */
  readonly channels: unknown;
  /** `plugins` as configured. */
  readonly plugins: unknown;
  /** The config file; relative `plugins.load.paths` resolve from its folder. */
  readonly configPath: string | undefined;
  /** Plugins registered before the configured ones (tests, embedders). */
  readonly extra?: readonly PluginDefinition[];
}

export interface PluginCheck {
  /** Every problem, errors and warnings, with full key paths. */
  readonly problems: readonly ConfigProblem[];
  /** What to register: found plugins, minus optional ones that cannot load. Undefined when `plugins` is malformed. */
  readonly found: FoundPlugins | undefined;
  /** Optional plugins left out, and why. */
  readonly skipped: readonly PluginLoadFailure[];
}

/**
 * Checks `channels.<id>` of every configured built-in channel and `plugins.entries.<name>.config`
 * of every plugin found (imported, not set up), and reports plugins that cannot be found or
 * imported: errors, or warnings for entries that say `optional: true`. Never throws.
 */
export async function checkChannelsAndPlugins(input: PluginCheckInput): Promise<PluginCheck> {
  const problems: ConfigProblem[] = [];
  const bundled: PluginDefinition[] = [...(input.extra ?? [])];
  for (const [id, value] of Object.entries(isPlainObject(input.channels) ? input.channels : {})) {
    const path = `channels.${id}`;
    const load = builtinChannels[id];
    if (load === undefined) {
      const closest = closestKey(id, builtinChannelIds);
      if (closest !== undefined) {
        problems.push({
          path,
          message: `no built-in channel has this id (did you mean channels.${closest}?); ignored unless a plugin provides it`,
          severity: 'warning',
          suggestion: `channels.${closest}`,
        });
      }
      continue;
    }
    let builtin: BuiltinChannel;
    try {
      builtin = await load();
    } catch (error) {
      problems.push({
        path,
        message: `the built-in channel cannot be loaded: ${error instanceof Error ? error.message : String(error)}`,
        severity: 'error',
      });
      continue;
    }
    bundled.push(builtin.plugin);
    problems.push(...checkChannelConfig(id, builtin.config, value));
  }

  const plugins = pluginsConfigSchema.safeParse(input.plugins ?? {});
  // A malformed plugins section is reported by the gateway's own schema.
  if (!plugins.success) return { problems, found: undefined, skipped: [] };
  const entries = plugins.data.entries;
  let found: FoundPlugins;
  try {
    found = await findPlugins({
      config: plugins.data,
      baseDirectory,
      configDirectory: input.configPath === undefined ? undefined : resolve(input.configPath, '..'),
      bundled,
    });
  } catch (error) {
    if (!(error instanceof PluginError)) throw error;
    problems.push({ path: 'plugins', message: error.message, severity: 'error' });
    return { problems, found: undefined, skipped: [] };
  }

  const skipped: PluginLoadFailure[] = [];
  for (const failure of found.failed) {
    const path = failurePath(failure, entries, plugins.data.load.paths);
    problems.push(failureProblem(path, failure));
    if (failure.optional === true) skipped.push(failure);
  }
  const candidates = [];
  for (const candidate of found.candidates) {
    const { definition, source } = candidate;
    const name = typeof definition.name === 'string' ? definition.name : undefined;
    const schema = definition.configSchema as unknown;
    // A malformed definition is left for the registry, which names what is wrong with it.
    if (name === undefined || !isSchema(schema)) {
      candidates.push(candidate);
      continue;
    }
    const entry = entries[name];
    const checked = checkConfig(schema as typeof pluginsConfigSchema, entry?.config ?? {}, {
      base: `plugins.entries.${name}.config`,
      unknownKeySeverity: () => 'error',
    });
    const failed = checked.problems.some((problem) => problem.severity === 'error');
    if (!failed || entry?.optional !== true) {
      problems.push(...checked.problems);
      candidates.push(candidate);
      continue;
    }
    const failure: PluginLoadFailure = {
      plugin: name,
      source,
      optional: true,
      error: new PluginError(
        'PLUGIN_INVALID_CONFIG',
        `Invalid configuration for plugin "${name}":\n${formatProblems(checked.problems)}`,
        { details: { plugin: name, path: `plugins.entries.${name}.config`, issues: checked.problems } },
      ),
    };
    skipped.push(failure);
    problems.push(
      failureProblem(`plugins.entries.${name}`, failure, 'its config is invalid'),
      ...checked.problems.map((problem) => ({ ...problem, severity: 'warning' as const })),
    );
  }
  return { problems, found: { ...found, candidates, failed: [] }, skipped };
}

/**
 * Checks one channel block (`channels.<id>`): what its schema rejects (errors) and every key
 * it does not know, at any depth, in the block and in each of its `accounts` (warnings).
 */
export function checkChannelConfig(
  id: string,
  spec: ChannelConfigSpec<unknown>,
  value: unknown,
): ConfigProblem[] {
  const base = `channels.${id}`;
  const problems: ConfigProblem[] = [];
  if (isPlainObject(value)) {
    const { accounts, ...topLevel } = value;
    const warn = () => 'warning' as const;
    for (const unknown of findUnknownKeys(spec.schema, topLevel)) {
      problems.push(unknownKeyProblem(unknown, base, warn));
    }
    if (isPlainObject(accounts)) {
      for (const [accountId, account] of Object.entries(accounts)) {
        for (const unknown of findUnknownKeys(spec.schema, account)) {
          problems.push(
            unknownKeyProblem({ ...unknown, parent: ['accounts', accountId, ...unknown.parent] }, base, warn),
          );
        }
      }
    }
  }
  try {
    resolveChannelAccounts({ id, config: spec }, value, { path: base });
  } catch (error) {
    if (!(error instanceof PluginError)) throw error;
    const issues = (error.details?.issues as Array<{ path: string; message: string }> | undefined) ?? [
      { path: base, message: error.message },
    ];
    for (const issue of issues)
      problems.push({ path: issue.path, message: issue.message, severity: 'error' });
  }
  return problems;
}

export interface StartPluginsOptions {
  readonly config: GatewayConfig;
  readonly configPath: string | undefined;
  /** Plugins registered before the configured ones (tests, embedders). */
  readonly extra?: readonly PluginDefinition[];
  readonly logger: Logger;
}

/**
 * Checks, then registers every configured plugin (built-in channels included). Throws a
 * `ConfigError` naming every key path when a plugin or channel config is invalid or a
 * plugin that is not `optional` cannot be loaded (whatever was registered is unregistered
 * again). Optional plugins that cannot load are left out with a warning, and listed in the
 * report's `failed` (shown by `switchboard status`).
 */
export async function startPlugins(
  registry: PluginRegistry,
  options: StartPluginsOptions,
): Promise<PluginLoadReport> {
  const { logger } = options;
  const check = await checkChannelsAndPlugins({
    channels: options.config.channels,
    plugins: options.config.plugins,
    configPath: options.configPath,
    extra: options.extra,
  });
  stopOnErrors(check.problems, 'CONFIG_INVALID', logger);
  const found = check.found ?? { candidates: [], failed: [], disabled: [], entries: {} };
  const report = await registerPlugins(registry, found);
  const problems: ConfigProblem[] = [];
  const optionalFailures: PluginLoadFailure[] = [];
  const section = pluginsConfigSchema.safeParse(options.config.plugins ?? {});
  const entries = section.success ? section.data.entries : {};
  const loadPaths = section.success ? section.data.load.paths : [];
  for (const failure of report.failed) {
    problems.push(failureProblem(failurePath(failure, entries, loadPaths), failure));
    if (failure.optional === true) optionalFailures.push(failure);
  }
  // Channels registered by plugins other than the built-in ones are checked once registered.
  for (const { channel } of registry.channels()) {
    if (builtinChannelIds.includes(channel.id)) continue;
    problems.push(
      ...checkChannelConfig(
        channel.id,
        channel.config as ChannelConfigSpec<unknown>,
        options.config.channels[channel.id],
      ),
    );
  }
  try {
    stopOnErrors(problems, 'CONFIG_PLUGIN_FAILED', logger);
  } catch (error) {
    await registry.unregisterAll().catch(() => undefined);
    throw error;
  }
  const loaded = report.loaded;
  if (loaded.length > 0) {
    logger.info(`Loaded ${loaded.length} plugin(s): ${loaded.map((plugin) => plugin.name).join(', ')}`, {
      plugins: loaded.map((plugin) => plugin.name),
    });
  }
  return { loaded, failed: [...check.skipped, ...optionalFailures], disabled: report.disabled };
}

/**
 * Everything `switchboard config validate` checks: the file, the gateway's schema, routing,
 * sessions, every built-in channel's and every plugin's own config. Throws only when the file
 * cannot be read or parsed, or names unset `${VAR}`s (a `ConfigError`).
 */
export async function checkConfigFile(
  options: LoadConfigOptions,
): Promise<{ path: string | undefined; problems: ConfigProblem[] }> {
  const { path, text } = readConfigFile(options);
  const checked = checkGatewayConfig(text, path ?? '(defaults)', options.environment ?? process.env);
  const raw = isPlainObject(checked.raw) ? checked.raw : {};
  const plugins = await checkChannelsAndPlugins({
    channels: raw.channels,
    plugins: raw.plugins,
    configPath: path,
  });
  return { path, problems: sortProblems([...checked.problems, ...plugins.problems]) };
}

/** Logs the warnings; throws a `ConfigError` listing everything when there is any error. */
function stopOnErrors(
  problems: readonly ConfigProblem[],
  code: 'CONFIG_INVALID' | 'CONFIG_PLUGIN_FAILED',
  logger: Logger,
): void {
  if (problems.some((problem) => problem.severity === 'error')) {
    const sorted = sortProblems(problems);
    throw new ConfigError(
      code,
      `${code === 'CONFIG_INVALID' ? 'config is invalid' : 'a configured plugin cannot be loaded'}:\n${formatProblems(sorted)}`,
      sorted,
    );
  }
  for (const problem of problems) logger.warn(`config: ${problem.path}: ${problem.message}`);
}

/** Where a failed plugin is configured: its entry, else its `load.paths` item, else `plugins`. */
function failurePath(
  failure: PluginLoadFailure,
  entries: Readonly<Record<string, unknown>>,
  loadPaths: readonly string[],
): string {
  if (failure.plugin !== undefined && Object.hasOwn(entries, failure.plugin))
    return `plugins.entries.${failure.plugin}`;
  const index = loadPaths.indexOf(failure.source);
  if (index >= 0) return `plugins.load.paths[${index}]`;
  return failure.plugin === undefined ? 'plugins' : `plugins (plugin "${failure.plugin}", ${failure.source})`;
}

function failureProblem(path: string, failure: PluginLoadFailure, reason?: string): ConfigProblem {
  const why = reason ?? failure.error.message;
  return failure.optional === true
    ? {
        path,
        message: `optional plugin not loaded, the gateway runs without it: ${why}`,
        severity: 'warning',
      }
    : { path, message: `plugin cannot be loaded: ${why}`, severity: 'error' };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSchema(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { safeParse?: unknown }).safeParse === 'function' &&
    '_zod' in value
  );
}
