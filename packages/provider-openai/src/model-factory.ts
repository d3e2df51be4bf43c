// @switchboard/provider-openai/models: the model factory and compat flags without the SDK, for
// a gateway that describes models at start-up and loads the providers on first use.

export {
  type OpenAICompat,
  type OpenAICompatSettings,
  type OpenAIModel,
  openAIDefaultBaseUrl,
  type ToolSchemaProfile,
  toolSchemaProfiles,
  validateCompat,
} from './compat.ts';
export { ProviderOpenAIError, type ProviderOpenAIErrorCode, providerOpenAIErrorCodes } from './errors.ts';
export {
  createOpenAIModel,
  type OpenAIModelSettings,
  openAICompletionsApi,
  openAIResponsesApi,
} from './models.ts';
