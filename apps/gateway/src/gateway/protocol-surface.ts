// The operators' side of the gateway: the services the protocol methods run on, the methods,
// and the WebSocket/HTTP server on the gateway port with its `hello-ok` snapshot.
import type { PluginLoadReport, PluginRegistry } from '@switchboard/hooks';
import type { Durability, SessionStore } from '@switchboard/sessions';
import type { LoadedConfig } from '../config/load.ts';
import type { MethodServices } from '../methods/context.ts';
import { createGatewayMethods } from '../methods/gateway-methods.ts';
import { createProtocolServer, type ProtocolServer } from '../protocol/server.ts';
import type { ConfigReloadReport, ReloadTrigger } from '../runtime/config-reload.ts';
import type { LiveConfig } from '../runtime/live-config.ts';
import type { ModelCatalog } from '../runtime/models.ts';
import { gatewayVersion } from '../version.ts';
import type { ReplicaServices } from './gateway-storage.ts';
import { createGatewayHttpHandler } from './http-routes.ts';
import { createCompactSession, pluginLoadSummary } from './method-services.ts';
import type { GatewayRuntime } from './runtime-assembly.ts';

export interface ProtocolSurfaceOptions {
  readonly live: LiveConfig;
  readonly loaded: LoadedConfig;
  readonly stateDirectory: string;
  readonly durability: Durability;
  readonly store: SessionStore;
  readonly registry: PluginRegistry;
  readonly catalog: ModelCatalog;
  readonly runtime: GatewayRuntime;
  readonly replicas: ReplicaServices | undefined;
  readonly host: string;
  readonly port: number;
  /** The gateway token; undefined when auth mode is none. */
  readonly token: string | undefined;
  readonly startedAt: number;
  readonly pluginReport: () => PluginLoadReport;
  readonly reloadConfig: (trigger: ReloadTrigger) => Promise<ConfigReloadReport>;
  readonly isShuttingDown: () => boolean;
  readonly logger: MethodServices['logger'];
  readonly now: () => number;
}

export function createProtocolSurface(options: ProtocolSurfaceOptions): ProtocolServer {
  const { live, loaded, runtime, replicas, now, isShuttingDown, logger } = options;
  const methodServices: MethodServices = {
    get config() {
      return live.current();
    },
    configPath: loaded.path,
    stateDirectory: options.stateDirectory,
    durability: options.durability,
    version: gatewayVersion,
    startedAt: options.startedAt,
    store: options.store,
    hooks: options.registry.hooks,
    registry: options.registry,
    catalog: options.catalog,
    channels: runtime.channels,
    pairing: runtime.pairing,
    runs: runtime.runs,
    notAnswered: runtime.notAnswered,
    inbound: runtime.inbound,
    send: runtime.send,
    dispatcher: runtime.dispatcher,
    logger,
    now,
    isShuttingDown,
    pluginLoadReport: () => pluginLoadSummary(options.pluginReport()),
    authProfilesStatus: () => runtime.auth.status(),
    compactSession: createCompactSession(runtime.inbound, runtime.runs),
    ...(replicas === undefined
      ? {}
      : {
          replicaStatus: replicas.readStatus,
          abortOnReplica: (sessionKey: string, runId?: string) =>
            replicas.relay.abortRemote(sessionKey, runId),
        }),
  };
  const methods = createGatewayMethods(methodServices, {
    registry: options.registry,
    reloadConfig: options.reloadConfig,
  });
  const sessionDefaults = () => {
    const mainKey = live.current().session.mainKey ?? 'main';
    const defaultAgent = runtime.inbound.resolveSession(undefined, undefined).agentId;
    return {
      defaultAgentId: defaultAgent,
      mainKey,
      mainSessionKey: `agent:${defaultAgent}:${mainKey}`,
      scope: 'per-sender',
    };
  };
  const config = loaded.config;
  return createProtocolServer({
    host: options.host,
    port: options.port,
    auth: options.token === undefined ? { mode: 'none' } : { mode: 'token', token: options.token },
    methods,
    allowedOrigins: config.gateway.controlUi?.allowedOrigins ?? [],
    isReady: () => !isShuttingDown(),
    now,
    log: (level, message, fields) => logger[level](message, fields),
    hello: {
      serverVersion: gatewayVersion,
      methods: [...methods.keys()],
      events: ['connect.challenge', 'agent', 'chat', 'session.run', 'tick', 'shutdown'],
      snapshot: () => ({
        presence: [],
        health: {},
        stateVersion: { presence: 0, health: 0 },
        uptimeMs: now() - options.startedAt,
        sessionDefaults: sessionDefaults(),
        authMode: config.gateway.auth.mode,
        stateDir: options.stateDirectory,
        configPath: loaded.path,
      }),
    },
    http: createGatewayHttpHandler({
      registry: options.registry,
      channels: runtime.channels,
      token: options.token,
    }),
  });
}
