// @switchboard/sessions: the session store, transcripts, reset policies, lanes and queue
// modes, the inbound journal and delivery receipts.

// Dispatcher: lanes and queue modes.
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
// Transcript export.
export { exportTranscriptJsonl, transcriptExportVersion, writeTranscriptJsonl } from './export.ts';
// Inbound journal state machine.
export { inboundTransitions, unfinishedInboundStates } from './journal.ts';
// Queue text shapes.
export {
  formatCollectPrompt,
  formatOverflowSummary,
  type OverflowSummary,
  summarizeLine,
} from './queue-format.ts';
// Reset policies.
export {
  type ApplyResetPolicyOptions,
  type ApplyResetPolicyResult,
  applyResetPolicy,
  defaultResetTriggers,
  evaluateSessionFreshness,
  type FreshnessInput,
  type FreshnessOptions,
  matchResetTrigger,
  nextDailyBoundary,
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
// The store interface and the backend-neutral entry rules.
export { applySessionPatch, emptyTokenCounters } from './session-entry.ts';
export type { SessionStore } from './session-store.ts';
// The SQLite backend.
export type { LockHolder, ReclaimedLock } from './sqlite/instance-lock.ts';
export {
  createSqliteSessionStore,
  type Durability,
  type SqliteSessionStore,
  type SqliteSessionStoreOptions,
} from './sqlite/sqlite-store.ts';
// Time.
export { createManualTimers, type ManualTimers, systemTimers, type Timers } from './timers.ts';
export { formatCompactionSummary } from './transcript.ts';
// The data model.
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
