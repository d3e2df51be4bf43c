import type { ModelErrorClass } from './model-error-types.ts';

/** What is known about a failed model call. */
export interface ModelFailureInput {
  /** HTTP status, when the failure had one. A leading status in `message` is also read. */
  readonly status?: number;
  /** The error text (provider message, exception message). */
  readonly message: string;
  /** The provider's error type (`overloaded_error`, `rate_limit_error`, …), when known. */
  readonly providerType?: string;
  /** Response headers, for `retry-after-ms` / `retry-after`. */
  readonly headers?: HeadersLike;
  /** Clock for HTTP-date `retry-after` values. */
  readonly now?: () => number;
}

/** Headers as a Fetch `Headers` object or a plain record. */
export type HeadersLike =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** The class of a failure and the facts parsed from it. */
export interface ModelFailureClassification {
  readonly errorClass: ModelErrorClass;
  readonly retryAfterMs?: number;
  readonly observedTokens?: number;
}

// ---------------------------------------------------------------------------------------
// Text patterns (case-insensitive), evaluated in this order.

const imageSize = [
  /image[^.]{0,40}(?:too large|exceeds|dimensions?)/i,
  /image_dimensions_too_large/i,
  /image (?:size|dimensions?) (?:must|should|exceed)/i,
];
const sessionExpired = [/session (?:has )?expired/i, /session_expired/i, /session not found/i];
const modelNotFound = [
  /model[^.]{0,60}(?:not found|does not exist|is not available|not supported|unknown)/i,
  /(?:unknown|invalid|unsupported) model/i,
  /model_not_found/i,
  /no such model/i,
];

// Overflow: things that look like overflow but are not (evaluated first).
const overflowExclusions = [
  /tokens? per (?:minute|day|hour)/i,
  /\btpm\b/i,
  /reasoning is (?:mandatory|required)|cannot be disabled/i,
  /context window (?:is )?too small|minimum (?:context )?(?:window )?is/i,
];
const contextOverflow = [
  /prompt is too long/i,
  /input is too long for (?:the )?requested model/i,
  /exceeds? the context window/i,
  /input token count[^.]{0,80}exceeds the maximum/i,
  /maximum prompt length is \d+/i,
  /reduce the length of the messages/i,
  /maximum context length(?: is \d+)?/i,
  /exceeds the limit of \d+/i,
  /exceeds the available context size/i,
  /greater than the context length/i,
  /context window exceeds limit/i,
  /exceeded model token limit/i,
  /too large for model with \d+ maximum context length/i,
  /model_context_window_exceeded|context_window_exceeded/i,
  /context[ _]length[ _]exceeded/i,
  /too many tokens/i,
  /token limit exceeded/i,
  /request_too_large/i,
  /request exceeds the maximum size/i,
  /exceeds (?:the )?model(?:'s)? (?:maximum )?context/i,
  /model token limit/i,
  /input exceeds[^.]{0,40}maximum number of tokens/i,
  /invalid_argument[\s\S]{0,80}maximum number of tokens/i,
  /request size exceeds[^.]{0,40}context (?:window|length)/i,
  /context overflow:/i,
  /exceeds? (?:the )?context limit/i,
  /max_tokens[^.]{0,60}exceed[^.]{0,60}context/i,
  /input length[^.]{0,60}exceed[^.]{0,60}context/i,
  /上下文(?:长度)?(?:超出|超过)|超出(?:了)?(?:最大)?上下文/,
];
// Temporary usage windows and spend limits: rate limits, not billing.
const temporaryLimit = [
  /(?:daily|weekly|monthly|hourly|5-hour|usage) (?:usage )?limit (?:reached|exceeded|hit)/i,
  /resets? (?:tomorrow|in \d|at \d|on )/i,
  /(?:organization|org) spend(?:ing)? limit/i,
  /spend(?:ing)? limit (?:reached|exceeded)/i,
];
const paymentRequired = [/payment required/i, /\b402\b/];
const openRouterKeyLimit = [/key limit (?:exceeded|reached)/i, /credit limit for this key/i];
const rateLimit = [
  /\b429\b/,
  /rate[ _-]?limit/i,
  /too many (?:concurrent )?requests/i,
  /throttl/i,
  /quota (?:exceeded|exhausted)/i,
  /resource[ _]exhausted/i,
  /usage limit/i,
  /tokens? per (?:minute|day)/i,
  /\btpm\b/i,
  /model_cooldown/i,
];
const overloaded = [
  /overloaded/i,
  /high demand/i,
  /service unavailable[^.]{0,60}(?:overload|capacity)/i,
  /(?:at|over) capacity/i,
];
const billing = [
  /insufficient (?:credits?|quota|balance|funds)/i,
  /credit balance/i,
  /requires more credits/i,
  /billing/i,
  /extra usage/i,
  /out of credits/i,
];
const authPermanent = [
  /(?:api )?key (?:has been |was )?(?:revoked|deactivated|deleted|disabled)/i,
  /account (?:has been |was )?(?:deactivated|disabled|suspended|banned)/i,
  /not allowed for this organization/i,
  /organization (?:has been )?(?:disabled|deactivated)/i,
];
const auth = [
  /invalid[ _-]?(?:api[ _-]?)?key/i,
  /incorrect api key/i,
  /invalid (?:bearer |access |auth(?:entication)? )?token/i,
  /unauthori[sz]ed/i,
  /forbidden/i,
  /access denied/i,
  /permission[ _]denied|permission_error/i,
  /authentication(?:_error| failed| required)/i,
  /(?:token|credentials?) (?:has |have )?expired/i,
  /\b40[13]\b/,
  /no credentials found/i,
  /oauth[^.]{0,30}refresh[^.]{0,30}fail/i,
  /missing (?:required )?scopes?/i,
  /no api key/i,
];
// Nothing was sent: no key or token is configured (this provider's own words, and the gateway's).
const missingCredentials = [/no api key or auth token for provider/i, /no api key is configured for/i];
const unknownAnthropic = [/an unknown error occurred/i];
const serverError = [
  /internal server error/i,
  /\bserver error\b/i,
  /bad gateway/i,
  /service unavailable/i,
  /gateway time-?out/i,
  /upstream connect/i,
  /api_error/i,
];
const formatError = [
  /tool_use[^.]{0,40}(?:id|ids)[^.]{0,60}(?:pattern|match|must)/i,
  /invalid request format/i,
  /tool_use.{0,40}without.{0,40}tool_result|tool_result.{0,60}(?:without|no) corresponding tool_use/i,
  /invalid_request_error/i,
  /messages?(?:\.\d+)?[.: ].{0,40}(?:roles? must alternate|must be non-empty|field required)/i,
];
const timeoutOrNetwork = [
  /time(?:d)?[ -]?out/i,
  /\betimedout\b/i,
  /\beconn(?:reset|refused|aborted)\b/i,
  /\benotfound\b|\beai_again\b|\bepipe\b|\behostunreach\b|\benetunreach\b/i,
  /socket hang up/i,
  /fetch failed/i,
  /other side closed/i,
  /connection (?:error|closed|reset|refused|terminated)/i,
  /stream (?:closed|aborted|ended|cut|terminated)/i,
  /\bterminated\b/i,
  /reset before headers/i,
  /premature close/i,
  /stop reason: (?:error|abort|network_error|malformed_response)/i,
  /unhandled stop reason: (?:error|abort|network_error|malformed_response)/i,
];

function matches(patterns: readonly RegExp[], text: string): boolean {
  for (const pattern of patterns) if (pattern.test(text)) return true;
  return false;
}

/** True when the text names a context overflow (after the rate-limit and billing exclusions). */
export function isContextOverflowText(text: string): boolean {
  if (matches(overflowExclusions, text)) return false;
  if (matches(billing, text) && !/prompt is too long/i.test(text)) return false;
  if (/rate[ _-]?limit/i.test(text)) return false;
  return matches(contextOverflow, text);
}

/** The message-text classifier of §B.3; `undefined` when nothing matched. */
function classifyText(text: string): ModelErrorClass | undefined {
  if (text.length === 0) return undefined;
  if (matches(imageSize, text)) return 'format';
  if (matches(sessionExpired, text)) return 'auth';
  if (matches(modelNotFound, text) && !isContextOverflowText(text)) return 'model_not_found';
  if (isContextOverflowText(text)) return 'context_overflow';
  if (matches(paymentRequired, text)) return matches(temporaryLimit, text) ? 'rate_limit' : 'billing';
  if (matches(openRouterKeyLimit, text)) return 'billing';
  if (matches(temporaryLimit, text)) return 'rate_limit';
  if (matches(rateLimit, text)) return 'rate_limit';
  if (matches(overloaded, text)) return 'overloaded';
  const leading = leadingStatus(text);
  if (leading === 529) return 'overloaded';
  if (leading !== undefined && (leading === 408 || leading >= 500)) return 'timeout';
  if (matches(billing, text)) return 'billing';
  if (matches(authPermanent, text)) return 'auth_permanent';
  if (matches(missingCredentials, text)) return 'no_credentials';
  if (matches(auth, text)) return 'auth';
  if (matches(unknownAnthropic, text)) return 'timeout';
  if (matches(serverError, text)) return 'timeout';
  if (matches(formatError, text)) return 'format';
  if (matches(timeoutOrNetwork, text)) return 'timeout';
  return undefined;
}

function classifyProviderType(type: string | undefined): ModelErrorClass | undefined {
  switch (type) {
    case 'overloaded_error':
      return 'overloaded';
    case 'rate_limit_error':
      return 'rate_limit';
    case 'authentication_error':
    case 'permission_error':
      return 'auth';
    case 'billing_error':
      return 'billing';
    case 'not_found_error':
      return 'model_not_found';
    case 'timeout_error':
    case 'api_error':
      return 'timeout';
    case 'invalid_request_error':
      return 'format';
    default:
      return undefined;
  }
}

/** A status at the very start of the text (`429 {...}`, `503 Service Unavailable`). */
function leadingStatus(text: string): number | undefined {
  const match = /^\s*(\d{3})(?:\s|$|:)/.exec(text);
  if (match === null) return undefined;
  const status = Number(match[1]);
  return status >= 400 && status <= 599 ? status : undefined;
}

function classifyByStatus(status: number, text: string, providerType: string | undefined): ModelErrorClass {
  const fromText = classifyText(text);
  switch (status) {
    case 402:
      return matches(temporaryLimit, text) ? 'rate_limit' : 'billing';
    case 429:
      return 'rate_limit';
    case 401:
    case 403:
      if (matches(authPermanent, text)) return 'auth_permanent';
      if (matches(billing, text) || matches(openRouterKeyLimit, text)) return 'billing';
      return 'auth';
    case 408:
      return 'timeout';
    case 410:
      if (fromText === 'auth' || fromText === 'auth_permanent' || fromText === 'billing') return fromText;
      return 'timeout';
    case 404:
      if (
        fromText === 'context_overflow' ||
        fromText === 'billing' ||
        fromText === 'auth' ||
        fromText === 'auth_permanent'
      ) {
        return fromText;
      }
      return 'model_not_found';
    case 499:
    case 503:
      return matches(overloaded, text) || providerType === 'overloaded_error' ? 'overloaded' : 'timeout';
    case 500:
    case 502:
    case 504:
      return 'timeout';
    case 529:
      return 'overloaded';
    case 400:
    case 422:
      if (/status code \(no body\)/i.test(text) && status === 400) return 'context_overflow';
      return fromText ?? classifyProviderType(providerType) ?? 'format';
    case 413:
      if (/status code \(no body\)/i.test(text)) return 'context_overflow';
      return fromText === 'rate_limit' ? 'rate_limit' : 'context_overflow';
    default:
      if (status >= 500) return fromText === 'overloaded' ? 'overloaded' : 'timeout';
      return fromText ?? classifyProviderType(providerType) ?? 'unknown';
  }
}

/**
 * Classifies a failed model call by HTTP status first, then by message text, as in spec
 * §B.3, and parses retry-after (rate limits, overload) and the observed token count
 * (context overflow).
 */
export function classifyModelFailure(input: ModelFailureInput): ModelFailureClassification {
  const text = input.message;
  const status = input.status ?? leadingStatus(text);
  const errorClass =
    status === undefined
      ? (classifyText(text) ?? classifyProviderType(input.providerType) ?? 'unknown')
      : classifyByStatus(status, text, input.providerType);
  const retryAfterMs =
    errorClass === 'rate_limit' || errorClass === 'overloaded'
      ? (retryAfterFromHeaders(input.headers, input.now ?? Date.now) ?? retryAfterFromText(text))
      : undefined;
  const observedTokens = errorClass === 'context_overflow' ? parseObservedTokens(text) : undefined;
  return {
    errorClass,
    retryAfterMs,
    observedTokens,
  };
}

function headerValue(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() !== name) continue;
    const value = record[key];
    return typeof value === 'string' ? value : value?.[0];
  }
  return undefined;
}

/** Reads `retry-after-ms`, then `retry-after` (seconds or an HTTP date). */
export function retryAfterFromHeaders(
  headers: HeadersLike | undefined,
  now: () => number = Date.now,
): number | undefined {
  if (headers === undefined) return undefined;
  const milliseconds = headerValue(headers, 'retry-after-ms');
  if (milliseconds !== undefined) {
    const value = Number.parseFloat(milliseconds);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const retryAfter = headerValue(headers, 'retry-after');
  if (retryAfter === undefined) return undefined;
  if (/^\s*\d+(?:\.\d+)?\s*$/.test(retryAfter)) return Math.round(Number.parseFloat(retryAfter) * 1000);
  const date = Date.parse(retryAfter);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now());
}

function retryAfterFromText(text: string): number | undefined {
  const match =
    /(?:retry|try again) (?:after|in) (\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|sec(?:ond)?s?|m|min(?:ute)?s?)\b/i.exec(
      text,
    );
  if (match === null) return undefined;
  const value = Number.parseFloat(match[1] as string);
  const unit = (match[2] as string).toLowerCase();
  if (unit.startsWith('ms') || unit.startsWith('milli')) return Math.round(value);
  if (unit === 'm' || unit.startsWith('min')) return Math.round(value * 60_000);
  return Math.round(value * 1000);
}

/**
 * The prompt size a context-overflow text reports: the largest number followed by
 * "tokens" (the observed size is by definition above the limit the text also names).
 */
export function parseObservedTokens(text: string): number | undefined {
  let largest: number | undefined;
  const pattern = /(\d{1,3}(?:,\d{3})+|\d+)\s*(?:input\s+)?tokens?\b/gi;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const value = Number((match[1] as string).replaceAll(',', ''));
    if (Number.isFinite(value) && (largest === undefined || value > largest)) largest = value;
  }
  const comparison = /(\d+)\s*>\s*(\d+)/.exec(text);
  if (comparison !== null) {
    const value = Number(comparison[1]);
    if (largest === undefined || value > largest) largest = value;
  }
  return largest;
}
