// Sessions: the row behind each session key (sessions.json in 2026.6, session_nodes in the
// agent database of 2026.9) and its transcript, imported under the same session key so a
// channel message routes into the conversation it had in OpenClaw.
import { existsSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { CreateSessionInput, QueueOverrides, SessionPatch } from '@switchboard/sessions';
import {
  isRecord,
  type OpenClawDatabase,
  type OpenClawLayout,
  openReadOnlyDatabase,
  readJsonFile,
  readJsonLines,
  tableExists,
} from './openclaw-source.ts';

interface OpenClawSession {
  readonly agentId: string;
  readonly key: string;
  readonly sessionId: string;
  readonly entry: Readonly<Record<string, unknown>>;
  /** Where the transcript is: a JSONL file or `<database> (transcript_events)`. */
  readonly source: string;
  /** The transcript's events (header included); `invalid` counts unreadable lines or rows. */
  loadEvents(): Promise<{ events: unknown[]; invalid: number }>;
}

interface SessionSource {
  readonly sessions: readonly OpenClawSession[];
  readonly problems: readonly string[];
  /** Closes the databases the sessions read from. */
  close(): void;
}

async function decompressZstd(bytes: Uint8Array): Promise<string | undefined> {
  const zlib = await import('node:zlib');
  const decompress = (zlib as { zstdDecompressSync?: (buffer: Uint8Array) => Buffer }).zstdDecompressSync;
  return decompress === undefined ? undefined : decompress(bytes).toString('utf8');
}

function readDatabaseEvents(
  database: DatabaseSync,
  sessionId: string,
): () => Promise<{ events: unknown[]; invalid: number }> {
  return async () => {
    const rows = database
      .prepare('SELECT event_json, event_zstd FROM transcript_events WHERE session_id = ? ORDER BY seq')
      .all(sessionId);
    const events: unknown[] = [];
    let invalid = 0;
    for (const row of rows) {
      const text =
        typeof row.event_json === 'string'
          ? row.event_json
          : row.event_zstd instanceof Uint8Array
            ? await decompressZstd(row.event_zstd)
            : undefined;
      try {
        if (text === undefined) throw new Error('no readable event');
        events.push(JSON.parse(text));
      } catch {
        invalid += 1;
      }
    }
    return { events, invalid };
  };
}

/** Finds every session of every agent (the database first, then sessions.json). */
export async function readSessions(
  layout: OpenClawLayout,
  agentIds: readonly string[],
): Promise<SessionSource> {
  const sessions: OpenClawSession[] = [];
  const problems: string[] = [];
  const databases: OpenClawDatabase[] = [];
  for (const agentId of agentIds) {
    const databasePath = join(layout.agentsDirectory, agentId, 'agent', 'openclaw-agent.sqlite');
    if (existsSync(databasePath)) {
      const opened = await openReadOnlyDatabase(databasePath);
      databases.push(opened);
      const database = opened.database;
      if (tableExists(database, 'session_nodes') && tableExists(database, 'transcript_events')) {
        const rows = database
          .prepare(
            'SELECT session_key, current_session_id, entry_json FROM session_nodes ORDER BY session_key',
          )
          .all();
        for (const row of rows) {
          let entry: unknown;
          try {
            entry = JSON.parse(String(row.entry_json));
          } catch {
            problems.push(
              `${databasePath}: session ${String(row.session_key)} has an unreadable entry_json; skipped`,
            );
            continue;
          }
          const sessionId = String(row.current_session_id);
          sessions.push({
            agentId,
            key: String(row.session_key),
            sessionId,
            entry: isRecord(entry) ? entry : {},
            source: `${databasePath} (transcript_events)`,
            loadEvents: readDatabaseEvents(database, sessionId),
          });
        }
        continue;
      }
    }
    const directory = join(layout.agentsDirectory, agentId, 'sessions');
    const storePath = join(directory, 'sessions.json');
    if (!existsSync(storePath)) continue;
    const store = readJsonFile(storePath);
    if (!isRecord(store)) {
      problems.push(`${storePath}: expected an object of session keys; skipped`);
      continue;
    }
    for (const [key, entry] of Object.entries(store)) {
      if (!isRecord(entry) || typeof entry.sessionId !== 'string') {
        problems.push(`${storePath}: session ${key} has no sessionId; skipped`);
        continue;
      }
      const file =
        typeof entry.sessionFile === 'string'
          ? resolve(directory, entry.sessionFile)
          : join(directory, `${entry.sessionId}.jsonl`);
      // OpenClaw requires the file inside the sessions directory; so does the import.
      if (!file.startsWith(directory + sep)) {
        problems.push(`${storePath}: session ${key} names a transcript outside ${directory}; skipped`);
        continue;
      }
      sessions.push({
        agentId,
        key,
        sessionId: entry.sessionId,
        entry,
        source: file,
        loadEvents: async () => {
          if (!existsSync(file)) return { events: [], invalid: 0 };
          const { values, invalid } = readJsonLines(file);
          return { events: values, invalid };
        },
      });
    }
  }
  return {
    sessions,
    problems,
    close() {
      for (const database of databases) database.close();
    },
  };
}

const queueModes = new Set(['collect', 'steer', 'followup', 'interrupt']);
const queueDrops = new Set(['old', 'new', 'summarize']);

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== ''
    ? value
    : typeof value === 'number'
      ? String(value)
      : undefined;
}

/** The agent a session key belongs to (`agent:<id>:…`), else the agent directory it was in. */
function agentOfSession(session: OpenClawSession): string {
  const match = /^agent:([^:]+):/.exec(session.key);
  return match?.[1] ?? session.agentId;
}

/** The marker an imported session carries (metadata.importedFrom). */
interface ImportMarker {
  readonly source: 'openclaw';
  readonly sessionId: string;
}

/** The session row Switchboard creates, from OpenClaw's entry. */
export function sessionInputFrom(session: OpenClawSession): {
  create: CreateSessionInput;
  patch: SessionPatch;
} {
  const entry = session.entry;
  const delivery = isRecord(entry.deliveryContext) ? entry.deliveryContext : {};
  const origin = isRecord(entry.origin) ? entry.origin : {};
  const chatType =
    entry.chatType === 'direct' || entry.chatType === 'group' || entry.chatType === 'channel'
      ? entry.chatType
      : entry.chatType === 'room'
        ? 'channel'
        : undefined;
  const channel =
    text(entry.lastChannel) ?? text(delivery.channel) ?? text(entry.channel) ?? text(origin.provider);
  const to = text(entry.lastTo) ?? text(delivery.to);
  const accountId = text(entry.lastAccountId) ?? text(delivery.accountId) ?? text(origin.accountId);
  const threadId = text(entry.lastThreadId) ?? text(delivery.threadId);
  const queue: Record<string, unknown> = {};
  if (queueModes.has(entry.queueMode as string)) queue.mode = entry.queueMode;
  if (typeof entry.queueDebounceMs === 'number') queue.debounceMs = entry.queueDebounceMs;
  if (typeof entry.queueCap === 'number' && entry.queueCap > 0) queue.cap = entry.queueCap;
  if (queueDrops.has(entry.queueDrop as string)) queue.drop = entry.queueDrop;
  const kept: Record<string, unknown> = {};
  for (const key of [
    'verboseLevel',
    'reasoningLevel',
    'elevatedLevel',
    'sendPolicy',
    'groupActivation',
    'subject',
  ])
    if (entry[key] !== undefined) kept[key] = entry[key];
  const create: CreateSessionInput = {
    agentId: agentOfSession(session),
    chatType,
    ...((text(entry.channel) ?? channel) ? { channel: (text(entry.channel) ?? channel) as string } : {}),
    label: text(entry.label),
    displayName: text(entry.displayName),
    ...(channel !== undefined && to !== undefined
      ? {
          lastRoute: {
            channel,
            to,
            accountId,
            threadId,
            peerKind: chatType,
          },
        }
      : {}),
    parentSessionKey: text(entry.parentSessionKey),
    providerOverride: text(entry.providerOverride),
    modelOverride: text(entry.modelOverride),
    authProfileOverride: text(entry.authProfileOverride),
    thinkingLevel: text(entry.thinkingLevel),
    ...(Object.keys(queue).length === 0 ? {} : { queue: queue as QueueOverrides }),
    ...(typeof entry.lastInteractionAt === 'number' ? { lastInteractionAt: entry.lastInteractionAt } : {}),
  };
  const marker: ImportMarker = { source: 'openclaw', sessionId: session.sessionId };
  const patch: SessionPatch = {
    ...(text(entry.modelProvider) !== undefined && text(entry.model) !== undefined
      ? { modelProvider: text(entry.modelProvider) as string, model: text(entry.model) as string }
      : {}),
    ...(typeof entry.contextTokens === 'number' ? { contextTokens: entry.contextTokens } : {}),
    addUsage: {
      input: typeof entry.inputTokens === 'number' ? entry.inputTokens : 0,
      output: typeof entry.outputTokens === 'number' ? entry.outputTokens : 0,
      cacheRead: typeof entry.cacheRead === 'number' ? entry.cacheRead : 0,
      cacheWrite: typeof entry.cacheWrite === 'number' ? entry.cacheWrite : 0,
      costUsd: typeof entry.estimatedCostUsd === 'number' ? entry.estimatedCostUsd : 0,
    },
    metadata: {
      importedFrom: marker,
      ...(Object.keys(kept).length === 0 ? {} : { openclaw: kept }),
    },
  };
  return { create, patch };
}
