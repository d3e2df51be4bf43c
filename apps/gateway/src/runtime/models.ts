import { anthropicModel, defaultModel, type Model } from '@switchboard/core-loop';
import type { GatewayConfig, ProviderConfig } from '../config/schema.ts';
import type { ModelSettings } from '../extensions/model-providers.ts';
import { GatewayError } from '../gateway-error.ts';
import { implicitModelProviders } from './implicit-providers.ts';

/** The model used when neither the agent nor `agents.defaults.model` names one. */
export const defaultModelReference = `${defaultModel.provider}/${defaultModel.id}`;

/** Builds the `Model` of a provider's api (the model provider registry's `createModel`). */
export type ModelFactory = (api: string, settings: ModelSettings) => Model;

/** The `anthropic-messages` model of `settings`: built-in limits, configured values winning. */
export function anthropicMessagesModel(_api: string, settings: ModelSettings): Model {
  const { configured } = settings;
  return anthropicModel(settings.modelId, {
    provider: settings.provider,
    // Keeps the spreads (decision 0028, rule 1): anthropicModel spreads these over its defaults.
    ...(settings.baseUrl === undefined ? {} : { baseUrl: settings.baseUrl }),
    ...(configured === undefined
      ? {}
      : {
          contextWindow: configured.contextWindow,
          maxOutputTokens: configured.maxTokens,
          ...(configured.name === undefined ? {} : { name: configured.name }),
          ...(configured.input === undefined ? {} : { input: configured.input }),
          ...(configured.cost === undefined ? {} : { cost: configured.cost }),
          ...(configured.reasoning === false ? { thinking: undefined } : {}),
        }),
  });
}

/** A model reference resolved to what a call needs: the model and the endpoint's credentials. */
export interface ModelTarget {
  /** `<provider>/<model>` */
  readonly reference: string;
  readonly provider: string;
  readonly model: Model;
  readonly apiKey: string | undefined;
  readonly authToken: string | undefined;
  readonly baseUrl: string | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;
  readonly timeoutMs: number | undefined;
}

export interface ModelCatalog {
  /** Resolves `<provider>/<model>`; throws a GatewayError naming an unknown provider. */
  resolve(reference: string): ModelTarget;
  readonly providers: readonly string[];
}

export function splitModelReference(reference: string): { provider: string; modelId: string } {
  const slash = reference.indexOf('/');
  if (slash <= 0 || slash === reference.length - 1) {
    throw new GatewayError('INVALID_PARAMS', `model "${reference}" is not of the form <provider>/<model>`);
  }
  return { provider: reference.slice(0, slash).toLowerCase(), modelId: reference.slice(slash + 1) };
}

/**
 * The providers of `models.providers`, plus an implicit `anthropic` provider fed by
 * `ANTHROPIC_API_KEY` / `ANTHROPIC_AUTH_TOKEN` / `ANTHROPIC_BASE_URL` when the config does not
 * declare one, so `ANTHROPIC_API_KEY=… switchboard gateway run` works with no config file;
 * likewise `openai` and `ollama` (implicit-providers.ts). `models.mode: "replace"` drops them.
 */
export function createModelCatalog(
  config: GatewayConfig,
  environment: NodeJS.ProcessEnv = process.env,
  createModel: ModelFactory = anthropicMessagesModel,
): ModelCatalog {
  const providers = new Map<string, ProviderConfig>(Object.entries(config.models.providers));
  const implicit = config.models.mode !== 'replace';
  if (implicit && !providers.has('anthropic')) {
    providers.set('anthropic', {
      api: 'anthropic-messages',
      models: [],
      ...(environment.ANTHROPIC_API_KEY ? { apiKey: environment.ANTHROPIC_API_KEY } : {}),
      ...(environment.ANTHROPIC_AUTH_TOKEN ? { authToken: environment.ANTHROPIC_AUTH_TOKEN } : {}),
      ...(environment.ANTHROPIC_BASE_URL ? { baseUrl: environment.ANTHROPIC_BASE_URL } : {}),
    });
  }
  // openai (OPENAI_API_KEY) and ollama (OLLAMA_HOST or loopback): implicit-providers.ts.
  if (implicit)
    for (const [name, provider] of implicitModelProviders(environment))
      if (!providers.has(name)) providers.set(name, provider);
  const cache = new Map<string, ModelTarget>();
  return {
    providers: [...providers.keys()],
    resolve(reference) {
      const cached = cache.get(reference);
      if (cached !== undefined) return cached;
      const { provider, modelId } = splitModelReference(reference);
      const settings = providers.get(provider);
      if (settings === undefined) {
        throw new GatewayError(
          'INVALID_PARAMS',
          `model "${reference}" names provider "${provider}", which is not configured (models.providers has: ${[...providers.keys()].join(', ')})`,
        );
      }
      const configured = settings.models.find((entry) => entry.id === modelId);
      const model = createModel(settings.api, {
        provider,
        modelId,
        baseUrl: settings.baseUrl,
        configured,
      });
      const target: ModelTarget = {
        reference: `${provider}/${modelId}`,
        provider,
        model,
        apiKey: settings.apiKey,
        authToken: settings.authToken,
        baseUrl: settings.baseUrl,
        headers: settings.headers,
        timeoutMs: settings.timeoutSeconds === undefined ? undefined : settings.timeoutSeconds * 1000,
      };
      cache.set(reference, target);
      return target;
    },
  };
}
