// The model provider seam (decision 0013): one registration per wire API (`models.providers.
// <name>.api`), loaded on the first call of a model with that API, so a gateway that never
// uses a provider never imports its SDK.
import {
  createStreamFunction,
  type Model,
  type ModelProvider,
  type StreamFunction,
} from '@switchboard/core-loop';
import type { ProviderModelConfig } from '../config/schema.ts';

/** What a registration needs to build the `Model` of `<provider>/<modelId>`. */
export interface ModelSettings {
  /** The config's provider name (`anthropic`, `openai`, `local`, …). */
  readonly provider: string;
  readonly modelId: string;
  readonly baseUrl?: string;
  /** The `models.providers.<provider>.models[]` entry for this id, when there is one. */
  readonly configured?: ProviderModelConfig;
}

/**
 * A wire API. Contract: `load` resolves with the provider (it may import an SDK; it is
 * called at most once, on the first call of a model with this api, and a rejection is
 * reported on that call as a model error); `createModel` is synchronous and pure (limits and
 * capabilities of a model id, with `configured` values winning over built-in knowledge).
 * @public
 */
export interface ModelProviderRegistration {
  readonly api: string;
  load(): Promise<ModelProvider>;
  createModel(settings: ModelSettings): Model;
}

export interface ModelProviderRegistry {
  /** Adds an api (unique); returns the function that removes it. */
  register(registration: ModelProviderRegistration): () => void;
  get(api: string): ModelProviderRegistration | undefined;
  apis(): readonly string[];
  /** Streams each call through the provider of `model.api` (loaded on first use). */
  readonly streamFn: StreamFunction;
}

export function createModelProviderRegistry(): ModelProviderRegistry {
  const registrations = new Map<string, ModelProviderRegistration>();
  const loaded = new Map<string, Promise<StreamFunction>>();
  /** For an api nobody registered: core-loop's error stream names the registered ones. */
  let unknown: StreamFunction | undefined;

  const streamFn: StreamFunction = async (model, context, options) => {
    const registration = registrations.get(model.api);
    if (registration === undefined) {
      unknown ??= createStreamFunction([]);
      return unknown(model, context, options);
    }
    let stream = loaded.get(model.api);
    if (stream === undefined) {
      stream = registration.load().then((provider) => createStreamFunction([provider]));
      loaded.set(model.api, stream);
      // A failed load is retried on the next call rather than cached forever.
      stream.catch(() => loaded.delete(model.api));
    }
    return (await stream)(model, context, options);
  };

  return {
    register(registration) {
      if (registrations.has(registration.api)) {
        throw new Error(`model api "${registration.api}" is already registered`);
      }
      registrations.set(registration.api, registration);
      return () => {
        if (registrations.get(registration.api) === registration) {
          registrations.delete(registration.api);
          loaded.delete(registration.api);
        }
      };
    },
    get: (api) => registrations.get(api),
    apis: () => [...registrations.keys()],
    streamFn,
  };
}
