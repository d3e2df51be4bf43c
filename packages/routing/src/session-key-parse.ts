/**
 * Reading session keys back: canonical case folding that
 * keeps opaque Signal and Matrix ids, `agent:<id>:<rest>` parsing, shape classification,
 * store/request key conversion and the other key families (cron, sub-agents, ACP).
 */
import { normalizeAgentId } from './normalize.ts';
import { buildAgentMainSessionKey } from './session-key.ts';

/** The two halves of an agent-scoped session key. */
export interface ParsedAgentSessionKey {
  readonly agentId: string;
  readonly rest: string;
}

/** What a stored session key looks like. */
export type SessionKeyShape = 'missing' | 'agent' | 'malformed_agent' | 'legacy_or_alias';

/** The conversation type a session key encodes, when it encodes one. */
export type SessionChatType = 'direct' | 'group' | 'channel' | 'unknown';

const NORMALIZED_MEMO_LIMIT = 2048;
const NORMALIZED_MEMO_MAX_KEY_LENGTH = 4096;
const normalizedMemo = new Map<string, string>();

const SIGNAL_GROUP_SEGMENT = /(^|:)signal:group:([^:]+)/gi;
const MATRIX_ROOM_HEAD = /^(?:agent:[^:]+:)?matrix:(?:channel|group):/i;
const THREAD_MARKER = ':thread:';

interface PreservedSpan {
  readonly start: number;
  readonly end: number;
  readonly trim: boolean;
}

function collectPreservedSpans(raw: string): PreservedSpan[] {
  const spans: PreservedSpan[] = [];
  for (const match of raw.matchAll(SIGNAL_GROUP_SEGMENT)) {
    const segment = match[2] ?? '';
    const start = (match.index ?? 0) + match[0].length - segment.length;
    spans.push({ start, end: start + segment.length, trim: true });
  }
  const head = MATRIX_ROOM_HEAD.exec(raw);
  if (head !== null) {
    const tailStart = head[0].length;
    if (tailStart < raw.length) {
      const marker = raw.slice(tailStart).toLowerCase().lastIndexOf(THREAD_MARKER);
      if (marker === -1) {
        spans.push({ start: tailStart, end: raw.length, trim: false });
      } else {
        spans.push({ start: tailStart, end: tailStart + marker, trim: false });
        const threadStart = tailStart + marker + THREAD_MARKER.length;
        if (threadStart < raw.length) spans.push({ start: threadStart, end: raw.length, trim: false });
      }
    }
  }
  return spans;
}

/**
 * The canonical form of a session key: trimmed and lowercased, except opaque peer ids
 * that must keep their case (a Signal group id segment after `signal:group:`, and the
 * whole room tail after `matrix:channel:` / `matrix:group:` apart from the `:thread:`
 * marker). Memoised (2048 entries, oldest dropped first).
 */
export function normalizeSessionKey(sessionKey: string | null | undefined): string {
  const raw = typeof sessionKey === 'string' ? sessionKey.trim() : '';
  if (raw === '') return '';
  const known = normalizedMemo.get(raw);
  if (known !== undefined) return known;
  const lowered = raw.toLowerCase();
  let normalized = lowered;
  if (lowered.includes('signal:') || lowered.includes('matrix:')) {
    const spans = collectPreservedSpans(raw)
      .filter((span) => span.end > span.start)
      .sort((left, right) => left.start - right.start);
    normalized = '';
    let cursor = 0;
    for (const span of spans) {
      if (span.start < cursor) continue;
      normalized += raw.slice(cursor, span.start).toLowerCase();
      const kept = raw.slice(span.start, span.end);
      normalized += span.trim ? kept.trim() : kept;
      cursor = span.end;
    }
    normalized += raw.slice(cursor).toLowerCase();
  }
  if (raw.length <= NORMALIZED_MEMO_MAX_KEY_LENGTH) {
    if (normalizedMemo.size >= NORMALIZED_MEMO_LIMIT) {
      const oldest = normalizedMemo.keys().next();
      if (oldest.done !== true) normalizedMemo.delete(oldest.value);
    }
    normalizedMemo.set(raw, normalized);
  }
  return normalized;
}

/**
 * Splits `agent:<agentId>:<rest>` (prefix case-insensitive) after canonical case folding.
 * Empty segments are dropped; null unless the agent id and the rest are both non-empty
 * (`agent:main`, `agent::x` and `main` give null).
 */
export function parseAgentSessionKey(sessionKey: string | null | undefined): ParsedAgentSessionKey | null {
  const normalized = normalizeSessionKey(sessionKey);
  if (normalized === '') return null;
  const parts = normalized.split(':').filter((part) => part !== '');
  if (parts.length < 3 || parts[0] !== 'agent') return null;
  const agentId = (parts[1] ?? '').trim();
  const rest = parts.slice(2).join(':');
  if (agentId === '' || rest === '') return null;
  return { agentId, rest };
}

/**
 * `missing` for an empty key, `agent` for a well-formed agent key, `malformed_agent` for
 * one that starts with `agent:` but does not parse, `legacy_or_alias` for anything else.
 */
export function classifySessionKeyShape(sessionKey: string | null | undefined): SessionKeyShape {
  const raw = typeof sessionKey === 'string' ? sessionKey.trim() : '';
  if (raw === '') return 'missing';
  if (parseAgentSessionKey(raw) !== null) return 'agent';
  return raw.toLowerCase().startsWith('agent:') ? 'malformed_agent' : 'legacy_or_alias';
}

/**
 * The key a request key is stored under: `main` (or nothing) becomes the agent's main key,
 * agent keys are canonicalized, bare keys get the `agent:<agentId>:` prefix. A key that
 * already starts with `agent:` never gets a second prefix.
 */
export function toAgentStoreSessionKey(params: {
  readonly agentId: string;
  readonly requestKey: string | null | undefined;
  readonly mainKey?: string | null | undefined;
}): string {
  const raw = (params.requestKey ?? '').trim();
  const lowered = raw.toLowerCase();
  if (raw === '' || lowered === 'main') {
    return buildAgentMainSessionKey({ agentId: params.agentId, mainKey: params.mainKey });
  }
  const parsed = parseAgentSessionKey(raw);
  if (parsed !== null) return `agent:${parsed.agentId}:${parsed.rest}`;
  const normalized = normalizeSessionKey(raw);
  if (lowered.startsWith('agent:')) return normalized;
  return `agent:${normalizeAgentId(params.agentId)}:${normalized}`;
}

/** The request form of a stored key: the part after `agent:<agentId>:`, or the key itself. */
export function toAgentRequestSessionKey(storeKey: string | null | undefined): string | undefined {
  const raw = (storeKey ?? '').trim();
  if (raw === '') return undefined;
  return parseAgentSessionKey(raw)?.rest ?? raw;
}

/** The agent a session key belongs to (normalized), `main` when the key names none. */
export function resolveAgentIdFromSessionKey(sessionKey: string | null | undefined): string {
  return normalizeAgentId(parseAgentSessionKey(sessionKey)?.agentId);
}

/** True for the unscoped sentinel keys `global` and `unknown`. */
export function isUnscopedSessionKeySentinel(sessionKey: string | null | undefined): boolean {
  const lowered = (sessionKey ?? '').trim().toLowerCase();
  return lowered === 'global' || lowered === 'unknown';
}

/** True for `agent:<a>:cron:<jobId>...` keys. */
export function isCronSessionKey(sessionKey: string | null | undefined): boolean {
  return parseAgentSessionKey(sessionKey)?.rest.startsWith('cron:') === true;
}

/** True for one cron run's key, `agent:<a>:cron:<jobId>:run:<runId>`. */
export function isCronRunSessionKey(sessionKey: string | null | undefined): boolean {
  const parsed = parseAgentSessionKey(sessionKey);
  return parsed !== null && /^cron:[^:]+:run:[^:]+(?::|$)/.test(parsed.rest);
}

/** True for sub-agent keys, bare (`subagent:...`) or agent-scoped (`agent:<a>:subagent:...`). */
export function isSubagentSessionKey(sessionKey: string | null | undefined): boolean {
  const lowered = (sessionKey ?? '').trim().toLowerCase();
  if (lowered === '') return false;
  if (lowered.startsWith('subagent:')) return true;
  return parseAgentSessionKey(lowered)?.rest.startsWith('subagent:') === true;
}

/** How deeply sub-agents are nested: the number of `:subagent:` segments. */
export function getSubagentDepth(sessionKey: string | null | undefined): number {
  const lowered = (sessionKey ?? '').trim().toLowerCase();
  if (lowered === '') return 0;
  return lowered.split(':subagent:').length - 1;
}

/** True for ACP session keys, bare (`acp:...`) or agent-scoped (`agent:<a>:acp:...`). */
export function isAcpSessionKey(sessionKey: string | null | undefined): boolean {
  const lowered = (sessionKey ?? '').trim().toLowerCase();
  if (lowered === '') return false;
  if (lowered.startsWith('acp:')) return true;
  return parseAgentSessionKey(lowered)?.rest.startsWith('acp:') === true;
}

/** Splits a key at its last `:thread:` marker into the base key and the thread id. */
export function parseThreadSessionSuffix(sessionKey: string | null | undefined): {
  readonly baseSessionKey: string | undefined;
  readonly threadId: string | undefined;
} {
  const raw = (sessionKey ?? '').trim();
  if (raw === '') return { baseSessionKey: undefined, threadId: undefined };
  const marker = raw.toLowerCase().lastIndexOf(THREAD_MARKER);
  if (marker === -1) return { baseSessionKey: raw, threadId: undefined };
  const threadId = raw.slice(marker + THREAD_MARKER.length).trim();
  return { baseSessionKey: raw.slice(0, marker), threadId: threadId === '' ? undefined : threadId };
}

/**
 * The conversation type encoded in a session key, for canonical and legacy keys alike:
 * a `group` or `channel` segment wins, then `direct` or the legacy `dm`.
 */
export function deriveSessionChatType(sessionKey: string | null | undefined): SessionChatType {
  const lowered = (sessionKey ?? '').trim().toLowerCase();
  if (lowered === '') return 'unknown';
  const scoped = parseAgentSessionKey(lowered)?.rest ?? lowered;
  const segments = new Set(scoped.split(':').filter((segment) => segment !== ''));
  if (segments.has('group')) return 'group';
  if (segments.has('channel')) return 'channel';
  if (segments.has('direct') || segments.has('dm')) return 'direct';
  return 'unknown';
}
