/**
 * Backend-neutral rules for session entries: creating one, validating and applying a patch,
 * and resetting it to a new session id. Every backend stores what these functions return.
 */
import { SessionsError } from './errors.ts';
import type {
  ChatType,
  CreateSessionInput,
  DeliveryRoute,
  QueueDropPolicy,
  QueueMode,
  QueueOverrides,
  SessionEntry,
  SessionPatch,
  TokenCounters,
} from './types.ts';

const chatTypes: ReadonlySet<string> = new Set<ChatType>(['direct', 'group', 'channel']);
const queueModes: ReadonlySet<string> = new Set<QueueMode>(['collect', 'steer', 'followup', 'interrupt']);
const dropPolicies: ReadonlySet<string> = new Set<QueueDropPolicy>(['old', 'new', 'summarize']);

/** Counters of a fresh session id. */
const emptyTokenCounters: TokenCounters = Object.freeze({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  context: undefined,
  costUsd: 0,
});

function invalid(path: string, expected: string, value: unknown): SessionsError {
  return new SessionsError(
    'SESSIONS_INVALID_ARGUMENT',
    `${path} must be ${expected}; got ${describe(value)}.`,
    { details: { path } },
  );
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value;
}

/** Throws SESSIONS_INVALID_ARGUMENT unless `value` is a non-empty string. */
export function requireKey(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.length === 0) throw invalid(path, 'a non-empty string', value);
  return value;
}

function checkOptionalString(value: unknown, path: string): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'string') throw invalid(path, 'a string or null', value);
}

function checkCount(value: unknown, path: string, allowNull = false): void {
  if (value === undefined || (allowNull && value === null)) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw invalid(path, 'a finite number ≥ 0', value);
  }
}

function checkRoute(route: unknown, path: string): void {
  if (route === undefined || route === null) return;
  if (typeof route !== 'object')
    throw invalid(path, 'an object {channel, to, accountId?, threadId?} or null', route);
  const record = route as Record<string, unknown>;
  requireKey(record.channel, `${path}.channel`);
  requireKey(record.to, `${path}.to`);
  checkOptionalString(record.accountId, `${path}.accountId`);
  checkOptionalString(record.threadId, `${path}.threadId`);
}

/** Throws SESSIONS_INVALID_ARGUMENT naming the first bad field of queue overrides. */
function validateQueueOverrides(queue: unknown, path: string): void {
  if (queue === undefined || queue === null) return;
  if (typeof queue !== 'object') throw invalid(path, 'an object or null', queue);
  const record = queue as Record<string, unknown>;
  if (record.mode !== undefined && (typeof record.mode !== 'string' || !queueModes.has(record.mode))) {
    throw invalid(`${path}.mode`, 'one of collect, steer, followup, interrupt', record.mode);
  }
  if (record.drop !== undefined && (typeof record.drop !== 'string' || !dropPolicies.has(record.drop))) {
    throw invalid(`${path}.drop`, 'one of old, new, summarize', record.drop);
  }
  checkCount(record.debounceMs, `${path}.debounceMs`);
  if (
    record.cap !== undefined &&
    (typeof record.cap !== 'number' || !Number.isInteger(record.cap) || record.cap < 1)
  ) {
    throw invalid(`${path}.cap`, 'an integer ≥ 1', record.cap);
  }
}

/** Throws SESSIONS_INVALID_ARGUMENT naming the first bad field of a patch. */
export function validateSessionPatch(patch: unknown, path = 'patch'): void {
  if (patch === null || typeof patch !== 'object') throw invalid(path, 'an object', patch);
  const record = patch as Record<string, unknown>;
  if (record.chatType !== undefined && record.chatType !== null) {
    if (typeof record.chatType !== 'string' || !chatTypes.has(record.chatType)) {
      throw invalid(`${path}.chatType`, 'one of direct, group, channel, or null', record.chatType);
    }
  }
  for (const field of [
    'channel',
    'label',
    'displayName',
    'parentSessionKey',
    'providerOverride',
    'modelOverride',
    'authProfileOverride',
    'modelProvider',
    'model',
    'thinkingLevel',
  ]) {
    checkOptionalString(record[field], `${path}.${field}`);
  }
  checkRoute(record.lastRoute, `${path}.lastRoute`);
  validateQueueOverrides(record.queue, `${path}.queue`);
  checkCount(record.lastInteractionAt, `${path}.lastInteractionAt`);
  checkCount(record.contextTokens, `${path}.contextTokens`, true);
  if (record.addUsage !== undefined) {
    if (record.addUsage === null || typeof record.addUsage !== 'object') {
      throw invalid(`${path}.addUsage`, 'an object', record.addUsage);
    }
    const usage = record.addUsage as Record<string, unknown>;
    for (const field of ['input', 'output', 'cacheRead', 'cacheWrite', 'costUsd']) {
      checkCount(usage[field], `${path}.addUsage.${field}`);
    }
  }
  if (record.metadata !== undefined && record.metadata !== null) {
    if (typeof record.metadata !== 'object' || Array.isArray(record.metadata)) {
      throw invalid(`${path}.metadata`, 'an object or null', record.metadata);
    }
  }
}

function pick<T>(patched: T | null | undefined, current: T | undefined): T | undefined {
  if (patched === undefined) return current;
  return patched === null ? undefined : patched;
}

function cleanQueue(queue: QueueOverrides): QueueOverrides {
  const result: { -readonly [K in keyof QueueOverrides]: QueueOverrides[K] } = {};
  if (queue.mode !== undefined) result.mode = queue.mode;
  if (queue.debounceMs !== undefined) result.debounceMs = queue.debounceMs;
  if (queue.cap !== undefined) result.cap = queue.cap;
  if (queue.drop !== undefined) result.drop = queue.drop;
  return result;
}

function cleanRoute(route: DeliveryRoute): DeliveryRoute {
  return {
    channel: route.channel,
    to: route.to,
    // Keeps the spreads (decision 0028): the route is stored as JSON, and the entry a patch
    // returns must deep-equal the one read back (the store conformance suite checks it).
    ...(route.accountId === undefined ? {} : { accountId: route.accountId }),
    ...(route.threadId === undefined ? {} : { threadId: route.threadId }),
  };
}

/**
 * Applies a (validated) patch. `updatedAt` becomes `max(current, now)`; changing `model`
 * without `modelProvider` clears the provider that belonged to the old model.
 */
export function applySessionPatch(entry: SessionEntry, patch: SessionPatch, now: number): SessionEntry {
  let modelProvider = pick(patch.modelProvider, entry.modelProvider);
  if (patch.model !== undefined && patch.modelProvider === undefined && patch.model !== entry.model) {
    modelProvider = undefined;
  }
  let metadata = entry.metadata;
  if (patch.metadata === null) metadata = {};
  else if (patch.metadata !== undefined) {
    const merged: Record<string, unknown> = { ...entry.metadata };
    for (const [name, value] of Object.entries(patch.metadata)) {
      if (value === null) delete merged[name];
      else merged[name] = value;
    }
    metadata = merged;
  }
  const usage = patch.addUsage;
  const tokens: TokenCounters = {
    input: entry.tokens.input + (usage?.input ?? 0),
    output: entry.tokens.output + (usage?.output ?? 0),
    cacheRead: entry.tokens.cacheRead + (usage?.cacheRead ?? 0),
    cacheWrite: entry.tokens.cacheWrite + (usage?.cacheWrite ?? 0),
    context: pick(patch.contextTokens, entry.tokens.context),
    costUsd: entry.tokens.costUsd + (usage?.costUsd ?? 0),
  };
  const route = pick(patch.lastRoute, entry.lastRoute);
  const queue = patch.queue === undefined ? entry.queue : patch.queue === null ? {} : cleanQueue(patch.queue);
  return {
    ...entry,
    updatedAt: Math.max(entry.updatedAt, now),
    lastInteractionAt:
      patch.lastInteractionAt === undefined
        ? entry.lastInteractionAt
        : Math.max(entry.lastInteractionAt ?? 0, patch.lastInteractionAt),
    chatType: pick(patch.chatType, entry.chatType),
    channel: pick(patch.channel, entry.channel),
    label: pick(patch.label, entry.label),
    displayName: pick(patch.displayName, entry.displayName),
    lastRoute: route === undefined ? undefined : cleanRoute(route),
    parentSessionKey: pick(patch.parentSessionKey, entry.parentSessionKey),
    providerOverride: pick(patch.providerOverride, entry.providerOverride),
    modelOverride: pick(patch.modelOverride, entry.modelOverride),
    authProfileOverride: pick(patch.authProfileOverride, entry.authProfileOverride),
    modelProvider,
    model: pick(patch.model, entry.model),
    thinkingLevel: pick(patch.thinkingLevel, entry.thinkingLevel),
    queue,
    tokens,
    metadata,
  };
}

/** A new session entry for `key`, with `init` applied. */
export function createSessionEntry(
  key: string,
  init: CreateSessionInput,
  sessionId: string,
  now: number,
): SessionEntry {
  const blank: SessionEntry = {
    key,
    sessionId,
    agentId: init.agentId,
    createdAt: now,
    updatedAt: now,
    sessionStartedAt: now,
    lastInteractionAt: undefined,
    revision: 1,
    chatType: undefined,
    channel: undefined,
    label: undefined,
    displayName: undefined,
    lastRoute: undefined,
    parentSessionKey: undefined,
    providerOverride: undefined,
    modelOverride: undefined,
    authProfileOverride: undefined,
    modelProvider: undefined,
    model: undefined,
    thinkingLevel: undefined,
    queue: {},
    tokens: emptyTokenCounters,
    compactionCount: 0,
    metadata: {},
  };
  return applySessionPatch(blank, init, now);
}

/** The entry after a reset: new session id, counters and compaction count start again. */
export function resetSessionEntry(entry: SessionEntry, sessionId: string, now: number): SessionEntry {
  return {
    ...entry,
    sessionId,
    updatedAt: Math.max(entry.updatedAt, now),
    sessionStartedAt: now,
    lastInteractionAt: undefined,
    revision: entry.revision + 1,
    tokens: emptyTokenCounters,
    compactionCount: 0,
  };
}
