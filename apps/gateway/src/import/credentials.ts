// Credentials and auth profiles: OpenClaw keeps them per agent (auth-profiles.json and
// auth-state.json in 2026.6, the agent database's auth_profile_store/auth_profile_state in
// 2026.9). Switchboard keeps one set for the gateway: secrets in the state store (as
// `switchboard auth` would), the order per provider in the config's auth.order.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredCredential } from '@switchboard/auth-profiles';
import {
  isRecord,
  type OpenClawLayout,
  openReadOnlyDatabase,
  readJsonFileIfPresent,
  tableExists,
} from './openclaw-source.ts';

/** One agent's credential store as OpenClaw kept it. */
interface OpenClawAuthStore {
  readonly agentId: string;
  /** The file or database it was read from. */
  readonly source: string;
  readonly profiles: Readonly<Record<string, unknown>>;
  readonly order: Readonly<Record<string, readonly string[]>>;
}

export interface CredentialPlan {
  /** Secrets to store, in the order they were found (the default agent's first). */
  readonly credentials: ReadonlyArray<{ readonly profileId: string; readonly credential: StoredCredential }>;
  /** Profiles whose secret is an environment reference: written to the config as `${VAR}`. */
  readonly configProfiles: Readonly<Record<string, Record<string, unknown>>>;
  /** auth.order per provider (the default agent's stored order wins, as it did for that agent). */
  readonly order: Readonly<Record<string, readonly string[]>>;
  /** One line per profile or decision; never a secret. */
  readonly notes: ReadonlyArray<{
    readonly status: 'import' | 'changed' | 'unsupported';
    readonly text: string;
  }>;
}

function orderOf(value: unknown): Record<string, string[]> {
  const order: Record<string, string[]> = {};
  if (!isRecord(value)) return order;
  for (const [provider, ids] of Object.entries(value))
    if (Array.isArray(ids)) order[provider] = ids.filter((id): id is string => typeof id === 'string');
  return order;
}

function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Reads each agent's credential store (the database first, then the JSON files). */
export async function readAuthStores(
  layout: OpenClawLayout,
  agentIds: readonly string[],
): Promise<OpenClawAuthStore[]> {
  const stores: OpenClawAuthStore[] = [];
  for (const agentId of agentIds) {
    const directory = join(layout.agentsDirectory, agentId, 'agent');
    const databasePath = join(directory, 'openclaw-agent.sqlite');
    if (existsSync(databasePath)) {
      const opened = await openReadOnlyDatabase(databasePath);
      const database = opened.database;
      try {
        if (tableExists(database, 'auth_profile_store')) {
          const store = parseJson(
            database.prepare("SELECT store_json FROM auth_profile_store WHERE store_key = 'primary'").get()
              ?.store_json,
          );
          const state = tableExists(database, 'auth_profile_state')
            ? parseJson(
                database
                  .prepare("SELECT state_json FROM auth_profile_state WHERE state_key = 'primary'")
                  .get()?.state_json,
              )
            : undefined;
          if (isRecord(store) && isRecord(store.profiles)) {
            stores.push({
              agentId,
              source: `${databasePath} (auth_profile_store)`,
              profiles: store.profiles,
              order: { ...orderOf(store.order), ...orderOf(isRecord(state) ? state.order : undefined) },
            });
            continue;
          }
        }
      } finally {
        opened.close();
      }
    }
    const profilesPath = join(directory, 'auth-profiles.json');
    const store = readJsonFileIfPresent(profilesPath);
    if (!isRecord(store) || !isRecord(store.profiles)) continue;
    const state = readJsonFileIfPresent(join(directory, 'auth-state.json'));
    stores.push({
      agentId,
      source: profilesPath,
      profiles: store.profiles,
      // Newer builds moved the order to auth-state.json; older ones kept it in the store.
      order: { ...orderOf(store.order), ...orderOf(isRecord(state) ? state.order : undefined) },
    });
  }
  return stores;
}

function environmentReference(reference: unknown): string | undefined {
  if (typeof reference === 'string' && /^\$\{[A-Z_][A-Z0-9_]*\}$/.test(reference)) return reference;
  if (isRecord(reference) && reference.source === 'env' && typeof reference.id === 'string')
    return `\${${reference.id}}`;
  return undefined;
}

/** Decides what each stored profile becomes. `defaultAgentId`'s store is read first. */
export function planCredentials(
  stores: readonly OpenClawAuthStore[],
  defaultAgentId: string,
): CredentialPlan {
  const ordered = [...stores].sort(
    (left, right) => Number(right.agentId === defaultAgentId) - Number(left.agentId === defaultAgentId),
  );
  const credentials: Array<{ profileId: string; credential: StoredCredential }> = [];
  const configProfiles: Record<string, Record<string, unknown>> = {};
  const order: Record<string, string[]> = {};
  const notes: Array<{ status: 'import' | 'changed' | 'unsupported'; text: string }> = [];
  const seen = new Map<string, string>();
  for (const store of ordered) {
    for (const [profileId, value] of Object.entries(store.profiles)) {
      if (!isRecord(value) || typeof value.provider !== 'string') {
        notes.push({
          status: 'unsupported',
          text: `${profileId} (agent ${store.agentId}): not a credential; skipped`,
        });
        continue;
      }
      const fingerprint = JSON.stringify(value);
      const earlier = seen.get(profileId);
      if (earlier !== undefined) {
        if (earlier !== fingerprint)
          notes.push({
            status: 'changed',
            text: `${profileId} (agent ${store.agentId}): a different credential under the same id as agent ${defaultAgentId}'s or an earlier agent's; Switchboard has one set of credentials, the first one is kept`,
          });
        continue;
      }
      seen.set(profileId, fingerprint);
      const type = value.type ?? value.mode;
      const details = {
        ...(typeof value.email === 'string' ? { email: value.email } : {}),
        ...(typeof value.displayName === 'string' ? { displayName: value.displayName } : {}),
      };
      const secret = type === 'api_key' ? value.key : type === 'token' ? value.token : undefined;
      const reference = type === 'api_key' ? value.keyRef : type === 'token' ? value.tokenRef : undefined;
      if ((type === 'api_key' || type === 'token') && typeof secret === 'string' && secret !== '') {
        credentials.push({
          profileId,
          credential: {
            provider: value.provider,
            mode: type,
            ...(type === 'api_key' ? { apiKey: secret } : { token: secret }),
            ...details,
          },
        });
        notes.push({
          status: 'import',
          text: `${profileId} (${value.provider}, ${type}) from ${store.source}`,
        });
      } else if ((type === 'api_key' || type === 'token') && environmentReference(reference) !== undefined) {
        configProfiles[profileId] = {
          provider: value.provider,
          mode: type,
          [type === 'api_key' ? 'apiKey' : 'token']: environmentReference(reference),
          ...details,
        };
        notes.push({
          status: 'changed',
          text: `${profileId} (${value.provider}): a secret reference becomes auth.profiles.${profileId} with ${environmentReference(reference)} in the config`,
        });
      } else if (type === 'oauth') {
        notes.push({
          status: 'unsupported',
          text: `${profileId} (${value.provider}, OAuth login): Switchboard has no OAuth logins; create an API key for ${value.provider} and add it as an api_key profile`,
        });
      } else {
        notes.push({
          status: 'unsupported',
          text: `${profileId} (${value.provider}, ${String(type)}): no usable secret (a reference other than an environment variable, or an unknown type); add the key by hand`,
        });
      }
    }
    for (const [provider, ids] of Object.entries(store.order)) {
      if (order[provider] === undefined) order[provider] = [...ids];
      else if (JSON.stringify(order[provider]) !== JSON.stringify(ids))
        notes.push({
          status: 'changed',
          text: `agent ${store.agentId} ordered ${provider} profiles differently (${ids.join(', ')}); Switchboard has one order per provider, agent ${ordered[0]?.agentId}'s is kept`,
        });
    }
  }
  const usable = new Set([...credentials.map((item) => item.profileId), ...Object.keys(configProfiles)]);
  for (const provider of Object.keys(order))
    order[provider] = order[provider]!.filter((id) => usable.has(id));
  return { credentials, configProfiles, order, notes };
}
