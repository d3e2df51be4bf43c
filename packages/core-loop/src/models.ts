import type { Model, ModelCost } from './types.ts';

/** The `Model.api` value of the Anthropic Messages provider. */
export const anthropicMessagesApi = 'anthropic-messages';

interface CatalogEntry {
  readonly name: string;
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  readonly thinking: 'budget' | 'adaptive';
  readonly cost: ModelCost;
}

const sonnetCost: ModelCost = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const opusCost: ModelCost = { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 };
const haikuCost: ModelCost = { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 };

// Defaults for well-known ids; configuration can override any field (anthropicModel's
// second argument), and unknown ids get conservative limits.
const catalog: Readonly<Record<string, CatalogEntry>> = {
  'claude-sonnet-4-5': {
    name: 'Claude Sonnet 4.5',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    thinking: 'budget',
    cost: sonnetCost,
  },
  'claude-haiku-4-5': {
    name: 'Claude Haiku 4.5',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    thinking: 'budget',
    cost: haikuCost,
  },
  'claude-opus-4-5': {
    name: 'Claude Opus 4.5',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    thinking: 'budget',
    cost: opusCost,
  },
  'claude-sonnet-4-6': {
    name: 'Claude Sonnet 4.6',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    thinking: 'adaptive',
    cost: sonnetCost,
  },
  'claude-opus-4-6': {
    name: 'Claude Opus 4.6',
    contextWindow: 200_000,
    maxOutputTokens: 128_000,
    thinking: 'adaptive',
    cost: opusCost,
  },
};

/** Ids with built-in defaults. */
export const knownAnthropicModelIds: readonly string[] = Object.freeze(Object.keys(catalog));

/**
 * An Anthropic model description: built-in limits and prices for known ids (see
 * `knownAnthropicModelIds`), conservative defaults otherwise (200k window, 32k output,
 * budget thinking, zero prices), with `overrides` applied last.
 */
export function anthropicModel(id: string, overrides: Partial<Omit<Model, 'id'>> = {}): Model {
  const entry = catalog[id];
  return {
    id,
    name: entry?.name ?? id,
    provider: 'anthropic',
    api: anthropicMessagesApi,
    contextWindow: entry?.contextWindow ?? 200_000,
    maxOutputTokens: entry?.maxOutputTokens ?? 32_000,
    thinking: entry?.thinking ?? 'budget',
    input: ['text', 'image'],
    cost: entry?.cost ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    ...overrides,
  };
}

/** The model an `Agent` uses when none is given. */
export const defaultModel: Model = Object.freeze(anthropicModel('claude-sonnet-4-6'));
