// Model discovery: what an Ollama server has (`/api/tags`) and what each model can do
// (`/api/show`: context length, tools, vision, thinking), for providers that list no models.
import { Ollama } from 'ollama';
import { ProviderOllamaError } from './errors.ts';
import { ollamaDefaultBaseUrl } from './models.ts';

/** One model an Ollama server has, with its capabilities. */
export interface DiscoveredOllamaModel {
  readonly id: string;
  /** The trained context length (`<architecture>.context_length`), when the server says. */
  readonly contextWindow: number | undefined;
  readonly tools: boolean;
  readonly vision: boolean;
  readonly thinking: boolean;
  readonly family: string | undefined;
  readonly parameterSize: string | undefined;
}

export interface DiscoverOllamaModelsOptions {
  readonly baseUrl?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly fetch?: typeof globalThis.fetch;
  /** Whole discovery budget. Default 10 000 ms. */
  readonly timeoutMs?: number;
}

function contextLength(modelInfo: unknown): number | undefined {
  if (modelInfo === null || typeof modelInfo !== 'object') return undefined;
  const entries = modelInfo instanceof Map ? [...modelInfo.entries()] : Object.entries(modelInfo);
  for (const [key, value] of entries) {
    if (typeof key === 'string' && key.endsWith('.context_length') && typeof value === 'number' && value > 0)
      return value;
  }
  return undefined;
}

/**
 * Lists the chat models of an Ollama server with their capabilities. Embedding-only models
 * are left out. Throws `PROVIDER_OLLAMA_DISCOVERY_FAILED` naming the server when it cannot
 * be asked.
 */
export async function discoverOllamaModels(
  options: DiscoverOllamaModelsOptions = {},
): Promise<DiscoveredOllamaModel[]> {
  const host = options.baseUrl ?? ollamaDefaultBaseUrl;
  const signal = AbortSignal.timeout(options.timeoutMs ?? 10_000);
  const baseFetch = options.fetch ?? globalThis.fetch;
  const client = new Ollama({
    host,
    headers: options.headers === undefined ? undefined : { ...options.headers },
    fetch: (input, init) =>
      baseFetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal }),
  });
  try {
    const listed = await client.list();
    const models: DiscoveredOllamaModel[] = [];
    for (const entry of listed.models) {
      const shown = await client.show({ model: entry.name });
      const capabilities = new Set(shown.capabilities ?? []);
      if (capabilities.has('embedding') && !capabilities.has('completion')) continue;
      models.push({
        id: entry.name,
        contextWindow: contextLength(shown.model_info),
        tools: capabilities.has('tools'),
        vision: capabilities.has('vision'),
        thinking: capabilities.has('thinking'),
        family: shown.details?.family ?? entry.details?.family,
        parameterSize: shown.details?.parameter_size ?? entry.details?.parameter_size,
      });
    }
    return models;
  } catch (error) {
    const reason =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${options.timeoutMs ?? 10_000} ms`
        : ((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message);
    throw new ProviderOllamaError(
      'PROVIDER_OLLAMA_DISCOVERY_FAILED',
      `Could not list the models of the Ollama server at ${host}: ${reason}`,
      {
        cause: error,
        details: { baseUrl: host },
      },
    );
  }
}
