// @switchboard/provider-ollama/models: the model factory without the `ollama` library, for a
// gateway that describes models at start-up and loads the provider on first use.

export { ProviderOllamaError, type ProviderOllamaErrorCode, providerOllamaErrorCodes } from './errors.ts';
export {
  createOllamaModel,
  defaultOllamaContextWindow,
  defaultOllamaMaxOutputTokens,
  type OllamaModelSettings,
  ollamaApi,
  ollamaDefaultBaseUrl,
} from './models.ts';
