// Pairing approvals and allowlists: who may DM each channel account. OpenClaw 2026.6 keeps
// them in credentials/<channel>[-<account>]-allowFrom.json (pending codes in
// <channel>-pairing.json); 2026.9 in the shared database (channel_pairing_allow_entries,
// channel_pairing_requests). Switchboard keeps approvals in the state store, under the
// namespace and key shape of access/pairing.ts, so an approved sender is never asked again.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  isRecord,
  listFiles,
  type OpenClawLayout,
  openReadOnlyDatabase,
  readJsonFile,
  tableExists,
} from './openclaw-source.ts';

/** One approved sender of one channel account. */
interface ApprovedSender {
  readonly channel: string;
  readonly accountId: string;
  readonly senderId: string;
  readonly source: string;
}

interface PairingState {
  readonly approved: readonly ApprovedSender[];
  /** Pending pairing codes (not carried over: a code lives an hour; the sender gets a new one). */
  readonly pendingRequests: number;
  /** Files or rows that could not be attributed to a channel account, with why. */
  readonly problems: readonly string[];
}

/** The namespace access/pairing.ts loads approved senders from. */
export const approvedNamespace = 'pairing-approved';

const allowFromSuffix = '-allowFrom.json';
const pairingSuffix = '-pairing.json';

/** OpenClaw stores normalized ids; a few channels' entries may still carry a prefix. */
function normalizeSenderId(channel: string, entry: string): string {
  const trimmed = entry.trim();
  const prefixes = channel === 'telegram' ? ['telegram:', 'tg:'] : [`${channel}:`];
  for (const prefix of prefixes)
    if (trimmed.toLowerCase().startsWith(prefix)) return trimmed.slice(prefix.length);
  return trimmed;
}

/**
 * `<channel>-allowFrom.json` is the default account; `<channel>-<account>-allowFrom.json` a
 * named one. Channels are the configured ones plus those that have a pairing file.
 */
function parseAllowFromName(
  stem: string,
  channels: readonly string[],
): { channel: string; accountId: string } | undefined {
  const longestFirst = [...channels].sort((left, right) => right.length - left.length);
  for (const channel of longestFirst) {
    if (stem === channel) return { channel, accountId: 'default' };
    if (stem.startsWith(`${channel}-`))
      return { channel, accountId: stem.slice(channel.length + 1).toLowerCase() };
  }
  return undefined;
}

export async function readPairingState(
  layout: OpenClawLayout,
  configuredChannels: readonly string[],
): Promise<PairingState> {
  const approved: ApprovedSender[] = [];
  const problems: string[] = [];
  let pendingRequests = 0;
  const add = (channel: string, accountId: string, entry: unknown, source: string) => {
    if (typeof entry !== 'string' && typeof entry !== 'number') return;
    const senderId = normalizeSenderId(channel, String(entry));
    if (senderId === '' || senderId === '*') return;
    if (
      approved.some(
        (item) => item.channel === channel && item.accountId === accountId && item.senderId === senderId,
      )
    )
      return;
    approved.push({ channel, accountId, senderId, source });
  };

  const files = listFiles(layout.credentialsDirectory);
  const channels = [
    ...new Set([
      ...configuredChannels,
      ...files
        .filter((name) => name.endsWith(pairingSuffix))
        .map((name) => name.slice(0, -pairingSuffix.length)),
      'telegram',
      'discord',
      'slack',
      'whatsapp',
      'signal',
      'imessage',
    ]),
  ];
  for (const name of files) {
    const path = join(layout.credentialsDirectory, name);
    if (name.endsWith(pairingSuffix)) {
      const value = readJsonFile(path);
      if (isRecord(value) && Array.isArray(value.requests)) pendingRequests += value.requests.length;
      continue;
    }
    if (!name.endsWith(allowFromSuffix)) continue;
    const target = parseAllowFromName(name.slice(0, -allowFromSuffix.length), channels);
    if (target === undefined) {
      problems.push(
        `${path}: no known channel matches the file name; add its senders to channels.<id>.allowFrom by hand`,
      );
      continue;
    }
    const value = readJsonFile(path);
    const entries = Array.isArray(value)
      ? value
      : isRecord(value) && Array.isArray(value.allowFrom)
        ? value.allowFrom
        : undefined;
    if (entries === undefined) {
      problems.push(`${path}: expected {"allowFrom": [...]}; skipped`);
      continue;
    }
    for (const entry of entries) add(target.channel, target.accountId, entry, path);
  }

  if (existsSync(layout.stateDatabasePath)) {
    const opened = await openReadOnlyDatabase(layout.stateDatabasePath);
    const database = opened.database;
    try {
      if (tableExists(database, 'channel_pairing_allow_entries')) {
        const rows = database
          .prepare(
            'SELECT channel_key, account_id, entry FROM channel_pairing_allow_entries ORDER BY channel_key, account_id, sort_order',
          )
          .all();
        for (const row of rows)
          add(
            String(row.channel_key),
            String(row.account_id || 'default'),
            row.entry,
            `${layout.stateDatabasePath} (channel_pairing_allow_entries)`,
          );
      }
      if (tableExists(database, 'channel_pairing_requests')) {
        const row = database.prepare('SELECT count(*) AS count FROM channel_pairing_requests').get();
        pendingRequests += Number(row?.count ?? 0);
      }
    } finally {
      opened.close();
    }
  }
  return { approved, pendingRequests, problems };
}

/** The state-store key of an approval (access/pairing.ts's shape). */
export function approvalKey(sender: ApprovedSender): string {
  return `${sender.channel}:${sender.accountId}:${sender.senderId}`;
}
