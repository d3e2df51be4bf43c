/**
 * Backend-neutral transcript rules: validating entries before they are written, encoding
 * them for storage, decoding stored rows (a row that fails to parse becomes an `invalid`
 * entry, never a silent gap) and assembling the model context.
 */
import type { Message, UserMessage } from '@switchboard/hooks';
import { SessionsError } from './errors.ts';
import type {
  ContextCompaction,
  MessageEntryBody,
  NewTranscriptEntry,
  SessionContext,
  TranscriptEntry,
  TranscriptEntryBody,
  TranscriptProblem,
} from './types.ts';

/** The entry types a transcript stores. */
const transcriptEntryTypes: readonly TranscriptEntryBody['type'][] = [
  'message',
  'compaction',
  'model_change',
  'custom',
  'custom_message',
];

const entryTypeSet: ReadonlySet<string> = new Set(transcriptEntryTypes);

type Check = string | undefined;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function checkBlocks(blocks: unknown, allowed: ReadonlySet<string>, path: string): Check {
  if (!Array.isArray(blocks)) return `${path} must be an array of content blocks`;
  for (let index = 0; index < blocks.length; index += 1) {
    const block: unknown = blocks[index];
    // Paths are only built for the message of a failure: validation runs on every append.
    const at = (): string => `${path}[${index}]`;
    if (!isRecord(block) || typeof block.type !== 'string') return `${at()} must be an object with a type`;
    if (!allowed.has(block.type)) {
      return `${at()}.type must be one of ${[...allowed].join(', ')}; got "${block.type}"`;
    }
    if (block.type === 'text' && typeof block.text !== 'string') return `${at()}.text must be a string`;
    if (block.type === 'thinking' && typeof block.thinking !== 'string')
      return `${at()}.thinking must be a string`;
    if (block.type === 'image' && (typeof block.data !== 'string' || typeof block.mediaType !== 'string')) {
      return `${at()} must have string data and mediaType`;
    }
    if (block.type === 'toolCall' && (typeof block.id !== 'string' || typeof block.name !== 'string')) {
      return `${at()} must have a string id and name`;
    }
  }
  return undefined;
}

const userBlocks: ReadonlySet<string> = new Set(['text', 'image']);
const assistantBlocks: ReadonlySet<string> = new Set(['text', 'thinking', 'toolCall']);

/** Why `value` is not a valid message, or undefined when it is. */
function checkMessage(value: unknown, path: string): Check {
  if (!isRecord(value)) return `${path} must be an object`;
  if (value.role !== 'user' && value.role !== 'assistant' && value.role !== 'toolResult') {
    return `${path}.role must be user, assistant or toolResult; got ${JSON.stringify(value.role)}`;
  }
  if (!isFiniteNumber(value.timestamp)) return `${path}.timestamp must be a number`;
  switch (value.role) {
    case 'user':
      if (typeof value.content === 'string') return undefined;
      return checkBlocks(value.content, userBlocks, `${path}.content`);
    case 'assistant':
      if (typeof value.provider !== 'string') return `${path}.provider must be a string`;
      if (typeof value.model !== 'string') return `${path}.model must be a string`;
      if (typeof value.stopReason !== 'string') return `${path}.stopReason must be a string`;
      if (!isRecord(value.usage)) return `${path}.usage must be an object`;
      return checkBlocks(value.content, assistantBlocks, `${path}.content`);
    case 'toolResult':
      if (typeof value.toolCallId !== 'string') return `${path}.toolCallId must be a string`;
      if (typeof value.toolName !== 'string') return `${path}.toolName must be a string`;
      if (typeof value.isError !== 'boolean') return `${path}.isError must be a boolean`;
      return checkBlocks(value.content, userBlocks, `${path}.content`);
  }
}

/** Why `body` is not a valid entry of `type`, or undefined when it is. */
function checkBody(type: string, body: Record<string, unknown>, path: string): Check {
  switch (type) {
    case 'message':
      return checkMessage(body.message, `${path}.message`);
    case 'compaction':
      if (typeof body.summary !== 'string') return `${path}.summary must be a string`;
      if (!Number.isInteger(body.firstKeptSequence) || (body.firstKeptSequence as number) < 1) {
        return `${path}.firstKeptSequence must be an integer ≥ 1`;
      }
      if (!isFiniteNumber(body.tokensBefore) || body.tokensBefore < 0)
        return `${path}.tokensBefore must be a number ≥ 0`;
      if (body.tokensAfter !== undefined && (!isFiniteNumber(body.tokensAfter) || body.tokensAfter < 0)) {
        return `${path}.tokensAfter must be a number ≥ 0`;
      }
      return undefined;
    case 'model_change':
      if (typeof body.provider !== 'string' || body.provider === '')
        return `${path}.provider must be a non-empty string`;
      if (typeof body.model !== 'string' || body.model === '')
        return `${path}.model must be a non-empty string`;
      if (body.thinkingLevel !== undefined && typeof body.thinkingLevel !== 'string') {
        return `${path}.thinkingLevel must be a string`;
      }
      return undefined;
    case 'custom':
      if (typeof body.customType !== 'string' || body.customType === '')
        return `${path}.customType must be a non-empty string`;
      return undefined;
    case 'custom_message':
      if (typeof body.customType !== 'string' || body.customType === '')
        return `${path}.customType must be a non-empty string`;
      if (typeof body.content === 'string') return undefined;
      return checkBlocks(body.content, userBlocks, `${path}.content`);
    default:
      return `${path}.type must be one of ${transcriptEntryTypes.join(', ')}; got ${JSON.stringify(type)}`;
  }
}

/** An entry ready to store: its type, its time and its JSON body. */
export interface EncodedEntry {
  readonly type: TranscriptEntryBody['type'];
  readonly timestamp: number;
  readonly body: string;
  readonly value: TranscriptEntryBody;
}

/**
 * Validates and encodes the entries of one append. Throws SESSIONS_INVALID_ENTRY naming
 * the entry's index and field. `firstSequence` is the sequence the first entry will get
 * (compaction entries may not point past themselves).
 */
export function encodeEntries(
  entries: readonly NewTranscriptEntry[],
  firstSequence: number,
  now: number,
): EncodedEntry[] {
  if (!Array.isArray(entries)) {
    throw new SessionsError('SESSIONS_INVALID_ARGUMENT', 'entries must be an array of transcript entries.');
  }
  const encoded: EncodedEntry[] = [];
  for (let index = 0; index < entries.length; index += 1) {
    const entry: unknown = entries[index];
    const path = `entries[${index}]`;
    if (!isRecord(entry)) throw invalidEntry(`${path} must be an object`, index);
    const type = entry.type;
    if (typeof type !== 'string' || !entryTypeSet.has(type)) {
      throw invalidEntry(
        `${path}.type must be one of ${transcriptEntryTypes.join(', ')}; got ${JSON.stringify(type)}`,
        index,
      );
    }
    const problem = checkBody(type, entry, path);
    if (problem !== undefined) throw invalidEntry(problem, index);
    const timestamp = entry.timestamp ?? now;
    if (!isFiniteNumber(timestamp)) throw invalidEntry(`${path}.timestamp must be a number`, index);
    const sequence = firstSequence + index;
    if (type === 'compaction' && (entry.firstKeptSequence as number) > sequence) {
      throw invalidEntry(
        `${path}.firstKeptSequence (${String(entry.firstKeptSequence)}) is after the compaction entry itself (sequence ${sequence})`,
        index,
      );
    }
    let payload: unknown;
    let value: TranscriptEntryBody;
    if (type === 'message') {
      payload = entry.message;
      value = { type, message: entry.message as MessageEntryBody['message'] };
    } else {
      const { type: _type, timestamp: _timestamp, ...rest } = entry;
      payload = rest;
      value = { type, ...rest } as TranscriptEntryBody;
    }
    let body: string;
    try {
      body = JSON.stringify(payload);
    } catch (error) {
      throw invalidEntry(`${path} cannot be stored as JSON: ${(error as Error).message}`, index, error);
    }
    encoded.push({ type: type as TranscriptEntryBody['type'], timestamp, body, value });
  }
  return encoded;
}

function invalidEntry(message: string, index: number, cause?: unknown): SessionsError {
  return new SessionsError('SESSIONS_INVALID_ENTRY', `Transcript entry rejected: ${message}.`, {
    details: { index },
    cause,
  });
}

/** Decodes one stored row. A row that does not parse becomes an `invalid` entry. */
export function decodeEntry(
  sessionId: string,
  sequence: number,
  type: string,
  timestamp: number,
  body: string,
): TranscriptEntry {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    return invalidRow(
      sessionId,
      sequence,
      type,
      timestamp,
      body,
      `body is not valid JSON (${(error as Error).message})`,
    );
  }
  let value: Record<string, unknown>;
  if (type === 'message') value = { type, message: parsed };
  else if (isRecord(parsed)) value = { ...parsed, type };
  else return invalidRow(sessionId, sequence, type, timestamp, body, 'body is not a JSON object');
  const problem = checkBody(type, value, 'entry');
  if (problem !== undefined) return invalidRow(sessionId, sequence, type, timestamp, body, problem);
  return { ...(value as unknown as TranscriptEntryBody), sessionId, sequence, timestamp };
}

function invalidRow(
  sessionId: string,
  sequence: number,
  storedType: string,
  timestamp: number,
  raw: string,
  error: string,
): TranscriptEntry {
  return { type: 'invalid', sessionId, sequence, timestamp, storedType, raw, error };
}

/** The user message a compaction summary becomes, unless the caller formats it. */
export function formatCompactionSummary(compaction: ContextCompaction): UserMessage {
  return {
    role: 'user',
    content: [
      {
        type: 'text',
        text: `The conversation history before this point was compacted into the following summary:\n\n<summary>\n${compaction.summary}\n</summary>`,
      },
    ],
    timestamp: compaction.timestamp,
  };
}

/** Where reading must start for the context of a transcript whose latest compaction is `compaction`. */
export function contextStartSequence(compaction: TranscriptEntry | undefined): number {
  if (compaction === undefined) return 1;
  if (compaction.type === 'compaction') return compaction.firstKeptSequence;
  return compaction.sequence + 1;
}

export interface AssembleContextInput {
  readonly sessionId: string;
  readonly lastSequence: number;
  /** The entry at the transcript's latest compaction sequence, if there is one. */
  readonly compaction: TranscriptEntry | undefined;
  /** Entries from `contextStartSequence(compaction)` on, in order. */
  readonly entries: Iterable<TranscriptEntry>;
  readonly formatSummary?: (compaction: ContextCompaction) => Message;
}

/** Builds the model context: the compaction summary, then each context entry after it. */
export function assembleContext(input: AssembleContextInput): SessionContext {
  const problems: TranscriptProblem[] = [];
  const messages: Message[] = [];
  let compaction: ContextCompaction | undefined;
  const point = input.compaction;
  if (point?.type === 'compaction') {
    compaction = {
      sequence: point.sequence,
      timestamp: point.timestamp,
      summary: point.summary,
      firstKeptSequence: point.firstKeptSequence,
      tokensBefore: point.tokensBefore,
      tokensAfter: point.tokensAfter,
      details: point.details,
    };
    messages.push((input.formatSummary ?? formatCompactionSummary)(compaction));
  } else if (point !== undefined) {
    problems.push({
      sessionId: input.sessionId,
      sequence: point.sequence,
      error: `the latest compaction entry cannot be read (${point.type === 'invalid' ? point.error : `it is a ${point.type} entry`}); the context starts after it`,
    });
  }
  let fromSequence: number | undefined;
  const sequences: number[] = [];
  for (const entry of input.entries) {
    if (entry.type === 'invalid') {
      problems.push({ sessionId: input.sessionId, sequence: entry.sequence, error: entry.error });
      continue;
    }
    let message: Message | undefined;
    if (entry.type === 'message') message = entry.message;
    else if (entry.type === 'custom_message') {
      message = { role: 'user', content: entry.content, timestamp: entry.timestamp };
    }
    if (message === undefined) continue;
    fromSequence ??= entry.sequence;
    messages.push(message);
    sequences.push(entry.sequence);
  }
  return {
    sessionId: input.sessionId,
    messages,
    compaction,
    fromSequence: fromSequence ?? input.lastSequence + 1,
    sequences,
    lastSequence: input.lastSequence,
    problems,
  };
}
