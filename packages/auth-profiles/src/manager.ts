/**
 * The auth profile manager: the profiles of every provider (config and state store), their
 * runtime state (cooldowns, disables, last use), and `runWithFailover`, the entry point the
 * gateway calls once per agent run.
 */
import { createHash } from 'node:crypto';
import type { ModelError } from '@switchboard/core-loop';
import {
  type AuthConfig,
  type CooldownSettings,
  parseAuthConfig,
  resolveCooldownSettings,
} from './config.ts';
import {
  emptyProfileState,
  failureReasonOf,
  parseProfileState,
  recordFailure,
  recordSuccess,
} from './cooldown.ts';
import { AuthProfilesError } from './errors.ts';
import { type FailoverContext, runFailover, toAttemptError } from './failover.ts';
import { type OrderedProfile, orderProfiles } from './ordering.ts';
import { type AuthStateStorage, createMemoryAuthStateStorage, type StoredCredential } from './storage.ts';
import type {
  AuthCredential,
  AuthProfile,
  AuthProfilesEvent,
  FailoverRequest,
  FailoverResult,
  FailureWindow,
  ProfileFailureReason,
  ProfileMode,
  ProfileRuntimeState,
  RecordedWindow,
} from './types.ts';

/** Options of `createAuthProfileManager`. */
export interface AuthProfileManagerOptions {
  /** The `auth` config section (raw or parsed; it is validated either way). */
  readonly config?: unknown;
  /** Where runtime state and stored credentials live. Default: in memory. */
  readonly storage?: AuthStateStorage;
  readonly now?: () => number;
  /**
   * Waits while a run waits out a rate limit (see `maxWaitMs` of `runWithFailover`) and before
   * an overload rotation when `overloadedBackoffMs` > 0. Default a timer that an abort of the
   * signal ends at once.
   */
  readonly sleep?: (milliseconds: number, signal?: AbortSignal) => Promise<void>;
  /** The provider of a bare model id (`claude-sonnet-4-6`). Default `anthropic`. */
  readonly defaultProvider?: string;
  /** Receives every event of every run (plus storage errors and state resets). */
  readonly onEvent?: (event: AuthProfilesEvent) => void;
}

/** A window as shown by `status()`. */
export interface WindowStatus {
  readonly reason: ProfileFailureReason;
  readonly since: number;
  readonly until: number;
  readonly remainingMs: number;
  readonly step: number;
}

/** One running per-model cooldown of a profile. */
export interface ModelWindowStatus extends WindowStatus {
  readonly model: string;
}

/** One profile in `status()`. */
export interface ProfileStatus extends AuthProfile {
  /**
   * `ready`: usable for every model; `cooling`: some models are cooling down (see
   * `models`); `disabled`: no model until `disabled.until`; `no_credential`: no secret.
   */
  readonly state: 'ready' | 'cooling' | 'disabled' | 'no_credential';
  readonly lastUsed: number | undefined;
  readonly lastFailureAt: number | undefined;
  readonly failureCounts: Readonly<Partial<Record<ProfileFailureReason, number>>>;
  readonly disabled: WindowStatus | undefined;
  readonly models: readonly ModelWindowStatus[];
}

/** What `status()` returns: every profile with its state, and each provider's order now. */
export interface AuthStatusSnapshot {
  readonly now: number;
  readonly profiles: readonly ProfileStatus[];
  /** Per provider, the order a new run would try (ignoring per-model cooldowns). */
  readonly order: Readonly<Record<string, readonly string[]>>;
  /** Things in the config or store that are ignored (unknown ids in auth.order, …). */
  readonly warnings: readonly string[];
}

interface ProfileRecord {
  readonly id: string;
  readonly provider: string;
  readonly mode: ProfileMode;
  readonly source: 'config' | 'store';
  readonly credential: AuthCredential | undefined;
  readonly fingerprint: string | undefined;
  readonly displayName: string | undefined;
  readonly email: string | undefined;
}

function fingerprintOf(credential: AuthCredential | undefined): string | undefined {
  if (credential === undefined) return undefined;
  const secret = 'apiKey' in credential ? `k:${credential.apiKey}` : `t:${credential.authToken}`;
  return createHash('sha256').update(secret).digest('hex').slice(0, 16);
}

const defaultSleep = (milliseconds: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted === true) return resolve();
    const timer = setTimeout(done, milliseconds);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

function validateStoredCredential(profileId: string, value: unknown): StoredCredential {
  const fail = (field: string, expected: string): never => {
    throw new AuthProfilesError(
      'AUTH_PROFILES_INVALID_CREDENTIAL',
      `credential of profile "${profileId}": ${field} ${expected}`,
      { details: { profileId, field } },
    );
  };
  if (typeof value !== 'object' || value === null) return fail('credential', 'must be an object');
  const record = value as Record<string, unknown>;
  if (typeof record.provider !== 'string' || record.provider.trim() === '')
    fail('provider', 'must be a non-empty string');
  if (record.mode !== 'api_key' && record.mode !== 'token') fail('mode', 'must be "api_key" or "token"');
  const secretField = record.mode === 'api_key' ? 'apiKey' : 'token';
  const secret = record[secretField];
  if (typeof secret !== 'string' || secret === '')
    fail(secretField, `must be a non-empty string for mode "${String(record.mode)}"`);
  for (const field of ['displayName', 'email'] as const) {
    if (record[field] !== undefined && typeof record[field] !== 'string') fail(field, 'must be a string');
  }
  return {
    provider: String(record.provider).trim(),
    mode: record.mode as ProfileMode,
    ...(record.mode === 'api_key' ? { apiKey: secret as string } : { token: secret as string }),
    ...(typeof record.displayName === 'string' ? { displayName: record.displayName } : {}),
    ...(typeof record.email === 'string' ? { email: record.email } : {}),
  };
}

/** Creates a manager and loads its runtime state and stored credentials. */
export async function createAuthProfileManager(
  options: AuthProfileManagerOptions = {},
): Promise<AuthProfileManager> {
  const config = parseAuthConfig(options.config);
  const storage = options.storage ?? createMemoryAuthStateStorage();
  let storedStates: ReadonlyArray<{ readonly profileId: string; readonly state: unknown }>;
  let storedCredentials: ReadonlyArray<{ readonly profileId: string; readonly credential: unknown }>;
  try {
    [storedStates, storedCredentials] = await Promise.all([
      storage.listProfileStates(),
      storage.listCredentials(),
    ]);
  } catch (error) {
    throw new AuthProfilesError(
      'AUTH_PROFILES_STORAGE_FAILED',
      `could not load the auth profile state: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  return new AuthProfileManager(config, storage, options, storedStates, storedCredentials);
}

/**
 * Holds the profiles and their runtime state. Create it with `createAuthProfileManager`.
 * State changes are applied in memory at once (so concurrent runs see them) and written to
 * the storage one profile key at a time.
 */
export class AuthProfileManager {
  readonly #storage: AuthStateStorage;
  readonly #now: () => number;
  readonly #sleep: (milliseconds: number, signal?: AbortSignal) => Promise<void>;
  readonly #defaultProvider: string;
  readonly #onEvent: ((event: AuthProfilesEvent) => void) | undefined;
  readonly #states = new Map<string, ProfileRuntimeState>();
  readonly #stored = new Map<string, StoredCredential>();
  readonly #writes = new Map<string, Promise<void>>();
  #config: AuthConfig;
  #settings: CooldownSettings;
  #profiles = new Map<string, ProfileRecord>();
  #warnings: string[] = [];
  #loadWarnings: string[] = [];
  readonly #context: FailoverContext;

  /** Use `createAuthProfileManager`. */
  constructor(
    config: AuthConfig,
    storage: AuthStateStorage,
    options: AuthProfileManagerOptions,
    storedStates: ReadonlyArray<{ readonly profileId: string; readonly state: unknown }>,
    storedCredentials: ReadonlyArray<{ readonly profileId: string; readonly credential: unknown }>,
  ) {
    this.#config = config;
    this.#settings = resolveCooldownSettings(config.cooldowns);
    this.#storage = storage;
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? defaultSleep;
    this.#defaultProvider = options.defaultProvider ?? 'anthropic';
    this.#onEvent = options.onEvent;
    for (const { profileId, state } of storedStates) {
      const parsed = parseProfileState(state);
      if (parsed === undefined)
        this.#loadWarnings.push(`stored state of profile "${profileId}" is unreadable; starting it fresh`);
      else this.#states.set(profileId, parsed);
    }
    for (const { profileId, credential } of storedCredentials) {
      try {
        this.#stored.set(profileId, validateStoredCredential(profileId, credential));
      } catch (error) {
        this.#loadWarnings.push(`stored ${(error as Error).message}; ignored`);
      }
    }
    this.#rebuild();
    const manager = this;
    this.#context = {
      now: this.#now,
      get settings() {
        return manager.#settings;
      },
      defaultProvider: this.#defaultProvider,
      states: this.#states,
      sleep: this.#sleep,
      explicitOrder: (provider) => this.#config.order?.[provider],
      orderable: () => this.#orderable(),
      eligible: (provider) => this.#eligible(provider),
      profile: (profileId) => {
        const record = this.#profiles.get(profileId);
        return record === undefined
          ? undefined
          : { profile: this.#publicProfile(record), credential: record.credential };
      },
      recordSuccess: (profileId, model) =>
        this.#commit(profileId, recordSuccess(this.#stateOf(profileId), model, this.#now(), this.#settings)),
      recordFailure: (profileId, model, error) => this.#recordFailure(this.#record(profileId), model, error),
      emit: (event) => this.#emit(event),
    };
  }

  /** The cooldown and rotation settings in effect (defaults applied). */
  get settings(): CooldownSettings {
    return this.#settings;
  }

  /** Every profile (without secrets), config ones first in declaration order, then stored ones. */
  profiles(): AuthProfile[] {
    return [...this.#profiles.values()].map((record) => this.#publicProfile(record));
  }

  /** The secret of a profile, shaped for `StreamOptions` / `getApiKey`. Throws for an unknown id. */
  credentialFor(profileId: string): AuthCredential | undefined {
    return this.#record(profileId).credential;
  }

  /** The order a run would try `provider`'s profiles for `model` now. */
  orderFor(provider: string, model: string, options: { readonly preferred?: string } = {}): OrderedProfile[] {
    return orderProfiles({
      provider,
      model,
      now: this.#now(),
      profiles: this.#orderable(),
      explicitOrder: this.#config.order?.[provider],
      states: this.#states,
      preferred: options.preferred,
    });
  }

  /** Replaces the `auth` config (hot reload). Runtime state is kept; a changed key starts clean. */
  updateConfig(config: unknown): void {
    const parsed = parseAuthConfig(config);
    this.#config = parsed;
    this.#settings = resolveCooldownSettings(parsed.cooldowns);
    this.#rebuild();
  }

  /** Stores a credential (api_key or token) under `profileId` in the state store. */
  async putCredential(profileId: string, credential: StoredCredential): Promise<void> {
    if (typeof profileId !== 'string' || profileId.trim() === '') {
      throw new AuthProfilesError(
        'AUTH_PROFILES_INVALID_CREDENTIAL',
        'putCredential: profileId must be a non-empty string',
      );
    }
    const valid = validateStoredCredential(profileId, credential);
    const configured = this.#config.profiles?.[profileId];
    if (
      configured !== undefined &&
      (configured.provider !== valid.provider || configured.mode !== valid.mode)
    ) {
      throw new AuthProfilesError(
        'AUTH_PROFILES_INVALID_CREDENTIAL',
        `credential of profile "${profileId}": auth.profiles.${profileId} is ${configured.provider}/${configured.mode}, the credential is ${valid.provider}/${valid.mode}`,
        { details: { profileId, field: 'mode' } },
      );
    }
    try {
      await this.#storage.putCredential(profileId, valid);
    } catch (error) {
      throw this.#storageError(`could not store the credential of profile "${profileId}"`, error);
    }
    this.#stored.set(profileId, valid);
    this.#rebuild();
  }

  /** Removes a stored credential. */
  async deleteCredential(profileId: string): Promise<void> {
    if (!this.#stored.has(profileId)) this.#record(profileId);
    try {
      await this.#storage.deleteCredential(profileId);
    } catch (error) {
      throw this.#storageError(`could not delete the credential of profile "${profileId}"`, error);
    }
    this.#stored.delete(profileId);
    this.#rebuild();
  }

  /** Forgets a profile's cooldowns, disables and counts (after fixing billing, for example). */
  async clearProfile(profileId: string): Promise<void> {
    this.#record(profileId);
    await this.#commit(profileId, emptyProfileState(this.#profiles.get(profileId)?.fingerprint));
  }

  /** Records a success outside `runWithFailover` (for callers that run their own loop). */
  async recordSuccess(profileId: string, model: string): Promise<void> {
    this.#record(profileId);
    await this.#commit(
      profileId,
      recordSuccess(this.#stateOf(profileId), model, this.#now(), this.#settings),
    );
  }

  /**
   * Records a failure outside `runWithFailover`. Returns the window it opened (or found
   * running), or `undefined` when the error is not held against a key (timeouts, …).
   */
  async recordFailure(profileId: string, model: string, error: unknown): Promise<RecordedWindow | undefined> {
    const record = this.#record(profileId);
    const failure = toAttemptError(error, { provider: record.provider, model });
    const window = await this.#recordFailure(record, model, failure);
    if (window !== undefined) this.#emit({ type: 'failure_recorded', profileId, model, window });
    return window;
  }

  /** Waits until every pending state write has settled. */
  async flush(): Promise<void> {
    await Promise.all(this.#writes.values());
  }

  /** A snapshot for `status`: per profile its state, and per model the running cooldowns with time left. */
  status(): AuthStatusSnapshot {
    const now = this.#now();
    const profiles = [...this.#profiles.values()].map((record): ProfileStatus => {
      const state = this.#states.get(record.id);
      const toStatus = (window: FailureWindow): WindowStatus => ({
        reason: window.reason,
        since: window.since,
        until: window.until,
        remainingMs: window.until - now,
        step: window.step,
      });
      const disabled =
        state?.disabled !== undefined && state.disabled.until > now ? toStatus(state.disabled) : undefined;
      const models = Object.entries(state?.models ?? {})
        .filter(([, window]) => window.until > now)
        .map(([model, window]) => ({ model, ...toStatus(window) }))
        .sort((a, b) => a.until - b.until);
      return {
        ...this.#publicProfile(record),
        state:
          record.credential === undefined
            ? 'no_credential'
            : disabled !== undefined
              ? 'disabled'
              : models.length > 0
                ? 'cooling'
                : 'ready',
        lastUsed: state?.lastUsed,
        lastFailureAt: state?.lastFailureAt,
        failureCounts: state?.failureCounts ?? {},
        disabled,
        models,
      };
    });
    const order: Record<string, readonly string[]> = {};
    for (const provider of new Set([...this.#profiles.values()].map((record) => record.provider))) {
      order[provider] = this.orderFor(provider, '').map((entry) => entry.profileId);
    }
    return { now, profiles, order, warnings: [...this.#loadWarnings, ...this.#warnings] };
  }

  /**
   * Runs one agent run with failover. Tries the requested model with its first usable key;
   * on a failure that is the key's fault, records it and rotates to the next key; lowers
   * the thinking level when the model refuses it; moves on to the fallback models; when
   * nothing is usable but a rate-limited or overloaded model soon is, waits for it (up to
   * `maxWaitMs` in total) and tries again; and throws one `AuthProfilesError`
   * when nothing answered (see the README for the table).
   */
  runWithFailover<T>(request: FailoverRequest<T>): Promise<FailoverResult<T>> {
    return runFailover(this.#context, request);
  }

  // -------------------------------------------------------------------------------------

  #record(profileId: string): ProfileRecord {
    const record = this.#profiles.get(profileId);
    if (record === undefined) {
      const known = [...this.#profiles.keys()];
      throw new AuthProfilesError(
        'AUTH_PROFILES_UNKNOWN_PROFILE',
        `unknown auth profile "${profileId}"; known: ${known.length === 0 ? '(none)' : known.join(', ')}`,
        { details: { profileId, known } },
      );
    }
    return record;
  }

  #stateOf(profileId: string): ProfileRuntimeState {
    return this.#states.get(profileId) ?? emptyProfileState(this.#profiles.get(profileId)?.fingerprint);
  }

  #publicProfile(record: ProfileRecord): AuthProfile {
    return {
      id: record.id,
      provider: record.provider,
      mode: record.mode,
      source: record.source,
      hasCredential: record.credential !== undefined,
      displayName: record.displayName,
      email: record.email,
    };
  }

  #orderable(): Array<{ id: string; provider: string; mode: ProfileMode; hasCredential: boolean }> {
    return [...this.#profiles.values()].map((record) => ({
      id: record.id,
      provider: record.provider,
      mode: record.mode,
      hasCredential: record.credential !== undefined,
    }));
  }

  /** The provider's usable profiles: those of `auth.order[provider]` when set, else all, with a secret. */
  #eligible(provider: string): string[] {
    const explicit = this.#config.order?.[provider];
    const ids = explicit !== undefined && explicit.length > 0 ? explicit : [...this.#profiles.keys()];
    return ids.filter((id) => {
      const record = this.#profiles.get(id);
      return record !== undefined && record.provider === provider && record.credential !== undefined;
    });
  }

  async #recordFailure(
    record: ProfileRecord,
    model: string,
    error: ModelError,
  ): Promise<RecordedWindow | undefined> {
    const reason = failureReasonOf(error);
    if (reason === undefined) return undefined;
    const { state, window } = recordFailure(
      this.#stateOf(record.id),
      { reason, model, provider: record.provider, now: this.#now(), retryAfterMs: error.retryAfterMs },
      this.#settings,
    );
    await this.#commit(record.id, state);
    return window;
  }

  #emit(event: AuthProfilesEvent): void {
    try {
      this.#onEvent?.(event);
    } catch {
      // A broken listener must not break the manager.
    }
  }

  #storageError(what: string, error: unknown): AuthProfilesError {
    return new AuthProfilesError(
      'AUTH_PROFILES_STORAGE_FAILED',
      `${what}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }

  /** Applies a state in memory now and writes it (after any earlier write of the same key). */
  async #commit(profileId: string, state: ProfileRuntimeState): Promise<void> {
    const fingerprint = this.#profiles.get(profileId)?.fingerprint;
    const next =
      fingerprint === undefined || state.fingerprint === fingerprint ? state : { ...state, fingerprint };
    this.#states.set(profileId, next);
    const previous = this.#writes.get(profileId) ?? Promise.resolve();
    const write = previous
      .then(() => this.#storage.putProfileState(profileId, next))
      .catch((error: unknown) => {
        this.#emit({
          type: 'storage_error',
          error: this.#storageError(`could not save the runtime state of profile "${profileId}"`, error),
        });
      });
    this.#writes.set(profileId, write);
    await write;
    if (this.#writes.get(profileId) === write) this.#writes.delete(profileId);
  }

  /** Rebuilds the profile table from the config and the stored credentials. */
  #rebuild(): void {
    const profiles = new Map<string, ProfileRecord>();
    const warnings: string[] = [];
    const credentialOf = (
      mode: ProfileMode,
      apiKey: string | undefined,
      token: string | undefined,
    ): AuthCredential | undefined =>
      mode === 'api_key'
        ? apiKey === undefined
          ? undefined
          : { apiKey }
        : token === undefined
          ? undefined
          : { authToken: token };
    for (const [id, configured] of Object.entries(this.#config.profiles ?? {})) {
      let credential = credentialOf(configured.mode, configured.apiKey, configured.token);
      if (credential === undefined) {
        const stored = this.#stored.get(id);
        if (
          stored !== undefined &&
          stored.provider === configured.provider &&
          stored.mode === configured.mode
        ) {
          credential = credentialOf(stored.mode, stored.apiKey, stored.token);
        } else if (stored !== undefined) {
          warnings.push(
            `auth.profiles.${id} is ${configured.provider}/${configured.mode} but its stored credential is ${stored.provider}/${stored.mode}; the profile has no usable secret`,
          );
        } else {
          warnings.push(
            `auth.profiles.${id} has no ${configured.mode === 'api_key' ? 'apiKey' : 'token'} and none is stored`,
          );
        }
      }
      profiles.set(id, {
        id,
        provider: configured.provider,
        mode: configured.mode,
        source: 'config',
        credential,
        fingerprint: fingerprintOf(credential),
        displayName: configured.displayName ?? this.#stored.get(id)?.displayName,
        email: configured.email ?? this.#stored.get(id)?.email,
      });
    }
    for (const [id, stored] of [...this.#stored].sort(([a], [b]) => a.localeCompare(b))) {
      if (profiles.has(id)) continue;
      const credential = credentialOf(stored.mode, stored.apiKey, stored.token);
      profiles.set(id, {
        id,
        provider: stored.provider,
        mode: stored.mode,
        source: 'store',
        credential,
        fingerprint: fingerprintOf(credential),
        displayName: stored.displayName,
        email: stored.email,
      });
    }
    for (const [provider, ids] of Object.entries(this.#config.order ?? {})) {
      ids.forEach((id, index) => {
        const record = profiles.get(id);
        if (record === undefined)
          warnings.push(`auth.order.${provider}[${index}] names unknown profile "${id}"; skipped`);
        else if (record.provider !== provider) {
          warnings.push(
            `auth.order.${provider}[${index}]: profile "${id}" belongs to provider "${record.provider}"; skipped`,
          );
        }
      });
    }
    this.#profiles = profiles;
    this.#warnings = warnings;
    // A profile whose secret changed starts clean: the failures were the old key's.
    for (const record of profiles.values()) {
      const state = this.#states.get(record.id);
      if (
        state?.fingerprint !== undefined &&
        record.fingerprint !== undefined &&
        state.fingerprint !== record.fingerprint
      ) {
        this.#emit({ type: 'state_reset', profileId: record.id, reason: 'the credential changed' });
        void this.#commit(record.id, emptyProfileState(record.fingerprint));
      }
    }
  }
}
