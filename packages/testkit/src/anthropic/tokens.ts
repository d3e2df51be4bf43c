// The fake's token arithmetic. Deterministic and cheap, not a tokenizer: a test can work
// out the number it expects by hand.

/**
 * Estimated input tokens of a request: the characters of every string value (object keys
 * not counted) inside `system`, `messages` and `tools`, divided by 4 and rounded up, at
 * least 1. Used by `count_tokens` and as the default `input_tokens` of every turn, so the
 * two agree for the same conversation whatever `max_tokens`, `stream` or formatting say.
 */
export function estimateTokens(body: {
  readonly system?: unknown;
  readonly messages?: unknown;
  readonly tools?: unknown;
}): number {
  const characters =
    countCharacters(body.system) + countCharacters(body.messages) + countCharacters(body.tools);
  return Math.max(1, Math.ceil(characters / 4));
}

/** Estimated tokens of some output text: characters / 4, rounded up, at least 1. */
export function estimateTextTokens(characters: number): number {
  return Math.max(1, Math.ceil(characters / 4));
}

function countCharacters(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (value === null || typeof value !== 'object') return 0;
  let total = 0;
  if (Array.isArray(value)) {
    for (const item of value) total += countCharacters(item);
    return total;
  }
  for (const key in value) total += countCharacters((value as Record<string, unknown>)[key]);
  return total;
}
