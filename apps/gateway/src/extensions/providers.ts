// Model providers beyond Anthropic (issue 20, decision 0014): OpenAI's Chat Completions (any
// OpenAI-compatible server) and Responses APIs, and Ollama's native /api/chat. Each api is
// registered with a model factory that needs no SDK; the SDKs load on the first call of a
// model with that api, so a gateway that never uses them never imports them. Ollama model
// discovery runs after start-up, and only for a declared `ollama` provider that lists no
// models.

import { createOllamaModel, ollamaApi } from '@switchboard/provider-ollama/models';
import {
  createOpenAIModel,
  type OpenAICompatSettings,
  openAICompletionsApi,
  openAIResponsesApi,
} from '@switchboard/provider-openai/models';
import type { ProviderModelConfig } from '../config/schema.ts';
import type { ExtensionContext, GatewayExtension } from './extension.ts';
import type { ModelSettings } from './model-providers.ts';

/** What discovery found of one Ollama model (context length, capabilities). */
interface DiscoveredModel {
  readonly contextWindow: number | undefined;
  readonly tools: boolean;
  readonly vision: boolean;
  readonly thinking: boolean;
}

/** The configured fields of a `models[]` entry, in the factories' names. */
function configuredFields(configured: ProviderModelConfig | undefined): {
  name?: string;
  contextWindow?: number;
  maxOutputTokens?: number;
  reasoning?: boolean;
  input?: ReadonlyArray<'text' | 'image'>;
  cost?: ProviderModelConfig['cost'] & object;
} {
  if (configured === undefined) return {};
  return {
    name: configured.name,
    contextWindow: configured.contextWindow,
    maxOutputTokens: configured.maxTokens,
    reasoning: configured.reasoning,
    input: configured.input,
    cost: configured.cost,
  };
}

function openAIModelFactory(context: ExtensionContext, api: string) {
  return (settings: ModelSettings) => {
    const provider = context.config().models.providers[settings.provider];
    const compat: OpenAICompatSettings = { ...provider?.compat, ...settings.configured?.compat };
    return createOpenAIModel({
      api,
      provider: settings.provider,
      id: settings.modelId,
      baseUrl: settings.baseUrl,
      ...configuredFields(settings.configured),
      ...(Object.keys(compat).length === 0 ? {} : { compat }),
    });
  };
}

/** Says, once per set-up, which configured servers get no tools (nothing is dropped silently). */
function reportToolsOff(context: ExtensionContext): void {
  for (const [name, provider] of Object.entries(context.config().models.providers)) {
    if (provider.compat?.supportsTools === false) {
      context.logger.warn('a model provider is configured without tools: its turns get no tools', {
        provider: name,
        key: `models.providers.${name}.compat.supportsTools`,
      });
    }
    for (const model of provider.models) {
      if (model.compat?.supportsTools === false) {
        context.logger.warn('a model is configured without tools: its turns get no tools', {
          model: `${name}/${model.id}`,
        });
      }
    }
  }
}

export const providersExtension: GatewayExtension = {
  id: 'providers',
  setup(context) {
    for (const api of [openAICompletionsApi, openAIResponsesApi]) {
      context.modelProviders.register({
        api,
        async load() {
          const openai = await import('@switchboard/provider-openai');
          return api === openAICompletionsApi
            ? openai.createOpenAICompletionsProvider()
            : openai.createOpenAIResponsesProvider();
        },
        createModel: openAIModelFactory(context, api),
      });
    }

    /** `<provider>/<model id>` → what discovery found. */
    const discovered = new Map<string, DiscoveredModel>();
    context.modelProviders.register({
      api: ollamaApi,
      async load() {
        const { createOllamaProvider } = await import('@switchboard/provider-ollama');
        return createOllamaProvider();
      },
      createModel(settings) {
        const found =
          discovered.get(`${settings.provider}/${settings.modelId}`) ??
          discovered.get(`${settings.provider}/${settings.modelId}:latest`);
        const configured = configuredFields(settings.configured);
        // A configured window larger than the model was trained for would only waste memory.
        const contextWindow =
          configured.contextWindow !== undefined && found?.contextWindow !== undefined
            ? Math.min(configured.contextWindow, found.contextWindow)
            : (configured.contextWindow ?? found?.contextWindow);
        return createOllamaModel({
          provider: settings.provider,
          id: settings.modelId,
          baseUrl: settings.baseUrl,
          ...configured,
          contextWindow,
          ...(configured.reasoning === undefined && found !== undefined ? { reasoning: found.thinking } : {}),
          ...(configured.input === undefined && found?.vision === true ? { input: ['text', 'image'] } : {}),
        });
      },
    });

    reportToolsOff(context);

    context.onStart(async () => {
      const toDiscover = Object.entries(context.config().models.providers).filter(
        ([, provider]) => provider.api === ollamaApi && provider.models.length === 0,
      );
      if (toDiscover.length === 0) return;
      const { discoverOllamaModels } = await import('@switchboard/provider-ollama');
      for (const [name, provider] of toDiscover) {
        try {
          const models = await discoverOllamaModels({
            baseUrl: provider.baseUrl,
            headers: provider.headers,
          });
          for (const model of models) discovered.set(`${name}/${model.id}`, model);
          context.logger.info('discovered Ollama models', {
            provider: name,
            models: models.map(
              (model) =>
                `${model.id} (${model.contextWindow ?? '?'} tokens${model.tools ? ', tools' : ''}${model.vision ? ', vision' : ''}${model.thinking ? ', thinking' : ''})`,
            ),
          });
          const withoutTools = models.filter((model) => !model.tools).map((model) => model.id);
          if (withoutTools.length > 0) {
            context.logger.warn('these Ollama models cannot call tools; agents on them answer in text only', {
              provider: name,
              models: withoutTools,
            });
          }
        } catch (error) {
          context.logger.warn(
            'Ollama model discovery failed; models use their configured or default limits',
            {
              provider: name,
              error: error instanceof Error ? error.message : String(error),
            },
          );
        }
      }
    });
  },
};
