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

/**
 * The session store, independent of the database behind it. Every operation is async and
 * atomic: it either happens completely or not at all, and when its promise resolves the
 * change is committed (see the backend's durability notes for what survives a power cut).
 * No transaction is ever held across an `await` of the caller.
 *
 * Session keys are opaque strings. Session ids are UUIDs made by the store. Sequences are
 * per-transcript integers starting at 1.
 */
export interface SessionStore {
  /** Where the data lives, for messages and reports (a file path for SQLite). */
  readonly location: string;

  // Sessions ---------------------------------------------------------------------------
  getSession(key: string): Promise<SessionEntry | undefined>;
  /** Returns the session under `key`, creating it (and its first transcript) when missing. */
  ensureSession(key: string, init: CreateSessionInput): Promise<EnsureSessionResult>;
  /** Changes a session; SESSIONS_NOT_FOUND when the key does not exist. */
  patchSession(
    key: string,
    patch: SessionPatch,
    options?: { expectedSessionId?: string },
  ): Promise<SessionEntry>;
  listSessions(query?: SessionListQuery): Promise<SessionPage>;
  /**
   * Gives the key a new session id and an empty transcript. The old transcript is archived,
   * not destroyed. Token counters and the compaction count start again; label, route,
   * overrides and queue settings are kept.
   */
  resetSession(key: string, options?: ResetSessionOptions): Promise<ResetSessionResult>;
  /** Removes the key. Its transcript is archived, not destroyed. */
  deleteSession(key: string, options?: DeleteSessionOptions): Promise<DeleteSessionResult>;

  // Transcripts -------------------------------------------------------------------------
  /**
   * Appends entries to the key's current transcript in one transaction (batch a whole turn
   * into one call), optionally patching the session in the same transaction.
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
  /** The latest compaction summary plus every context entry after its first kept entry. */
  buildContext(
    target: string | { sessionId: string },
    options?: BuildContextOptions,
  ): Promise<SessionContext>;

  // Inbound journal ---------------------------------------------------------------------
  /**
   * Journals an inbound message in state `received`. A second call with the same
   * (channel, accountId, messageId) reports `duplicate: true` and changes nothing.
   */
  journalInbound(input: JournalInboundInput): Promise<JournalInboundResult>;
  getInbound(ref: InboundRef): Promise<InboundRecord | undefined>;
  updateInbound(ref: InboundRef, state: InboundState, options?: UpdateInboundOptions): Promise<InboundRecord>;
  /** Records that never reached `replied` or `failed`, oldest first (resume them on start). */
  listUnfinishedInbound(options?: ListUnfinishedOptions): Promise<InboundRecord[]>;

  // Delivery receipts -------------------------------------------------------------------
  claimDelivery(key: string, details?: DeliveryDetails): Promise<DeliveryClaim>;
  recordDelivery(key: string, platformMessageId: string): Promise<DeliveryReceipt>;
  failDelivery(key: string, error: string): Promise<DeliveryReceipt>;
  getDelivery(key: string): Promise<DeliveryReceipt | undefined>;

  // State records -----------------------------------------------------------------------
  /** The record, or undefined when missing or expired. */
  getState(namespace: string, key: string): Promise<StateRecord | undefined>;
  /** Creates or replaces the record; `value` must be JSON. */
  putState(namespace: string, key: string, value: unknown, options?: PutStateOptions): Promise<StateRecord>;
  /** True when a record was removed. */
  deleteState(namespace: string, key: string): Promise<boolean>;
  /** Unexpired records of a namespace, ordered by key. */
  listState(namespace: string, options?: ListStateOptions): Promise<StateRecord[]>;

  // Maintenance -------------------------------------------------------------------------
  prune(policy: PrunePolicy): Promise<PruneReport>;
  diskUsage(): Promise<DiskUsage>;
  checkIntegrity(): Promise<IntegrityReport>;
  /** Releases the single-instance lock and closes the database. Idempotent. */
  close(): Promise<void>;
}
