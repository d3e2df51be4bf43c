// The one seam of config reload (docs/decisions/0011-config-reload.md): the modules that own
// keys which apply without a restart (inbound routing and queueing, the turn runner,
// directives, the model catalog, protocol methods) read `current()` when they use a key (per
// message, per turn), never a copy taken at start-up. A reload is one `replace`.
import type { GatewayConfig } from '../config/schema.ts';
import { createModelCatalog, type ModelCatalog, type ModelFactory } from './models.ts';

/** Called after a swap with the new config and the one it replaced. */
type LiveConfigListener = (next: GatewayConfig, previous: GatewayConfig) => void;

export interface LiveConfig {
  /** The config in force now. A property read: cheap enough for every message. */
  current(): GatewayConfig;
  /** Puts `next` in force, then calls every listener (in the order they were added). */
  replace(next: GatewayConfig): void;
  /** Adds a listener; returns the function that removes it. */
  onChange(listener: LiveConfigListener): () => void;
}

export function createLiveConfig(initial: GatewayConfig): LiveConfig {
  let config = initial;
  const listeners = new Set<LiveConfigListener>();
  return {
    current: () => config,
    replace(next) {
      const previous = config;
      config = next;
      for (const listener of listeners) listener(next, previous);
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/**
 * A model catalog that follows the live config: it builds the catalog of `models.providers`
 * again when the `models` section is another object (a reload that changed it; a reload keeps
 * unchanged sections as the same objects), never per call, so a new API key, base URL or
 * provider applies to the next turn.
 */
export function createLiveModelCatalog(
  live: LiveConfig,
  environment: NodeJS.ProcessEnv = process.env,
  createModel?: ModelFactory,
): ModelCatalog {
  let builtFor = live.current().models;
  let catalog = createModelCatalog(live.current(), environment, createModel);
  const currentCatalog = (): ModelCatalog => {
    const config = live.current();
    if (config.models !== builtFor) {
      builtFor = config.models;
      catalog = createModelCatalog(config, environment, createModel);
    }
    return catalog;
  };
  return {
    get providers() {
      return currentCatalog().providers;
    },
    resolve: (reference) => currentCatalog().resolve(reference),
  };
}
