// @switchboard/auth-profiles: credential profiles per provider, failure classes, cooldowns,
// thinking downgrade and model fallback for one agent run.

// Config
export {
  type AuthConfig,
  type AuthCooldownsConfig,
  type AuthProfileConfig,
  authConfigSchema,
  authCooldownsConfigSchema,
  authProfileConfigSchema,
  type CooldownSettings,
  defaultCooldownSettings,
  parseAuthConfig,
  resolveCooldownSettings,
} from './config.ts';
// Cooldown arithmetic
export {
  blockingWindow,
  disablingReasons,
  emptyProfileState,
  escalationGraceMs,
  type FailureFacts,
  failureReasonOf,
  isUsableFor,
  parseProfileState,
  profileFailureReasons,
  recordFailure,
  recordSuccess,
  windowDurationMs,
} from './cooldown.ts';
// Words for people
export { describeExhaustion, describeReason, formatDuration, soonestUsable } from './describe.ts';
// Errors
export {
  type AuthConfigProblem,
  AuthProfilesError,
  type AuthProfilesErrorCode,
  type AuthProfilesErrorOptions,
  authProfilesErrorCodes,
} from './errors.ts';
// One run
export { defaultMaxAttempts, outcomeFromAssistantMessage, toAttemptError } from './failover.ts';
// The manager and the run entry point
export {
  AuthProfileManager,
  type AuthProfileManagerOptions,
  type AuthStatusSnapshot,
  createAuthProfileManager,
  type ModelWindowStatus,
  type ProfileStatus,
  type WindowStatus,
} from './manager.ts';
// Models and the candidate chain
export { buildCandidateChain, type CandidateChainInput, formatModel, parseModelRef } from './model-ref.ts';
// Ordering
export {
  type OrderableProfile,
  type OrderedProfile,
  type OrderProfilesInput,
  orderProfiles,
} from './ordering.ts';
// Storage
export {
  type AuthStateStorage,
  createKeyValueAuthStateStorage,
  createMemoryAuthStateStorage,
  defaultAuthStateNamespaces,
  type KeyValueAuthStateOptions,
  type KeyValueStateStore,
  type StoredCredential,
} from './storage.ts';
// Thinking downgrade
export { parseSupportedThinkingLevels, pickThinkingDowngrade, thinkingLevels } from './thinking.ts';
// Types
export type {
  AttemptAction,
  AttemptCandidate,
  AttemptOutcome,
  AuthCredential,
  AuthProfile,
  AuthProfilesEvent,
  CandidateProfileReport,
  FailoverAttempt,
  FailoverCandidateReport,
  FailoverRequest,
  FailoverResult,
  FailoverWait,
  FailureWindow,
  ModelCandidate,
  ModelRef,
  ProfileFailureReason,
  ProfileMode,
  ProfileRuntimeState,
  RecordedWindow,
  SessionAuthPin,
} from './types.ts';
