// @switchboard/provider-openai: model providers for OpenAI's Chat Completions API (OpenAI and
// every compatible server) and its Responses API, through the official `openai` SDK.
//
// Importing this entry loads the SDK: the gateway imports it lazily, on the first call of a
// model with one of these apis.

// Compatibility flags (`models.providers.<id>.compat`) and tool schema cleaning.
export {
  type OpenAICompat,
  type OpenAICompatSettings,
  type OpenAIModel,
  openAIDefaultBaseUrl,
  type ToolSchemaProfile,
  toolSchemaProfiles,
  validateCompat,
} from './compat.ts';
// For the gateway: the providers and the model factory.
export { createOpenAICompletionsProvider } from './completions.ts';
// Errors.
export { ProviderOpenAIError, type ProviderOpenAIErrorCode, providerOpenAIErrorCodes } from './errors.ts';
export {
  createOpenAIModel,
  type OpenAIModelSettings,
  openAICompletionsApi,
  openAIResponsesApi,
} from './models.ts';
export { createOpenAIResponsesProvider } from './responses.ts';
export type { OpenAIProviderOptions, ProviderTimers } from './stream-run.ts';
export { cleanToolSchema } from './tool-schema.ts';
