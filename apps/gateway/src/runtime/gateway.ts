import { join } from 'node:path';
import type { StreamFunction } from '@switchboard/core-loop';
import {
  type ChannelPlugin,
  createPluginRegistry,
  type Logger,
  type PluginDefinition,
  type PluginLoadReport,
} from '@switchboard/hooks';
import {
  createSessionDispatcher,
  type Durability,
  defaultQueueSettings,
  type SessionDispatcher,
} from '@switchboard/sessions';
import { createPairingStore } from '../access/pairing.ts';
import { ConfigError } from '../config/errors.ts';
import { configFileName, type LoadedConfig, loadConfig } from '../config/load.ts';
import type { GatewayConfig } from '../config/schema.ts';
import { builtinExtensions } from '../extensions/builtin-extensions.ts';
import type { GatewayExtension } from '../extensions/extension.ts';
import { setUpExtensions } from '../extensions/host.ts';
import { GatewayError } from '../gateway-error.ts';
import type { MethodServices } from '../methods/context.ts';
import { createGatewayMethods } from '../methods/gateway-methods.ts';
import { createProtocolServer, isLoopbackHost, type ProtocolServer } from '../protocol/server.ts';
import {
  ensureStateDirectory,
  resolveGatewayToken,
  resolveStateDirectory,
} from '../state/state-directory.ts';
import { subagentSettings } from '../subagents/manager.ts';
import { agentWorkspace } from './agent-resources.ts';
import { createChannelManager } from './channels.ts';
import { type ConfigReloadReport, createConfigReloader, type ReloadTrigger } from './config-reload.ts';
import { watchConfigFile } from './config-watcher.ts';
import { armCrashPoints } from './crash-points.ts';
import { createDirectives } from './directives.ts';
import { createGatewayHttpHandler } from './http-routes.ts';
import { startIdleHeapTrim } from './idle-heap-trim.ts';
import { createInbound } from './inbound.ts';
import { createInboundJournal } from './journal.ts';
import { createGatewayClose } from './lifecycle.ts';
import { createLiveConfig, createLiveModelCatalog } from './live-config.ts';
import { createGatewayLogger } from './logger.ts';
import { createCompactSession, pluginLoadSummary } from './method-services.ts';
import { createModelServices } from './model-services.ts';
import { createNotAnsweredLog } from './not-answered.ts';
import { createOutbound } from './outbound.ts';
import { startPlugins } from './plugins.ts';
import { createQueueOutcomes } from './queue-outcomes.ts';
import { createTurnRunner } from './runner.ts';
import { createRunRegistry } from './runs.ts';
import { openSessionStore } from './session-store.ts';
import type { TurnInput } from './turn-input.ts';

export { gatewayVersion } from '../version.ts';

import { gatewayVersion } from '../version.ts';

export interface StartGatewayOptions {
  /** `--config`: the config file (default: `switchboard.json` in the state directory). */
  readonly configPath?: string;
  readonly stateDirectory?: string;
  /** `--port`, overriding `gateway.port` (0 picks a free port). */
  readonly port?: number;
  /** `--bind`, overriding `gateway.bind`. */
  readonly bind?: string;
  readonly environment?: NodeJS.ProcessEnv;
  readonly logger?: Logger;
  /** Plugins registered before the configured ones (tests, embedders). */
  readonly plugins?: readonly PluginDefinition[];
  /** SQLite durability; overrides `session.durability` (default `normal`; see docs/decisions). */
  readonly durability?: Durability;
  /** Replaces the model stream function (tests, benches). */
  readonly streamFn?: StreamFunction;
  /** Replaces the built-in extensions (tests, embedders); include `coreExtension` to keep the basics. */
  readonly extensions?: readonly GatewayExtension[];
  readonly now?: () => number;
}

export interface GatewayHandle {
  readonly url: string;
  readonly httpUrl: string;
  readonly host: string;
  readonly port: number;
  /** The token clients present (undefined when auth mode is none). */
  readonly token: string | undefined;
  readonly tokenPath: string | undefined;
  readonly stateDirectory: string;
  readonly config: LoadedConfig;
  readonly server: ProtocolServer;
  readonly dispatcher: SessionDispatcher<TurnInput>;
  /** The config in force now (a reload replaces it; `config` is what start-up read). */
  currentConfig(): GatewayConfig;
  /** Reads the config file again and applies what can apply without a restart (decision 0011). */
  reloadConfig(trigger?: ReloadTrigger): Promise<ConfigReloadReport>;
  /** Ends the gateway: stops admitting, lets running turns finish (up to `graceMs`), then closes everything. */
  close(reason?: string, graceMs?: number): Promise<void>;
}

/** `loopback` → 127.0.0.1, `lan` → 0.0.0.0, anything else is taken as an address. */
export function resolveBindHost(bind: string): string {
  if (bind === 'loopback') return '127.0.0.1';
  if (bind === 'lan') return '0.0.0.0';
  return bind;
}

/** Loads the config and starts the gateway: store, plugins, channels, protocol server, recovery. */
export async function startGateway(options: StartGatewayOptions = {}): Promise<GatewayHandle> {
  const environment = options.environment ?? process.env;
  const now = options.now ?? Date.now;
  const startedAt = now();
  const stateDirectory = options.stateDirectory ?? resolveStateDirectory(environment);
  ensureStateDirectory(stateDirectory);
  const loaded = loadConfig({
    ...(options.configPath === undefined ? {} : { path: options.configPath }),
    stateDirectory,
    environment,
  });
  const config = loaded.config;
  // Reloadable keys are read from here at use time (per message, per turn): decision 0011.
  const live = createLiveConfig(config);
  const logger =
    options.logger ??
    createGatewayLogger({
      level: config.logging.level,
      ...(config.logging.file === undefined ? {} : { file: config.logging.file }),
    });
  for (const warning of loaded.warnings) logger.warn(`config: ${warning.path}: ${warning.message}`);

  const host = resolveBindHost(options.bind ?? config.gateway.bind);
  const port = options.port ?? config.gateway.port;
  const authMode = config.gateway.auth.mode;
  if (authMode === 'none' && !isLoopbackHost(host)) {
    throw new ConfigError(
      'CONFIG_UNSAFE',
      `refusing to bind the gateway to ${host} without auth: set gateway.auth.mode to "token" or bind to loopback`,
    );
  }
  const token =
    authMode === 'token'
      ? resolveGatewayToken(stateDirectory, config.gateway.auth.token, environment)
      : undefined;
  if (token?.source === 'generated')
    logger.info(`generated a gateway token; it is in ${token.path} (mode 0600)`);

  const crashPointArmed = armCrashPoints(environment);
  if (crashPointArmed !== undefined)
    logger.warn(`[TEST] crash point armed: the gateway SIGKILLs itself at ${crashPointArmed}`);

  const {
    store: openedStore,
    durability,
    shared,
  } = await openSessionStore({
    storage: config.storage,
    stateDirectory,
    durability: options.durability ?? config.session.durability ?? 'normal',
    ...(options.now === undefined ? {} : { now }),
    logger,
  });
  // Several replicas on one PostgreSQL: session leases, wake-ups, the replica listing (decision 0021).
  const replicas = shared === undefined ? undefined : await import('../replicas/index.ts');
  // One consumer per polling channel account; its journal writes and sends carry the lease's token.
  const channelLeases =
    shared === undefined ? undefined : replicas?.createChannelLeaseKeeper({ store: shared, logger });
  const store = channelLeases?.fence(openedStore) ?? openedStore;
  const relay = shared === undefined ? undefined : replicas?.createRunRelay({ store: shared, logger });
  const coordinator =
    shared === undefined
      ? undefined
      : replicas?.createSessionCoordinator({
          store: shared,
          logger,
          onHandedOver: (input) => {
            if (input.runId !== undefined) relay?.handedOver(input.runId);
          },
        });
  const journal =
    coordinator?.journal(createInboundJournal({ store, logger })) ?? createInboundJournal({ store, logger });
  // What the last process left unanswered, listed before anything is admitted (decision 0004).
  const leftUnanswered = await journal.unfinished();
  const registry = createPluginRegistry({ logger });
  let pluginReport: PluginLoadReport = { loaded: [], failed: [], disabled: [] };
  let shuttingDown = false;
  let server: ProtocolServer | undefined;
  try {
    // Stops start-up on an invalid plugin or channel config, or a plugin that cannot load
    // (unless optional): decision 0010.
    pluginReport = await startPlugins(registry, {
      config,
      configPath: loaded.path,
      ...(options.plugins === undefined ? {} : { extra: options.plugins }),
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
  const pairing = createPairingStore(store, { now });
  await pairing.load();
  const runs = relay?.runs(createRunRegistry({ now })) ?? createRunRegistry({ now });
  const notAnswered = createNotAnsweredLog({ now });
  const broadcast = (
    event: string,
    payload: unknown,
    filter?: Parameters<ProtocolServer['broadcast']>[2],
  ) => {
    server?.broadcast(event, payload, filter);
    relay?.publish(event, payload, filter);
  };
  const channels = createChannelManager({
    logger,
    now,
    dataRoot: join(stateDirectory, 'channels'),
    receive: (account, message) => inbound.receive(account, message),
    notAnswered,
    ...(channelLeases === undefined ? {} : { leases: channelLeases }),
  });
  const send = createOutbound({ hooks: registry.hooks, channels, store, logger, now });

  const { streamFn, auth, compactor, compactionSettings } = await createModelServices({
    config,
    store,
    registry,
    catalog,
    logger,
    now,
    streamFn: options.streamFn ?? extensions.modelProviders.streamFn,
  });
  const runner = createTurnRunner({
    config: live,
    stateDirectory,
    store,
    journal,
    hooks: registry.hooks,
    catalog,
    streamFn,
    channels,
    send,
    runs,
    broadcast,
    logger,
    now,
    tools: extensions.tools,
    promptSections: extensions.promptSections,
    auth,
    compactor,
    compactionSettings,
    workspaceFor,
    isShuttingDown: () => shuttingDown,
  });
  const heapTrim = startIdleHeapTrim({
    onCollected: (report) =>
      logger.debug('gave heap back after traffic stopped', {
        ms: Math.round(report.durationMs),
        heapMbBefore: Math.round(report.heapBeforeBytes / 1_048_576),
        heapMbAfter: Math.round(report.heapAfterBytes / 1_048_576),
      }),
    isBusy: () => {
      const stats = dispatcher.stats();
      return (
        stats !== undefined && (stats.runningRuns > 0 || stats.waitingRuns > 0 || stats.queuedMessages > 0)
      );
    },
  });
  const queueOutcomes = createQueueOutcomes({
    journal,
    runs,
    send,
    logger,
    notAnswered,
    capFor: (channel) =>
      live.current().messages.queue?.byChannel?.[channel]?.cap ??
      live.current().messages.queue?.cap ??
      defaultQueueSettings.cap,
  });
  const dispatcher = createSessionDispatcher<TurnInput>({
    runBatch: (batch, signal) => runner.runBatch(batch, signal),
    trySteer: (run, message) => runner.trySteer(run, message),
    maxConcurrentRuns: config.agents.defaults.maxConcurrent,
    laneLimits: { subagent: subagentSettings(config).maxConcurrent },
    defaults: {},
    onEvent: (event) => {
      if (event.type === 'run_end') heapTrim.noteActivity();
      if (event.type === 'dropped' || event.type === 'summarized') {
        queueOutcomes(event);
      } else if (event.type === 'run_end' && event.outcome === 'error') {
        logger.error('run crashed', {
          sessionKey: event.sessionKey,
          runId: event.runId,
          error: String(event.error),
        });
      }
    },
  });
  const directives = createDirectives({
    config: live,
    store,
    hooks: registry.hooks,
    registry,
    catalog,
    dispatcher,
    now,
  });
  const inboundImpl = createInbound({
    config: live,
    store,
    journal,
    hooks: registry.hooks,
    pairing,
    directives,
    runs,
    send,
    logger,
    now,
    dispatcher,
    notAnswered,
    ...(coordinator === undefined ? {} : { replicas: coordinator }),
  });
  const inbound = { receive: inboundImpl.receiveFromChannel };
  await coordinator?.start(
    { enqueueHere: inboundImpl.enqueueHere, recover: inboundImpl.recover, runs },
    leftUnanswered,
  );
  await relay?.start({
    deliver: (event, payload, filter) => server?.broadcast(event, payload, filter),
    abortHere: (sessionKey, runId) => {
      const active = runs
        .activeForSession(sessionKey)
        .filter((run) => runId === undefined || run.runId === runId);
      if (active.length === 0) return { aborted: false, runIds: [] };
      const result = dispatcher.abort(sessionKey, { clearQueue: false });
      return { aborted: result.aborted, runIds: active.map((run) => run.runId) };
    },
  });

  const reloader = createConfigReloader({
    live,
    load: {
      ...(options.configPath === undefined ? {} : { path: options.configPath }),
      stateDirectory,
      environment,
    },
    startedFrom: loaded.path,
    registry,
    channels,
    auth,
    ...(options.plugins === undefined ? {} : { extraPlugins: options.plugins }),
    logger,
  });
  const reloadConfig = (trigger: ReloadTrigger): Promise<ConfigReloadReport> =>
    reloader.reload(trigger).catch((error: unknown) => {
      logger.error('config reload failed; the running config is kept', { trigger, error: String(error) });
      throw error;
    });
  const methodServices: MethodServices = {
    get config() {
      return live.current();
    },
    configPath: loaded.path,
    stateDirectory,
    durability,
    version: gatewayVersion,
    startedAt,
    store,
    hooks: registry.hooks,
    registry,
    catalog,
    channels,
    pairing,
    runs,
    notAnswered,
    inbound: inboundImpl,
    send,
    dispatcher,
    logger,
    now,
    isShuttingDown: () => shuttingDown,
    pluginLoadReport: () => pluginLoadSummary(pluginReport),
    authProfilesStatus: () => auth.status(),
    compactSession: createCompactSession(inboundImpl, runs),
    ...(shared === undefined || replicas === undefined
      ? {}
      : { replicaStatus: replicas.createReplicaStatusReader(shared) }),
    ...(relay === undefined
      ? {}
      : { abortOnReplica: (sessionKey: string, runId?: string) => relay.abortRemote(sessionKey, runId) }),
  };
  const methods = createGatewayMethods(methodServices, { registry, reloadConfig });
  const sessionDefaults = () => {
    const mainKey = live.current().session.mainKey ?? 'main';
    const defaultAgent = inboundImpl.resolveSession(undefined, undefined).agentId;
    return {
      defaultAgentId: defaultAgent,
      mainKey,
      mainSessionKey: `agent:${defaultAgent}:${mainKey}`,
      scope: 'per-sender',
    };
  };

  server = createProtocolServer({
    host,
    port,
    auth: token === undefined ? { mode: 'none' } : { mode: 'token', token: token.token },
    methods,
    allowedOrigins: config.gateway.controlUi?.allowedOrigins ?? [],
    isReady: () => !shuttingDown,
    now,
    log: (level, message, fields) => logger[level](message, fields),
    hello: {
      serverVersion: gatewayVersion,
      methods: [...methods.keys()],
      events: ['connect.challenge', 'agent', 'chat', 'tick', 'shutdown'],
      snapshot: () => ({
        presence: [],
        health: {},
        stateVersion: { presence: 0, health: 0 },
        uptimeMs: now() - startedAt,
        sessionDefaults: sessionDefaults(),
        authMode,
        stateDir: stateDirectory,
        ...(loaded.path === undefined ? {} : { configPath: loaded.path }),
      }),
    },
    http: createGatewayHttpHandler({ registry, channels, token: token?.token }),
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
  const channelRegistrations: Array<{ plugin: string; channel: ChannelPlugin }> = registry
    .channels()
    .map((registration) => ({
      plugin: registration.plugin,
      channel: registration.channel,
    }));
  // Unknown channel keys were already reported, with suggestions, by startPlugins.
  await channels.start(channelRegistrations, config.channels);
  for (const id of Object.keys(config.channels)) {
    if (registry.channel(id) === undefined)
      logger.warn(`config: channels.${id}: no channel plugin with this id is loaded; the section is ignored`);
  }
  await inboundImpl.recover(leftUnanswered);
  await extensions.start({
    inbound: inboundImpl,
    runs,
    send,
    broadcast: (event, payload) => broadcast(event, payload),
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
  const displayHost = host.includes(':') ? `[${host}]` : host;
  logger.info(`gateway listening on ws://${displayHost}:${address.port}`, {
    stateDirectory,
    config: loaded.path ?? '(defaults)',
  });

  const close = createGatewayClose({
    beginShutdown: () => {
      shuttingDown = true;
    },
    stopBackground: () => {
      configWatcher.close();
      heapTrim.stop();
      void coordinator?.close();
      void relay?.close();
      channelLeases?.close();
    },
    dispatcher,
    registry,
    gatewaySignal,
    server: () => server,
    channels,
    stopExtensions: async () => {
      await extensions.stop();
      await coordinator?.close();
      await relay?.close();
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
    close,
  };
}
