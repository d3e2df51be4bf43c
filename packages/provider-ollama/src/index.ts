// @switchboard/provider-ollama: the model provider for Ollama's native /api/chat, and model
// discovery. Importing this entry loads the `ollama` library; the model factory alone is at
// `@switchboard/provider-ollama/models`.

// For the gateway: the provider and discovery.
export {
  type DiscoveredOllamaModel,
  type DiscoverOllamaModelsOptions,
  discoverOllamaModels,
} from './discovery.ts';
export {
  createOllamaProvider,
  type OllamaProviderOptions,
  type ProviderTimers,
  thinkFor,
} from './provider.ts';
