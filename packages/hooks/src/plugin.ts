/**
 * The plugin contract: `definePlugin` and the `api` a plugin's `setup` receives.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { ChannelPlugin, InboundMessage } from './channel.ts';
import type { HookHandler, HookName, HookOptions } from './hook-types.ts';
import type { Logger } from './logger.ts';
import type { PluginTool, PluginToolFactory } from './tool.ts';

/**
 * The version of the plugin contract this package defines. A plugin states the version it
 * was written against (`specVersion`), and the registry refuses versions it does not
 * support. It changes only when the contract changes incompatibly.
 */
export const pluginSpecVersion = 1;

/** The spec version(s) a plugin built against this package may declare. */
export type PluginSpecVersion = typeof pluginSpecVersion;

/** Every spec version this registry accepts. */
export const supportedSpecVersions: readonly number[] = Object.freeze([pluginSpecVersion]);

/** Undoes what `setup` started (timers, sockets, files). Registrations are removed for you. */
export type PluginTeardown = () => void | Promise<void>;

/** What `setup` may return. */
// biome-ignore lint/suspicious/noConfusingVoidType: `async setup() {}` returns Promise<void>.
export type PluginSetupResult = void | PluginTeardown | Promise<void | PluginTeardown>;

/** A plugin, as the registry receives it. Make one with {@link definePlugin}. */
export interface PluginDefinition<Config = unknown> {
  /** The key under `plugins.entries`: `[a-z0-9][a-z0-9_-]*`, at most 64 characters. */
  readonly name: string;
  /** The plugin's own semver version (`1.4.0`). */
  readonly version: string;
  /** The plugin contract version it was written against: {@link pluginSpecVersion}. */
  readonly specVersion: number;
  readonly description?: string;
  /** Names of plugins that must be registered first (their hooks, tools, channels exist). */
  readonly dependencies?: readonly string[];
  /** Validates `plugins.entries.<name>.config` at startup; its output is `api.config`. */
  readonly configSchema: z.ZodType<Config>;
  /**
   * Registers everything the plugin provides, through `api`. Runs once at startup; may be
   * async. Registration is only possible until it settles. May return a teardown function.
   */
  setup(api: PluginApi<Config>): PluginSetupResult;
}

/** The argument of {@link definePlugin}. */
export interface PluginOptions<Schema extends z.ZodType> {
  readonly name: string;
  readonly version: string;
  readonly specVersion: PluginSpecVersion;
  readonly description?: string;
  readonly dependencies?: readonly string[];
  /** Defaults to an empty strict object: any key under `config` is then an error. */
  readonly configSchema?: Schema;
  setup(api: PluginApi<z.output<Schema>>): PluginSetupResult;
}

/** The schema used when a plugin declares none: no configuration keys at all. */
export type EmptyConfigSchema = z.ZodObject<Record<never, z.ZodType>, z.core.$strict>;

/**
 * Declares a plugin. The object is returned as is (plus the default config schema), so a
 * plugin module simply `export default definePlugin({...})`.
 *
 * @example
 * export default definePlugin({
 *   name: 'weather',
 *   version: '1.0.0',
 *   specVersion: 1,
 *   configSchema: z.object({ units: z.enum(['metric', 'imperial']).default('metric') }),
 *   setup(api) {
 *     api.registerTool(createWeatherTool(api.config.units));
 *   },
 * });
 */
export function definePlugin<Schema extends z.ZodType = EmptyConfigSchema>(
  options: PluginOptions<Schema>,
): PluginDefinition<z.output<Schema>> {
  const configSchema = (options.configSchema ?? z.object({}).strict()) as z.ZodType<z.output<Schema>>;
  return Object.freeze({ ...options, configSchema }) as PluginDefinition<z.output<Schema>>;
}

/**
 * Declares a tool with its argument types inferred from `parameters` (the same inference
 * `api.registerTool` gives an inline object).
 */
export function defineTool<Parameters extends z.ZodType, Details = unknown>(
  tool: PluginTool<Parameters, Details>,
): PluginTool<Parameters, Details> {
  return tool;
}

// ---------------------------------------------------------------------------------------
// Commands, HTTP routes, gateway methods
// ---------------------------------------------------------------------------------------

/** What a chat command's handler receives. */
export interface CommandContext {
  /** The command name, without the slash. */
  readonly command: string;
  /** The text after the command, trimmed. */
  readonly args: string;
  /** The message that carried the command. Its sender is authorized (in `allowFrom` or paired). */
  readonly message: InboundMessage;
  readonly sessionKey: string;
  readonly agentId: string;
}

/** A reply the gateway sends to the conversation. */
export interface CommandReply {
  readonly text: string;
}

/** What a command handler returns: a reply, or nothing (the command stays silent). */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler that returns nothing has type void, not undefined.
export type CommandResult = CommandReply | undefined | void;

/**
 * A slash command answered without the model (`/weather Paris`). Only authorized senders
 * can run it; the gateway's built-in directives (`/new`, `/reset`, `/stop`, `/status`,
 * `/model`, `/think`, ...) cannot be overridden.
 */
export interface PluginCommand {
  /** Without the slash: `[a-z0-9][a-z0-9_-]*`. */
  readonly name: string;
  /** One line, shown in `/help`. */
  readonly description: string;
  handler(context: CommandContext): CommandResult | Promise<CommandResult>;
}

/**
 * An HTTP route on the gateway's server (for webhooks). `auth: 'gateway'` makes the gateway
 * require its operator token; `auth: 'plugin'` leaves authentication to the handler (a
 * platform webhook checking its own signature). Choose deliberately.
 */
export interface HttpRoute {
  /** Starts with `/`; no query string. */
  readonly path: string;
  /** `exact` (default) matches the path only; `prefix` also matches everything below it. */
  readonly match?: 'exact' | 'prefix';
  readonly auth: 'gateway' | 'plugin';
  /** Allowed HTTP methods (upper case); default: any. */
  readonly methods?: readonly string[];
  handler(request: IncomingMessage, response: ServerResponse): void | Promise<void>;
}

/** What a gateway method handler receives besides its params. */
export interface GatewayMethodContext {
  /** The full method name (`weather.forecast`). */
  readonly method: string;
  /** Aborted when the calling client disconnects. */
  readonly signal: AbortSignal;
}

/**
 * Handles a WebSocket RPC call from an operator client. Returns (or resolves with) a
 * JSON-serialisable result; a thrown error becomes an error response (a `SwitchboardError`
 * keeps its code). `params` is whatever the client sent: validate it.
 */
export type GatewayMethodHandler = (params: unknown, context: GatewayMethodContext) => unknown;

// ---------------------------------------------------------------------------------------
// The api
// ---------------------------------------------------------------------------------------

/**
 * What `setup` receives. Every registration is recorded with the plugin's name, so
 * unregistering the plugin removes exactly what it added. Registration methods throw a
 * `PluginError` for malformed or clashing registrations (this fails `setup`, at startup).
 */
export interface PluginApi<Config = unknown> {
  readonly name: string;
  readonly version: string;
  /** The validated output of the plugin's `configSchema`. */
  readonly config: Config;
  /** A logger that tags every line with the plugin's name. */
  readonly logger: Logger;
  /** Adds a hook handler. Returns a function that removes it again. */
  on<Name extends HookName>(hook: Name, handler: HookHandler<Name>, options?: HookOptions): () => void;
  /** Adds a chat channel. Its id must be unique across plugins. */
  registerChannel<Account>(channel: ChannelPlugin<Account>): void;
  /** Adds an agent tool (or a factory that makes it per session). Names are unique across plugins. */
  registerTool<Parameters extends z.ZodType>(tool: PluginTool<Parameters> | PluginToolFactory): void;
  /** Adds a slash command. */
  registerCommand(command: PluginCommand): void;
  /** Adds an HTTP route on the gateway's server. */
  registerHttpRoute(route: HttpRoute): void;
  /** Adds a WebSocket RPC method. Its name must start with the plugin's name: `<name>.<method>`. */
  registerGatewayMethod(name: string, handler: GatewayMethodHandler): void;
}
