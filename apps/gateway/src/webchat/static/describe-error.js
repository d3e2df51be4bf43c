// Plain-words explanations for what can go wrong, shared by the page and its tests.

/**
 * "42 s", "3 min", "2 h" for a duration in milliseconds.
 * @param {number} milliseconds
 * @returns {string}
 */
export function formatDuration(milliseconds) {
  const seconds = Math.max(1, Math.ceil(milliseconds / 1000));
  if (seconds < 90) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes} min`;
  return `${Math.round(minutes / 60)} h`;
}

/**
 * The wait a failure message names ("… usable again: … in 42 s."), in milliseconds.
 * @param {string} text
 * @returns {number | undefined}
 */
export function retryAfterFromText(text) {
  const match =
    /(?:usable again|try again|retry)[^\n]*?\bin\s+(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)\b/i.exec(
      text,
    );
  if (match === null) return undefined;
  const value = Number(match[1]);
  const unit = (match[2] ?? 's').toLowerCase();
  if (unit.startsWith('ms') || unit.startsWith('milli')) return value;
  if (unit.startsWith('h')) return value * 3_600_000;
  if (unit === 'm' || unit.startsWith('min')) return value * 60_000;
  return value * 1000;
}

/**
 * A failure class guessed from the message, for failures that carry only text (turns
 * loaded from history).
 * @param {string} text
 * @returns {string | undefined}
 */
function classFromText(text) {
  if (/rate.?limit|too many requests|\b429\b/i.test(text)) return 'rate_limit';
  if (/overloaded|\b529\b/i.test(text)) return 'overloaded';
  if (/no api key (is )?configured|no api key or auth token/i.test(text)) return 'no_credentials';
  if (/key rejected|authenticat|invalid (x-)?api.?key|\b401\b/i.test(text)) return 'auth';
  if (/out of credits|billing|credit balance/i.test(text)) return 'billing';
  if (/timed out|timeout|ECONNREFUSED|ENOTFOUND|unreachable|connection (error|refused)/i.test(text))
    return 'timeout';
  if (/context (window|length)|too long|prompt is too long/i.test(text)) return 'context_overflow';
  return undefined;
}

/**
 * @typedef {object} RunError
 * @property {string} [errorMessage]
 * @property {string} [errorKind]
 * @property {{ errorClass?: string, retryAfterMs?: number, httpStatus?: number } | undefined} [errorDetail]
 * @property {number} [retryAfterMs]
 */

/**
 * A `chat` error event (or a failed history message) in words a user understands.
 * @param {RunError} error
 * @returns {{ title: string, hint: string, detail: string }}
 */
export function describeRunError(error) {
  const detail = String(error.errorMessage ?? '').trim();
  const errorClass =
    error.errorDetail?.errorClass ?? (error.errorKind === undefined ? classFromText(detail) : undefined);
  const kind = error.errorKind;
  const retryAfterMs = error.errorDetail?.retryAfterMs ?? error.retryAfterMs ?? retryAfterFromText(detail);
  const retry =
    retryAfterMs === undefined || !(retryAfterMs > 0)
      ? 'Try again in a little while.'
      : `Try again in ${formatDuration(retryAfterMs)}.`;
  if (errorClass === 'overloaded')
    return { title: 'The model provider is overloaded right now.', hint: retry, detail };
  if (errorClass === 'rate_limit' || kind === 'rate_limit')
    return { title: 'The model provider is rate-limiting this gateway.', hint: retry, detail };
  if (errorClass === 'no_credentials') {
    const provider = /no api key is configured for ([\w.-]+)|for provider ([\w.-]+)/i.exec(detail);
    const name = provider?.[1] ?? provider?.[2];
    return {
      title: `No API key is configured for ${name ?? 'the model provider'}, so the gateway cannot answer.`,
      hint:
        name === undefined || name === 'anthropic'
          ? 'Set ANTHROPIC_API_KEY where the gateway runs, or models.providers.anthropic.apiKey in its config. switchboard doctor shows what the gateway sees.'
          : `Set models.providers.${name}.apiKey in the gateway config. switchboard doctor shows what the gateway sees.`,
      detail,
    };
  }
  if (errorClass === 'auth' || errorClass === 'auth_permanent')
    return {
      title: 'The model provider rejected the API key (authentication failed).',
      hint: 'Check the key in the gateway config, then run: switchboard doctor',
      detail,
    };
  if (errorClass === 'billing')
    return {
      title: 'The model provider account has run out of credits.',
      hint: 'Add credits or configure another key.',
      detail,
    };
  if (errorClass === 'timeout')
    return {
      title: 'The model is unreachable: the request failed or timed out.',
      hint: "Check the gateway's network and the model base URL (switchboard doctor tests it).",
      detail,
    };
  if (errorClass === 'model_not_found')
    return {
      title: 'The configured model does not exist at the provider.',
      hint: 'Check agents.defaults.model in the gateway config.',
      detail,
    };
  if (errorClass === 'context_overflow' || kind === 'context_length')
    return {
      title: 'This conversation is too long for the model.',
      hint: 'Start a new chat, or send /compact to summarize it.',
      detail,
    };
  if (kind === 'timeout')
    return { title: 'The reply took too long and was stopped.', hint: 'Try again, or ask for less.', detail };
  if (kind === 'refusal') return { title: 'The model declined to answer.', hint: '', detail };
  const firstLine = detail.split('\n')[0] ?? '';
  return {
    title: firstLine === '' ? 'The reply failed.' : `The reply failed: ${firstLine}`,
    hint: '',
    detail,
  };
}

/**
 * A failed `connect` (the handshake's error object) in words, and whether asking for the
 * token again is the way out.
 * @param {{ message?: string, details?: { code?: string }, retryAfterMs?: number } | undefined} error
 * @returns {{ message: string, askToken: boolean }}
 */
export function describeConnectError(error) {
  const code = error?.details?.code;
  if (code === 'AUTH_TOKEN_MISMATCH')
    return {
      message: 'The gateway refused this token. Check it and try again.',
      askToken: true,
    };
  if (code === 'AUTH_TOKEN_MISSING') return { message: 'The gateway needs its token.', askToken: true };
  if (code === 'AUTH_RATE_LIMITED')
    return {
      message: `Too many wrong tokens from here. Try again in ${formatDuration(error?.retryAfterMs ?? 60_000)}.`,
      askToken: true,
    };
  if (code === 'PROTOCOL_MISMATCH')
    return {
      message: 'This page and the gateway speak different protocol versions. Reload the page.',
      askToken: false,
    };
  return { message: error?.message ?? 'The gateway refused the connection.', askToken: false };
}
