import type { Message } from '@switchboard/hooks';
import {
  type ContextCompaction,
  formatCompactionSummary,
  type SessionEntry,
  type SessionStore,
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
  // The store's context (cached between turns), which carries the sequence of each message.
  const context = await store.buildContext({ sessionId }, { formatSummary });
  const { compaction } = context;
  let storedRatio: number | undefined;
  // Without a readable compaction entry no message carries pre-compaction usage.
  let usageBoundary = 0;
  if (compaction !== undefined) {
    const details = readCompactionDetails(compaction.details);
    storedRatio = details?.calibrationRatio;
    // Copies of kept messages appended right after the entry carry pre-compaction usage too.
    usageBoundary =
      details?.keptCopied === true ? compaction.sequence + details.messagesKept : compaction.sequence;
  }
  const messages = compaction === undefined ? context.messages : context.messages.slice(1);
  const sequences = context.sequences;
  let usageFromIndex = 0;
  for (let index = 0; index < sequences.length; index += 1) {
    if ((sequences[index] as number) <= usageBoundary) usageFromIndex = index + 1;
  }
  return {
    session,
    sessionId,
    compaction,
    summaryMessage: compaction === undefined ? undefined : context.messages[0],
    messages,
    sequences,
    usageFromIndex,
    storedRatio,
    lastSequence: context.lastSequence,
    problems: context.problems,
  };
}
