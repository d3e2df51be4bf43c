/** Mapping between table rows and the store's records, shared by the SQL backends (SQLite, PostgreSQL). */
import type {
  ArchiveReason,
  ChatType,
  DeliveryDetails,
  DeliveryReceipt,
  DeliveryRoute,
  DeliveryState,
  InboundRecord,
  InboundState,
  QueueDropPolicy,
  QueueMode,
  QueueOverrides,
  SessionEntry,
  StateRecord,
  TranscriptInfo,
} from './types.ts';

type Value = string | number | null;

/** Columns of `sessions`, in the order `sessionValues` produces them. */
export const sessionColumns: readonly string[] = [
  'session_key',
  'session_id',
  'agent_id',
  'created_at',
  'updated_at',
  'session_started_at',
  'last_interaction_at',
  'revision',
  'chat_type',
  'channel',
  'label',
  'display_name',
  'last_route',
  'parent_session_key',
  'provider_override',
  'model_override',
  'auth_profile_override',
  'model_provider',
  'model',
  'thinking_level',
  'queue_mode',
  'queue_debounce_ms',
  'queue_cap',
  'queue_drop',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'context_tokens',
  'cost_usd',
  'compaction_count',
  'metadata',
  'activity_minute',
];

/** The minute of `updatedAt`, which the listing indexes hold instead of the exact time. */
export function activityMinute(updatedAt: number): number {
  return Math.floor(updatedAt / 60_000);
}

export interface SessionRow {
  session_key: string;
  session_id: string;
  agent_id: string;
  created_at: number;
  updated_at: number;
  session_started_at: number;
  last_interaction_at: number | null;
  revision: number;
  chat_type: string | null;
  channel: string | null;
  label: string | null;
  display_name: string | null;
  last_route: string | null;
  parent_session_key: string | null;
  provider_override: string | null;
  model_override: string | null;
  auth_profile_override: string | null;
  model_provider: string | null;
  model: string | null;
  thinking_level: string | null;
  queue_mode: string | null;
  queue_debounce_ms: number | null;
  queue_cap: number | null;
  queue_drop: string | null;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  context_tokens: number | null;
  cost_usd: number;
  compaction_count: number;
  metadata: string;
}

function optional<T>(value: T | null): T | undefined {
  return value === null ? undefined : value;
}

function nullable<T>(value: T | undefined): T | null {
  return value === undefined ? null : value;
}

function parseJsonObject(text: string | null): Record<string, unknown> | undefined {
  if (text === null) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export function sessionFromRow(row: SessionRow): SessionEntry {
  const queue: { -readonly [K in keyof QueueOverrides]: QueueOverrides[K] } = {};
  if (row.queue_mode !== null) queue.mode = row.queue_mode as QueueMode;
  if (row.queue_debounce_ms !== null) queue.debounceMs = row.queue_debounce_ms;
  if (row.queue_cap !== null) queue.cap = row.queue_cap;
  if (row.queue_drop !== null) queue.drop = row.queue_drop as QueueDropPolicy;
  return {
    key: row.session_key,
    sessionId: row.session_id,
    agentId: row.agent_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    sessionStartedAt: row.session_started_at,
    lastInteractionAt: optional(row.last_interaction_at),
    revision: row.revision,
    chatType: optional(row.chat_type) as ChatType | undefined,
    channel: optional(row.channel),
    label: optional(row.label),
    displayName: optional(row.display_name),
    lastRoute: parseJsonObject(row.last_route) as DeliveryRoute | undefined,
    parentSessionKey: optional(row.parent_session_key),
    providerOverride: optional(row.provider_override),
    modelOverride: optional(row.model_override),
    authProfileOverride: optional(row.auth_profile_override),
    modelProvider: optional(row.model_provider),
    model: optional(row.model),
    thinkingLevel: optional(row.thinking_level),
    queue,
    tokens: {
      input: row.input_tokens,
      output: row.output_tokens,
      cacheRead: row.cache_read_tokens,
      cacheWrite: row.cache_write_tokens,
      context: optional(row.context_tokens),
      costUsd: row.cost_usd,
    },
    compactionCount: row.compaction_count,
    metadata: parseJsonObject(row.metadata) ?? {},
  };
}

export function sessionValues(entry: SessionEntry): Value[] {
  return [
    entry.key,
    entry.sessionId,
    entry.agentId,
    entry.createdAt,
    entry.updatedAt,
    entry.sessionStartedAt,
    nullable(entry.lastInteractionAt),
    entry.revision,
    nullable(entry.chatType),
    nullable(entry.channel),
    nullable(entry.label),
    nullable(entry.displayName),
    entry.lastRoute === undefined ? null : JSON.stringify(entry.lastRoute),
    nullable(entry.parentSessionKey),
    nullable(entry.providerOverride),
    nullable(entry.modelOverride),
    nullable(entry.authProfileOverride),
    nullable(entry.modelProvider),
    nullable(entry.model),
    nullable(entry.thinkingLevel),
    nullable(entry.queue.mode),
    nullable(entry.queue.debounceMs),
    nullable(entry.queue.cap),
    nullable(entry.queue.drop),
    entry.tokens.input,
    entry.tokens.output,
    entry.tokens.cacheRead,
    entry.tokens.cacheWrite,
    nullable(entry.tokens.context),
    entry.tokens.costUsd,
    entry.compactionCount,
    JSON.stringify(entry.metadata),
    activityMinute(entry.updatedAt),
  ];
}

export interface TranscriptRow {
  transcript_id: number;
  session_id: string;
  session_key: string;
  agent_id: string;
  created_at: number;
  next_sequence: number;
  entry_count: number;
  byte_count: number;
  last_compaction_sequence: number | null;
  archived_at: number | null;
  archive_reason: string | null;
}

export function transcriptFromRow(row: TranscriptRow): TranscriptInfo {
  return {
    sessionId: row.session_id,
    sessionKey: row.session_key,
    agentId: row.agent_id,
    createdAt: row.created_at,
    entryCount: row.entry_count,
    byteCount: row.byte_count,
    lastSequence: row.next_sequence - 1,
    lastCompactionSequence: optional(row.last_compaction_sequence),
    archivedAt: optional(row.archived_at),
    archiveReason: optional(row.archive_reason) as ArchiveReason | undefined,
  };
}

export interface InboundRow {
  channel: string;
  account_id: string;
  message_id: string;
  state: string;
  session_key: string | null;
  received_at: number;
  updated_at: number;
  attempts: number;
  error: string | null;
  payload: string | null;
}

export function inboundFromRow(row: InboundRow): InboundRecord {
  let payload: unknown;
  if (row.payload !== null) {
    try {
      payload = JSON.parse(row.payload);
    } catch {
      payload = row.payload;
    }
  }
  return {
    channel: row.channel,
    accountId: row.account_id,
    messageId: row.message_id,
    state: row.state as InboundState,
    sessionKey: optional(row.session_key),
    receivedAt: row.received_at,
    updatedAt: row.updated_at,
    attempts: row.attempts,
    error: optional(row.error),
    payload,
  };
}

export interface DeliveryRow {
  idempotency_key: string;
  state: string;
  attempts: number;
  owner_id: string;
  claimed_at: number;
  updated_at: number;
  sent_at: number | null;
  platform_message_id: string | null;
  error: string | null;
  details: string;
}

export function deliveryFromRow(row: DeliveryRow): DeliveryReceipt {
  return {
    key: row.idempotency_key,
    state: row.state as DeliveryState,
    attempts: row.attempts,
    claimedAt: row.claimed_at,
    updatedAt: row.updated_at,
    sentAt: optional(row.sent_at),
    platformMessageId: optional(row.platform_message_id),
    error: optional(row.error),
    details: (parseJsonObject(row.details) ?? {}) as DeliveryDetails,
  };
}

export interface StateRow {
  namespace: string;
  key: string;
  value: string;
  updated_at: number;
  expires_at: number | null;
}

export function stateFromRow(row: StateRow): StateRecord {
  let value: unknown;
  try {
    value = JSON.parse(row.value);
  } catch {
    value = row.value;
  }
  return {
    namespace: row.namespace,
    key: row.key,
    value,
    updatedAt: row.updated_at,
    expiresAt: optional(row.expires_at),
  };
}
