/**
 * Transcript export as JSONL, streamed page by page so a session of any size exports in
 * constant memory. The first line is a header describing the transcript; every further
 * line is one entry in sequence order. Rows that fail to parse are exported as `invalid`
 * lines carrying the raw stored text, never skipped.
 */
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SessionsError } from './errors.ts';
import type { SessionStore } from './session-store.ts';

/** The version of the export format (the header's `version`). */
const transcriptExportVersion = 1;

/** Yields the JSONL lines (each ending in a newline) of one transcript. */
export async function* exportTranscriptJsonl(store: SessionStore, sessionId: string): AsyncIterable<string> {
  const info = await store.getTranscript(sessionId);
  if (info === undefined) {
    throw new SessionsError(
      'SESSIONS_TRANSCRIPT_NOT_FOUND',
      `No transcript exists with session id ${sessionId}.`,
      {
        details: { sessionId },
      },
    );
  }
  yield `${JSON.stringify({
    type: 'session',
    version: transcriptExportVersion,
    sessionId: info.sessionId,
    sessionKey: info.sessionKey,
    agentId: info.agentId,
    createdAt: new Date(info.createdAt).toISOString(),
    entryCount: info.entryCount,
    ...(info.archivedAt === undefined
      ? {}
      : { archivedAt: new Date(info.archivedAt).toISOString(), archiveReason: info.archiveReason }),
  })}\n`;
  for await (const entry of store.streamTranscript(sessionId)) {
    const { sessionId: _sessionId, ...line } = entry;
    yield `${JSON.stringify(line)}\n`;
  }
}

/** Writes one transcript as a JSONL file; resolves with the number of entries and bytes written. */
export async function writeTranscriptJsonl(
  store: SessionStore,
  sessionId: string,
  filePath: string,
): Promise<{ entries: number; bytes: number }> {
  if ((await store.getTranscript(sessionId)) === undefined) {
    throw new SessionsError(
      'SESSIONS_TRANSCRIPT_NOT_FOUND',
      `No transcript exists with session id ${sessionId}.`,
      {
        details: { sessionId },
      },
    );
  }
  let entries = -1;
  let bytes = 0;
  async function* counted(): AsyncIterable<string> {
    for await (const line of exportTranscriptJsonl(store, sessionId)) {
      entries += 1;
      bytes += Buffer.byteLength(line);
      yield line;
    }
  }
  await pipeline(Readable.from(counted()), createWriteStream(filePath, { mode: 0o600 }));
  return { entries: Math.max(0, entries), bytes };
}
