// The model side of the gateway: the provider stream (the Anthropic provider, imported on
// first use), credential profiles with their cooldown events, and the compactor.
import {
  type AuthProfileManager,
  createAuthProfileManager,
  createKeyValueAuthStateStorage,
} from '@switchboard/auth-profiles';
import { type Compactor, createCompactor, createModelSummarizer } from '@switchboard/compaction';
import type { StreamFunction } from '@switchboard/core-loop';
import type { Logger, PluginRegistry } from '@switchboard/hooks';
import type { SessionStore } from '@switchboard/sessions';
import type { GatewayConfig } from '../config/schema.ts';
import { warnAboutMissingCredentials } from './model-credentials.ts';
import { defaultsModelReference } from './model-selection.ts';
import type { ModelCatalog } from './models.ts';

export interface ModelServicesOptions {
  readonly config: GatewayConfig;
  readonly store: SessionStore;
  readonly registry: PluginRegistry;
  readonly catalog: ModelCatalog;
  readonly logger: Logger;
  readonly now: () => number;
  /** The model stream: the provider registry's, or a test's replacement. */
  readonly streamFn: StreamFunction;
}

export interface ModelServices {
  readonly streamFn: StreamFunction;
  readonly auth: AuthProfileManager;
  /** Undefined when `agents.defaults.compaction.enabled` is false. */
  readonly compactor: Compactor | undefined;
  readonly compactionSettings: { reserveTokens?: number; keepRecentTokens?: number };
}

export async function createModelServices(options: ModelServicesOptions): Promise<ModelServices> {
  const { config, store, registry, catalog, logger, now } = options;
  const { streamFn } = options;

  const auth = await createAuthProfileManager({
    config: config.auth,
    storage: createKeyValueAuthStateStorage(store),
    now,
    onEvent: (event) => {
      if (event.type === 'failure_recorded')
        logger.warn('credential cooling down', {
          profile: event.profileId,
          model: event.model,
          reason: event.window.reason,
          until: new Date(event.window.until).toISOString(),
        });
      else if (event.type === 'model_fallback') logger.warn('falling back to another model', { ...event });
    },
  });
  // A missing key otherwise shows only when the first turn fails.
  warnAboutMissingCredentials({ config, catalog, profiles: auth.profiles(), logger });
  const compactionConfig = config.agents.defaults.compaction;
  const compactionSettings = {
    reserveTokens: compactionConfig?.reserveTokens,
    keepRecentTokens: compactionConfig?.keepRecentTokens,
  };
  const defaultTarget = catalog.resolve(defaultsModelReference(config));
  const compactor =
    compactionConfig?.enabled === false
      ? undefined
      : createCompactor({
          store,
          summarizer: createModelSummarizer({ streamFn, model: defaultTarget.model }),
          settings: compactionSettings,
          hooks: {
            beforeCompaction: (event) =>
              registry.hooks.has('before_compaction')
                ? registry.hooks.run('before_compaction', event)
                : undefined,
            afterCompaction: (event) =>
              registry.hooks.has('after_compaction')
                ? registry.hooks.run('after_compaction', event)
                : undefined,
          },
          onEvent: (event) => {
            if (event.type === 'compaction_end')
              logger.info('compacted a session', {
                sessionKey: event.outcome.sessionKey,
                kind: event.outcome.kind,
                tokensBefore: event.outcome.tokensBefore,
                tokensAfter: event.outcome.tokensAfter,
              });
            else if (event.type === 'compaction_summary_failed')
              logger.warn('a compaction summary failed; older turns were truncated instead', {
                sessionKey: event.sessionKey,
              });
          },
        });
  return { streamFn, auth, compactor, compactionSettings };
}
