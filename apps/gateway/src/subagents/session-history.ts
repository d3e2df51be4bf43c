// A bounded, paged slice of a session's transcript for `sessions_history`, `/subagents log`
// and `subagents.log`: never the whole transcript, each message's text and the page capped.
import type { Message } from '@switchboard/hooks';
import type { TranscriptStore } from '@switchboard/sessions';

/** Page size limits and the byte budget of one answer (tool output is capped). */
export const historyLimits = {
  defaultMessages: 20,
  maxMessages: 50,
  maxMessageChars: 2000,
  maxPageChars: 16_000,
} as const;

/** One message as the history tools show it. */
interface HistoryMessage {
  readonly sequence: number;
  readonly role: Message['role'];
  readonly timestamp: number;
  readonly text: string;
  /** The tool of a tool result, or the tools an assistant message called. */
  readonly tools?: readonly string[];
  readonly isError?: boolean;
  /** The text was cut to `maxMessageChars`. */
  readonly truncated?: boolean;
}

export interface HistoryPage {
  /** Oldest first. */
  readonly messages: readonly HistoryMessage[];
  /** Older messages exist: ask again with `before` = `nextBefore`. */
  readonly hasMore: boolean;
  readonly nextBefore?: number;
}

export interface HistoryRequest {
  readonly sessionId: string;
  /** Messages before this sequence (exclusive); default: the newest. */
  readonly before?: number;
  readonly limit?: number;
  /** Tool results too (default: user and assistant messages only). */
  readonly includeTools?: boolean;
}

function textOf(message: Message): { text: string; tools?: string[] } {
  if (message.role === 'user')
    return {
      text:
        typeof message.content === 'string'
          ? message.content
          : message.content.map((block) => (block.type === 'text' ? block.text : '[image]')).join('\n'),
    };
  if (message.role === 'toolResult')
    return {
      text: message.content.map((block) => (block.type === 'text' ? block.text : '[image]')).join('\n'),
      tools: [message.toolName],
    };
  const calls = message.content.flatMap((block) => (block.type === 'toolCall' ? [block.name] : []));
  return {
    text: message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n'),
    ...(calls.length === 0 ? {} : { tools: calls }),
  };
}

function view(message: Message, sequence: number): HistoryMessage {
  const { text, tools } = textOf(message);
  const truncated = text.length > historyLimits.maxMessageChars;
  return {
    sequence,
    role: message.role,
    timestamp: message.timestamp ?? 0,
    text: truncated ? `${text.slice(0, historyLimits.maxMessageChars)}…` : text,
    tools,
    ...(message.role === 'toolResult' && message.isError ? { isError: true } : {}),
    ...(truncated ? { truncated: true } : {}),
  };
}

/** Reads backwards from `before` in windows until the page is full or the transcript starts. */
export async function readHistoryPage(store: TranscriptStore, request: HistoryRequest): Promise<HistoryPage> {
  const limit = Math.min(
    Math.max(1, request.limit ?? historyLimits.defaultMessages),
    historyLimits.maxMessages,
  );
  const info = await store.getTranscript(request.sessionId);
  if (info === undefined) return { messages: [], hasMore: false };
  let upTo = Math.min(info.lastSequence, (request.before ?? Number.POSITIVE_INFINITY) - 1);
  const newestFirst: HistoryMessage[] = [];
  let chars = 0;
  let full = false;
  const window = Math.max(limit * 4, 100);
  while (upTo >= 1 && !full) {
    const from = Math.max(1, upTo - window + 1);
    const entries = await store.readTranscript(request.sessionId, {
      fromSequence: from,
      toSequence: upTo,
      types: ['message'],
    });
    for (let index = entries.length - 1; index >= 0; index -= 1) {
      const entry = entries[index];
      if (entry?.type !== 'message') continue;
      if (entry.message.role === 'toolResult' && request.includeTools !== true) continue;
      const shown = view(entry.message, entry.sequence);
      if (
        newestFirst.length >= limit ||
        (newestFirst.length > 0 && chars + shown.text.length > historyLimits.maxPageChars)
      ) {
        full = true;
        break;
      }
      newestFirst.push(shown);
      chars += shown.text.length;
    }
    upTo = from - 1;
  }
  const oldest = newestFirst.at(-1);
  // The loop stops full only when an older message did not fit.
  const hasMore = full;
  return {
    messages: newestFirst.reverse(),
    hasMore,
    ...(hasMore && oldest !== undefined ? { nextBefore: oldest.sequence } : {}),
  };
}
