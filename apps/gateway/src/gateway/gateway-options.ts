// What starting a gateway takes and what it hands back.
import type { StreamFunction } from '@switchboard/core-loop';
import type { Logger, PluginDefinition } from '@switchboard/hooks';
import type { Durability, SessionDispatcher } from '@switchboard/sessions';
import type { LoadedConfig } from '../config/load.ts';
import type { GatewayConfig } from '../config/schema.ts';
import type { GatewayExtension } from '../extensions/extension.ts';
import type { ProtocolServer } from '../protocol/server.ts';
import type { ConfigReloadReport, ReloadTrigger } from '../runtime/config-reload.ts';
import type { TurnInput } from '../runtime/turn-input.ts';

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
  /**
   * Resolves with the reason when the gateway cannot go on and must be started afresh (a
   * replica whose PostgreSQL instance lock is gone); `gateway run` then closes it and exits 1
   * so its supervisor restarts it. Never resolves on a healthy gateway.
   */
  readonly unrecoverable: Promise<Error>;
  /** Ends the gateway: stops admitting, lets running turns finish (up to `graceMs`), then closes everything. */
  close(reason?: string, graceMs?: number): Promise<void>;
}

/** `loopback` → 127.0.0.1, `lan` → 0.0.0.0, anything else is taken as an address. */
export function resolveBindHost(bind: string): string {
  if (bind === 'loopback') return '127.0.0.1';
  if (bind === 'lan') return '0.0.0.0';
  return bind;
}
