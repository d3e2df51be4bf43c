// Model descriptions for the two OpenAI wire APIs: limits and capabilities of an id, with
// configured values winning over what is known of well-known ids.
import type { ModelCost } from '@switchboard/core-loop';
import { type OpenAICompatSettings, type OpenAIModel, validateCompat } from './compat.ts';
import { ProviderOpenAIError } from './errors.ts';

/** The `Model.api` of the Chat Completions provider (OpenAI and every compatible server). */
export const openAICompletionsApi = 'openai-completions';
/** The `Model.api` of the Responses provider (OpenAI's reasoning models). */
export const openAIResponsesApi = 'openai-responses';

/** What `createOpenAIModel` needs; `undefined` fields take the known or default values. */
export interface OpenAIModelSettings {
  /** `openai-completions` or `openai-responses`. */
  readonly api: string;
  /** The config's provider name (`openai`, `openrouter`, `local`, …). */
  readonly provider: string;
  readonly id: string;
  readonly name?: string;
  readonly baseUrl?: string;
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;
  /** True: the model thinks (reasoning effort is sent); false: it does not. */
  readonly reasoning?: boolean;
  readonly input?: ReadonlyArray<'text' | 'image'>;
  readonly cost?: ModelCost;
  readonly headers?: Readonly<Record<string, string>>;
  readonly compat?: OpenAICompatSettings;
}

interface KnownModel {
  readonly pattern: RegExp;
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  readonly reasoning: boolean;
  readonly input: ReadonlyArray<'text' | 'image'>;
  readonly cost: ModelCost;
}

const free: ModelCost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
const textAndImage = ['text', 'image'] as const;

// A few well-known OpenAI families (first match wins); anything else gets the defaults below.
const knownModels: readonly KnownModel[] = [
  {
    pattern: /^gpt-5(?:\.\d+)?-mini\b/,
    contextWindow: 400_000,
    maxOutputTokens: 128_000,
    reasoning: true,
    input: textAndImage,
    cost: { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0 },
  },
  {
    pattern: /^gpt-5(?:\.\d+)?-nano\b/,
    contextWindow: 400_000,
    maxOutputTokens: 128_000,
    reasoning: true,
    input: textAndImage,
    cost: { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0 },
  },
  {
    pattern: /^gpt-5/,
    contextWindow: 400_000,
    maxOutputTokens: 128_000,
    reasoning: true,
    input: textAndImage,
    cost: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
  },
  {
    pattern: /^gpt-4\.1/,
    contextWindow: 1_047_576,
    maxOutputTokens: 32_768,
    reasoning: false,
    input: textAndImage,
    cost: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
  },
  {
    pattern: /^gpt-4o/,
    contextWindow: 128_000,
    maxOutputTokens: 16_384,
    reasoning: false,
    input: textAndImage,
    cost: { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 0 },
  },
  {
    pattern: /^o[1-9](?:-|$)/,
    contextWindow: 200_000,
    maxOutputTokens: 100_000,
    reasoning: true,
    input: textAndImage,
    cost: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
  },
];

/** Context window of an unknown model (a conservative size most local servers can serve). */
const defaultOpenAIContextWindow = 128_000;
/** Output limit of an unknown model. */
const defaultOpenAIMaxOutputTokens = 8192;

/**
 * The `Model` of `<provider>/<id>` on one of the OpenAI APIs. Known OpenAI ids (gpt-5*,
 * gpt-4.1*, gpt-4o*, o-series) get their limits, prices and reasoning; other ids get a
 * 128k window, 8192 output tokens, text input, no thinking and zero prices. Configured
 * values win. A model that reasons gets `thinking: 'adaptive'` (effort levels).
 */
export function createOpenAIModel(settings: OpenAIModelSettings): OpenAIModel {
  if (settings.api !== openAICompletionsApi && settings.api !== openAIResponsesApi) {
    throw new ProviderOpenAIError(
      'PROVIDER_OPENAI_INVALID_MODEL',
      `api must be "${openAICompletionsApi}" or "${openAIResponsesApi}", got "${settings.api}" (model ${settings.provider}/${settings.id})`,
      { details: { api: settings.api } },
    );
  }
  if (settings.id.trim() === '') {
    throw new ProviderOpenAIError(
      'PROVIDER_OPENAI_INVALID_MODEL',
      `model id must not be empty (provider ${settings.provider})`,
    );
  }
  const compat = validateCompat(settings.compat, `models.providers.${settings.provider}.compat`);
  const known =
    settings.provider === 'openai' ? knownModels.find((entry) => entry.pattern.test(settings.id)) : undefined;
  const reasoning = settings.reasoning ?? known?.reasoning ?? false;
  return {
    id: settings.id,
    name: settings.name ?? settings.id,
    provider: settings.provider,
    api: settings.api,
    baseUrl: settings.baseUrl,
    contextWindow: settings.contextWindow ?? known?.contextWindow ?? defaultOpenAIContextWindow,
    maxOutputTokens: settings.maxOutputTokens ?? known?.maxOutputTokens ?? defaultOpenAIMaxOutputTokens,
    ...(reasoning ? { thinking: 'adaptive' as const } : {}),
    input: settings.input ?? known?.input ?? ['text'],
    cost: settings.cost ?? known?.cost ?? free,
    headers: settings.headers,
    ...(Object.keys(compat).length === 0 ? {} : { compat }),
  };
}
