// @switchboard/auth-profiles: credential profiles per provider, failure classes, cooldowns,
// thinking downgrade and model fallback for one agent run.
//
// The curated public API. The cooldown arithmetic, profile ordering, the candidate chain,
// thinking-downgrade and attempt helpers and the words for people are internals behind the
// manager: this package's tests and bench import their module files.

// For the gateway's config: the `auth` section (OpenClaw's shape).
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
// Errors.
export {
  type AuthConfigProblem,
  AuthProfilesError,
  type AuthProfilesErrorCode,
  type AuthProfilesErrorOptions,
  authProfilesErrorCodes,
} from './errors.ts';
export { outcomeFromAssistantMessage } from './failover.ts';
// For the gateway: the manager and the run entry point.
export {
  AuthProfileManager,
  type AuthProfileManagerOptions,
  type AuthStatusSnapshot,
  createAuthProfileManager,
  type ModelWindowStatus,
  type ProfileStatus,
  type WindowStatus,
} from './manager.ts';
// For the gateway and tests: where the manager keeps its state.
export {
  type AuthStateStorage,
  createKeyValueAuthStateStorage,
  createMemoryAuthStateStorage,
  defaultAuthStateNamespaces,
  type KeyValueAuthStateOptions,
  type KeyValueStateStore,
  type StoredCredential,
} from './storage.ts';
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
