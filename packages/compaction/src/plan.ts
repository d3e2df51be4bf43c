import type { ToolSpec } from '@switchboard/core-loop';
import type { Message, ToolResultMessage } from '@switchboard/hooks';
import { CompactionError } from './errors.ts';
import {
  charactersPerToken,
  estimateFixedTokens,
  estimateMessageTokens,
  estimateTextTokens,
  messageOverheadTokens,
} from './estimate.ts';
import { serializeMessage, truncateMiddle } from './serialize.ts';
import type { CompactionBudget } from './settings.ts';

/**
 * How hard a compaction cuts:
 * - `normal`: keep up to `keepRecentTokens` of the newest messages verbatim, summarise the rest;
 * - `truncate_tool_results`: keep half as much, and cut kept tool results to `toolResultMaxTokens`;
 * - `minimal`: keep nothing verbatim; the summary alone carries the conversation.
 * Overflow recovery uses them in this order, one per attempt.
 */
export type CompactionMode = 'normal' | 'truncate_tool_results' | 'minimal';

/** The modes in the order overflow recovery escalates through them. */
export const compactionModes: readonly CompactionMode[] = Object.freeze([
  'normal',
  'truncate_tool_results',
  'minimal',
]);

/** Tokens of the text around a summary when it is sent as a user message. */
const summaryWrapperTokens = 40;
/** Tokens of a summary request besides the conversation: system prompt, instructions, tags. */
export const summaryPromptOverheadTokens = 900;
/** Largest share of a large summary model's window one chunk of conversation may fill (at least 8000 tokens). */
const maxChunkShare = 0.4;

export interface PlanCompactionInput {
  /** The history after the latest summary, oldest first (the summary message itself excluded). */
  readonly messages: readonly Message[];
  /** The latest compaction's summary, if any: it is folded into the new one. */
  readonly previousSummary?: string;
  /** Messages about to be sent that are not in `messages` (the new prompt): always kept. */
  readonly pending?: readonly Message[];
  readonly systemPrompt?: string;
  readonly tools?: readonly ToolSpec[];
  readonly budget: CompactionBudget;
  /** Tokens per raw token (see `estimateContext`); default the budget's safety margin. */
  readonly ratio?: number;
  readonly mode?: CompactionMode;
  /** Context window of the model that writes summaries; chunks are sized to fit it. Default the budget's window. */
  readonly summarizerWindow?: number;
}

/** A part of the history sent to the summariser in one request. */
interface SummaryChunk {
  /** Index of its first message in `messages`. */
  readonly start: number;
  /** Index after its last message. */
  readonly end: number;
  /** The serialised conversation. */
  readonly text: string;
  /** Estimated tokens of `text`. */
  readonly tokens: number;
}

/** A kept tool result that is too large and is replaced by a shortened copy. */
interface KeptRewrite {
  /** Index in `messages`. */
  readonly index: number;
  readonly message: ToolResultMessage;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
}

/** What a compaction will do, worked out without calling any model. */
export interface CompactionPlan {
  readonly mode: CompactionMode;
  /** Tokens per raw token used throughout. */
  readonly ratio: number;
  /** `messages[0, cutIndex)` are summarised; `messages[cutIndex, …)` are kept verbatim. */
  readonly cutIndex: number;
  /** True when the kept part starts inside a turn (the turn's user message is summarised). */
  readonly splitTurn: boolean;
  /** Summarised messages that carry content (failed assistant turns left out). */
  readonly summarizedMessages: number;
  readonly keptMessages: number;
  /** Estimated prompt tokens now. */
  readonly tokensBefore: number;
  /** Estimated tokens of the kept messages, after rewrites. */
  readonly keptTokens: number;
  /** Estimated tokens of the system prompt, tools and pending messages. */
  readonly fixedTokens: number;
  /** Largest prompt after compaction: fixed + summary at its maximum + kept. */
  readonly tokensAfterMax: number;
  /** Whether `tokensAfterMax` fits the prompt budget. */
  readonly fits: boolean;
  readonly chunks: readonly SummaryChunk[];
  /** Largest chunk, in characters of serialised text. */
  readonly chunkCharacterLimit: number;
  readonly rewrites: readonly KeptRewrite[];
  readonly previousSummary: string | undefined;
  readonly summaryMaxTokens: number;
  readonly summarizerWindow: number;
  /** False when the plan changes nothing (nothing to summarise, nothing to shorten). */
  readonly hasWork: boolean;
}

/**
 * Where the kept part may start: `valid[i]` is 1 when cutting before message `i` separates
 * no tool call from its result (and `i` is not a tool result); `valid[n]` (keep nothing) is
 * always 1.
 */
export function validCutPoints(messages: readonly Message[]): Uint8Array {
  const count = messages.length;
  const valid = new Uint8Array(count + 1).fill(1);
  const difference = new Int32Array(count + 2);
  const callIndex = new Map<string, number>();
  for (let index = 0; index < count; index += 1) {
    const message = messages[index] as Message;
    if (message.role === 'assistant') {
      for (const block of message.content) if (block.type === 'toolCall') callIndex.set(block.id, index);
    } else if (message.role === 'toolResult') {
      valid[index] = 0;
      const call = callIndex.get(message.toolCallId);
      if (call !== undefined && call < index) {
        difference[call + 1] = (difference[call + 1] as number) + 1;
        difference[index + 1] = (difference[index + 1] as number) - 1;
      }
    }
  }
  let open = 0;
  for (let index = 0; index < count; index += 1) {
    open += difference[index] as number;
    if (open > 0) valid[index] = 0;
  }
  valid[count] = 1;
  return valid;
}

function toolResultPlainText(message: ToolResultMessage): string {
  return message.content
    .map((block) => (block.type === 'text' ? block.text : `[image: ${block.mediaType}]`))
    .join('\n');
}

/** A shortened copy of a tool result: its text cut to about `maxTokens` raw tokens, details dropped. */
function shortenToolResult(message: ToolResultMessage, maxTokens: number): ToolResultMessage {
  const room = Math.max(
    200,
    (maxTokens - messageOverheadTokens) * charactersPerToken - message.toolName.length,
  );
  const text = truncateMiddle(toolResultPlainText(message), room);
  return {
    role: 'toolResult',
    toolCallId: message.toolCallId,
    toolName: message.toolName,
    content: [{ type: 'text', text }],
    isError: message.isError,
    timestamp: message.timestamp,
  };
}

interface Piece {
  readonly index: number;
  readonly text: string;
}

/**
 * Plans a compaction: where to cut (the newest messages that fit the keep budget stay,
 * never separating a tool call from its result), which kept tool results to shorten, and
 * the summariser's chunks (the older part split by token share at tool-safe boundaries,
 * each message cut to half a chunk, tool result payloads stripped). Pure and synchronous;
 * no model is called.
 */
export function planCompaction(input: PlanCompactionInput): CompactionPlan {
  const { messages, budget } = input;
  if (!Array.isArray(messages)) {
    throw new CompactionError('COMPACTION_INVALID_ARGUMENT', 'messages must be an array of messages.');
  }
  const mode = input.mode ?? 'normal';
  if (!compactionModes.includes(mode)) {
    throw new CompactionError(
      'COMPACTION_INVALID_ARGUMENT',
      `mode must be one of ${compactionModes.join(', ')}; got ${JSON.stringify(mode)}.`,
    );
  }
  const ratio = input.ratio ?? budget.safetyMargin;
  const count = messages.length;
  const raw = new Float64Array(count);
  let historyRaw = 0;
  for (let index = 0; index < count; index += 1) {
    const tokens = estimateMessageTokens(messages[index] as Message);
    raw[index] = tokens;
    historyRaw += tokens;
  }
  let pendingRaw = 0;
  for (const message of input.pending ?? []) pendingRaw += estimateMessageTokens(message);
  const fixedRaw = estimateFixedTokens(input.systemPrompt, input.tools) + pendingRaw;
  const previousSummary =
    input.previousSummary === undefined || input.previousSummary === '' ? undefined : input.previousSummary;
  const previousRaw =
    previousSummary === undefined ? 0 : estimateTextTokens(previousSummary) + summaryWrapperTokens;
  const tokensBefore = Math.ceil((fixedRaw + previousRaw + historyRaw) * ratio);
  const fixedTokens = Math.ceil(fixedRaw * ratio);
  const summaryMaxTokens = budget.summaryMaxTokens;

  // 1. The cut: keep the newest messages within the keep budget.
  const capTokens = mode === 'normal' ? budget.toolResultShareTokens : budget.toolResultMaxTokens;
  const capRaw = Math.max(1, Math.floor(capTokens / ratio));
  const keepFactor = mode === 'normal' ? 1 : mode === 'truncate_tool_results' ? 0.5 : 0;
  const keepBudget = Math.max(
    0,
    Math.min(
      Math.floor(budget.keepRecentTokens * keepFactor),
      budget.promptBudget - fixedTokens - summaryWrapperTokens - summaryMaxTokens,
    ),
  );
  const valid = validCutPoints(messages);
  let lowest = count;
  let accumulated = 0;
  for (let index = count - 1; index >= 0; index -= 1) {
    const message = messages[index] as Message;
    const cost =
      message.role === 'toolResult' ? Math.min(raw[index] as number, capRaw) : (raw[index] as number);
    accumulated += cost * ratio;
    if (accumulated > keepBudget) break;
    lowest = index;
  }
  let cutIndex = lowest;
  while (cutIndex < count && valid[cutIndex] !== 1) cutIndex += 1;
  const splitTurn = cutIndex > 0 && cutIndex < count && (messages[cutIndex] as Message).role !== 'user';

  // 2. Kept tool results that are too large get shortened copies.
  const rewrites: KeptRewrite[] = [];
  let keptRaw = 0;
  for (let index = cutIndex; index < count; index += 1) {
    const message = messages[index] as Message;
    const tokens = raw[index] as number;
    if (message.role === 'toolResult' && tokens > capRaw) {
      const shortened = shortenToolResult(message, capRaw);
      const after = estimateMessageTokens(shortened);
      rewrites.push({
        index,
        message: shortened,
        tokensBefore: Math.ceil(tokens * ratio),
        tokensAfter: Math.ceil(after * ratio),
      });
      keptRaw += after;
    } else keptRaw += tokens;
  }
  const keptTokens = Math.ceil(keptRaw * ratio);

  // 3. The summariser's chunks.
  const summarizerWindow = input.summarizerWindow ?? budget.contextWindow;
  const previousTokens =
    previousSummary === undefined ? 0 : Math.ceil(estimateTextTokens(previousSummary) * ratio);
  // On large windows a chunk fills at most 40% of the summary model's window (smaller parts
  // summarise better and cost less); small windows use whatever room the request leaves.
  const chunkTokenLimit = Math.max(
    256,
    Math.min(
      Math.max(Math.floor(summarizerWindow * maxChunkShare), 8000),
      summarizerWindow - summaryMaxTokens - summaryPromptOverheadTokens - previousTokens,
    ),
  );
  const chunkCharacterLimit = Math.max(
    1000,
    Math.floor(((chunkTokenLimit * charactersPerToken) / ratio) * 0.9),
  );
  const chunks = chunkSummarizedPart(messages, cutIndex, valid, chunkCharacterLimit, ratio);
  let summarizedMessages = 0;
  for (let index = 0; index < cutIndex; index += 1) {
    if ((raw[index] as number) > 0) summarizedMessages += 1;
  }

  const tokensAfterMax = fixedTokens + summaryWrapperTokens + summaryMaxTokens + keptTokens;
  return {
    mode,
    ratio,
    cutIndex,
    splitTurn,
    summarizedMessages,
    keptMessages: count - cutIndex,
    tokensBefore,
    keptTokens,
    fixedTokens,
    tokensAfterMax,
    fits: tokensAfterMax <= budget.promptBudget,
    chunks,
    chunkCharacterLimit,
    rewrites,
    previousSummary,
    summaryMaxTokens,
    summarizerWindow,
    hasWork: cutIndex > 0 || rewrites.length > 0,
  };
}

const separator = '\n\n';

/**
 * Splits `messages[0, end)` into chunks of at most `limit` characters of serialised text,
 * balanced by token share, breaking only where `valid` allows (never between a tool call
 * and its result). A single message is cut to half a chunk; a tool-call block larger than
 * a chunk has its messages cut further so it still fits one.
 */
function chunkSummarizedPart(
  messages: readonly Message[],
  end: number,
  valid: Uint8Array,
  limit: number,
  ratio: number,
): SummaryChunk[] {
  if (end === 0) return [];
  const messageLimit = Math.floor(limit / 2);
  // Atoms: runs of messages between two valid boundaries.
  const atoms: Piece[][] = [];
  const atomSizes: number[] = [];
  let atom: Piece[] = [];
  let atomSize = 0;
  const closeAtom = (): void => {
    if (atom.length === 0) return;
    if (atomSize > limit) {
      // Too large for one chunk: cut each of its messages to an equal share.
      const share = Math.max(200, Math.floor(limit / atom.length) - separator.length);
      const shrunk: Piece[] = [];
      let size = 0;
      for (const piece of atom) {
        const text = serializeMessage(messages[piece.index] as Message, {
          maxCharacters: share,
          toolResultCharacters: share,
        });
        shrunk.push({ index: piece.index, text });
        size += text.length + separator.length;
      }
      atom = shrunk;
      atomSize = size;
    }
    atoms.push(atom);
    atomSizes.push(atomSize);
    atom = [];
    atomSize = 0;
  };
  let total = 0;
  for (let index = 0; index < end; index += 1) {
    if (index > 0 && valid[index] === 1) closeAtom();
    const text = serializeMessage(messages[index] as Message, { maxCharacters: messageLimit });
    if (text === '') continue;
    atom.push({ index, text });
    atomSize += text.length + separator.length;
  }
  closeAtom();
  for (const size of atomSizes) total += size;
  if (total === 0) return [];
  const parts = Math.max(1, Math.ceil(total / limit));
  const target = total / parts;
  const chunks: SummaryChunk[] = [];
  let current: Piece[] = [];
  let currentSize = 0;
  const closeChunk = (): void => {
    if (current.length === 0) return;
    const text = current.map((piece) => piece.text).join(separator);
    chunks.push({
      start: (current[0] as Piece).index,
      end: (current[current.length - 1] as Piece).index + 1,
      text,
      tokens: Math.ceil((text.length / charactersPerToken) * ratio),
    });
    current = [];
    currentSize = 0;
  };
  for (let index = 0; index < atoms.length; index += 1) {
    const pieces = atoms[index] as Piece[];
    const size = atomSizes[index] as number;
    if (currentSize > 0 && currentSize + size > limit) closeChunk();
    for (const piece of pieces) current.push(piece);
    currentSize += size;
    if (currentSize >= target && chunks.length < parts - 1) closeChunk();
  }
  closeChunk();
  return chunks;
}
