// What operators read about runs: a run found by a short reference, a one-line summary, and
// the child's transcript page (also after cleanup archived the child session). Used by the
// `/subagents` directive and the `subagents.log` method (the CLI formats its JSON alike).
import type { SessionStore } from '@switchboard/sessions';
import type { SubagentRunRecord } from './run-record.ts';
import { type HistoryPage, readHistoryPage } from './session-history.ts';

/**
 * Finds a run by `#n` or `n` (its place in the newest-first list), its run id, or a unique
 * prefix of at least four characters. Returns an explanation when it matches none or several.
 */
export function findRun(
  records: readonly SubagentRunRecord[],
  reference: string,
): SubagentRunRecord | { error: string } {
  const trimmed = reference.trim();
  const index = /^#?(\d{1,3})$/.exec(trimmed)?.[1];
  if (index !== undefined) {
    const record = records[Number(index) - 1];
    return record ?? { error: `there is no run #${index} (${records.length} listed)` };
  }
  const exact = records.find((record) => record.runId === trimmed);
  if (exact !== undefined) return exact;
  if (trimmed.length < 4)
    return { error: `"${trimmed}" is too short: give #n, a run id, or 4+ of its characters` };
  const matches = records.filter((record) => record.runId.startsWith(trimmed));
  if (matches.length === 1) return matches[0]!;
  return {
    error:
      matches.length === 0
        ? `no run matches "${trimmed}"`
        : `"${trimmed}" matches ${matches.length} runs; give more of the id`,
  };
}

function duration(record: SubagentRunRecord, now: number): string {
  const seconds = Math.round(((record.endedAt ?? now) - record.startedAt) / 1000);
  return seconds < 120 ? `${seconds}s` : `${Math.round(seconds / 60)}m`;
}

/** `#1 3f2a9c1e running 12s  label (agent main)` plus the outbox state once it ended. */
export function runLine(record: SubagentRunRecord, position: number, now: number): string {
  const status = record.outcome ?? 'running';
  const announce =
    record.outcome === undefined
      ? ''
      : `, ${record.announce.state}${record.announce.reason === undefined ? '' : ` (${record.announce.reason})`}`;
  const label = record.label ?? (record.task.length > 60 ? `${record.task.slice(0, 60)}…` : record.task);
  return `#${position} ${record.runId.slice(0, 8)} ${status}${announce} ${duration(record, now)}  ${label} (agent ${record.agentId})`;
}

export interface RunLog extends HistoryPage {
  readonly runId: string;
  readonly childSessionKey: string;
  readonly sessionId?: string;
  /** The child session was archived by cleanup; the page comes from its archived transcript. */
  readonly archived: boolean;
}

/** A page of the child's transcript: its current session, else its newest archived transcript. */
export async function readRunLog(
  store: SessionStore,
  record: SubagentRunRecord,
  page: { readonly limit?: number; readonly before?: number } = {},
): Promise<RunLog> {
  const base = { runId: record.runId, childSessionKey: record.childSessionKey };
  const session = await store.getSession(record.childSessionKey);
  let sessionId = session?.sessionId;
  if (sessionId === undefined) {
    const transcripts = await store.listTranscripts({ sessionKey: record.childSessionKey });
    sessionId = transcripts.sort((left, right) => right.createdAt - left.createdAt)[0]?.sessionId;
  }
  if (sessionId === undefined) return { ...base, archived: false, messages: [], hasMore: false };
  return {
    ...base,
    sessionId,
    archived: session === undefined,
    ...(await readHistoryPage(store, {
      sessionId,
      includeTools: true,
      limit: page.limit,
      before: page.before,
    })),
  };
}

/** The log as chat text: one line per message, each cut short. */
export function logText(log: RunLog, record: SubagentRunRecord): string {
  const header = `Run ${record.runId} (${record.outcome ?? 'running'})${log.archived ? ', archived' : ''}: ${record.childSessionKey}`;
  if (log.messages.length === 0) return `${header}\n(no messages yet)`;
  const lines = log.messages.map((message) => {
    const text = message.text.replace(/\s+/g, ' ').trim();
    const tools = message.tools === undefined ? '' : ` [${message.tools.join(', ')}]`;
    return `${message.role}${tools}: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`;
  });
  const older =
    log.hasMore && log.nextBefore !== undefined
      ? [`(older messages: switchboard subagents log ${record.runId} --before ${log.nextBefore})`]
      : [];
  return [header, ...lines, ...older].join('\n');
}
