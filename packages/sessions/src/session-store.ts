import type {
  AppendOptions,
  AppendResult,
  BuildContextOptions,
  CreateSessionInput,
  DeleteSessionOptions,
  DeleteSessionResult,
  DeliveryClaim,
  DeliveryDetails,
  DeliveryReceipt,
  DiskUsage,
  EnsureSessionResult,
  InboundRecord,
  InboundRef,
  InboundState,
  IntegrityReport,
  JournalInboundInput,
  JournalInboundResult,
  ListStateOptions,
  ListUnfinishedOptions,
  NewTranscriptEntry,
  PrunePolicy,
  PruneReport,
  PutStateOptions,
  ReadTranscriptOptions,
  ResetSessionOptions,
  ResetSessionResult,
  SessionContext,
  SessionEntry,
  SessionListQuery,
  SessionPage,
  SessionPatch,
  StateRecord,
  StreamTranscriptOptions,
  TranscriptEntry,
  TranscriptInfo,
  TranscriptListQuery,
  UpdateInboundOptions,
} from './types.ts';

// The store is split into role interfaces, one per table family. A consumer asks for the
// role it uses (a scheduler needs `StateRecordStore`, a channel's delivery path
// `DeliveryReceiptStore`), and a backend implements them all as one `SessionStore`.
//
// Contract shared by every role: every operation is async and atomic (it happens completely
// or not at all), and when its promise resolves the change is committed (see the backend's
// durability notes for what survives a power cut). No transaction is ever held across an
// `await` of the caller. Session keys are opaque strings; session ids are UUIDs made by the
// store; sequences are per-transcript integers starting at 1. Bad arguments reject with
// SESSIONS_INVALID_ARGUMENT naming the argument. The store conformance suite in
// `@switchboard/testkit/store-conformance` checks this contract for any backend.

/** Sessions: the row behind each session key. */
export interface SessionEntryStore {
  getSession(key: string): Promise<SessionEntry | undefined>;
  /**
   * Returns the session under `key`, creating it (and its first transcript) when missing.
   * Concurrent calls for one key create it once; the others get `created: false`.
   */
  ensureSession(key: string, init: CreateSessionInput): Promise<EnsureSessionResult>;
  /** Changes a session; SESSIONS_NOT_FOUND when the key does not exist. */
  patchSession(
    key: string,
    patch: SessionPatch,
    options?: { expectedSessionId?: string },
  ): Promise<SessionEntry>;
  /** Newest `updatedAt` first; cursors stay stable under concurrent updates. */
  listSessions(query?: SessionListQuery): Promise<SessionPage>;
  /**
   * Gives the key a new session id and an empty transcript. The old transcript is archived,
   * not destroyed. Token counters and the compaction count start again; label, route,
   * overrides and queue settings are kept.
   */
  resetSession(key: string, options?: ResetSessionOptions): Promise<ResetSessionResult>;
  /** Removes the key. Its transcript is archived, not destroyed. */
  deleteSession(key: string, options?: DeleteSessionOptions): Promise<DeleteSessionResult>;
}

/** Transcripts (append-only, one per session id) and the model context built from them. */
export interface TranscriptStore {
  /**
   * Appends entries to the key's current transcript in one transaction (batch a whole turn
   * into one call), optionally patching the session in the same transaction. Concurrent
   * appends to one key get consecutive, gap-free sequences in the order they committed.
   */
  appendEntries(
    key: string,
    entries: readonly NewTranscriptEntry[],
    options?: AppendOptions,
  ): Promise<AppendResult>;
  readTranscript(sessionId: string, options?: ReadTranscriptOptions): Promise<TranscriptEntry[]>;
  /** Reads a transcript page by page, without holding anything open between pages. */
  streamTranscript(sessionId: string, options?: StreamTranscriptOptions): AsyncIterable<TranscriptEntry>;
  getTranscript(sessionId: string): Promise<TranscriptInfo | undefined>;
  listTranscripts(query?: TranscriptListQuery): Promise<TranscriptInfo[]>;
  /**
   * The latest compaction summary plus every context entry after its first kept entry.
   * Always reflects every committed append, compaction and reset (a backend's cache must
   * never serve a stale context).
   */
  buildContext(
    target: string | { sessionId: string },
    options?: BuildContextOptions,
  ): Promise<SessionContext>;
}

/** The inbound journal: each platform message once, and how far it got. */
export interface InboundJournalStore {
  /**
   * Journals an inbound message in state `received`. A second call with the same
   * (channel, accountId, messageId) reports `duplicate: true` and changes nothing, also
   * when the calls race (from one process or, on a shared backend, from several).
   */
  journalInbound(input: JournalInboundInput): Promise<JournalInboundResult>;
  getInbound(ref: InboundRef): Promise<InboundRecord | undefined>;
  /** Moves a record along received → queued → running → replied | failed (see journal.ts). */
  updateInbound(ref: InboundRef, state: InboundState, options?: UpdateInboundOptions): Promise<InboundRecord>;
  /**
   * Records that never reached `replied` or `failed` and that this store instance may resume,
   * oldest first (call it on start). A single-instance backend returns every unfinished
   * record. A backend shared by several gateways returns only records whose journaling
   * instance is gone and takes them over, so each is returned to exactly one instance.
   */
  listUnfinishedInbound(options?: ListUnfinishedOptions): Promise<InboundRecord[]>;
}

/** Delivery receipts: each outbound chunk reaches the platform once. */
export interface DeliveryReceiptStore {
  /**
   * Claims the send of one outbound chunk. Exactly one of several concurrent claims for a key
   * gets `claimed`; the others get `in-progress` (or `already-sent` once it was recorded).
   */
  claimDelivery(key: string, details?: DeliveryDetails): Promise<DeliveryClaim>;
  recordDelivery(key: string, platformMessageId: string): Promise<DeliveryReceipt>;
  failDelivery(key: string, error: string): Promise<DeliveryReceipt>;
  getDelivery(key: string): Promise<DeliveryReceipt | undefined>;
}

/** Small JSON records under (namespace, key) with an optional expiry. */
export interface StateRecordStore {
  /** The record, or undefined when missing or expired. */
  getState(namespace: string, key: string): Promise<StateRecord | undefined>;
  /** Creates or replaces the record; `value` must be JSON. */
  putState(namespace: string, key: string, value: unknown, options?: PutStateOptions): Promise<StateRecord>;
  /** True when a record was removed. */
  deleteState(namespace: string, key: string): Promise<boolean>;
  /** Unexpired records of a namespace, ordered by key. */
  listState(namespace: string, options?: ListStateOptions): Promise<StateRecord[]>;
}

/** Retention, reports and shutdown. */
export interface StoreMaintenance {
  /** Where the data lives, for messages and reports (a file path for SQLite). */
  readonly location: string;
  prune(policy: PrunePolicy): Promise<PruneReport>;
  diskUsage(): Promise<DiskUsage>;
  checkIntegrity(): Promise<IntegrityReport>;
  /** Lets pending writes commit, releases what the instance holds and closes. Idempotent. */
  close(): Promise<void>;
}

/** The session store, independent of the database behind it: every role in one object. */
export interface SessionStore
  extends SessionEntryStore,
    TranscriptStore,
    InboundJournalStore,
    DeliveryReceiptStore,
    StateRecordStore,
    StoreMaintenance {}
