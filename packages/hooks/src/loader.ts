/**
 * Loading plugins from configuration: bundled definitions, local paths
 * (`plugins.load.paths`) and npm packages named by `plugins.entries.<name>`. A plugin that
 * cannot be found, fails to import, fails validation or throws in `setup` is logged,
 * reported and skipped; the others load. Whether the gateway may then run without it is the
 * gateway's call (`plugins.entries.<name>.optional`, reported on each failure).
 *
 * Loading is two steps, usable separately: {@link findPlugins} finds and imports the
 * definitions (no `setup` runs, nothing is registered; a config check can stop here), and
 * {@link registerPlugins} registers what was found. {@link loadPlugins} does both.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { joinKeyPath } from './key-path.ts';
import { createConsoleLogger, type Logger } from './logger.ts';
import type { PluginDefinition } from './plugin.ts';
import { PluginError } from './plugin-error.ts';
import type { PluginInfo, PluginRegistry } from './registry.ts';

/** Where {@link findPlugins} looks. */
export interface FindPluginsOptions {
  /** The `plugins` section of the configuration (see `pluginsConfigSchema`). */
  readonly config?: unknown;
  /** The folder package names are resolved from (its `node_modules` and those above it): the gateway's. */
  readonly baseDirectory: string;
  /** The folder relative `load.paths` are resolved from (the config file's). Default: `baseDirectory`. */
  readonly configDirectory?: string;
  /** Plugins shipped with the gateway; loaded first, unless `plugins.entries.<name>.enabled` is false. */
  readonly bundled?: readonly PluginDefinition[];
}

export interface LoadPluginsOptions extends FindPluginsOptions {
  /** Where failures are logged. Default: the console. */
  readonly logger?: Logger;
}

/** A plugin that was not loaded, and why. */
export interface PluginLoadFailure {
  /** The plugin's name, when it got far enough to have one. */
  readonly plugin?: string;
  /** Where it came from: `bundled`, a package name or a path. */
  readonly source: string;
  readonly error: PluginError;
  /** `plugins.entries.<plugin>.optional` is true: the operator accepts running without it. */
  readonly optional?: true;
}

/** The result of {@link loadPlugins}, for the log and the gateway's `status`. */
export interface PluginLoadReport {
  /** Registered plugins, in registration order. */
  readonly loaded: readonly PluginInfo[];
  readonly failed: readonly PluginLoadFailure[];
  /** Names (or sources) of plugins skipped because the configuration disables them. */
  readonly disabled: readonly string[];
}

/** A plugin definition {@link findPlugins} imported, not registered yet. */
export interface FoundPlugin {
  readonly definition: PluginDefinition;
  /** Where it came from: `bundled`, a package name or a path (as written in `load.paths`). */
  readonly source: string;
}

/** What {@link findPlugins} found: definitions to register, and what could not be imported. */
export interface FoundPlugins {
  /** In the order found: bundled, then `load.paths`, then `entries`. */
  readonly candidates: readonly FoundPlugin[];
  readonly failed: readonly PluginLoadFailure[];
  /** Names (or sources) skipped because the configuration disables them. */
  readonly disabled: readonly string[];
  /** `plugins.entries` as configured (each entry's `config` untouched), for registration. */
  readonly entries: Readonly<Record<string, unknown>>;
}

const looseEntrySchema = z.looseObject({
  enabled: z.boolean().optional(),
  optional: z.boolean().optional(),
  package: z.string().min(1).optional(),
});
const looseConfigSchema = z.object({
  enabled: z.boolean().default(true),
  load: z.object({ paths: z.array(z.string().min(1)).default([]) }).default({ paths: [] }),
  entries: z.record(z.string(), looseEntrySchema).default({}),
});

/**
 * Finds and imports every configured plugin without registering it (no `setup` runs).
 * Throws only when the `plugins` section itself is malformed (`PLUGIN_INVALID_PLUGINS_CONFIG`);
 * a plugin that cannot be found or imported ends up in `failed`. Logs nothing.
 */
export async function findPlugins(options: FindPluginsOptions): Promise<FoundPlugins> {
  const parsed = looseConfigSchema.safeParse(options.config ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({
      path: joinKeyPath('plugins', issue.path),
      message: issue.message,
    }));
    throw new PluginError(
      'PLUGIN_INVALID_PLUGINS_CONFIG',
      `Invalid plugins configuration:\n${issues.map((issue) => `  - ${issue.path}: ${issue.message}`).join('\n')}`,
      { details: { issues } },
    );
  }
  const config = parsed.data;
  const configDirectory = options.configDirectory ?? options.baseDirectory;
  const failed: PluginLoadFailure[] = [];
  const disabled: string[] = [];
  const candidates: FoundPlugin[] = [];
  const isDisabled = (name: string): boolean => config.entries[name]?.enabled === false;
  const fail = (source: string, error: PluginError, plugin?: string): void => {
    failed.push(failureOf(config.entries, source, error, plugin));
  };

  const accept = (definition: unknown, source: string): void => {
    const name = nameOf(definition);
    if (name !== undefined && isDisabled(name)) {
      disabled.push(name);
      return;
    }
    candidates.push({ definition: definition as PluginDefinition, source });
  };

  for (const definition of options.bundled ?? []) accept(definition, 'bundled');

  if (config.enabled) {
    for (const path of config.load.paths) {
      const absolute = isAbsolute(path) ? path : resolve(configDirectory, path);
      try {
        accept(await importPlugin(resolveLocalEntry(absolute, path), path), path);
      } catch (error) {
        fail(path, asLoadError(error, path));
      }
    }
    const provided = new Set(candidates.map((candidate) => nameOf(candidate.definition)).concat(disabled));
    for (const [name, entry] of Object.entries(config.entries)) {
      if (provided.has(name)) continue;
      if (entry.enabled === false) {
        disabled.push(name);
        continue;
      }
      const specifier = entry.package ?? name;
      try {
        const entryFile = resolvePackageEntry(specifier, options.baseDirectory);
        const definition = await importPlugin(entryFile, specifier);
        const loadedName = nameOf(definition);
        if (loadedName !== name) {
          throw new PluginError(
            'PLUGIN_LOAD_FAILED',
            `Package "${specifier}" (configured as plugins.entries.${name}) exports plugin ${JSON.stringify(loadedName)}, not "${name}"`,
            { details: { plugin: name, source: specifier, path: `plugins.entries.${name}` } },
          );
        }
        accept(definition, specifier);
      } catch (error) {
        fail(specifier, asLoadError(error, specifier), name);
      }
    }
  } else {
    disabled.push(...config.load.paths);
    for (const name of Object.keys(config.entries)) {
      const known =
        disabled.includes(name) || candidates.some((candidate) => nameOf(candidate.definition) === name);
      if (!known) disabled.push(name);
    }
  }
  return { candidates, failed, disabled, entries: config.entries };
}

/**
 * Registers what {@link findPlugins} found, dependencies first; the report's `failed` starts
 * with `found.failed`. A plugin that fails validation or `setup` is skipped (nothing it
 * registered is kept) and reported; the others are registered. Logs nothing.
 */
export async function registerPlugins(
  registry: PluginRegistry,
  found: FoundPlugins,
): Promise<PluginLoadReport> {
  const failed: PluginLoadFailure[] = [...found.failed];
  const entries = found.entries as Readonly<Record<string, { optional?: boolean } | undefined>>;
  const fail = (source: string, error: PluginError, plugin?: string): void => {
    failed.push(failureOf(entries, source, error, plugin));
  };
  const { ordered, cyclic } = orderByDependencies(found.candidates);
  for (const candidate of cyclic) {
    const name = nameOf(candidate.definition) ?? candidate.source;
    fail(
      candidate.source,
      new PluginError(
        'PLUGIN_DEPENDENCY_CYCLE',
        `Plugin "${name}" is part of a dependency cycle (${(candidate.definition.dependencies ?? []).join(', ')})`,
        { details: { plugin: name, dependencies: candidate.definition.dependencies ?? [] } },
      ),
      name,
    );
  }

  const loaded: PluginInfo[] = [];
  for (const candidate of ordered) {
    const name = nameOf(candidate.definition);
    try {
      const entry = name === undefined ? undefined : found.entries[name];
      loaded.push(await registry.register(candidate.definition, { entry, source: candidate.source }));
    } catch (error) {
      fail(candidate.source, asLoadError(error, candidate.source), name);
    }
  }
  return { loaded, failed, disabled: found.disabled };
}

/**
 * Loads and registers every configured plugin ({@link findPlugins}, then
 * {@link registerPlugins}), logging each failure as an error. Throws only when the `plugins`
 * section itself is malformed (`PLUGIN_INVALID_PLUGINS_CONFIG`).
 */
export async function loadPlugins(
  registry: PluginRegistry,
  options: LoadPluginsOptions,
): Promise<PluginLoadReport> {
  const logger = options.logger ?? createConsoleLogger();
  const report = await registerPlugins(registry, await findPlugins(options));
  for (const failure of report.failed) {
    const { plugin, source, error } = failure;
    // Log fields are merged over the logger's own fields: an absent `plugin` must not erase one (decision 0028).
    logger.error(`Plugin ${plugin === undefined ? source : `"${plugin}"`} was not loaded: ${error.message}`, {
      ...(plugin === undefined ? {} : { plugin }),
      source,
      code: error.code,
    });
  }
  const { loaded } = report;
  if (loaded.length > 0) {
    logger.info(`Loaded ${loaded.length} plugin(s): ${loaded.map((plugin) => plugin.name).join(', ')}`, {
      plugins: loaded.map((plugin) => plugin.name),
    });
  }
  return report;
}

function failureOf(
  entries: Readonly<Record<string, { optional?: boolean } | undefined>>,
  source: string,
  error: PluginError,
  plugin: string | undefined,
): PluginLoadFailure {
  const optional = plugin !== undefined && entries[plugin]?.optional === true;
  return {
    plugin,
    source,
    error,
    ...(optional ? { optional: true as const } : {}),
  };
}

/** Sorts candidates so dependencies come first, keeping the given order otherwise. */
function orderByDependencies(candidates: readonly FoundPlugin[]): {
  ordered: FoundPlugin[];
  cyclic: FoundPlugin[];
} {
  const byName = new Map<string, FoundPlugin>();
  for (const candidate of candidates) {
    const name = nameOf(candidate.definition);
    if (name !== undefined && !byName.has(name)) byName.set(name, candidate);
  }
  const ordered: FoundPlugin[] = [];
  const placed = new Set<FoundPlugin>();
  let pending = [...candidates];
  while (pending.length > 0) {
    const ready = pending.filter((candidate) =>
      dependenciesOf(candidate).every((dependency) => {
        const provider = byName.get(dependency);
        // Unknown dependencies are left for the registry to report as missing.
        return provider === undefined || provider === candidate || placed.has(provider);
      }),
    );
    if (ready.length === 0) break;
    const first = ready[0]!;
    ordered.push(first);
    placed.add(first);
    pending = pending.filter((candidate) => candidate !== first);
  }
  return { ordered, cyclic: pending };
}

function dependenciesOf(candidate: FoundPlugin): readonly string[] {
  const dependencies = (candidate.definition as { dependencies?: unknown }).dependencies;
  return Array.isArray(dependencies) ? dependencies.filter((entry) => typeof entry === 'string') : [];
}

function nameOf(definition: unknown): string | undefined {
  const name =
    typeof definition === 'object' && definition !== null
      ? (definition as { name?: unknown }).name
      : undefined;
  return typeof name === 'string' ? name : undefined;
}

function asLoadError(error: unknown, source: string): PluginError {
  if (error instanceof PluginError) return error;
  return new PluginError(
    'PLUGIN_LOAD_FAILED',
    `Loading plugin from ${source} failed: ${error instanceof Error ? error.message : String(error)}`,
    { cause: error, details: { source } },
  );
}

async function importPlugin(file: string, source: string): Promise<unknown> {
  let namespace: Record<string, unknown>;
  try {
    namespace = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new PluginError(
      'PLUGIN_LOAD_FAILED',
      `Importing plugin ${source} (${file}) failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error, details: { source, file } },
    );
  }
  let definition = namespace.default ?? namespace.plugin;
  // A CommonJS module imported from ESM wraps its exports once more.
  if (isRecord(definition) && definition.setup === undefined && isRecord(definition.default)) {
    definition = definition.default;
  }
  if (!isRecord(definition)) {
    throw new PluginError(
      'PLUGIN_LOAD_FAILED',
      `Plugin ${source} (${file}) has no plugin definition: export it as the default export (or as "plugin")`,
      { details: { source, file } },
    );
  }
  return definition;
}

/** A load path is a plugin file, or a folder with a package.json (or an index file). */
function resolveLocalEntry(absolute: string, source: string): string {
  if (!existsSync(absolute)) {
    throw new PluginError('PLUGIN_NOT_FOUND', `Plugin path ${source} does not exist (${absolute})`, {
      details: { source, path: absolute },
    });
  }
  if (statSync(absolute).isFile()) return absolute;
  const entry = entryFromPackageRoot(absolute);
  if (entry === undefined) {
    throw new PluginError(
      'PLUGIN_NOT_FOUND',
      `Plugin folder ${source} has no entry: add "switchboard.plugin", "exports" or "main" to its package.json, or an index file`,
      { details: { source, path: absolute } },
    );
  }
  return entry;
}

/** Finds `node_modules/<specifier>` from `baseDirectory` upwards and returns its entry file. */
function resolvePackageEntry(specifier: string, baseDirectory: string): string {
  if (!/^(?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i.test(specifier)) {
    throw new PluginError('PLUGIN_NOT_FOUND', `"${specifier}" is not a valid package name`, {
      details: { source: specifier },
    });
  }
  let directory = resolve(baseDirectory);
  for (;;) {
    const root = join(directory, 'node_modules', specifier);
    if (existsSync(join(root, 'package.json'))) {
      const entry = entryFromPackageRoot(root);
      if (entry === undefined) {
        throw new PluginError('PLUGIN_NOT_FOUND', `Package "${specifier}" (${root}) has no entry file`, {
          details: { source: specifier, path: root },
        });
      }
      return entry;
    }
    const parent = dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  throw new PluginError(
    'PLUGIN_NOT_FOUND',
    `Plugin package "${specifier}" is not installed (looked in node_modules from ${baseDirectory} upwards)`,
    { details: { source: specifier, baseDirectory } },
  );
}

function entryFromPackageRoot(root: string): string | undefined {
  const manifestPath = join(root, 'package.json');
  if (existsSync(manifestPath)) {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
    const declared = isRecord(manifest.switchboard) ? manifest.switchboard.plugin : undefined;
    const target =
      (typeof declared === 'string' ? declared : undefined) ??
      exportsEntry(manifest.exports) ??
      (typeof manifest.module === 'string' ? manifest.module : undefined) ??
      (typeof manifest.main === 'string' ? manifest.main : undefined);
    if (target !== undefined) {
      const file = resolve(root, target);
      return existsSync(file) ? file : undefined;
    }
  }
  for (const index of ['index.js', 'index.mjs', 'index.ts']) {
    const file = join(root, index);
    if (existsSync(file)) return file;
  }
  return undefined;
}

/** The file of a package's "." export, for the conditions this process runs with. */
function exportsEntry(exports: unknown): string | undefined {
  if (typeof exports === 'string') return exports;
  if (Array.isArray(exports)) {
    for (const item of exports) {
      const found = exportsEntry(item);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isRecord(exports)) return undefined;
  const keys = Object.keys(exports);
  if (keys.some((key) => key.startsWith('.'))) return exportsEntry(exports['.']);
  const conditions = activeConditions();
  for (const key of keys) {
    if (conditions.has(key)) {
      const found = exportsEntry(exports[key]);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

let cachedConditions: ReadonlySet<string> | undefined;

/** Node's default ESM conditions plus any `--conditions` the process was started with. */
function activeConditions(): ReadonlySet<string> {
  if (cachedConditions !== undefined) return cachedConditions;
  const conditions = new Set(['import', 'node', 'module-sync', 'default']);
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  for (let index = 0; index < flags.length; index++) {
    const flag = flags[index] ?? '';
    const inline = /^(?:--conditions|-C)=(.+)$/.exec(flag);
    if (inline?.[1] !== undefined) conditions.add(inline[1]);
    else if ((flag === '--conditions' || flag === '-C') && flags[index + 1] !== undefined) {
      conditions.add(flags[index + 1]!);
    }
  }
  cachedConditions = conditions;
  return conditions;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
