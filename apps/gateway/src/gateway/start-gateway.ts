// The gateway's composition root: reads the config, then builds every part in dependency
// order — storage, plugins, extensions, the runtime, the operators' protocol surface — starts
// listening, starts the channels, resumes what the last process left unanswered, and hands
// back the gateway with its `close`. The only module that wires runtime, methods and protocol.
import { join } from 'node:path';
import { createPluginRegistry, type PluginLoadReport } from '@switchboard/hooks';
import { ConfigError } from '../config/errors.ts';
import { configFileName, loadConfig } from '../config/load.ts';
import { builtinExtensions } from '../extensions/builtin-extensions.ts';
import { setUpExtensions } from '../extensions/host.ts';
import { GatewayError } from '../gateway-error.ts';
import { isLoopbackHost } from '../protocol/loopback.ts';
import { agentWorkspace } from '../runtime/agent-resources.ts';
import {
  type ConfigReloadReport,
  createConfigReloader,
  type ReloadTrigger,
} from '../runtime/config-reload.ts';
import { watchConfigFile } from '../runtime/config-watcher.ts';
import { armCrashPoints } from '../runtime/crash-points.ts';
import { createLiveConfig, createLiveModelCatalog } from '../runtime/live-config.ts';
import { createGatewayLogger } from '../runtime/logger.ts';
import { startPlugins } from '../runtime/plugins.ts';
import {
  ensureStateDirectory,
  resolveGatewayToken,
  resolveStateDirectory,
} from '../state/state-directory.ts';
import { createEventHub } from './event-hub.ts';
import { type GatewayHandle, resolveBindHost, type StartGatewayOptions } from './gateway-options.ts';
import { openGatewayStorage } from './gateway-storage.ts';
import { createGatewayClose } from './lifecycle.ts';
import { createProtocolSurface } from './protocol-surface.ts';
import { assembleRuntime } from './runtime-assembly.ts';

export type { GatewayHandle, StartGatewayOptions } from './gateway-options.ts';

/** Loads the config and starts the gateway: store, plugins, channels, protocol server, recovery. */
export async function startGateway(options: StartGatewayOptions = {}): Promise<GatewayHandle> {
  const environment = options.environment ?? process.env;
  const now = options.now ?? Date.now;
  const startedAt = now();
  const stateDirectory = options.stateDirectory ?? resolveStateDirectory(environment);
  ensureStateDirectory(stateDirectory);
  const loadOptions = {
    path: options.configPath,
    stateDirectory,
    environment,
  };
  const loaded = loadConfig(loadOptions);
  const config = loaded.config;
  // Reloadable keys are read from here at use time (per message, per turn): decision 0011.
  const live = createLiveConfig(config);
  const logger =
    options.logger ??
    createGatewayLogger({
      level: config.logging.level,
      file: config.logging.file,
    });
  for (const warning of loaded.warnings) logger.warn(`config: ${warning.path}: ${warning.message}`);

  const host = resolveBindHost(options.bind ?? config.gateway.bind);
  const port = options.port ?? config.gateway.port;
  if (config.gateway.auth.mode === 'none' && !isLoopbackHost(host)) {
    throw new ConfigError(
      'CONFIG_UNSAFE',
      `refusing to bind the gateway to ${host} without auth: set gateway.auth.mode to "token" or bind to loopback`,
    );
  }
  const token =
    config.gateway.auth.mode === 'token'
      ? resolveGatewayToken(stateDirectory, config.gateway.auth.token, environment)
      : undefined;
  if (token?.source === 'generated')
    logger.info(`generated a gateway token; it is in ${token.path} (mode 0600)`);

  const crashPointArmed = armCrashPoints(environment);
  if (crashPointArmed !== undefined)
    logger.warn(`[TEST] crash point armed: the gateway SIGKILLs itself at ${crashPointArmed}`);

  const storage = await openGatewayStorage({
    config,
    stateDirectory,
    durability: options.durability ?? config.session.durability ?? 'normal',
    now: options.now,
    logger,
  });
  const { store, replicas } = storage;
  const registry = createPluginRegistry({ logger });
  let pluginReport: PluginLoadReport = { loaded: [], failed: [], disabled: [] };
  let shuttingDown = false;
  const isShuttingDown = () => shuttingDown;
  try {
    // Stops start-up on an invalid plugin or channel config, or a plugin that cannot load
    // (unless optional): decision 0010.
    pluginReport = await startPlugins(registry, {
      config,
      configPath: loaded.path,
      extra: options.plugins,
      logger,
    });
  } catch (error) {
    await store.close();
    throw error;
  }

  const workspaceFor = (agentId: string): string => agentWorkspace(live.current(), stateDirectory, agentId);
  // Tools, prompt sections and model APIs: the gateway's own and each feature's (decision 0013).
  const extensions = await setUpExtensions(options.extensions ?? builtinExtensions, {
    config: live.current,
    stateDirectory,
    store,
    logger,
    hooks: registry.hooks,
    plugins: registry,
    now,
    workspaceFor,
  }).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const catalog = createLiveModelCatalog(live, environment, (api, settings) => {
    const registration = extensions.modelProviders.get(api);
    if (registration === undefined)
      throw new GatewayError('INVALID_PARAMS', `no model provider is registered for api "${api}"`);
    return registration.createModel(settings);
  });
  const events = createEventHub();
  if (replicas !== undefined) events.attach(replicas.relay.publish);
  const runtime = await assembleRuntime({
    live,
    stateDirectory,
    storage,
    registry,
    extensions,
    catalog,
    streamFn: options.streamFn ?? extensions.modelProviders.streamFn,
    broadcast: events.publish,
    workspaceFor,
    isShuttingDown,
    logger,
    now,
  });
  const { runs, channels, dispatcher, inbound, heapTrim } = runtime;

  const reloader = createConfigReloader({
    live,
    load: loadOptions,
    startedFrom: loaded.path,
    registry,
    channels,
    auth: runtime.auth,
    extraPlugins: options.plugins,
    logger,
  });
  const reloadConfig = (trigger: ReloadTrigger): Promise<ConfigReloadReport> =>
    reloader.reload(trigger).catch((error: unknown) => {
      logger.error('config reload failed; the running config is kept', { trigger, error: String(error) });
      throw error;
    });
  const server = createProtocolSurface({
    live,
    loaded,
    stateDirectory,
    durability: storage.durability,
    store,
    registry,
    catalog,
    runtime,
    replicas,
    host,
    port,
    token: token?.token,
    startedAt,
    pluginReport: () => pluginReport,
    reloadConfig,
    isShuttingDown,
    logger,
    now,
  });
  events.attach(server.broadcast);
  await replicas?.coordinator.start(
    { enqueueHere: inbound.enqueueHere, recover: inbound.recover, runs },
    storage.leftUnanswered,
  );
  await replicas?.relay.start({
    deliver: (event, payload, filter) => server.broadcast(event, payload, filter),
    abortHere: (sessionKey, runId) => {
      const active = runs
        .activeForSession(sessionKey)
        .filter((run) => runId === undefined || run.runId === runId);
      if (active.length === 0) return { aborted: false, runIds: [] };
      const result = dispatcher.abort(sessionKey, { clearQueue: false });
      return { aborted: result.aborted, runIds: active.map((run) => run.runId) };
    },
  });

  let address: { port: number };
  try {
    address = await server.listen();
  } catch (error) {
    heapTrim.stop();
    await store.close();
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      'CONFIG_UNSAFE',
      code === 'EADDRINUSE'
        ? `port ${port} on ${host} is already in use; is another gateway running? (--port picks another)`
        : `cannot listen on ${host}:${port}: ${(error as Error).message}`,
    );
  }
  // Unknown channel keys were already reported, with suggestions, by startPlugins.
  await channels.start(
    registry
      .channels()
      .map((registration) => ({ plugin: registration.plugin, channel: registration.channel })),
    config.channels,
  );
  for (const id of Object.keys(config.channels)) {
    if (registry.channel(id) === undefined)
      logger.warn(`config: channels.${id}: no channel plugin with this id is loaded; the section is ignored`);
  }
  await inbound.recover(storage.leftUnanswered);
  await extensions.start({
    inbound,
    runs,
    send: runtime.send,
    broadcast: (event, payload) => events.publish(event, payload),
    dispatcher,
  });
  // Editing the file reloads it (unless gateway.reload.mode is "off"): decision 0011.
  const configWatcher = watchConfigFile({
    path: loaded.path ?? join(stateDirectory, configFileName),
    debounceMs: () => live.current().gateway.reload?.debounceMs ?? 300,
    enabled: () => !shuttingDown && live.current().gateway.reload?.mode !== 'off',
    onChange: () => void reloadConfig('file').catch(() => undefined),
    logger,
  });
  const gatewaySignal = new AbortController();
  if (registry.hooks.has('gateway_start')) {
    void registry.hooks.run('gateway_start', {
      startedAt: now(),
      address: { host, port: address.port },
      signal: gatewaySignal.signal,
    });
  }
  // Start-up is over: from now on a replica silent for `livenessTimeoutMs` is gone.
  await replicas?.started();
  const displayHost = host.includes(':') ? `[${host}]` : host;
  logger.info(`gateway listening on ws://${displayHost}:${address.port}`, {
    stateDirectory,
    config: loaded.path ?? '(defaults)',
  });
  // Start-up is a burst like any other: loading modules, building schemas and parsing the
  // config leave a young generation and old-space garbage (about 7 MB resident) that an idle
  // gateway would otherwise keep. The idle trim gives it back at its first quiet check.
  heapTrim.noteActivity();

  const close = createGatewayClose({
    beginShutdown: () => {
      shuttingDown = true;
    },
    stopBackground: () => {
      configWatcher.close();
      heapTrim.stop();
      void replicas?.coordinator.close();
      void replicas?.relay.close();
      replicas?.channelLeases.close();
    },
    dispatcher,
    registry,
    gatewaySignal,
    server,
    channels,
    stopExtensions: async () => {
      await extensions.stop();
      await replicas?.coordinator.close();
      await replicas?.relay.close();
    },
    store,
    logger,
  });
  return {
    url: `ws://${displayHost}:${address.port}`,
    httpUrl: `http://${displayHost}:${address.port}`,
    host,
    port: address.port,
    token: token?.token,
    tokenPath: token?.path,
    stateDirectory,
    config: loaded,
    server,
    dispatcher,
    currentConfig: () => live.current(),
    reloadConfig: (trigger = 'request') => reloadConfig(trigger),
    unrecoverable: storage.unrecoverable,
    close,
  };
}
