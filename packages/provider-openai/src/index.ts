// @switchboard/provider-openai: model providers for OpenAI's Chat Completions API (OpenAI and
// every compatible server) and its Responses API, through the official `openai` SDK.
//
// Importing this entry loads the SDK. The model factory and compat flags are also at
// `@switchboard/provider-openai/models`, which does not: the gateway describes models with it
// at start-up and imports this entry on the first call of a model with one of these apis.

// For the gateway: the providers.
export { createOpenAICompletionsProvider } from './completions.ts';
export { createOpenAIResponsesProvider } from './responses.ts';
export type { OpenAIProviderOptions, ProviderTimers } from './stream-run.ts';
// Tool schema cleaning per profile (also applied by the providers).
export { cleanToolSchema } from './tool-schema.ts';
