// OpenClaw's `auth`: API-key and token profiles (OAuth logins are left out with a note),
// the order of profiles per provider, cooldowns.
import { isRecord } from '../openclaw-source.ts';
import { copyIfPresent } from './key-notes.ts';
import type { Mark } from './types.ts';

/** Converts `auth` into `config.auth`. */
export function convertAuth(raw: Record<string, unknown>, config: Record<string, unknown>, mark: Mark): void {
  const auth = raw.auth;
  if (!isRecord(auth)) return;
  const target: Record<string, unknown> = {};
  const dropped = new Set<string>();
  if (isRecord(auth.profiles)) {
    const profiles: Record<string, unknown> = {};
    for (const [id, value] of Object.entries(auth.profiles)) {
      if (!isRecord(value)) continue;
      if (value.mode !== 'api_key' && value.mode !== 'token') {
        dropped.add(id);
        mark(`auth.profiles.${id}`, {
          disposition: 'unsupported',
          message: `mode "${String(value.mode)}" (an OAuth login) is not supported: create an API key for ${String(value.provider)} and add it as an api_key profile`,
        });
        continue;
      }
      const profile: Record<string, unknown> = {};
      copyIfPresent(
        value,
        profile,
        ['provider', 'mode', 'email', 'displayName'],
        `auth.profiles.${id}`,
        `auth.profiles.${id}`,
        mark,
      );
      profiles[id] = profile;
    }
    target.profiles = profiles;
  }
  if (isRecord(auth.order)) {
    const order: Record<string, string[]> = {};
    for (const [provider, ids] of Object.entries(auth.order)) {
      if (!Array.isArray(ids)) continue;
      order[provider] = ids.filter((id): id is string => typeof id === 'string' && !dropped.has(id));
      mark(`auth.order.${provider}`, { disposition: 'mapped', target: `auth.order.${provider}` });
    }
    target.order = order;
  }
  if (isRecord(auth.cooldowns)) {
    target.cooldowns = auth.cooldowns;
    mark('auth.cooldowns', { disposition: 'mapped', target: 'auth.cooldowns' });
  }
  config.auth = target;
}
