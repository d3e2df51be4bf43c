import { type ErrorCodeTable, SwitchboardError } from '@switchboard/hooks';

/** Codes of errors the OpenAI providers throw at construction (never from a stream). */
export type ProviderOpenAIErrorCode = 'PROVIDER_OPENAI_INVALID_OPTIONS' | 'PROVIDER_OPENAI_INVALID_MODEL';

/** Every `ProviderOpenAIError` code with what it means. */
export const providerOpenAIErrorCodes: ErrorCodeTable & Readonly<Record<ProviderOpenAIErrorCode, string>> = {
  PROVIDER_OPENAI_INVALID_OPTIONS:
    'A provider option is out of range or of the wrong kind (timeoutMs, idleTimeoutMs, maxRetries); the message names it.',
  PROVIDER_OPENAI_INVALID_MODEL:
    'A model description is unusable: an empty id, an api this package does not serve, or an unknown compat value; the message names the field.',
};

/** A misconfiguration of the OpenAI providers or of a model built for them. */
export class ProviderOpenAIError extends SwitchboardError<ProviderOpenAIErrorCode> {}
