// OpenClaw's `models.providers`: each provider whose `api` this build has a provider for,
// with its models; the others are left out with a note.
import { isRecord } from '../openclaw-source.ts';
import { copyIfPresent } from './key-notes.ts';
import type { ConvertConfigOptions, Mark } from './types.ts';

const providerKeys = ['baseUrl', 'apiKey', 'authToken', 'headers', 'timeoutSeconds'] as const;
const modelKeys = ['id', 'name', 'contextWindow', 'maxTokens', 'reasoning', 'cost'] as const;

/** Converts `models.providers` into `config.models.providers`. */
export function convertModels(
  raw: Record<string, unknown>,
  config: Record<string, unknown>,
  mark: Mark,
  options: ConvertConfigOptions,
): void {
  const models = raw.models;
  if (!isRecord(models) || !isRecord(models.providers)) return;
  const providers: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(models.providers)) {
    const prefix = `models.providers.${name}`;
    if (!isRecord(value)) continue;
    const api = typeof value.api === 'string' ? value.api : 'anthropic-messages';
    if (!options.modelApis.includes(api)) {
      mark(prefix, {
        disposition: 'unsupported',
        message: `api "${api}" has no provider in this Switchboard build (available: ${options.modelApis.join(', ')}); the provider is left out — models that name it will not resolve`,
      });
      continue;
    }
    const provider: Record<string, unknown> = {};
    if (value.api !== undefined) {
      provider.api = api;
      mark(`${prefix}.api`, { disposition: 'mapped', target: `${prefix}.api` });
    }
    copyIfPresent(value, provider, providerKeys, prefix, prefix, mark);
    if (Array.isArray(value.models)) {
      provider.models = value.models.filter(isRecord).map((model, index) => {
        const converted: Record<string, unknown> = {};
        copyIfPresent(
          model,
          converted,
          modelKeys,
          `${prefix}.models[${index}]`,
          `${prefix}.models[${index}]`,
          mark,
        );
        if (Array.isArray(model.input)) {
          converted.input = model.input.filter((kind) => kind === 'text' || kind === 'image');
          mark(`${prefix}.models[${index}].input`, {
            disposition: 'mapped',
            target: `${prefix}.models[${index}].input`,
          });
        }
        return converted;
      });
    }
    providers[name] = provider;
  }
  config.models = { providers };
}
