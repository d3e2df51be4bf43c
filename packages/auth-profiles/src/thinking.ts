/**
 * Thinking-level downgrade: some models or endpoints refuse a thinking level ("not
 * supported", "supported values are: …", "reasoning is required"). The run then retries the
 * same key and model with a level the error allows.
 */
import type { ThinkingLevel } from '@switchboard/core-loop';

/** Thinking levels from none to most. */
const thinkingLevels: readonly ThinkingLevel[] = Object.freeze([
  'off',
  'minimal',
  'low',
  'medium',
  'high',
  'xhigh',
] as const);

const rank = (level: ThinkingLevel | undefined): number => thinkingLevels.indexOf(level ?? 'off');

const aboutThinking = /\b(?:thinking|reasoning|reason(?:ing)?[_ ]effort|effort|budget_tokens)\b/i;
const required =
  /\b(?:thinking|reasoning)\b[^.\n]{0,60}?\b(?:is (?:mandatory|required)|cannot be (?:disabled|turned off)|must be (?:enabled|on))\b|\b(?:mandatory|required) (?:thinking|reasoning)\b/i;
const supportedList =
  /\b(?:supported|valid|allowed) values? (?:are|is|include)?\s*:?\s*([^\n]+)|\bmust be one of\s*:?\s*([^\n]+)/i;
const unsupported = /\bnot supported\b|\bunsupported\b|\bdoes not support\b|\bis not available\b/i;

const levelWords: Readonly<Record<string, ThinkingLevel>> = {
  off: 'off',
  none: 'off',
  disabled: 'off',
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'xhigh',
  max: 'xhigh',
};

/** The thinking levels named in a "supported values are: …" list, in the order given. */
export function parseSupportedThinkingLevels(message: string): ThinkingLevel[] {
  const match = supportedList.exec(message);
  const list = match?.[1] ?? match?.[2];
  if (list === undefined) return [];
  const found: ThinkingLevel[] = [];
  // The list ends at the first sentence break that is not inside quotes.
  const text = list.split(/\.(?:\s|$)/)[0] ?? list;
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const level = levelWords[word];
    if (level !== undefined && !found.includes(level)) found.push(level);
  }
  return found;
}

/**
 * The level to retry with after `message`, or `undefined` when the error is not a thinking
 * rejection or every level it allows was already attempted:
 * - "reasoning is required / mandatory / cannot be disabled" → `minimal`;
 * - "supported values are: a, b, …" → the highest listed level below the current one, else
 *   the first listed one not yet attempted;
 * - another "not supported" about thinking, reasoning or effort → `off`.
 */
export function pickThinkingDowngrade(
  message: string,
  current: ThinkingLevel | undefined,
  attempted: ReadonlySet<ThinkingLevel>,
): ThinkingLevel | undefined {
  const fresh = (level: ThinkingLevel) => !attempted.has(level) && level !== (current ?? 'off');
  if (required.test(message)) return fresh('minimal') ? 'minimal' : undefined;
  const listed = parseSupportedThinkingLevels(message);
  if (listed.length > 0 && (aboutThinking.test(message) || listed.some((level) => level !== 'off'))) {
    const untried = listed.filter(fresh);
    const lower = untried.filter((level) => rank(level) < rank(current)).sort((a, b) => rank(b) - rank(a));
    return lower[0] ?? untried[0];
  }
  if (unsupported.test(message) && aboutThinking.test(message)) return fresh('off') ? 'off' : undefined;
  return undefined;
}
