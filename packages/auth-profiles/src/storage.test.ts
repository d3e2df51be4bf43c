import { ModelError } from '@switchboard/core-loop';
import { describe, expect, it } from 'vitest';
import { AuthProfilesError } from './errors.ts';
import { createAuthProfileManager } from './manager.ts';
import {
  type AuthStateStorage,
  createKeyValueAuthStateStorage,
  createMemoryAuthStateStorage,
  defaultAuthStateNamespaces,
  type KeyValueStateStore,
} from './storage.ts';
import type { AuthProfilesEvent } from './types.ts';

const start = 1_700_000_000_000;
const config = {
  profiles: {
    'anthropic:a': { provider: 'anthropic', mode: 'api_key', apiKey: 'sk-a' },
    'anthropic:b': { provider: 'anthropic', mode: 'api_key', apiKey: 'sk-b' },
  },
  order: { anthropic: ['anthropic:a', 'anthropic:b'] },
};
const rateLimited = new ModelError('rate_limit', '429 rate_limit_error: slow down', { status: 429 });

/** A key-value store like the sessions store's, over maps, that records every call. */
function createMapStore(): KeyValueStateStore & {
  readonly calls: string[];
  readonly data: Map<string, Map<string, unknown>>;
} {
  const data = new Map<string, Map<string, unknown>>();
  const calls: string[] = [];
  const space = (namespace: string) => {
    let entries = data.get(namespace);
    if (entries === undefined) {
      entries = new Map();
      data.set(namespace, entries);
    }
    return entries;
  };
  return {
    calls,
    data,
    async getState(namespace, key) {
      calls.push(`get ${namespace} ${key}`);
      return structuredClone(space(namespace).get(key));
    },
    async putState(namespace, key, value) {
      calls.push(`put ${namespace} ${key}`);
      space(namespace).set(key, structuredClone(value));
    },
    async deleteState(namespace, key) {
      calls.push(`delete ${namespace} ${key}`);
      space(namespace).delete(key);
    },
    async listState(namespace) {
      calls.push(`list ${namespace}`);
      return [...space(namespace)].map(([key, value]) => ({ key, value: structuredClone(value) }));
    },
  };
}

async function rateLimitA(storage: AuthStateStorage, now: () => number) {
  const manager = await createAuthProfileManager({ config, storage, now });
  const result = await manager.runWithFailover({
    model: 'anthropic/claude-sonnet-4-6',
    attempt: async (candidate) =>
      candidate.profileId === 'anthropic:a' ? { ok: false, error: rateLimited } : { ok: true, value: 'hi' },
  });
  return { manager, result };
}

describe('persistence', () => {
  it('keeps cooldowns across a restart: a second manager over the same storage sees them', async () => {
    let now = start;
    const storage = createMemoryAuthStateStorage();
    const { manager } = await rateLimitA(storage, () => now);
    now += 4000;
    const restarted = await createAuthProfileManager({ config, storage, now: () => now });
    expect(restarted.status()).toEqual(manager.status());
    expect(restarted.status().profiles[0]).toMatchObject({
      id: 'anthropic:a',
      state: 'cooling',
      models: [
        { model: 'claude-sonnet-4-6', reason: 'rate_limit', until: start + 10_000, remainingMs: 6000 },
      ],
    });
    const calls: string[] = [];
    await restarted.runWithFailover({
      model: 'anthropic/claude-sonnet-4-6',
      attempt: async (candidate) => {
        calls.push(candidate.profileId ?? '-');
        return { ok: true, value: 1 };
      },
    });
    expect(calls).toEqual(['anthropic:b']);
  });

  it('writes one small key per profile touched, never the whole state', async () => {
    const store = createMapStore();
    await rateLimitA(createKeyValueAuthStateStorage(store), () => start);
    expect(store.calls).toEqual([
      `list ${defaultAuthStateNamespaces.state}`,
      `list ${defaultAuthStateNamespaces.credentials}`,
      `put ${defaultAuthStateNamespaces.state} anthropic:a`,
      `put ${defaultAuthStateNamespaces.state} anthropic:b`,
    ]);
    const a = store.data.get(defaultAuthStateNamespaces.state)?.get('anthropic:a');
    expect(a).toEqual({
      version: 1,
      fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
      lastFailureAt: start,
      failureCounts: { rate_limit: 1 },
      models: { 'claude-sonnet-4-6': { reason: 'rate_limit', since: start, until: start + 10_000, step: 1 } },
    });
    expect(JSON.stringify([...(store.data.get(defaultAuthStateNamespaces.state) ?? [])])).not.toContain(
      'sk-',
    );
    expect(JSON.stringify(a).length).toBeLessThan(300);
  });

  it('uses the namespaces it is given', async () => {
    const store = createMapStore();
    const storage = createKeyValueAuthStateStorage(store, { stateNamespace: 's', credentialNamespace: 'c' });
    const manager = await createAuthProfileManager({ storage, now: () => start });
    await manager.putCredential('anthropic:kv', { provider: 'anthropic', mode: 'token', token: 'tok-1' });
    expect(store.data.get('c')?.get('anthropic:kv')).toEqual({
      provider: 'anthropic',
      mode: 'token',
      token: 'tok-1',
    });
    await manager.recordSuccess('anthropic:kv', 'claude-sonnet-4-6');
    expect(store.data.get('s')?.get('anthropic:kv')).toMatchObject({ lastUsed: start });
  });

  it('starts an unreadable stored state fresh and says so; ignores a bad stored credential', async () => {
    const storage = createMemoryAuthStateStorage();
    await storage.putProfileState('anthropic:a', { version: 9 });
    await storage.putCredential('anthropic:x', { provider: 'anthropic', mode: 'oauth' } as never);
    const manager = await createAuthProfileManager({ config, storage });
    expect(manager.status().warnings).toEqual([
      'stored state of profile "anthropic:a" is unreadable; starting it fresh',
      'stored credential of profile "anthropic:x": mode must be "api_key" or "token"; ignored',
    ]);
    expect(manager.status().profiles.map((profile) => profile.id)).toEqual(['anthropic:a', 'anthropic:b']);
  });

  it('reports a failed write as an event and keeps answering; a failed load fails creation', async () => {
    const events: AuthProfilesEvent[] = [];
    const storage: AuthStateStorage = {
      ...createMemoryAuthStateStorage(),
      putProfileState: async () => {
        throw new Error('disk full');
      },
    };
    const manager = await createAuthProfileManager({
      config,
      storage,
      onEvent: (event) => events.push(event),
    });
    const result = await manager.runWithFailover({
      model: 'claude-sonnet-4-6',
      attempt: async () => ({ ok: true, value: 'still here' }),
    });
    expect(result.value).toBe('still here');
    const failure = events.find((event) => event.type === 'storage_error');
    expect(failure?.type === 'storage_error' && failure.error).toMatchObject({
      code: 'AUTH_PROFILES_STORAGE_FAILED',
      message: 'could not save the runtime state of profile "anthropic:a": disk full',
    });
    const broken: AuthStateStorage = {
      ...createMemoryAuthStateStorage(),
      listProfileStates: async () => {
        throw new Error('database is locked');
      },
    };
    await expect(createAuthProfileManager({ storage: broken })).rejects.toMatchObject({
      code: 'AUTH_PROFILES_STORAGE_FAILED',
      message: 'could not load the auth profile state: database is locked',
    });
  });
});

describe('stored credentials', () => {
  it('adds stored profiles, fills a config profile without a secret, and survives a restart', async () => {
    const storage = createMemoryAuthStateStorage();
    const manager = await createAuthProfileManager({
      storage,
      config: { profiles: { 'anthropic:work': { provider: 'anthropic', mode: 'api_key' } } },
    });
    expect(manager.status().profiles[0]).toMatchObject({ id: 'anthropic:work', state: 'no_credential' });
    expect(manager.status().warnings).toEqual([
      'auth.profiles.anthropic:work has no apiKey and none is stored',
    ]);
    await manager.putCredential('anthropic:work', {
      provider: 'anthropic',
      mode: 'api_key',
      apiKey: 'sk-work',
    });
    await manager.putCredential('anthropic:home', {
      provider: 'anthropic',
      mode: 'token',
      token: 'tok-home',
    });
    expect(manager.credentialFor('anthropic:work')).toEqual({ apiKey: 'sk-work' });
    expect(manager.credentialFor('anthropic:home')).toEqual({ authToken: 'tok-home' });
    const restarted = await createAuthProfileManager({
      storage,
      config: { profiles: { 'anthropic:work': { provider: 'anthropic', mode: 'api_key' } } },
    });
    expect(restarted.profiles()).toEqual([
      { id: 'anthropic:work', provider: 'anthropic', mode: 'api_key', source: 'config', hasCredential: true },
      { id: 'anthropic:home', provider: 'anthropic', mode: 'token', source: 'store', hasCredential: true },
    ]);
    // Round robin puts the token first.
    expect(restarted.orderFor('anthropic', 'claude-sonnet-4-6').map((entry) => entry.profileId)).toEqual([
      'anthropic:home',
      'anthropic:work',
    ]);
    await restarted.deleteCredential('anthropic:home');
    expect(restarted.profiles().map((profile) => profile.id)).toEqual(['anthropic:work']);
  });

  it('refuses a credential that contradicts the config or is malformed, naming the field', async () => {
    const manager = await createAuthProfileManager({ config });
    await expect(
      manager.putCredential('anthropic:a', { provider: 'anthropic', mode: 'token', token: 't' }),
    ).rejects.toThrow('auth.profiles.anthropic:a is anthropic/api_key, the credential is anthropic/token');
    await expect(manager.putCredential('x', { provider: 'anthropic', mode: 'api_key' })).rejects.toThrow(
      'credential of profile "x": apiKey must be a non-empty string for mode "api_key"',
    );
    await expect(manager.deleteCredential('ghost')).rejects.toBeInstanceOf(AuthProfilesError);
  });
});

describe('state maintenance', () => {
  it('starts a profile clean when its key changes', async () => {
    let now = start;
    const storage = createMemoryAuthStateStorage();
    const events: AuthProfilesEvent[] = [];
    const manager = await createAuthProfileManager({
      config,
      storage,
      now: () => now,
      onEvent: (event) => events.push(event),
    });
    await manager.recordFailure(
      'anthropic:a',
      'claude-sonnet-4-6',
      new ModelError('auth', '401 invalid x-api-key', { status: 401 }),
    );
    expect(manager.status().profiles[0]?.state).toBe('disabled');
    now += 1000;
    manager.updateConfig({
      ...config,
      profiles: {
        ...config.profiles,
        'anthropic:a': { provider: 'anthropic', mode: 'api_key', apiKey: 'sk-a-new' },
      },
    });
    expect(manager.status().profiles[0]?.state).toBe('ready');
    expect(events.filter((event) => event.type === 'state_reset')).toEqual([
      { type: 'state_reset', profileId: 'anthropic:a', reason: 'the credential changed' },
    ]);
    await manager.flush();
    const restarted = await createAuthProfileManager({
      config: { profiles: { 'anthropic:a': { provider: 'anthropic', mode: 'api_key', apiKey: 'sk-a-new' } } },
      storage,
      now: () => now,
    });
    expect(restarted.status().profiles[0]?.state).toBe('ready');
    // The old key again: its state is the new key's (clean), not the old failures.
    const old = await createAuthProfileManager({ config, storage, now: () => now });
    expect(old.status().profiles[0]?.state).toBe('ready');
  });

  it('clears a profile on request (after fixing billing)', async () => {
    const manager = await createAuthProfileManager({ config, now: () => start });
    const window = await manager.recordFailure(
      'anthropic:b',
      'claude-sonnet-4-6',
      new ModelError('billing', '402 credit balance too low', { status: 402 }),
    );
    expect(window).toEqual({
      lane: 'disabled',
      reason: 'billing',
      until: start + 5 * 3_600_000,
      step: 1,
      opened: true,
    });
    expect(
      await manager.recordFailure('anthropic:b', 'claude-sonnet-4-6', new ModelError('timeout', 'timed out')),
    ).toBe(undefined);
    await manager.clearProfile('anthropic:b');
    expect(manager.status().profiles[1]).toMatchObject({
      state: 'ready',
      failureCounts: {},
      disabled: undefined,
    });
  });

  it('shows each provider order and the warnings of the config', async () => {
    const manager = await createAuthProfileManager({
      config: { ...config, order: { anthropic: ['anthropic:b', 'ghost', 'anthropic:a'] } },
    });
    const status = manager.status();
    expect(status.order).toEqual({ anthropic: ['anthropic:b', 'anthropic:a'] });
    expect(status.warnings).toEqual(['auth.order.anthropic[1] names unknown profile "ghost"; skipped']);
  });
});
