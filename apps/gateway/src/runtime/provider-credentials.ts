// What the credential check needs to know of the extra providers (decision 0014): which
// environment variable feeds each implicit provider's key, which endpoints need no key, and
// each api's default endpoint.
import type { Model } from '@switchboard/core-loop';

import type { GatewayConfig } from '../config/schema.ts';
import { implicitModelProviders } from './implicit-providers.ts';

export { implicitKeyVariables } from './implicit-providers.ts';

/** The api of a provider: its config entry's, else its implicit one's, else the model's. */
export function providerApiOf(config: GatewayConfig, provider: string, model: Model): string {
  return (
    config.models.providers[provider]?.api ??
    implicitModelProviders({}).find(([name]) => name === provider)?.[1].api ??
    model.api
  );
}

const defaultEndpoints: Readonly<Record<string, string>> = {
  'openai-completions': 'https://api.openai.com/v1',
  'openai-responses': 'https://api.openai.com/v1',
  ollama: 'http://127.0.0.1:11434',
};

/** The endpoint an api calls when neither the provider nor the model names one. */
export function defaultEndpointOf(api: string): string | undefined {
  return defaultEndpoints[api];
}

function isLoopback(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}

/**
 * True when a call needs no key: Ollama (a proxy in front of it takes `headers`), or an
 * OpenAI-compatible server on this machine (the OpenAI providers call loopback servers
 * without one and refuse to call anything remote without one).
 */
export function needsNoKey(model: Model, baseUrl: string | undefined, api: string = model.api): boolean {
  if (api === 'ollama') return true;
  if (api !== 'openai-completions' && api !== 'openai-responses') return false;
  return isLoopback(baseUrl ?? model.baseUrl ?? 'https://api.openai.com/v1');
}
