import type { Message } from '@switchboard/hooks';
import {
  type ContextCompaction,
  formatCompactionSummary,
  type SessionEntry,
  type SessionStore,
  type TranscriptEntry,
  type TranscriptProblem,
} from '@switchboard/sessions';
import { CompactionError } from './errors.ts';
import { readCompactionDetails } from './outcome.ts';

/**
 * A session's model context as compaction needs it: the latest summary, and the messages
 * after it with the transcript sequence of each (to name the first kept entry), plus what
 * tells fresh usage from usage reported before the latest compaction.
 */
export interface LoadedSessionContext {
  readonly session: SessionEntry;
  readonly sessionId: string;
  /** The latest compaction, if any. */
  readonly compaction: ContextCompaction | undefined;
  /** The summary message the model sees first (`formatSummary` of the compaction). */
  readonly summaryMessage: Message | undefined;
  /** Messages after the summary, oldest first. */
  readonly messages: readonly Message[];
  /** The transcript sequence of each message. */
  readonly sequences: readonly number[];
  /**
   * Index of the first message written after the latest compaction: only usage reported
   * from there on describes the current context.
   */
  readonly usageFromIndex: number;
  /** The calibration ratio recorded with the latest compaction. */
  readonly storedRatio: number | undefined;
  /** The last sequence of the transcript. */
  readonly lastSequence: number;
  /** Entries that could not be read (left out, as `buildContext` does). */
  readonly problems: readonly TranscriptProblem[];
}

/** What the context would look like to the model: the summary message, then the messages. */
export function contextMessages(context: LoadedSessionContext): Message[] {
  return context.summaryMessage === undefined
    ? [...context.messages]
    : [context.summaryMessage, ...context.messages];
}

/**
 * Reads a session's context from the store, the same entries `SessionStore.buildContext`
 * returns, with their sequences. Throws `COMPACTION_SESSION_NOT_FOUND` for an unknown key.
 */
export async function loadSessionContext(
  store: SessionStore,
  sessionKey: string,
  formatSummary: (compaction: ContextCompaction) => Message = formatCompactionSummary,
): Promise<LoadedSessionContext> {
  const session = await store.getSession(sessionKey);
  if (session === undefined) {
    throw new CompactionError(
      'COMPACTION_SESSION_NOT_FOUND',
      `No session exists under the key ${JSON.stringify(sessionKey)}.`,
      { details: { sessionKey } },
    );
  }
  const { sessionId } = session;
  const info = await store.getTranscript(sessionId);
  const problems: TranscriptProblem[] = [];
  let point: TranscriptEntry | undefined;
  const lastCompactionSequence = info?.lastCompactionSequence;
  if (lastCompactionSequence !== undefined) {
    point = (
      await store.readTranscript(sessionId, {
        fromSequence: lastCompactionSequence,
        toSequence: lastCompactionSequence,
      })
    )[0];
  }
  let compaction: ContextCompaction | undefined;
  let storedRatio: number | undefined;
  let start = 1;
  let usageBoundary = 0;
  if (point?.type === 'compaction') {
    compaction = {
      sequence: point.sequence,
      timestamp: point.timestamp,
      summary: point.summary,
      firstKeptSequence: point.firstKeptSequence,
      tokensBefore: point.tokensBefore,
      tokensAfter: point.tokensAfter,
    };
    const details = readCompactionDetails(point.details);
    storedRatio = details?.calibrationRatio;
    // Copies of kept messages appended right after the entry carry pre-compaction usage too.
    if (details?.keptCopied === true) usageBoundary = point.sequence + details.messagesKept;
    else usageBoundary = point.sequence;
    start = point.firstKeptSequence;
  } else if (point !== undefined) {
    problems.push({
      sessionId,
      sequence: point.sequence,
      error: `the latest compaction entry cannot be read (${point.type === 'invalid' ? point.error : `it is a ${point.type} entry`}); the context starts after it`,
    });
    start = point.sequence + 1;
    usageBoundary = point.sequence;
  }
  const entries = await store.readTranscript(sessionId, { fromSequence: start });
  const messages: Message[] = [];
  const sequences: number[] = [];
  let usageFromIndex = 0;
  for (const entry of entries) {
    if (entry.sequence === point?.sequence) continue;
    if (entry.type === 'invalid') {
      problems.push({ sessionId, sequence: entry.sequence, error: entry.error });
      continue;
    }
    let message: Message | undefined;
    if (entry.type === 'message') message = entry.message;
    else if (entry.type === 'custom_message') {
      message = { role: 'user', content: entry.content, timestamp: entry.timestamp };
    }
    if (message === undefined) continue;
    if (entry.sequence <= usageBoundary) usageFromIndex = messages.length + 1;
    messages.push(message);
    sequences.push(entry.sequence);
  }
  const lastSequence = info?.lastSequence ?? entries.at(-1)?.sequence ?? 0;
  return {
    session,
    sessionId,
    compaction,
    summaryMessage: compaction === undefined ? undefined : formatSummary(compaction),
    messages,
    sequences,
    usageFromIndex,
    storedRatio,
    lastSequence: Math.max(lastSequence, entries.at(-1)?.sequence ?? 0),
    problems,
  };
}
