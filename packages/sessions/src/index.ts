// @switchboard/sessions: the session store, transcripts, reset policies, lanes and queue
// modes, the inbound journal and delivery receipts.
//
// The curated public API. The journal's transition table, `emptyTokenCounters`, the queue
// text helpers and the time helpers are internals: this package's tests and benches import
// their module files. The rules a backend applies are exported for other backends.

// For other store backends (@switchboard/store-postgres): the rules every backend applies, so
// each behaves like the SQLite store (entry patches, transcript encoding and context
// assembly, the journal's transitions, argument checks, the row mapping of the shared columns).
export { recordingOf } from './delivery-rules.ts';
// For the gateway: the dispatcher (lanes and queue modes).
export {
  type AbortSessionResult,
  type ActiveRun,
  type BatchKind,
  createSessionDispatcher,
  type DispatcherEvent,
  type DispatcherStats,
  type DispatchMessage,
  type DropReason,
  defaultQueueSettings,
  type EnqueueResult,
  type QueuedMessage,
  type QueueSettings,
  type RunBatch,
  resolveQueueSettings,
  type SessionDispatcher,
  type SessionDispatcherOptions,
  type SessionLaneStatus,
} from './dispatcher.ts';
// Errors.
export { SessionsError, type SessionsErrorCode, sessionsErrorCodes } from './errors.ts';
// For operators and the CLI: transcript export.
export { exportTranscriptJsonl, writeTranscriptJsonl } from './export.ts';
export { assertInboundTransition, describeInbound } from './journal.ts';
// For the gateway: the prompt a `collect` batch becomes.
export { formatCollectPrompt } from './queue-format.ts';
// For the gateway and config validation: reset policies.
export {
  type ApplyResetPolicyOptions,
  type ApplyResetPolicyResult,
  applyResetPolicy,
  evaluateSessionFreshness,
  type FreshnessInput,
  type FreshnessOptions,
  matchResetTrigger,
  type ResetContext,
  type ResetMode,
  type ResetPolicyConfig,
  type ResetTriggerMatch,
  type ResolvedResetPolicy,
  resolveResetPolicy,
  type SessionFreshness,
  type SessionResetConfig,
  validateResetConfig,
} from './reset-policy.ts';
export {
  applySessionPatch,
  createSessionEntry,
  requireKey,
  resetSessionEntry,
  validateSessionPatch,
} from './session-entry.ts';
// For every package that reads or writes sessions: the store interface, split by role...
export type {
  DeliveryReceiptStore,
  InboundJournalStore,
  SessionEntryStore,
  SessionStore,
  StateRecordStore,
  StoreMaintenance,
  TranscriptStore,
} from './session-store.ts';
// ...and its SQLite backend.
export type { LockHolder, ReclaimedLock } from './sqlite/instance-lock.ts';
export {
  createSqliteSessionStore,
  type Durability,
  type SqliteSessionStore,
  type SqliteSessionStoreOptions,
} from './sqlite/sqlite-store.ts';
export {
  decodeCursor,
  encodeCursor,
  encodeInboundPayload,
  encodeStateValue,
  requireCount,
  requireRef,
  requireState,
} from './store-arguments.ts';
export {
  activityMinute,
  type DeliveryRow,
  deliveryFromRow,
  type InboundRow,
  inboundFromRow,
  type SessionRow,
  type StateRow,
  sessionColumns,
  sessionFromRow,
  sessionValues,
  stateFromRow,
  type TranscriptRow,
  transcriptFromRow,
} from './store-rows.ts';
// The dispatcher's clock seam (tests drive it with `@switchboard/sessions/internal`'s manual timers).
export type { Timers } from './timers.ts';
// For compaction: how a compaction entry reads in the context.
export {
  assembleContext,
  contextStartSequence,
  decodeEntry,
  encodeEntries,
  formatCompactionSummary,
} from './transcript.ts';
// The data model: the types of the store's methods' arguments and results.
export type {
  AppendOptions,
  AppendResult,
  ArchiveReason,
  BuildContextOptions,
  ChatType,
  CompactionEntryBody,
  ContextCompaction,
  CreateSessionInput,
  CustomEntryBody,
  CustomMessageEntryBody,
  DeleteSessionOptions,
  DeleteSessionResult,
  DeliveryClaim,
  DeliveryDetails,
  DeliveryReceipt,
  DeliveryRoute,
  DeliveryState,
  DiskUsage,
  EnsureSessionResult,
  InboundRecord,
  InboundRef,
  InboundState,
  IntegrityReport,
  InvalidTranscriptEntry,
  JournalInboundInput,
  JournalInboundResult,
  ListStateOptions,
  ListUnfinishedOptions,
  MessageEntryBody,
  ModelChangeEntryBody,
  NewTranscriptEntry,
  PrunePolicy,
  PruneReport,
  PutStateOptions,
  QueueDropPolicy,
  QueueMode,
  QueueOverrides,
  ReadTranscriptOptions,
  ResetReason,
  ResetSessionOptions,
  ResetSessionResult,
  SessionContext,
  SessionEntry,
  SessionListQuery,
  SessionPage,
  SessionPatch,
  StateRecord,
  StreamTranscriptOptions,
  TokenCounters,
  TranscriptEntry,
  TranscriptEntryBody,
  TranscriptInfo,
  TranscriptListQuery,
  TranscriptPosition,
  TranscriptProblem,
  UpdateInboundOptions,
  UsageDelta,
} from './types.ts';
