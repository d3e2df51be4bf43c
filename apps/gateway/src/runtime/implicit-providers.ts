// The providers that exist without a `models.providers` entry (decision 0014), so
// `openai/gpt-5` and `ollama/qwen3` work with no config file, as `anthropic/…` does:
// - `openai`: OPENAI_API_KEY, and OPENAI_BASE_URL for a compatible server. The Responses API
//   for OpenAI itself (its reasoning models), Chat Completions when OPENAI_BASE_URL points
//   elsewhere (compatible servers implement that one).
// - `ollama`: OLLAMA_HOST (`host:port` or a URL), else 127.0.0.1:11434 (loopback only).
// Declaring a provider of the same name replaces its implicit one; `models.mode: "replace"`
// drops them all. Nothing here connects anywhere: the providers load on the first call.
import type { ProviderConfig } from '../config/schema.ts';

/** OLLAMA_HOST as Ollama reads it: `0.0.0.0:11434`, `host`, `https://host:port`. */
function ollamaHostUrl(value: string): string {
  const trimmed = value.trim().replace(/\/+$/, '');
  const withScheme = /^https?:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`;
  const url = new URL(withScheme);
  // A server bound to every interface is reached on loopback from this machine.
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  if (url.port === '' && !/^https?:\/\/[^/]+:\d+/i.test(withScheme))
    url.port = url.protocol === 'https:' ? '443' : '11434';
  return url.origin;
}

/** The implicit providers other than `anthropic` (which createModelCatalog adds itself). */
export function implicitModelProviders(environment: NodeJS.ProcessEnv): Array<[string, ProviderConfig]> {
  const openAIBaseUrl = environment.OPENAI_BASE_URL;
  const openai: ProviderConfig = {
    api: openAIBaseUrl ? 'openai-completions' : 'openai-responses',
    models: [],
    ...(environment.OPENAI_API_KEY ? { apiKey: environment.OPENAI_API_KEY } : {}),
    ...(openAIBaseUrl ? { baseUrl: openAIBaseUrl } : {}),
  };
  const ollama: ProviderConfig = {
    api: 'ollama',
    models: [],
    baseUrl: environment.OLLAMA_HOST ? ollamaHostUrl(environment.OLLAMA_HOST) : 'http://127.0.0.1:11434',
  };
  return [
    ['openai', openai],
    ['ollama', ollama],
  ];
}

/** Where a key of an implicit provider comes from, for `doctor` and the start-up warning. */
export const implicitKeyVariables: Readonly<Record<string, string>> = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
};
