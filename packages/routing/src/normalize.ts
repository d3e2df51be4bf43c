/**
 * Normalization of the ids routing compares and puts into session keys. Every function
 * here is pure; the account-id memo is bounded.
 */

/** The agent used when nothing else names one. */
export const DEFAULT_AGENT_ID = 'main';
/** The account a missing or empty accountId stands for. */
export const DEFAULT_ACCOUNT_ID = 'default';
/** The main-session key segment when `session.mainKey` is not set. */
export const DEFAULT_MAIN_KEY = 'main';

/** The conversation kinds routing knows. `dm` is accepted as a legacy spelling of `direct`. */
export type RoutePeerKind = 'direct' | 'group' | 'channel';

const SAFE_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/i;
const UNSAFE_RUNS = /[^a-z0-9_-]+/g;
const LEADING_DASHES = /^-+/;
const TRAILING_DASHES = /-+$/;
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
const ACCOUNT_MEMO_LIMIT = 512;
const accountMemo = new Map<string, string>();

/** Trim and lowercase; anything that is not a string becomes `''`. */
export function normalizeToken(value: unknown): string {
  return typeof value === 'string' ? value.trim().toLowerCase() : '';
}

/**
 * An id compared as-is (peer ids, guild and team ids): trimmed, case kept. Numbers and
 * bigints become strings; anything else becomes `''`.
 */
export function normalizeRouteId(value: unknown): string {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' || typeof value === 'bigint') return String(value).trim();
  return '';
}

/** `direct` (also `dm`), `group` or `channel`, case-insensitive; `undefined` for anything else. */
export function normalizePeerKind(value: unknown): RoutePeerKind | undefined {
  if (typeof value !== 'string') return undefined;
  const kind = value.trim().toLowerCase();
  if (kind === 'direct' || kind === 'dm') return 'direct';
  if (kind === 'group' || kind === 'channel') return kind;
  return undefined;
}

function canonicalId(trimmed: string): string {
  const lowered = trimmed.toLowerCase();
  if (SAFE_ID.test(trimmed)) return lowered;
  return lowered
    .replace(UNSAFE_RUNS, '-')
    .replace(LEADING_DASHES, '')
    .replace(TRAILING_DASHES, '')
    .slice(0, 64);
}

function toTrimmedString(value: unknown): string {
  if (typeof value === 'string') return value.trim();
  if (value === null || value === undefined) return '';
  return String(value).trim();
}

/**
 * The canonical agent id: trimmed and lowercased; when it is not already a safe id, each
 * run of characters outside `[a-z0-9_-]` becomes `-`, leading and trailing dashes go, and
 * it is cut to 64 characters. Empty results become `main`.
 *
 * `normalizeAgentId("  My Agent!! ")` is `my-agent`, `normalizeAgentId("../../etc")` is `etc`.
 */
export function normalizeAgentId(value: string | null | undefined): string {
  const trimmed = toTrimmedString(value);
  if (trimmed === '') return DEFAULT_AGENT_ID;
  return canonicalId(trimmed) || DEFAULT_AGENT_ID;
}

/**
 * The canonical account id: the agent-id rule, except that empty results and prototype
 * keys (`__proto__`, `constructor`, `prototype`) become `default`. A leading `_` is kept.
 * Results are memoised (512 entries, oldest dropped first).
 */
export function normalizeAccountId(value: string | null | undefined): string {
  const trimmed = toTrimmedString(value);
  if (trimmed === '') return DEFAULT_ACCOUNT_ID;
  const known = accountMemo.get(trimmed);
  if (known !== undefined) return known;
  const canonical = canonicalId(trimmed);
  const normalized =
    canonical === '' || PROTOTYPE_KEYS.has(canonical) || PROTOTYPE_KEYS.has(trimmed.toLowerCase())
      ? DEFAULT_ACCOUNT_ID
      : canonical;
  if (accountMemo.size >= ACCOUNT_MEMO_LIMIT) {
    const oldest = accountMemo.keys().next();
    if (oldest.done !== true) accountMemo.delete(oldest.value);
  }
  accountMemo.set(trimmed, normalized);
  return normalized;
}

/** The main-session key segment: trimmed and lowercased, `main` when empty. */
export function normalizeMainKey(value: string | null | undefined): string {
  return normalizeToken(value) || DEFAULT_MAIN_KEY;
}
