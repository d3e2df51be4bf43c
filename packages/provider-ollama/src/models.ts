// Model descriptions for Ollama: what is configured, else what discovery found, else defaults.
import type { Model, ModelCost } from '@switchboard/core-loop';
import { ProviderOllamaError } from './errors.ts';

/** The `Model.api` of the Ollama provider. */
export const ollamaApi = 'ollama';
/** Where Ollama listens by default (`OLLAMA_HOST` or config override it). */
export const ollamaDefaultBaseUrl = 'http://127.0.0.1:11434';
/**
 * Context window (and so `num_ctx`) of a model neither configured nor discovered: larger
 * than Ollama's own small default, which silently truncates agent prompts, and small
 * enough to fit a laptop's memory.
 */
export const defaultOllamaContextWindow = 32_768;
/** Output limit of a model that does not say (`num_predict`). */
export const defaultOllamaMaxOutputTokens = 8192;

/** What `createOllamaModel` needs; unset fields take defaults. */
export interface OllamaModelSettings {
  /** The config's provider name (`ollama`). */
  readonly provider: string;
  readonly id: string;
  readonly name?: string;
  readonly baseUrl?: string;
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;
  /** The model thinks (`think` is sent from the thinking level). */
  readonly reasoning?: boolean;
  readonly input?: ReadonlyArray<'text' | 'image'>;
  readonly cost?: ModelCost;
  readonly headers?: Readonly<Record<string, string>>;
}

const free: ModelCost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

/** The `Model` of `<provider>/<id>` served by Ollama. Local models cost nothing by default. */
export function createOllamaModel(settings: OllamaModelSettings): Model {
  if (settings.id.trim() === '') {
    throw new ProviderOllamaError(
      'PROVIDER_OLLAMA_INVALID_MODEL',
      `model id must not be empty (provider ${settings.provider})`,
    );
  }
  return {
    id: settings.id,
    name: settings.name ?? settings.id,
    provider: settings.provider,
    api: ollamaApi,
    baseUrl: settings.baseUrl ?? ollamaDefaultBaseUrl,
    contextWindow: settings.contextWindow ?? defaultOllamaContextWindow,
    maxOutputTokens: settings.maxOutputTokens ?? defaultOllamaMaxOutputTokens,
    ...(settings.reasoning === true ? { thinking: 'adaptive' as const } : {}),
    input: settings.input ?? ['text'],
    cost: settings.cost ?? free,
    headers: settings.headers,
  };
}
