import { type ErrorCodeTable, SwitchboardError } from '@switchboard/hooks';

/** Codes of errors the Ollama provider and discovery throw (never from a stream). */
export type ProviderOllamaErrorCode =
  | 'PROVIDER_OLLAMA_INVALID_OPTIONS'
  | 'PROVIDER_OLLAMA_INVALID_MODEL'
  | 'PROVIDER_OLLAMA_DISCOVERY_FAILED';

/** Every `ProviderOllamaError` code with what it means. */
export const providerOllamaErrorCodes: ErrorCodeTable & Readonly<Record<ProviderOllamaErrorCode, string>> = {
  PROVIDER_OLLAMA_INVALID_OPTIONS:
    'A provider option is out of range (timeoutMs, idleTimeoutMs) or the base URL is not an http(s) URL; the message names it.',
  PROVIDER_OLLAMA_INVALID_MODEL:
    'A model description is unusable: an empty id or an api other than "ollama".',
  PROVIDER_OLLAMA_DISCOVERY_FAILED:
    'Listing the models of an Ollama server (/api/tags, /api/show) failed; the message names the server and the reason.',
};

/** A misconfiguration of the Ollama provider, or a failed model discovery. */
export class ProviderOllamaError extends SwitchboardError<ProviderOllamaErrorCode> {}
