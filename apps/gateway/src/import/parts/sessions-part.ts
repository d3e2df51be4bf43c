// The sessions part: each OpenClaw session under the same key, its transcript converted;
// a session imported before is unchanged, one Switchboard already has a conversation under is
// left alone.
import { isRecord } from '../openclaw-source.ts';
import type { PartReport, ReportLine } from '../report-types.ts';
import { readSessions, sessionInputFrom } from '../session-import.ts';
import { convertTranscript } from '../transcript-conversion.ts';
import type { ImportContext } from './context.ts';

/** Imports the sessions of `agentIds`. */
export async function sessionsPart(context: ImportContext, agentIds: readonly string[]): Promise<PartReport> {
  const { layout, store, now } = context;
  const source = await readSessions(layout, agentIds);
  const lines: ReportLine[] = [];
  try {
    for (const session of source.sessions) {
      const { events, invalid } = await session.loadEvents();
      const transcript = convertTranscript(events, now());
      const skippedText = Object.entries(transcript.skipped)
        .map(([type, count]) => `${count} ${type}`)
        .join(', ');
      const subject = `${session.key} (${transcript.entries.length} entries)`;
      const detail = [
        invalid > 0 ? `${invalid} unreadable lines left out` : '',
        skippedText === '' ? '' : `left out: ${skippedText}`,
      ]
        .filter((part) => part !== '')
        .join('; ');
      const withDetail = detail === '' ? {} : { detail };
      if (store === undefined) {
        lines.push({ status: 'import', subject, ...withDetail });
        continue;
      }
      const existing = await store.getSession(session.key);
      const marker = existing?.metadata.importedFrom;
      const info = existing === undefined ? undefined : await store.getTranscript(existing.sessionId);
      if (existing !== undefined && isRecord(marker) && marker.sessionId === session.sessionId) {
        lines.push({ status: 'unchanged', subject });
        continue;
      }
      if (existing !== undefined && (info?.lastSequence ?? 0) > 0) {
        lines.push({
          status: 'kept',
          subject,
          detail: 'Switchboard already has a conversation under this key; left alone',
        });
        continue;
      }
      const { create, patch } = sessionInputFrom(session);
      const { entry } = await store.ensureSession(session.key, create);
      if (transcript.entries.length > 0)
        await store.appendEntries(session.key, transcript.entries, {
          expectedSessionId: entry.sessionId,
          patch,
        });
      else await store.patchSession(session.key, patch, { expectedSessionId: entry.sessionId });
      lines.push({ status: 'imported', subject, ...withDetail });
    }
  } finally {
    source.close();
  }
  for (const problem of source.problems) lines.push({ status: 'problem', subject: problem });
  return { part: 'sessions', lines };
}
