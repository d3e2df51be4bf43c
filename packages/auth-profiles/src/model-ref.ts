/** Model references and the candidate chain of one run (requested model, fallbacks, primary). */
import { AuthProfilesError } from './errors.ts';
import type { ModelCandidate, ModelRef } from './types.ts';

/**
 * Reads `"provider/model"` (split at the first slash, so `openrouter/anthropic/claude-x`
 * is provider `openrouter`) or `{ provider, model }`. A bare model id gets `defaultProvider`.
 */
export function parseModelRef(ref: ModelRef, defaultProvider: string, field = 'model'): ModelCandidate {
  if (typeof ref === 'string') {
    const text = ref.trim();
    const slash = text.indexOf('/');
    const provider = slash === -1 ? defaultProvider : text.slice(0, slash).trim();
    const model = slash === -1 ? text : text.slice(slash + 1).trim();
    if (provider === '' || model === '') {
      throw new AuthProfilesError(
        'AUTH_PROFILES_INVALID_REQUEST',
        `${field}: expected "provider/model" or a model id, got ${JSON.stringify(ref)}`,
        { details: { field } },
      );
    }
    return { provider, model };
  }
  if (
    typeof ref !== 'object' ||
    ref === null ||
    typeof ref.provider !== 'string' ||
    ref.provider.trim() === '' ||
    typeof ref.model !== 'string' ||
    ref.model.trim() === ''
  ) {
    throw new AuthProfilesError(
      'AUTH_PROFILES_INVALID_REQUEST',
      `${field}: expected { provider, model } with non-empty strings`,
      { details: { field } },
    );
  }
  return { provider: ref.provider.trim(), model: ref.model.trim() };
}

/** `provider/model`. */
export function formatModel(candidate: ModelCandidate): string {
  return `${candidate.provider}/${candidate.model}`;
}

/** Inputs of `buildCandidateChain`. */
export interface CandidateChainInput {
  readonly model: ModelRef;
  readonly primary?: ModelRef | undefined;
  readonly fallbacks?: readonly ModelRef[] | undefined;
  readonly fallbacksOverride?: readonly ModelRef[] | undefined;
  readonly defaultProvider: string;
}

/**
 * The models a run may use, in order, without duplicates:
 * 1. the requested model;
 * 2. the configured fallbacks, but only when the requested model is on the primary's
 *    provider or is itself one of the fallbacks (a user who switched to an unrelated
 *    provider does not silently land on the default chain);
 * 3. the configured primary, last, so a run on an override settles back on the default.
 * An explicit `fallbacksOverride` (even empty) replaces steps 2 and 3.
 */
export function buildCandidateChain(input: CandidateChainInput): ModelCandidate[] {
  const requested = parseModelRef(input.model, input.defaultProvider, 'model');
  const chain: ModelCandidate[] = [requested];
  const seen = new Set([formatModel(requested)]);
  const add = (candidate: ModelCandidate) => {
    const key = formatModel(candidate);
    if (seen.has(key)) return;
    seen.add(key);
    chain.push(candidate);
  };
  if (input.fallbacksOverride !== undefined) {
    input.fallbacksOverride.forEach((ref, index) => {
      add(parseModelRef(ref, input.defaultProvider, `fallbacksOverride[${index}]`));
    });
    return chain;
  }
  const fallbacks = (input.fallbacks ?? []).map((ref, index) =>
    parseModelRef(ref, input.defaultProvider, `fallbacks[${index}]`),
  );
  const primary =
    input.primary === undefined ? undefined : parseModelRef(input.primary, input.defaultProvider, 'primary');
  const onPrimaryProvider = primary === undefined || primary.provider === requested.provider;
  const isFallback = fallbacks.some((fallback) => formatModel(fallback) === formatModel(requested));
  if (onPrimaryProvider || isFallback) for (const fallback of fallbacks) add(fallback);
  if (primary !== undefined) add(primary);
  return chain;
}
