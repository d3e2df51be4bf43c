/**
 * The data model of the session store: session entries, transcript entries, inbound journal
 * records and delivery receipts. Backend-neutral: every id is a string, every time is
 * milliseconds since the epoch, every sequence is a positive integer a server database can
 * produce.
 */
import type { ImageContent, Message, TextContent } from '@switchboard/hooks';

/** The kind of conversation a session belongs to. */
export type ChatType = 'direct' | 'group' | 'channel';

/** How an inbound message is handled while its session already has a run (see the README). */
export type QueueMode = 'collect' | 'steer' | 'followup' | 'interrupt';

/** What to do when a session's queue is full. */
export type QueueDropPolicy = 'old' | 'new' | 'summarize';

/** Why a session got a new session id. */
export type ResetReason = 'new' | 'reset' | 'daily' | 'idle' | 'api';

/** Why a transcript was archived. */
export type ArchiveReason = ResetReason | 'deleted' | 'pruned';

/** Where replies for a session go (the last inbound route). */
export interface DeliveryRoute {
  readonly channel: string;
  readonly accountId?: string;
  /** The platform's chat, channel or user id to send to. */
  readonly to: string;
  readonly threadId?: string;
  /** What `to` is: a user (DM), a group chat or a channel. Absent in routes stored before it existed. */
  readonly peerKind?: ChatType;
}

/** Per-session queue settings that override the channel and global defaults. */
export interface QueueOverrides {
  readonly mode?: QueueMode;
  readonly debounceMs?: number;
  readonly cap?: number;
  readonly drop?: QueueDropPolicy;
}

/** Token counters of the current session id. Sums, except `context` (the last call only). */
export interface TokenCounters {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  /** Context size reported by the most recent model call; undefined until one happened. */
  readonly context: number | undefined;
  readonly costUsd: number;
}

/** One session: the row behind a session key. */
export interface SessionEntry {
  readonly key: string;
  /** The current transcript generation; changes on reset. */
  readonly sessionId: string;
  readonly agentId: string;
  /** When the key was first seen. */
  readonly createdAt: number;
  /** Last change of the row. */
  readonly updatedAt: number;
  /** When the current session id started; daily resets compare against it. */
  readonly sessionStartedAt: number;
  /** Last real user or channel message; idle resets compare against it. */
  readonly lastInteractionAt: number | undefined;
  /** Increases by one on every reset. */
  readonly revision: number;
  readonly chatType: ChatType | undefined;
  readonly channel: string | undefined;
  readonly label: string | undefined;
  readonly displayName: string | undefined;
  readonly lastRoute: DeliveryRoute | undefined;
  readonly parentSessionKey: string | undefined;
  readonly providerOverride: string | undefined;
  readonly modelOverride: string | undefined;
  /** The auth profile pinned to this session, if any. */
  readonly authProfileOverride: string | undefined;
  /** The provider and model of the last model change recorded in the transcript. */
  readonly modelProvider: string | undefined;
  readonly model: string | undefined;
  readonly thinkingLevel: string | undefined;
  readonly queue: QueueOverrides;
  readonly tokens: TokenCounters;
  readonly compactionCount: number;
  /** Free-form JSON for plugins and the gateway. */
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** Token usage to add to a session's counters. */
export interface UsageDelta {
  readonly input?: number;
  readonly output?: number;
  readonly cacheRead?: number;
  readonly cacheWrite?: number;
  readonly costUsd?: number;
}

/**
 * A change to a session entry. `undefined` leaves a field as it is; `null` clears it.
 * `addUsage` adds to the counters; `metadata` is merged shallowly (a `null` value removes
 * that key). Changing `model` without `modelProvider` clears the stale provider.
 */
export interface SessionPatch {
  readonly chatType?: ChatType | null;
  readonly channel?: string | null;
  readonly label?: string | null;
  readonly displayName?: string | null;
  readonly lastRoute?: DeliveryRoute | null;
  readonly parentSessionKey?: string | null;
  readonly providerOverride?: string | null;
  readonly modelOverride?: string | null;
  readonly authProfileOverride?: string | null;
  readonly modelProvider?: string | null;
  readonly model?: string | null;
  readonly thinkingLevel?: string | null;
  /** Replaces the queue overrides; `null` clears them (`/queue default`). */
  readonly queue?: QueueOverrides | null;
  readonly lastInteractionAt?: number;
  readonly contextTokens?: number | null;
  readonly addUsage?: UsageDelta;
  readonly metadata?: Readonly<Record<string, unknown>> | null;
}

/** What `ensureSession` needs to create a session that does not exist yet. */
export interface CreateSessionInput extends SessionPatch {
  readonly agentId: string;
}

/** Filters and paging for `listSessions`. Results are ordered by `updatedAt`, newest first. */
export interface SessionListQuery {
  readonly agentId?: string;
  readonly channel?: string;
  readonly chatType?: ChatType;
  readonly label?: string;
  /** Case-insensitive substring of the key, label or display name. */
  readonly search?: string;
  /** Only sessions updated at or after this time. */
  readonly updatedSince?: number;
  /** Page size; default 50, at most 1000. */
  readonly limit?: number;
  /** Continue after the page that returned this cursor (stable under concurrent updates). */
  readonly cursor?: string;
  /** Skip this many rows instead of using a cursor (for the gateway protocol's `offset`). */
  readonly offset?: number;
  /** Also count every matching row (costs one extra query). */
  readonly includeTotal?: boolean;
}

export interface SessionPage {
  readonly sessions: readonly SessionEntry[];
  /** Present when more rows follow. */
  readonly nextCursor: string | undefined;
  readonly hasMore: boolean;
  /** Present when `includeTotal` was set. */
  readonly totalCount: number | undefined;
}

export interface EnsureSessionResult {
  readonly entry: SessionEntry;
  readonly created: boolean;
}

export interface ResetSessionOptions {
  readonly reason?: ResetReason;
  /** Refuse (SESSIONS_STALE_SESSION) when the key's current session id differs. */
  readonly expectedSessionId?: string;
}

export interface ResetSessionResult {
  readonly entry: SessionEntry;
  /** The archived session id (its transcript stays readable and exportable). */
  readonly previousSessionId: string;
}

export interface DeleteSessionOptions {
  readonly expectedSessionId?: string;
}

export interface DeleteSessionResult {
  readonly deleted: boolean;
  /** The session id whose transcript was archived, when something was deleted. */
  readonly archivedSessionId: string | undefined;
}

// ---------------------------------------------------------------------------------------
// Transcripts

/** A conversation message (user, assistant or tool result). Enters the model context. */
export interface MessageEntryBody {
  readonly type: 'message';
  readonly message: Message;
}

/**
 * A compaction point: everything before `firstKeptSequence` is replaced in the model
 * context by `summary`.
 */
export interface CompactionEntryBody {
  readonly type: 'compaction';
  readonly summary: string;
  /** The first entry kept verbatim; at most the compaction entry's own sequence. */
  readonly firstKeptSequence: number;
  readonly tokensBefore: number;
  readonly tokensAfter?: number;
  readonly details?: unknown;
}

/** The session switched model (or provider). Does not enter the model context. */
export interface ModelChangeEntryBody {
  readonly type: 'model_change';
  readonly provider: string;
  readonly model: string;
  readonly thinkingLevel?: string;
}

/** A plugin or gateway record that does not enter the model context. */
export interface CustomEntryBody {
  readonly type: 'custom';
  readonly customType: string;
  readonly data?: unknown;
}

/** A plugin or gateway message that enters the model context as a user message. */
export interface CustomMessageEntryBody {
  readonly type: 'custom_message';
  readonly customType: string;
  readonly content: string | ReadonlyArray<TextContent | ImageContent>;
  /** Whether a UI should show it; the model sees it either way. */
  readonly display?: boolean;
  readonly details?: unknown;
}

/** What a caller appends. */
export type TranscriptEntryBody =
  | MessageEntryBody
  | CompactionEntryBody
  | ModelChangeEntryBody
  | CustomEntryBody
  | CustomMessageEntryBody;

/** An entry to append; `timestamp` defaults to the store's clock. */
export type NewTranscriptEntry = TranscriptEntryBody & { readonly timestamp?: number };

/** Where an entry sits: its transcript, its position and when it was written. */
export interface TranscriptPosition {
  readonly sessionId: string;
  /** 1, 2, 3, … within the transcript, in append order. */
  readonly sequence: number;
  readonly timestamp: number;
}

/**
 * A stored row that could not be parsed. Reads return it instead of dropping it, so a
 * damaged row is reported and can be inspected or exported.
 */
export interface InvalidTranscriptEntry extends TranscriptPosition {
  readonly type: 'invalid';
  /** The entry type recorded beside the row. */
  readonly storedType: string;
  readonly raw: string;
  readonly error: string;
}

/** A stored transcript entry as read back. */
export type TranscriptEntry = (TranscriptEntryBody & TranscriptPosition) | InvalidTranscriptEntry;

export interface AppendOptions {
  /** Refuse (SESSIONS_STALE_SESSION) when the key's current session id differs. */
  readonly expectedSessionId?: string;
  /** Applied to the session entry in the same transaction as the append. */
  readonly patch?: SessionPatch;
}

export interface AppendResult {
  readonly sessionId: string;
  readonly entries: readonly TranscriptEntry[];
  readonly firstSequence: number;
  readonly lastSequence: number;
  readonly session: SessionEntry;
}

export interface ReadTranscriptOptions {
  /** First sequence to return (inclusive); default 1. */
  readonly fromSequence?: number;
  /** Last sequence to return (inclusive). */
  readonly toSequence?: number;
  /** At most this many entries. */
  readonly limit?: number;
  /** Only entries of these stored types (e.g. `['custom']` to look for markers). */
  readonly types?: readonly TranscriptEntryBody['type'][];
}

export interface StreamTranscriptOptions {
  readonly fromSequence?: number;
  /** Rows fetched per round trip; default 500. */
  readonly batchSize?: number;
}

/** One transcript generation (current or archived). */
export interface TranscriptInfo {
  readonly sessionId: string;
  readonly sessionKey: string;
  readonly agentId: string;
  readonly createdAt: number;
  readonly entryCount: number;
  /** Sum of the stored entry sizes in bytes. */
  readonly byteCount: number;
  readonly lastSequence: number;
  readonly lastCompactionSequence: number | undefined;
  readonly archivedAt: number | undefined;
  readonly archiveReason: ArchiveReason | undefined;
}

export interface TranscriptListQuery {
  readonly sessionKey?: string;
  /** true: archived only; false: current only; undefined: both. */
  readonly archived?: boolean;
  readonly limit?: number;
}

/** A problem found while reading a transcript (the entry was not used). */
export interface TranscriptProblem {
  readonly sessionId: string;
  readonly sequence: number;
  readonly error: string;
}

/** The compaction point a context was built from. */
export interface ContextCompaction {
  readonly sequence: number;
  /** When the compaction entry was written. */
  readonly timestamp: number;
  readonly summary: string;
  readonly firstKeptSequence: number;
  readonly tokensBefore: number;
  readonly tokensAfter: number | undefined;
  /** What the compactor recorded with the entry, when it recorded anything. */
  readonly details?: unknown;
}

/** The model context of a session: the latest compaction summary plus what follows it. */
export interface SessionContext {
  readonly sessionId: string;
  readonly messages: readonly Message[];
  readonly compaction: ContextCompaction | undefined;
  /** The first sequence that contributed a message (after the summary). */
  readonly fromSequence: number;
  /** The transcript sequence of each message after the summary, in order. */
  readonly sequences: readonly number[];
  /** The last sequence in the transcript when the context was built. */
  readonly lastSequence: number;
  /** Entries that could not be parsed; they are left out of `messages` and listed here. */
  readonly problems: readonly TranscriptProblem[];
}

export interface BuildContextOptions {
  /** Turns the compaction summary into the message the model sees. */
  readonly formatSummary?: (compaction: ContextCompaction) => Message;
}

// ---------------------------------------------------------------------------------------
// Inbound journal

/** received → queued → running → replied | failed (see the README for every transition). */
export type InboundState = 'received' | 'queued' | 'running' | 'replied' | 'failed';

/** Identifies one inbound platform message. */
export interface InboundRef {
  readonly channel: string;
  readonly accountId: string;
  /** The platform's message id. */
  readonly messageId: string;
}

export interface JournalInboundInput extends InboundRef {
  readonly receivedAt?: number;
  readonly sessionKey?: string;
  /** JSON the gateway needs to run the message again after a restart. */
  readonly payload?: unknown;
}

export interface InboundRecord extends InboundRef {
  readonly state: InboundState;
  readonly sessionKey: string | undefined;
  readonly receivedAt: number;
  readonly updatedAt: number;
  /** How many times the record entered `running`. */
  readonly attempts: number;
  readonly error: string | undefined;
  readonly payload: unknown;
}

export type JournalInboundResult =
  | { readonly duplicate: false; readonly record: InboundRecord }
  | { readonly duplicate: true; readonly record: InboundRecord };

export interface UpdateInboundOptions {
  readonly error?: string;
  readonly sessionKey?: string;
}

export interface ListUnfinishedOptions {
  /** Only records received at or after this time. */
  readonly receivedSince?: number;
  readonly limit?: number;
}

// ---------------------------------------------------------------------------------------
// Delivery receipts

/** claimed (a send is in flight) → sent | failed; failed → claimed again on retry. */
export type DeliveryState = 'claimed' | 'sent' | 'failed';

export interface DeliveryDetails {
  readonly channel?: string;
  readonly accountId?: string;
  readonly to?: string;
  readonly runId?: string;
  readonly inbound?: InboundRef;
}

export interface DeliveryReceipt {
  /** The idempotency key of one outbound chunk. */
  readonly key: string;
  readonly state: DeliveryState;
  readonly attempts: number;
  readonly claimedAt: number;
  readonly updatedAt: number;
  readonly sentAt: number | undefined;
  readonly platformMessageId: string | undefined;
  readonly error: string | undefined;
  readonly details: DeliveryDetails;
}

/**
 * The answer to `claimDelivery`:
 * - `claimed`: send now, then call `recordDelivery` (or `failDelivery`). `recovered` is true
 *   when an earlier attempt by a previous process was interrupted (it may have reached the
 *   platform).
 * - `already-sent`: do not send; `receipt.platformMessageId` is the earlier message.
 * - `in-progress`: another caller of this process is sending it right now.
 */
export type DeliveryClaim =
  | { readonly status: 'claimed'; readonly receipt: DeliveryReceipt; readonly recovered: boolean }
  | { readonly status: 'already-sent'; readonly receipt: DeliveryReceipt }
  | { readonly status: 'in-progress'; readonly receipt: DeliveryReceipt };

// ---------------------------------------------------------------------------------------
// State records

/**
 * A small JSON value under (namespace, key), for gateway state that must survive a restart
 * in the same database (finished run results, pairing codes, auth-profile cooldowns).
 */
export interface StateRecord {
  readonly namespace: string;
  readonly key: string;
  readonly value: unknown;
  readonly updatedAt: number;
  /** After this time the record reads as absent and `prune` deletes it. */
  readonly expiresAt: number | undefined;
}

export interface PutStateOptions {
  readonly expiresAt?: number;
}

export interface ListStateOptions {
  /** Only keys starting with this text. */
  readonly prefix?: string;
  readonly limit?: number;
}

// ---------------------------------------------------------------------------------------
// Maintenance

export interface PrunePolicy {
  /** Sessions not updated for this long are removed (transcript archived). */
  readonly pruneAfterMs?: number;
  /** Keep at most this many sessions; the least recently updated go first. */
  readonly maxEntries?: number;
  /** Archived transcripts older than this are deleted for good. */
  readonly archiveRetentionMs?: number;
  /** Finished journal records (replied/failed) and settled receipts older than this are deleted. */
  readonly journalRetentionMs?: number;
  /** Chat types whose sessions are never pruned by age or count (e.g. `group`). */
  readonly keepChatTypes?: readonly ChatType[];
  /** The time to prune against; default the store's clock. */
  readonly now?: number;
}

export interface PruneReport {
  readonly sessionsPruned: number;
  readonly transcriptsDeleted: number;
  readonly entriesDeleted: number;
  readonly journalRecordsDeleted: number;
  readonly deliveryReceiptsDeleted: number;
  /** Expired state records (always removed). */
  readonly stateRecordsDeleted: number;
  /** How much the database (file + WAL) shrank. */
  readonly bytesFreed: number;
}

export interface DiskUsage {
  /** Where the data lives (a file path for SQLite). */
  readonly location: string;
  readonly databaseBytes: number;
  readonly walBytes: number;
  /** Space inside the file that is free for reuse. */
  readonly freeBytes: number;
  readonly sessions: number;
  readonly transcripts: number;
  readonly archivedTranscripts: number;
  readonly transcriptEntries: number;
  /** Sum of stored transcript entry sizes. */
  readonly transcriptBytes: number;
  readonly journalRecords: number;
  readonly deliveryReceipts: number;
  readonly stateRecords: number;
}

export interface IntegrityReport {
  readonly ok: boolean;
  /** What the database reported, one line per problem (empty when ok). */
  readonly problems: readonly string[];
}
