/**
 * The silent-reply token `NO_REPLY` (and the heartbeat token `HEARTBEAT_OK`, handled the same
 * way): a reply that is only the token is silent and sends nothing; a real answer that merely
 * starts or ends with the token has the token stripped; while streaming, text that could still
 * turn out to be the token is held back so a silent reply never leaks its first characters.
 */

const SILENT_REPLY_TOKEN = 'NO_REPLY';
const HEARTBEAT_TOKEN = 'HEARTBEAT_OK';
/** The tokens a reply stream treats as silent by default. */
export const DEFAULT_SILENT_TOKENS: readonly string[] = [SILENT_REPLY_TOKEN, HEARTBEAT_TOKEN];

const letterOrDigit = /[\p{L}\p{N}]/u;
const punctuationOnly = /^[\p{P}\s]*$/u;
const edgePunctuation = /^[\p{P}\s]+|[\p{P}\s]+$/gu;

function isWhitespaceCode(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

function isWhitespace(char: string | undefined): boolean {
  return char === ' ' || char === '\n' || char === '\t' || char === '\r' || char === '\f' || char === '\v';
}

/** True when `text` (already trimmed) is one or more tokens separated by whitespace, any case. */
function isTokenSequence(text: string, token: string): boolean {
  if (text.length < token.length) return false;
  let index = 0;
  for (;;) {
    if (text.slice(index, index + token.length).toUpperCase() !== token) return false;
    index += token.length;
    if (index === text.length) return true;
    if (!isWhitespace(text[index])) return false;
    while (index < text.length && isWhitespace(text[index])) index++;
    if (index === text.length) return true;
  }
}

function isSilentEnvelope(trimmed: string, token: string): boolean {
  const first = trimmed[0];
  if ((first !== '{' && first !== '"') || trimmed.toUpperCase().indexOf(token) === -1) return false;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    if (typeof parsed === 'string') return parsed.trim().toUpperCase() === token;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false;
    const keys = Object.keys(parsed);
    const action = (parsed as { action?: unknown }).action;
    return keys.length === 1 && keys[0] === 'action' && typeof action === 'string' && action.trim() === token;
  } catch {
    return false;
  }
}

/**
 * True for a silent reply: exactly the token (any case, surrounding whitespace or punctuation
 * allowed, repeated tokens allowed), a JSON string of it, or a JSON object whose single key
 * `action` is the token. A substantive reply that merely ends with the token is not silent.
 */
export function isSilentReplyText(text: string | undefined, token: string = SILENT_REPLY_TOKEN): boolean {
  if (!text) return false;
  const upperToken = token.toUpperCase();
  const trimmed = text.trim();
  if (trimmed.length === 0) return false;
  if (isTokenSequence(trimmed, upperToken)) return true;
  if (isSilentEnvelope(trimmed, upperToken)) return true;
  const unwrapped = trimmed.replace(edgePunctuation, '');
  return unwrapped !== trimmed && isTokenSequence(unwrapped, upperToken);
}

/**
 * The streaming guard for previews: true for an all-uppercase prefix of the token that is at
 * least "NO" or contains "_" (for other tokens: contains "_" or is the whole token). Lowercase
 * "No…" is never held.
 */
export function isSilentReplyPrefix(text: string | undefined, token: string = SILENT_REPLY_TOKEN): boolean {
  if (!text) return false;
  const trimmed = text.trimStart();
  const upperToken = token.toUpperCase();
  if (trimmed.length === 0 || trimmed.length > upperToken.length) return false;
  if (trimmed !== trimmed.toUpperCase() || !upperToken.startsWith(trimmed)) return false;
  if (trimmed.includes('_') || trimmed === upperToken) return true;
  return upperToken === SILENT_REPLY_TOKEN && trimmed.length >= 2;
}

/**
 * Removes leading tokens glued to or separated by whitespace from the answer
 * ("NO_REPLYhello" → "hello") and trailing tokens after whitespace ("answer NO_REPLY" →
 * "answer"). Text where the token is followed by punctuation ("NO_REPLY: because") is kept.
 */
export function stripSilentTokens(text: string, tokens: readonly string[] = DEFAULT_SILENT_TOKENS): string {
  let result = text;
  for (const token of tokens) {
    const upperToken = token.toUpperCase();
    const leading = leadingTokenEnd(result, upperToken);
    if (leading > 0) result = result.slice(leading);
    const trailing = trailingTokenStart(result, toTokenSet([upperToken]), true);
    if (trailing < result.length && isTrailingTokens(result.slice(trailing), [upperToken])) {
      result = result.slice(0, trailing);
    }
  }
  return result;
}

/**
 * Where the answer starts after leading tokens: the offset of the first content character when
 * the text starts with the token followed by a letter, digit or whitespace and more content;
 * 0 when there is no strippable leading token.
 */
function leadingTokenEnd(text: string, upperToken: string): number {
  let index = 0;
  while (index < text.length && isWhitespace(text[index])) index++;
  let stripped = false;
  for (;;) {
    if (text.slice(index, index + upperToken.length).toUpperCase() !== upperToken) break;
    const after = index + upperToken.length;
    const next = text[after];
    if (next !== undefined && letterOrDigit.test(next)) return after;
    if (next === undefined || !isWhitespace(next)) return stripped ? index : 0;
    stripped = true;
    index = after;
    while (index < text.length && isWhitespace(text[index])) index++;
    if (index === text.length) return 0;
  }
  return stripped ? index : 0;
}

/** True when `tail` is whitespace and whole tokens only. */
function isTrailingTokens(tail: string, upperTokens: readonly string[]): boolean {
  const trimmed = tail.trim();
  if (trimmed.length === 0) return false;
  return trimmed.split(/\s+/).every((word) => upperTokens.includes(word.toUpperCase()));
}

/** Tokens prepared once for the per-delta scan. */
interface TokenSet {
  readonly upper: readonly string[];
  readonly longest: number;
  readonly firstCodes: readonly number[];
}

function toTokenSet(tokens: readonly string[]): TokenSet {
  const upper = tokens.map((token) => token.toUpperCase());
  return {
    upper,
    longest: upper.reduce((longest, token) => Math.max(longest, token.length), 0),
    firstCodes: upper.map((token) => token.charCodeAt(0)),
  };
}

/**
 * The offset from which `text` may end in tokens: trailing whitespace, then whitespace-separated
 * words that are whole tokens (the last may be a token prefix when `wholeOnly` is false). Each
 * word must be preceded by whitespace. Returns `text.length` when nothing qualifies.
 */
function trailingTokenStart(text: string, tokens: TokenSet, wholeOnly: boolean): number {
  let end = text.length;
  while (end > 0 && isWhitespaceCode(text.charCodeAt(end - 1))) end--;
  let holdFrom = end;
  let last = true;
  const longest = tokens.longest;
  for (;;) {
    // Find the word before `end`, giving up as soon as it is longer than any token.
    let start = end;
    while (start > 0 && end - start <= longest && !isWhitespaceCode(text.charCodeAt(start - 1))) start--;
    if (start === 0 || start === end || end - start > longest) break;
    if (!tokens.firstCodes.includes(text.charCodeAt(start) & ~0x20)) break; // ASCII uppercase
    const word = text.slice(start, end).toUpperCase();
    const whole = tokens.upper.includes(word);
    let partial = false;
    if (!whole && !wholeOnly && last) {
      for (const token of tokens.upper) if (token.startsWith(word)) partial = true;
    }
    if (!whole && !partial) break;
    let spaceStart = start;
    while (spaceStart > 0 && isWhitespaceCode(text.charCodeAt(spaceStart - 1))) spaceStart--;
    holdFrom = spaceStart;
    end = spaceStart;
    last = false;
  }
  return holdFrom;
}

/** What a silent gate has decided about the current text block. */
type SilentGateState = 'undecided' | 'passed' | 'silent';

export interface SilentGate {
  /** Feeds visible text; returns the text that is safe to release now. */
  push(text: string): string;
  /** End of a text block: decides silence, drops trailing tokens, releases what is held. */
  end(): string;
  reset(): void;
  readonly state: SilentGateState;
}

export interface SilentGateOptions {
  /** Default `DEFAULT_SILENT_TOKENS`. */
  readonly tokens?: readonly string[];
}

const longestEnvelope = 64;

/**
 * A streaming gate in front of the chunker. While everything seen so far could still be a
 * silent reply (an uppercase token prefix, the token with trailing whitespace or punctuation,
 * a partial `{"action":"NO_REPLY"}` envelope) it holds the text. Once the text diverges it is
 * released, with a leading glued token stripped; afterwards a possible trailing token is held
 * back until the next chunk shows whether it was the end of the answer.
 */
export function createSilentGate(options: SilentGateOptions = {}): SilentGate {
  const tokenSet = toTokenSet(options.tokens ?? DEFAULT_SILENT_TOKENS);
  const upperTokens = tokenSet.upper;
  const envelopes = upperTokens.flatMap((token) => {
    const lower = token.toLowerCase();
    return [`{"action":"${lower}"}`, `"${lower}"`];
  });
  let state: SilentGateState = 'undecided';
  let undecided = '';
  let tail = '';

  /** 'hold', 'release', or the offset where the answer starts after a leading token. */
  function classify(text: string): 'hold' | 'release' | number {
    let start = 0;
    while (start < text.length && isWhitespace(text[start])) start++;
    if (start === text.length) return 'hold';
    const rest = text.length - start;
    const first = text[start];
    if (first === '{' || first === '"') {
      if (rest > longestEnvelope) return 'release';
      const compact = text.slice(start).replace(/\s+/g, '').toLowerCase();
      return envelopes.some((envelope) => envelope.startsWith(compact)) ? 'hold' : 'release';
    }
    let body = start;
    while (body < text.length && (text[body] === '*' || text[body] === '_' || text[body] === '`')) body++;
    const candidate = text.slice(body);
    for (const token of upperTokens) {
      if (candidate.length < token.length) {
        if (token.startsWith(candidate)) return 'hold';
        continue;
      }
      if (candidate.slice(0, token.length).toUpperCase() !== token) continue;
      const after = candidate.slice(token.length);
      if (punctuationOnly.test(after)) return 'hold';
      if (body !== start) return 'release';
      // The token, whitespace, then only further tokens or a token prefix: keep waiting.
      const words = after.trim().split(/\s+/);
      const lastWord = (words[words.length - 1] ?? '').toUpperCase();
      const pending =
        isWhitespace(after[0]) &&
        words.slice(0, -1).every((word) => word.toUpperCase() === token) &&
        token.startsWith(lastWord);
      if (pending) return 'hold';
      const answerStart = leadingTokenEnd(text, token);
      return answerStart > 0 ? answerStart : 'release';
    }
    return 'release';
  }

  function pass(text: string): string {
    const combined = tail.length === 0 ? text : tail + text;
    const holdFrom = trailingTokenStart(combined, tokenSet, false);
    tail = combined.slice(holdFrom);
    return holdFrom === combined.length ? combined : combined.slice(0, holdFrom);
  }

  return {
    push(text: string): string {
      if (text.length === 0) return '';
      if (state === 'passed') return pass(text);
      if (state === 'silent') {
        // More text after a silent block: the token was a leading one; the answer starts here.
        state = 'passed';
        return pass(text.trimStart());
      }
      undecided += text;
      const decision = classify(undecided);
      if (decision === 'hold') return '';
      const released = decision === 'release' ? undecided : undecided.slice(decision);
      undecided = '';
      state = 'passed';
      return pass(released);
    },
    end(): string {
      if (state === 'undecided') {
        const text = undecided;
        undecided = '';
        if (text.trim().length === 0) return '';
        if (upperTokens.some((token) => isSilentReplyText(text, token))) {
          state = 'silent';
          return '';
        }
        state = 'passed';
        return stripSilentTokens(text, upperTokens);
      }
      if (state === 'passed') {
        const held = tail;
        tail = '';
        return isTrailingTokens(held, upperTokens) ? '' : held;
      }
      return '';
    },
    reset(): void {
      state = 'undecided';
      undecided = '';
      tail = '';
    },
    get state(): SilentGateState {
      return state;
    },
  };
}
