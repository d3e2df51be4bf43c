/**
 * The plugin registry: validates plugins when they are registered (at startup), runs their
 * `setup`, records every registration with the plugin that made it, and removes exactly
 * that set again on `unregister`.
 */
import { z } from 'zod';
import type { ChannelPlugin } from './channel.ts';
import { createHookBus, type HookBus, type HookHandlerInfo, type HookRunner } from './hook-bus.ts';
import { type HookName, type HookOptions, hookDefinitions, maxHookTimeoutMs } from './hook-types.ts';
import { type ConfigIssue, describeIssues, joinKeyPath } from './key-path.ts';
import { createConsoleLogger, type Logger, withLogFields } from './logger.ts';
import type {
  GatewayMethodHandler,
  HttpRoute,
  PluginApi,
  PluginCommand,
  PluginDefinition,
} from './plugin.ts';
import { supportedSpecVersions } from './plugin.ts';
import { PluginError } from './plugin-error.ts';
import { type PluginEntryConfig, pluginEntrySchema } from './plugins-config.ts';
import type { PluginTool, PluginToolFactory } from './tool.ts';

/** A channel and the plugin that registered it. */
export interface ChannelRegistration {
  readonly plugin: string;
  readonly channel: ChannelPlugin;
}

/** A tool (or tool factory) and the plugin that registered it. */
export interface ToolRegistration {
  readonly plugin: string;
  readonly name: string;
  readonly tool: PluginTool | PluginToolFactory;
}

export interface CommandRegistration {
  readonly plugin: string;
  readonly command: PluginCommand;
}

export interface HttpRouteRegistration {
  readonly plugin: string;
  readonly route: HttpRoute;
}

export interface GatewayMethodRegistration {
  readonly plugin: string;
  readonly name: string;
  readonly handler: GatewayMethodHandler;
}

/** How often a plugin's hook handlers failed since it was registered. */
export interface HookFailureCounts {
  readonly errors: number;
  readonly timeouts: number;
  readonly promisesInSyncHooks: number;
}

/** A registered plugin and what it added, for `status` and operator UIs. */
export interface PluginInfo {
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  /** Where it came from: `bundled`, a package name or a file path. */
  readonly source: string;
  readonly dependencies: readonly string[];
  readonly hooks: readonly HookHandlerInfo[];
  readonly channels: readonly string[];
  readonly tools: readonly string[];
  readonly commands: readonly string[];
  readonly httpRoutes: readonly string[];
  readonly gatewayMethods: readonly string[];
  readonly hookFailures: HookFailureCounts;
}

export interface RegisterPluginOptions {
  /** The plugin's entry under `plugins.entries.<name>` (raw or parsed). */
  readonly entry?: unknown;
  /** Where the plugin came from, shown in status. Default `bundled`. */
  readonly source?: string;
}

export interface CreatePluginRegistryOptions {
  /** Where plugin logs, hook failures and registry messages go. Defaults to the console. */
  readonly logger?: Logger;
  /** How long `setup` (and a teardown) may take, in ms. Default 30000. */
  readonly setupTimeoutMs?: number;
  /** Names the gateway keeps for itself. Defaults cover the built-in directives and health routes. */
  readonly reserved?: {
    readonly commands?: readonly string[];
    readonly httpPaths?: readonly string[];
  };
}

/** The registry the gateway composes everything through. */
export interface PluginRegistry {
  /** The hook runner over every registered handler. */
  readonly hooks: HookRunner;
  /**
   * Validates and registers a plugin: its definition, name (unique), spec version,
   * dependencies (registered), entry and config (by its schema); then runs `setup`.
   * Throws a `PluginError` naming the plugin (and the key path for config problems);
   * on failure nothing the plugin registered is kept.
   */
  register(plugin: PluginDefinition, options?: RegisterPluginOptions): Promise<PluginInfo>;
  /**
   * Removes everything the plugin registered and runs its teardown. Resolves `false` when no
   * such plugin is registered; throws `PLUGIN_HAS_DEPENDENTS` while others depend on it.
   */
  unregister(name: string): Promise<boolean>;
  /** Unregisters every plugin, dependents first (for shutdown). */
  unregisterAll(): Promise<void>;
  has(name: string): boolean;
  get(name: string): PluginInfo | undefined;
  /** Every registered plugin, in registration order. */
  list(): readonly PluginInfo[];
  channels(): readonly ChannelRegistration[];
  channel(id: string): ChannelRegistration | undefined;
  tools(): readonly ToolRegistration[];
  tool(name: string): ToolRegistration | undefined;
  commands(): readonly CommandRegistration[];
  command(name: string): CommandRegistration | undefined;
  httpRoutes(): readonly HttpRouteRegistration[];
  gatewayMethods(): readonly GatewayMethodRegistration[];
  gatewayMethod(name: string): GatewayMethodRegistration | undefined;
}

/** The chat commands the gateway answers itself; plugins cannot register them. */
export const reservedCommandNames: readonly string[] = Object.freeze([
  'new',
  'reset',
  'stop',
  'status',
  'model',
  'think',
  'help',
  'compact',
  'pair',
]);

/** HTTP paths the gateway serves itself; plugins cannot register them. */
export const reservedHttpPaths: readonly string[] = Object.freeze(['/healthz', '/readyz']);

const pluginNamePattern = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const versionPattern = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$/;
const channelIdPattern = /^[a-z0-9][a-z0-9_-]*$/;
const toolNamePattern = /^[A-Za-z0-9_-]{1,64}$/;
const commandNamePattern = /^[a-z0-9][a-z0-9_-]*$/;
const methodSuffixPattern = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;
const chatTypes = new Set(['direct', 'group', 'channel']);
const markupFlavours = new Set(['markdown', 'telegram-html', 'slack-mrkdwn', 'whatsapp', 'plain']);
const emptyConfigSchema = z.object({}).strict();

interface PluginRecord {
  readonly definition: PluginDefinition;
  readonly source: string;
  readonly dependencies: readonly string[];
  readonly channels: string[];
  readonly tools: string[];
  readonly commands: string[];
  readonly httpRoutes: HttpRouteRegistration[];
  readonly gatewayMethods: string[];
  readonly failures: { errors: number; timeouts: number; promisesInSyncHooks: number };
  teardown: (() => void | Promise<void>) | undefined;
  /** Set when registration closes; further registrations are refused. */
  closed: boolean;
}

/** Creates an empty plugin registry. */
export function createPluginRegistry(options: CreatePluginRegistryOptions = {}): PluginRegistry {
  const logger = options.logger ?? createConsoleLogger();
  const setupTimeoutMs = options.setupTimeoutMs ?? 30_000;
  const reservedCommands = new Set(options.reserved?.commands ?? reservedCommandNames);
  const reservedPaths = options.reserved?.httpPaths ?? reservedHttpPaths;

  const records = new Map<string, PluginRecord>();
  const channels = new Map<string, ChannelRegistration>();
  const tools = new Map<string, ToolRegistration>();
  const commands = new Map<string, CommandRegistration>();
  const httpRoutes: HttpRouteRegistration[] = [];
  const gatewayMethods = new Map<string, GatewayMethodRegistration>();

  const bus: HookBus = createHookBus({
    logger,
    onFailure(failure) {
      const record = records.get(failure.plugin);
      if (record === undefined) return;
      if (failure.kind === 'error') record.failures.errors++;
      else if (failure.kind === 'timeout') record.failures.timeouts++;
      else record.failures.promisesInSyncHooks++;
    },
  });

  const info = (record: PluginRecord): PluginInfo => {
    const { definition } = record;
    return {
      name: definition.name,
      version: definition.version,
      description: definition.description,
      source: record.source,
      dependencies: record.dependencies,
      hooks: bus.handlers().filter((handler) => handler.plugin === definition.name),
      channels: [...record.channels],
      tools: [...record.tools],
      commands: [...record.commands],
      httpRoutes: record.httpRoutes.map(
        ({ route }) => `${route.path}${route.match === 'prefix' ? '/*' : ''}`,
      ),
      gatewayMethods: [...record.gatewayMethods],
      hookFailures: { ...record.failures },
    };
  };

  /** Removes every registration of a plugin (not its record). */
  const removeRegistrations = (record: PluginRecord): void => {
    const name = record.definition.name;
    bus.removePlugin(name);
    for (const id of record.channels) channels.delete(id);
    for (const toolName of record.tools) tools.delete(toolName);
    for (const commandName of record.commands) commands.delete(commandName);
    for (const registration of record.httpRoutes) {
      const index = httpRoutes.indexOf(registration);
      if (index >= 0) httpRoutes.splice(index, 1);
    }
    for (const method of record.gatewayMethods) gatewayMethods.delete(method);
    record.channels.length = 0;
    record.tools.length = 0;
    record.commands.length = 0;
    record.httpRoutes.length = 0;
    record.gatewayMethods.length = 0;
  };

  const createApi = (
    record: PluginRecord,
    config: unknown,
    hookSettings: PluginEntryConfig['hooks'],
  ): PluginApi => {
    const name = record.definition.name;
    const open = (what: string): void => {
      if (record.closed) {
        throw new PluginError(
          'PLUGIN_REGISTRATION_CLOSED',
          `Plugin "${name}" tried to ${what} after its setup finished; register everything inside setup`,
          { details: { plugin: name } },
        );
      }
    };
    const invalid = (message: string, details: Record<string, unknown> = {}): PluginError =>
      new PluginError('PLUGIN_INVALID_REGISTRATION', `Plugin "${name}": ${message}`, {
        details: { plugin: name, ...details },
      });
    const duplicate = (what: string, owner: string): PluginError =>
      new PluginError(
        'PLUGIN_DUPLICATE_REGISTRATION',
        `Plugin "${name}" registers ${what}, which plugin "${owner}" already registered`,
        { details: { plugin: name, owner, registration: what } },
      );
    const reserved = (what: string): PluginError =>
      new PluginError(
        'PLUGIN_RESERVED_NAME',
        `Plugin "${name}" registers ${what}, which the gateway reserves`,
        {
          details: { plugin: name, registration: what },
        },
      );

    return {
      name,
      version: record.definition.version,
      config,
      logger: withLogFields(logger, { plugin: name }),

      on(hook, handler, hookOptions?: HookOptions) {
        open(`listen to ${String(hook)}`);
        const priority = hookOptions?.priority ?? 0;
        if (typeof priority !== 'number' || !Number.isFinite(priority)) {
          throw invalid(`the priority of its ${String(hook)} handler must be a finite number`, { hook });
        }
        const requested = hookOptions?.timeoutMs;
        if (
          requested !== undefined &&
          (!Number.isInteger(requested) || requested < 1 || requested > maxHookTimeoutMs)
        ) {
          throw invalid(
            `the timeoutMs of its ${String(hook)} handler must be an integer from 1 to ${maxHookTimeoutMs}`,
            {
              hook,
            },
          );
        }
        const timeoutMs =
          hookSettings?.timeouts?.[hook as HookName] ??
          hookSettings?.timeoutMs ??
          requested ??
          hookDefinitions[hook as HookName]?.timeoutMs;
        return bus.add(hook, handler, {
          plugin: name,
          priority,
          timeoutMs,
        });
      },

      registerChannel(channel) {
        open('register a channel');
        const problem = describeChannelProblem(channel);
        if (problem !== undefined) throw invalid(`its channel ${problem}`);
        const existing = channels.get(channel.id);
        if (existing !== undefined) throw duplicate(`channel "${channel.id}"`, existing.plugin);
        channels.set(channel.id, { plugin: name, channel: channel as ChannelPlugin });
        record.channels.push(channel.id);
      },

      registerTool(tool) {
        open('register a tool');
        const problem = describeToolProblem(tool);
        if (problem !== undefined) throw invalid(`its tool ${problem}`);
        const existing = tools.get(tool.name);
        if (existing !== undefined) throw duplicate(`tool "${tool.name}"`, existing.plugin);
        tools.set(tool.name, { plugin: name, name: tool.name, tool: tool as PluginTool | PluginToolFactory });
        record.tools.push(tool.name);
      },

      registerCommand(command) {
        open('register a command');
        if (
          !isObject(command) ||
          typeof command.name !== 'string' ||
          !commandNamePattern.test(command.name)
        ) {
          throw invalid(
            `a command name must match ${commandNamePattern} (without the slash); got ${describeValue(
              isObject(command) ? command.name : command,
            )}`,
          );
        }
        if (typeof command.description !== 'string' || typeof command.handler !== 'function') {
          throw invalid(`command "/${command.name}" needs a description string and a handler function`);
        }
        if (reservedCommands.has(command.name)) throw reserved(`command "/${command.name}"`);
        const existing = commands.get(command.name);
        if (existing !== undefined) throw duplicate(`command "/${command.name}"`, existing.plugin);
        commands.set(command.name, { plugin: name, command });
        record.commands.push(command.name);
      },

      registerHttpRoute(route) {
        open('register an HTTP route');
        const problem = describeRouteProblem(route);
        if (problem !== undefined) throw invalid(`its HTTP route ${problem}`);
        const match = route.match ?? 'exact';
        const label = `HTTP route "${route.path}" (${match})`;
        const clashesWithReserved = reservedPaths.some(
          (path) => path === route.path || (match === 'prefix' && isUnderPrefix(path, route.path)),
        );
        if (clashesWithReserved) throw reserved(label);
        const existing = httpRoutes.find(
          (entry) => entry.route.path === route.path && (entry.route.match ?? 'exact') === match,
        );
        if (existing !== undefined) throw duplicate(label, existing.plugin);
        const registration = { plugin: name, route };
        httpRoutes.push(registration);
        record.httpRoutes.push(registration);
      },

      registerGatewayMethod(method, handler) {
        open('register a gateway method');
        const prefix = `${name}.`;
        if (
          typeof method !== 'string' ||
          !method.startsWith(prefix) ||
          !methodSuffixPattern.test(method.slice(prefix.length))
        ) {
          throw invalid(`gateway method names must be "${prefix}<method>"; got ${describeValue(method)}`);
        }
        if (typeof handler !== 'function')
          throw invalid(`gateway method "${method}" needs a handler function`);
        if (gatewayMethods.has(method)) throw duplicate(`gateway method "${method}"`, name);
        gatewayMethods.set(method, { plugin: name, name: method, handler });
        record.gatewayMethods.push(method);
      },
    };
  };

  const validateDefinition = (plugin: unknown): PluginDefinition => {
    if (!isObject(plugin)) {
      throw new PluginError(
        'PLUGIN_INVALID_DEFINITION',
        `A plugin must be an object; got ${describeValue(plugin)}`,
      );
    }
    const name = plugin.name;
    if (typeof name !== 'string' || !pluginNamePattern.test(name)) {
      throw new PluginError(
        'PLUGIN_INVALID_DEFINITION',
        `Plugin name ${describeValue(name)} is invalid: use lower-case letters, digits, "-" and "_" (at most 64)`,
        { details: { plugin: typeof name === 'string' ? name : undefined } },
      );
    }
    const problems: string[] = [];
    if (typeof plugin.version !== 'string' || !versionPattern.test(plugin.version)) {
      problems.push(`version must be a semver string like "1.0.0" (got ${describeValue(plugin.version)})`);
    }
    if (typeof plugin.specVersion !== 'number') {
      problems.push(`specVersion must be a number (got ${describeValue(plugin.specVersion)})`);
    }
    if (typeof plugin.setup !== 'function') problems.push('setup must be a function');
    if (plugin.configSchema !== undefined && !isSchema(plugin.configSchema)) {
      problems.push('configSchema must be a zod schema');
    }
    const dependencies = plugin.dependencies;
    if (
      dependencies !== undefined &&
      !(Array.isArray(dependencies) && dependencies.every((dependency) => typeof dependency === 'string'))
    ) {
      problems.push('dependencies must be an array of plugin names');
    }
    if (problems.length > 0) {
      throw new PluginError(
        'PLUGIN_INVALID_DEFINITION',
        `Plugin "${name}" is invalid: ${problems.join('; ')}`,
        {
          details: { plugin: name, problems },
        },
      );
    }
    return plugin as unknown as PluginDefinition;
  };

  const parseEntry = (name: string, entry: unknown): PluginEntryConfig => {
    const base = `plugins.entries.${name}`;
    const parsed = pluginEntrySchema.safeParse(entry ?? {});
    if (parsed.success) return parsed.data;
    throw configError(name, base, parsed.error.issues);
  };

  const runWithTimeout = async <Value>(
    work: () => Value | Promise<Value>,
    onLate: (value: Value) => void,
  ): Promise<{ timedOut: false; value: Value } | { timedOut: true }> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let timedOut = false;
    const pending = Promise.resolve().then(work);
    const timeout = new Promise<{ timedOut: true }>((resolve) => {
      timer = setTimeout(() => {
        timedOut = true;
        resolve({ timedOut: true });
      }, setupTimeoutMs);
    });
    pending.then(
      (value) => {
        if (timedOut) onLate(value);
      },
      () => undefined,
    );
    try {
      return await Promise.race([pending.then((value) => ({ timedOut: false as const, value })), timeout]);
    } finally {
      clearTimeout(timer);
    }
  };

  const registry: PluginRegistry = {
    hooks: bus,

    async register(plugin, registerOptions = {}) {
      const definition = validateDefinition(plugin);
      const name = definition.name;
      if (records.has(name)) {
        throw new PluginError('PLUGIN_DUPLICATE_NAME', `A plugin named "${name}" is already registered`, {
          details: { plugin: name, path: `plugins.entries.${name}` },
        });
      }
      if (!supportedSpecVersions.includes(definition.specVersion)) {
        throw new PluginError(
          'PLUGIN_UNSUPPORTED_SPEC_VERSION',
          `Plugin "${name}" targets plugin spec version ${definition.specVersion}; this gateway supports ${supportedSpecVersions.join(', ')}. Update the plugin or the gateway.`,
          {
            details: { plugin: name, specVersion: definition.specVersion, supported: supportedSpecVersions },
          },
        );
      }
      const dependencies = [...(definition.dependencies ?? [])];
      for (const dependency of dependencies) {
        if (!records.has(dependency)) {
          throw new PluginError(
            'PLUGIN_MISSING_DEPENDENCY',
            `Plugin "${name}" depends on plugin "${dependency}", which is not registered (enable it under plugins.entries.${dependency})`,
            { details: { plugin: name, dependency, path: `plugins.entries.${dependency}` } },
          );
        }
      }
      const entry = parseEntry(name, registerOptions.entry);
      const schema = (definition.configSchema ?? emptyConfigSchema) as z.ZodType;
      const parsedConfig = schema.safeParse(entry.config ?? {});
      if (!parsedConfig.success) {
        throw configError(name, `plugins.entries.${name}.config`, parsedConfig.error.issues);
      }

      const record: PluginRecord = {
        definition,
        source: registerOptions.source ?? 'bundled',
        dependencies,
        channels: [],
        tools: [],
        commands: [],
        httpRoutes: [],
        gatewayMethods: [],
        failures: { errors: 0, timeouts: 0, promisesInSyncHooks: 0 },
        teardown: undefined,
        closed: false,
      };
      records.set(name, record);
      const api = createApi(record, parsedConfig.data, entry.hooks);

      let outcome: Awaited<ReturnType<typeof runWithTimeout<unknown>>>;
      try {
        outcome = await runWithTimeout(
          () => definition.setup(api),
          (late) => {
            // setup finished after we gave up on it: undo what it started.
            if (typeof late === 'function') void runTeardown(name, late as () => unknown);
          },
        );
      } catch (error) {
        record.closed = true;
        removeRegistrations(record);
        records.delete(name);
        // Registration errors (duplicates, malformed registrations) already name the plugin.
        if (error instanceof PluginError) throw error;
        throw new PluginError(
          'PLUGIN_SETUP_FAILED',
          `Plugin "${name}" failed in setup: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error, details: { plugin: name } },
        );
      }
      record.closed = true;
      if (outcome.timedOut) {
        removeRegistrations(record);
        records.delete(name);
        throw new PluginError(
          'PLUGIN_SETUP_TIMEOUT',
          `Plugin "${name}" did not finish setup within ${setupTimeoutMs} ms`,
          { details: { plugin: name, timeoutMs: setupTimeoutMs } },
        );
      }
      if (typeof outcome.value === 'function') record.teardown = outcome.value as () => void | Promise<void>;
      logger.debug(`Registered plugin "${name}" ${definition.version}`, {
        plugin: name,
        source: record.source,
      });
      return info(record);
    },

    async unregister(name) {
      const record = records.get(name);
      if (record === undefined) return false;
      const dependents = [...records.values()]
        .filter((other) => other.dependencies.includes(name))
        .map((other) => other.definition.name);
      if (dependents.length > 0) {
        throw new PluginError(
          'PLUGIN_HAS_DEPENDENTS',
          `Plugin "${name}" cannot be unregistered while ${dependents.map((dependent) => `"${dependent}"`).join(', ')} depend on it`,
          { details: { plugin: name, dependents } },
        );
      }
      record.closed = true;
      removeRegistrations(record);
      records.delete(name);
      if (record.teardown !== undefined) await runTeardown(name, record.teardown);
      return true;
    },

    async unregisterAll() {
      for (const name of [...records.keys()].reverse()) await registry.unregister(name);
    },

    has: (name) => records.has(name),
    get(name) {
      const record = records.get(name);
      return record === undefined ? undefined : info(record);
    },
    list: () => [...records.values()].map(info),
    channels: () => [...channels.values()],
    channel: (id) => channels.get(id),
    tools: () => [...tools.values()],
    tool: (toolName) => tools.get(toolName),
    commands: () => [...commands.values()],
    command: (commandName) => commands.get(commandName),
    httpRoutes: () => [...httpRoutes],
    gatewayMethods: () => [...gatewayMethods.values()],
    gatewayMethod: (method) => gatewayMethods.get(method),
  };

  async function runTeardown(name: string, teardown: () => unknown): Promise<void> {
    try {
      const result = await runWithTimeout(teardown, () => undefined);
      if (result.timedOut) {
        logger.error(`Teardown of plugin "${name}" did not finish within ${setupTimeoutMs} ms`, {
          plugin: name,
          code: 'PLUGIN_TEARDOWN_FAILED',
        });
      }
    } catch (error) {
      logger.error(`Teardown of plugin "${name}" failed`, {
        plugin: name,
        code: 'PLUGIN_TEARDOWN_FAILED',
        error,
      });
    }
  }

  return registry;
}

function configError(plugin: string, base: string, issues: ReadonlyArray<z.core.$ZodIssue>): PluginError {
  const located: ConfigIssue[] = issues.map((issue) => ({
    path: joinKeyPath(base, issue.path),
    message: issue.message,
  }));
  return new PluginError(
    'PLUGIN_INVALID_CONFIG',
    `Invalid configuration for plugin "${plugin}":\n${describeIssues(located)}`,
    {
      details: { plugin, path: located[0]?.path ?? base, issues: located },
    },
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isSchema(value: unknown): boolean {
  return isObject(value) && typeof value.safeParse === 'function';
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

function isUnderPrefix(path: string, prefix: string): boolean {
  const normalized = prefix.endsWith('/') ? prefix : `${prefix}/`;
  return path === prefix || path.startsWith(normalized) || prefix === '/';
}

function describeChannelProblem(channel: unknown): string | undefined {
  if (!isObject(channel)) return `must be an object; got ${describeValue(channel)}`;
  if (typeof channel.id !== 'string' || !channelIdPattern.test(channel.id)) {
    return `id must match ${channelIdPattern}; got ${describeValue(channel.id)}`;
  }
  const label = `"${channel.id}"`;
  if (typeof channel.label !== 'string') return `${label} needs a label string`;
  if (typeof channel.start !== 'function') return `${label} needs a start function`;
  const config = channel.config;
  if (!isObject(config) || !isSchema(config.schema) || !(config.keys instanceof Set)) {
    return `${label} needs a config made with defineChannelConfig`;
  }
  const capabilities = channel.capabilities;
  if (!isObject(capabilities)) return `${label} needs capabilities`;
  const kinds = capabilities.chatTypes;
  if (!Array.isArray(kinds) || kinds.length === 0 || !kinds.every((kind) => chatTypes.has(kind as string))) {
    return `${label} capabilities.chatTypes must list some of direct, group, channel`;
  }
  for (const flag of ['threads', 'media', 'edits', 'typing', 'reactions'] as const) {
    if (typeof capabilities[flag] !== 'boolean') return `${label} capabilities.${flag} must be a boolean`;
  }
  const limit = capabilities.textLimit;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
    return `${label} capabilities.textLimit must be a positive integer`;
  }
  if (!markupFlavours.has(capabilities.markup as string)) {
    return `${label} capabilities.markup must be one of ${[...markupFlavours].join(', ')}`;
  }
  return undefined;
}

function describeToolProblem(tool: unknown): string | undefined {
  if (!isObject(tool)) return `must be an object; got ${describeValue(tool)}`;
  if (typeof tool.name !== 'string' || !toolNamePattern.test(tool.name)) {
    return `name must match ${toolNamePattern}; got ${describeValue(tool.name)}`;
  }
  if (typeof tool.create === 'function') return undefined;
  if (typeof tool.description !== 'string') return `"${tool.name}" needs a description string`;
  if (!isSchema(tool.parameters)) return `"${tool.name}" needs a zod parameters schema`;
  if (typeof tool.execute !== 'function')
    return `"${tool.name}" needs an execute function (or be a factory with create)`;
  return undefined;
}

function describeRouteProblem(route: unknown): string | undefined {
  if (!isObject(route)) return `must be an object; got ${describeValue(route)}`;
  if (typeof route.path !== 'string' || !/^\/[^\s?#]*$/.test(route.path)) {
    return `path must start with "/" and carry no query or spaces; got ${describeValue(route.path)}`;
  }
  if (route.match !== undefined && route.match !== 'exact' && route.match !== 'prefix') {
    return `"${route.path}" match must be "exact" or "prefix"`;
  }
  if (route.auth !== 'gateway' && route.auth !== 'plugin') {
    return `"${route.path}" must say auth: "gateway" (operator token required) or "plugin" (the handler checks)`;
  }
  if (typeof route.handler !== 'function') return `"${route.path}" needs a handler function`;
  return undefined;
}
