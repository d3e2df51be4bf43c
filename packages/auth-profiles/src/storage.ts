/**
 * Where runtime state (cooldowns, last use, counts) and stored credentials live between
 * restarts. One key per profile, so a failure or a success writes one small value and never
 * rewrites the whole state.
 */
import type { ProfileMode } from './types.ts';

/** A credential kept in the state store (added by `switchboard auth add`, not the config). */
export interface StoredCredential {
  readonly provider: string;
  readonly mode: ProfileMode;
  readonly apiKey?: string | undefined;
  readonly token?: string | undefined;
  readonly displayName?: string | undefined;
  readonly email?: string | undefined;
}

/** The storage the manager needs. Values are plain JSON-safe objects. */
export interface AuthStateStorage {
  /** Every stored runtime state, as written (validated by the manager on load). */
  listProfileStates(): Promise<ReadonlyArray<{ readonly profileId: string; readonly state: unknown }>>;
  putProfileState(profileId: string, state: unknown): Promise<void>;
  deleteProfileState(profileId: string): Promise<void>;
  /** Every stored credential, as written (validated by the manager on load). */
  listCredentials(): Promise<ReadonlyArray<{ readonly profileId: string; readonly credential: unknown }>>;
  putCredential(profileId: string, credential: StoredCredential): Promise<void>;
  deleteCredential(profileId: string): Promise<void>;
}

/**
 * The key-value part of a state store, structurally: `@switchboard/sessions`'s
 * `SessionStore` has these four methods (SQLite-backed, file mode 0600). Return values of
 * `putState`/`deleteState` are ignored (the sessions store returns the record / a boolean),
 * and `getState` is not used: state is loaded once with `listState`.
 */
export interface KeyValueStateStore {
  getState(namespace: string, key: string): Promise<unknown>;
  putState(namespace: string, key: string, value: unknown): Promise<unknown>;
  deleteState(namespace: string, key: string): Promise<unknown>;
  listState(namespace: string): Promise<ReadonlyArray<{ readonly key: string; readonly value: unknown }>>;
}

/** Namespaces used in a `KeyValueStateStore`. */
export interface KeyValueAuthStateOptions {
  /** Default `auth-profiles.state`. */
  readonly stateNamespace?: string;
  /** Default `auth-profiles.credentials`. */
  readonly credentialNamespace?: string;
}

/** The default namespaces of `createKeyValueAuthStateStorage`. */
export const defaultAuthStateNamespaces: { readonly state: string; readonly credentials: string } =
  Object.freeze({
    state: 'auth-profiles.state',
    credentials: 'auth-profiles.credentials',
  });

/** Storage over a key-value state store (the sessions store): one key per profile and namespace. */
export function createKeyValueAuthStateStorage(
  store: KeyValueStateStore,
  options: KeyValueAuthStateOptions = {},
): AuthStateStorage {
  const stateNamespace = options.stateNamespace ?? defaultAuthStateNamespaces.state;
  const credentialNamespace = options.credentialNamespace ?? defaultAuthStateNamespaces.credentials;
  return {
    async listProfileStates() {
      const rows = await store.listState(stateNamespace);
      return rows.map((row) => ({ profileId: row.key, state: row.value }));
    },
    async putProfileState(profileId, state) {
      await store.putState(stateNamespace, profileId, state);
    },
    async deleteProfileState(profileId) {
      await store.deleteState(stateNamespace, profileId);
    },
    async listCredentials() {
      const rows = await store.listState(credentialNamespace);
      return rows.map((row) => ({ profileId: row.key, credential: row.value }));
    },
    async putCredential(profileId, credential) {
      await store.putState(credentialNamespace, profileId, credential);
    },
    async deleteCredential(profileId) {
      await store.deleteState(credentialNamespace, profileId);
    },
  };
}

/** In-memory storage (tests, and gateways run without a state directory). Values are copied. */
export function createMemoryAuthStateStorage(): AuthStateStorage & {
  /** How many writes (puts and deletes) it took, for tests that check writes stay small. */
  readonly writes: number;
} {
  const states = new Map<string, unknown>();
  const credentials = new Map<string, unknown>();
  let writes = 0;
  return {
    get writes() {
      return writes;
    },
    async listProfileStates() {
      return [...states].map(([profileId, state]) => ({ profileId, state: structuredClone(state) }));
    },
    async putProfileState(profileId, state) {
      writes += 1;
      states.set(profileId, structuredClone(state));
    },
    async deleteProfileState(profileId) {
      writes += 1;
      states.delete(profileId);
    },
    async listCredentials() {
      return [...credentials].map(([profileId, credential]) => ({
        profileId,
        credential: structuredClone(credential),
      }));
    },
    async putCredential(profileId, credential) {
      writes += 1;
      credentials.set(profileId, structuredClone(credential));
    },
    async deleteCredential(profileId) {
      writes += 1;
      credentials.delete(profileId);
    },
  };
}
