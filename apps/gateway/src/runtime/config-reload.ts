// Config reload without a restart (docs/decisions/0011-config-reload.md): read the file again,
// check it the way start-up does, find the key paths that changed, put the ones that can
// apply live in force with one swap of the live config, and report the others as needing a
// restart (their old values stay: nothing half-applies). An invalid file is rejected with
// every problem and the running config keeps answering.
import { isDeepStrictEqual } from 'node:util';
import type { Logger, PluginDefinition, PluginRegistry } from '@switchboard/hooks';
import {
  ConfigError,
  type ConfigProblem,
  formatKeyPath,
  formatProblems,
  sortProblems,
} from '../config/errors.ts';
import { checkGatewayConfig, type LoadConfigOptions, readConfigFile } from '../config/load.ts';
import type { GatewayConfig } from '../config/schema.ts';
import type { ChannelManager, ChannelReloadOutcome } from './channels.ts';
import type { LiveConfig } from './live-config.ts';
import { builtinChannelIds, checkChannelConfig, checkChannelsAndPlugins } from './plugins.ts';

/** What asked for the reload: the file watcher, SIGHUP, or `config.reload` (`switchboard config reload`). */
export type ReloadTrigger = 'file' | 'signal' | 'request';

/** A changed key that keeps its old value until the gateway restarts, and why. */
interface RestartNeeded {
  readonly path: string;
  readonly reason: string;
}

export interface ConfigReloadReport {
  /** False when the new config was rejected (see `problems`); the old one keeps running. */
  readonly ok: boolean;
  readonly trigger: ReloadTrigger;
  /** The file read (null: none, defaults). */
  readonly path: string | null;
  /** Key paths whose new values are in force. */
  readonly applied: readonly string[];
  /** Key paths that changed but need a restart; they keep their old values until then. */
  readonly needsRestart: readonly RestartNeeded[];
  /** Channel accounts restarted, started, stopped, or given new access settings. */
  readonly channels: ChannelReloadOutcome;
  /** Errors (the reload was rejected) and warnings, with key paths. */
  readonly problems: readonly ConfigProblem[];
}

/**
 * Keys that apply only at start-up, and why. A changed key at or below one of these paths is
 * reported as needing a restart and keeps its old value. Every other key applies live.
 */
export const restartRules: ReadonlyArray<{ readonly path: string; readonly reason: string }> = [
  { path: 'gateway.port', reason: 'the listening socket is opened once' },
  { path: 'gateway.bind', reason: 'the listening socket is opened once' },
  {
    path: 'gateway.auth',
    reason: 'the token is fixed when the server starts; connected clients signed in with the old one',
  },
  { path: 'gateway.controlUi', reason: 'the allowed browser origins are fixed when the server starts' },
  { path: 'session.durability', reason: 'the database is opened once with its durability' },
  { path: 'storage', reason: 'the session store (SQLite file or PostgreSQL pool) is opened once' },
  {
    path: 'plugins',
    reason: 'plugin code is loaded and set up once; unloading it safely needs a new process',
  },
  { path: 'logging', reason: 'the logger (level, file) is created once' },
  {
    path: 'agents.defaults.maxConcurrent',
    reason: 'the limit of turns running at once is fixed when the dispatcher is created',
  },
  { path: 'agents.defaults.compaction', reason: 'the compactor is created once with its settings' },
];

const noChannelChanges: ChannelReloadOutcome = { restarted: [], started: [], stopped: [], accessUpdated: [] };

type Segments = ReadonlyArray<string | number>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The key paths (as segments) where two configs differ: objects are compared key by key,
 * anything else (arrays included) as a whole. A key that is missing and one that is
 * `undefined` are the same.
 */
export function diffConfig(previous: unknown, next: unknown, base: Segments = []): Array<Segments> {
  if (Object.is(previous, next)) return [];
  if (isPlainObject(previous) && isPlainObject(next)) {
    const changed: Array<Segments> = [];
    for (const key of new Set([...Object.keys(previous), ...Object.keys(next)]))
      changed.push(...diffConfig(previous[key], next[key], [...base, key]));
    return changed;
  }
  return isDeepStrictEqual(previous, next) ? [] : [base];
}

function startsWith(path: Segments, prefix: Segments): boolean {
  return prefix.length <= path.length && prefix.every((segment, index) => path[index] === segment);
}

/** Why a changed key needs a restart, or undefined when it applies live. */
export function restartReason(path: Segments, loadedChannels: readonly string[]): string | undefined {
  for (const rule of restartRules) {
    const rulePath = rule.path.split('.');
    // At or below the rule, or above it (a whole section appeared or went away).
    if (startsWith(path, rulePath) || startsWith(rulePath, path)) return rule.reason;
  }
  const channel = path[0] === 'channels' ? path[1] : undefined;
  if (typeof channel === 'string' && !loadedChannels.includes(channel)) {
    return builtinChannelIds.includes(channel)
      ? `the ${channel} channel was not configured at start-up, so its code is not loaded`
      : `no loaded plugin provides the channel "${channel}"`;
  }
  return undefined;
}

function valueAt(value: unknown, path: Segments): unknown {
  let target = value;
  for (const segment of path) target = (target as Record<string | number, unknown> | undefined)?.[segment];
  return target;
}

/** Sets (or, for undefined, deletes) the value at `path`, creating objects on the way. */
function setAt(target: Record<string, unknown>, path: Segments, value: unknown): void {
  let parent: Record<string | number, unknown> = target;
  for (const segment of path.slice(0, -1)) {
    const child = parent[segment];
    if (typeof child !== 'object' || child === null) parent[segment] = {};
    parent = parent[segment] as Record<string | number, unknown>;
  }
  const last = path.at(-1);
  if (last === undefined) return;
  if (value === undefined) delete parent[last];
  else parent[last] = structuredClone(value);
}

/** `next`, with every subtree equal to the same subtree of `previous` replaced by that one. */
export function shareUnchanged<Value>(previous: unknown, next: Value): Value {
  if (isDeepStrictEqual(previous, next)) return previous as Value;
  if (!isPlainObject(previous) || !isPlainObject(next)) return next;
  const shared: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(next)) shared[key] = shareUnchanged(previous[key], value);
  return shared as Value;
}

/** The plan for a valid new config: what applies, what waits for a restart, and the config to put in force. */
export interface ReloadPlan {
  readonly applied: readonly string[];
  readonly needsRestart: readonly RestartNeeded[];
  /** The new config with every restart-only key at its old value, unchanged subtrees shared. */
  readonly config: GatewayConfig;
}

export function planReload(
  previous: GatewayConfig,
  next: GatewayConfig,
  loadedChannels: readonly string[],
): ReloadPlan {
  const applied: string[] = [];
  const needsRestart: RestartNeeded[] = [];
  const merged = structuredClone(next) as unknown as Record<string, unknown>;
  for (const path of diffConfig(previous, next)) {
    const reason = restartReason(path, loadedChannels);
    if (reason === undefined) {
      applied.push(formatKeyPath(path));
      continue;
    }
    needsRestart.push({ path: formatKeyPath(path), reason });
    setAt(merged, path, valueAt(previous, path));
  }
  return { applied, needsRestart, config: shareUnchanged(previous, merged as unknown as GatewayConfig) };
}

export interface ConfigReloaderOptions {
  readonly live: LiveConfig;
  /** How the config was found at start-up (`--config`, the state directory, the environment). */
  readonly load: LoadConfigOptions;
  /** The file read at start-up (undefined: none, defaults). */
  readonly startedFrom: string | undefined;
  readonly registry: PluginRegistry;
  readonly channels: ChannelManager;
  /** Credential profiles: a changed `auth` section goes here (a changed key starts clean). */
  readonly auth: { updateConfig(config: unknown): void };
  /** Plugins registered before the configured ones (tests, embedders), as at start-up. */
  readonly extraPlugins?: readonly PluginDefinition[];
  readonly logger: Logger;
}

export interface ConfigReloader {
  /** Reads and applies the config file; reloads run one at a time, in order. */
  reload(trigger: ReloadTrigger): Promise<ConfigReloadReport>;
}

export function createConfigReloader(options: ConfigReloaderOptions): ConfigReloader {
  const { live, logger } = options;
  let path = options.startedFrom;
  /** The text of the last file read, so a save that changed nothing (a touch) is not a reload. */
  let lastText: string | undefined;
  let tail: Promise<unknown> = Promise.resolve();

  const rejected = (
    trigger: ReloadTrigger,
    file: string | undefined,
    problems: readonly ConfigProblem[],
  ): ConfigReloadReport => {
    const sorted = sortProblems(problems);
    logger.error(
      `config reload rejected (${trigger}); the running config is kept:\n${formatProblems(sorted.filter((problem) => problem.severity === 'error'))}`,
      { file: file ?? '(defaults)' },
    );
    return {
      ok: false,
      trigger,
      path: file ?? null,
      applied: [],
      needsRestart: [],
      channels: noChannelChanges,
      problems: sorted,
    };
  };

  async function reloadNow(trigger: ReloadTrigger): Promise<ConfigReloadReport> {
    let file: string | undefined;
    let text: string | undefined;
    try {
      ({ path: file, text } = readConfigFile(options.load));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return rejected(trigger, path, [{ path: '(root)', message: error.message, severity: 'error' }]);
    }
    if (file === undefined && path !== undefined) {
      return rejected(trigger, path, [
        { path: '(root)', message: `config file ${path} does not exist any more`, severity: 'error' },
      ]);
    }
    if (trigger === 'file' && text !== undefined && text === lastText) {
      logger.debug('the config file was touched but its text did not change', { file });
      return {
        ok: true,
        trigger,
        path: file ?? null,
        applied: [],
        needsRestart: [],
        channels: noChannelChanges,
        problems: [],
      };
    }
    lastText = text;
    const problems: ConfigProblem[] = [];
    let checked: ReturnType<typeof checkGatewayConfig>;
    try {
      checked = checkGatewayConfig(text, file ?? '(defaults)', options.load.environment ?? process.env);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return rejected(trigger, file, [{ path: '(root)', message: error.message, severity: 'error' }]);
    }
    problems.push(...checked.problems);
    const raw = isPlainObject(checked.raw) ? checked.raw : {};
    // Channel blocks and plugin entries, as start-up checks them (decision 0010).
    const plugins = await checkChannelsAndPlugins({
      channels: raw.channels,
      plugins: raw.plugins,
      configPath: file,
      extra: options.extraPlugins,
    });
    problems.push(...plugins.problems);
    for (const { channel } of options.registry.channels()) {
      if (builtinChannelIds.includes(channel.id)) continue;
      problems.push(
        ...checkChannelConfig(
          channel.id,
          channel.config as Parameters<typeof checkChannelConfig>[1],
          isPlainObject(raw.channels) ? raw.channels[channel.id] : undefined,
        ),
      );
    }
    const next = checked.config;
    if (next === undefined || problems.some((problem) => problem.severity === 'error'))
      return rejected(trigger, file, problems);
    path = file;

    const previous = live.current();
    const loadedChannels = options.registry.channels().map((registration) => registration.channel.id);
    const plan = planReload(previous, next, loadedChannels);
    for (const warning of problems) logger.warn(`config: ${warning.path}: ${warning.message}`);
    let channels = noChannelChanges;
    if (plan.applied.length > 0) {
      // Credential profiles first: it validates before it changes anything, so a throw here
      // leaves the whole running config in place.
      if (plan.config.auth !== previous.auth) options.auth.updateConfig(plan.config.auth);
      live.replace(plan.config);
      if (plan.config.channels !== previous.channels)
        channels = await options.channels.reload(plan.config.channels);
      logger.info(`config reloaded (${trigger}): ${plan.applied.join(', ')}`, { file: file ?? '(defaults)' });
    } else if (plan.needsRestart.length === 0) {
      logger.info(`config reloaded (${trigger}): nothing changed`, { file: file ?? '(defaults)' });
    }
    if (plan.needsRestart.length > 0) {
      logger.warn(
        `config changes that need a restart were not applied; they take effect at the next start:\n${plan.needsRestart.map((entry) => `  ${entry.path}: ${entry.reason}`).join('\n')}`,
      );
    }
    return {
      ok: true,
      trigger,
      path: file ?? null,
      applied: plan.applied,
      needsRestart: plan.needsRestart,
      channels,
      problems: sortProblems(problems),
    };
  }

  return {
    reload(trigger) {
      const run = tail.then(
        () => reloadNow(trigger),
        () => reloadNow(trigger),
      );
      tail = run.catch(() => undefined);
      return run;
    },
  };
}
