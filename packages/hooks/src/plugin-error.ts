import { type ErrorCodeTable, SwitchboardError } from './errors.ts';

/** A code of {@link PluginError}; each is documented in {@link pluginErrorCodes}. */
export type PluginErrorCode =
  | 'PLUGIN_INVALID_DEFINITION'
  | 'PLUGIN_DUPLICATE_NAME'
  | 'PLUGIN_UNSUPPORTED_SPEC_VERSION'
  | 'PLUGIN_MISSING_DEPENDENCY'
  | 'PLUGIN_DEPENDENCY_CYCLE'
  | 'PLUGIN_HAS_DEPENDENTS'
  | 'PLUGIN_INVALID_CONFIG'
  | 'PLUGIN_INVALID_PLUGINS_CONFIG'
  | 'PLUGIN_INVALID_CHANNEL_CONFIG'
  | 'PLUGIN_SETUP_FAILED'
  | 'PLUGIN_SETUP_TIMEOUT'
  | 'PLUGIN_TEARDOWN_FAILED'
  | 'PLUGIN_UNKNOWN_HOOK'
  | 'PLUGIN_INVALID_REGISTRATION'
  | 'PLUGIN_DUPLICATE_REGISTRATION'
  | 'PLUGIN_RESERVED_NAME'
  | 'PLUGIN_REGISTRATION_CLOSED'
  | 'PLUGIN_NOT_FOUND'
  | 'PLUGIN_LOAD_FAILED'
  | 'PLUGIN_HOOK_FAILED'
  | 'PLUGIN_HOOK_TIMEOUT';

/**
 * Every code a {@link PluginError} can carry, with the sentence that documents it. The
 * registry and the loader raise these at startup (when a plugin is registered or loaded),
 * never while a message is being handled; hook failures at run time are logged, not thrown.
 */
export const pluginErrorCodes: Readonly<Record<PluginErrorCode, string>> & ErrorCodeTable = {
  PLUGIN_INVALID_DEFINITION:
    'The value given as a plugin is not a valid plugin definition (name, version, specVersion, setup, configSchema).',
  PLUGIN_DUPLICATE_NAME: 'A plugin with the same name is already registered.',
  PLUGIN_UNSUPPORTED_SPEC_VERSION:
    'The plugin was written against a plugin spec version this gateway does not support.',
  PLUGIN_MISSING_DEPENDENCY: 'A plugin named in `dependencies` is not registered (or failed to load).',
  PLUGIN_DEPENDENCY_CYCLE:
    'Plugins depend on each other in a cycle, so none of them can be registered first.',
  PLUGIN_HAS_DEPENDENTS: 'The plugin cannot be unregistered while other registered plugins depend on it.',
  PLUGIN_INVALID_CONFIG:
    'The plugin configuration under `plugins.entries.<name>.config` does not match its config schema.',
  PLUGIN_INVALID_PLUGINS_CONFIG: 'The `plugins` section of the configuration is malformed.',
  PLUGIN_INVALID_CHANNEL_CONFIG: 'A channel configuration under `channels.<id>` does not match its schema.',
  PLUGIN_SETUP_FAILED: 'The plugin `setup` function threw or rejected; nothing it registered was kept.',
  PLUGIN_SETUP_TIMEOUT: 'The plugin `setup` function did not finish within the setup time limit.',
  PLUGIN_TEARDOWN_FAILED:
    'The teardown function returned by `setup` threw while the plugin was unregistered.',
  PLUGIN_UNKNOWN_HOOK: '`api.on` was called with a hook name that is not in the hook map.',
  PLUGIN_INVALID_REGISTRATION:
    'A registration (hook handler, channel, tool, command, route, gateway method) is malformed.',
  PLUGIN_DUPLICATE_REGISTRATION:
    'A channel id, tool name, command, HTTP route or gateway method is already registered by another plugin.',
  PLUGIN_RESERVED_NAME: 'A command, HTTP route or gateway method uses a name reserved by the gateway.',
  PLUGIN_REGISTRATION_CLOSED:
    'A plugin tried to register something after its `setup` finished or after it was unregistered.',
  PLUGIN_NOT_FOUND: 'A configured plugin package or path could not be found.',
  PLUGIN_LOAD_FAILED: 'Importing the plugin module failed, or it exports no plugin definition.',
  PLUGIN_HOOK_FAILED: 'A hook handler threw or rejected (logged; it only blocks fail-closed gates).',
  PLUGIN_HOOK_TIMEOUT:
    'A hook handler did not settle within its timeout (logged; it only blocks fail-closed gates).',
};

/**
 * The error raised by the plugin registry and loader. Its message names the plugin and,
 * for configuration problems, the exact key path (`plugins.entries.weather.config.units`);
 * `details` carries the same facts for programs (`plugin`, `path`, `issues`, ...).
 */
export class PluginError extends SwitchboardError<PluginErrorCode> {}
