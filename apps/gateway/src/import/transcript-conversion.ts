// OpenClaw transcript events (the JSONL lines of 2026.6, the transcript_events rows of 2026.9:
// the same event objects) converted to Switchboard transcript entries. Only the active branch
// is kept (events form a tree by id/parentId), from the latest reset on.
import type {
  AssistantMessage,
  ImageContent,
  Message,
  TextContent,
  ThinkingContent,
  ToolCallContent,
  Usage,
} from '@switchboard/hooks';
import type { NewTranscriptEntry } from '@switchboard/sessions';
import { isRecord } from './openclaw-source.ts';

interface ConvertedTranscript {
  readonly entries: readonly NewTranscriptEntry[];
  /** Events left out, by type (`branch:off` counts events of abandoned branches). */
  readonly skipped: Readonly<Record<string, number>>;
  /** The session header's working directory, when it had one. */
  readonly cwd: string | undefined;
}

type Event = Record<string, unknown>;

function timestampOf(value: unknown, fallback: number): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string') {
    const parsed = Date.parse(value);
    if (!Number.isNaN(parsed)) return parsed;
  }
  return fallback;
}

/** The events on the path from the last event back to the root, oldest first. */
function activeBranch(events: readonly Event[], skipped: Record<string, number>): Event[] {
  const withIds = events.filter((event) => typeof event.id === 'string');
  if (withIds.length !== events.length || withIds.length === 0) return [...events];
  const byId = new Map(withIds.map((event) => [event.id as string, event]));
  const path: Event[] = [];
  const seen = new Set<string>();
  let current: Event | undefined = withIds[withIds.length - 1];
  while (current !== undefined && !seen.has(current.id as string)) {
    seen.add(current.id as string);
    path.push(current);
    current = typeof current.parentId === 'string' ? byId.get(current.parentId) : undefined;
  }
  path.reverse();
  const off = withIds.length - path.length;
  if (off > 0) skipped['branch:off'] = off;
  return path;
}

function textOrImage(block: unknown): TextContent | ImageContent | undefined {
  if (!isRecord(block)) return undefined;
  if (block.type === 'text' && typeof block.text === 'string') return { type: 'text', text: block.text };
  if (block.type === 'image' && typeof block.data === 'string') {
    const mediaType = block.mediaType ?? block.mimeType;
    return {
      type: 'image',
      mediaType: typeof mediaType === 'string' ? mediaType : 'image/png',
      data: block.data,
    };
  }
  return undefined;
}

function contentBlocks(content: unknown): Array<TextContent | ImageContent> {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.map(textOrImage).filter((block) => block !== undefined);
}

function number(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function usageOf(value: unknown): Usage {
  const usage = isRecord(value) ? value : {};
  const cost = isRecord(usage.cost) ? usage.cost : {};
  const input = number(usage.input);
  const output = number(usage.output);
  const cacheRead = number(usage.cacheRead);
  const cacheWrite = number(usage.cacheWrite);
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: number(usage.totalTokens) || input + output + cacheRead + cacheWrite,
    cost: {
      input: number(cost.input),
      output: number(cost.output),
      cacheRead: number(cost.cacheRead),
      cacheWrite: number(cost.cacheWrite),
      total: number(cost.total),
    },
  };
}

const stopReasons = new Set(['stop', 'length', 'toolUse', 'error', 'aborted']);

function assistantBlock(block: unknown): TextContent | ThinkingContent | ToolCallContent | undefined {
  if (!isRecord(block)) return undefined;
  if (block.type === 'text' && typeof block.text === 'string') return { type: 'text', text: block.text };
  if (block.type === 'thinking' && typeof block.thinking === 'string') {
    const signature = block.signature ?? block.thinkingSignature;
    return {
      type: 'thinking',
      thinking: block.thinking,
      ...(typeof signature === 'string' ? { signature } : {}),
      ...(block.redacted === true ? { redacted: true } : {}),
    };
  }
  if (block.type === 'toolCall' && typeof block.id === 'string' && typeof block.name === 'string')
    return {
      type: 'toolCall',
      id: block.id,
      name: block.name,
      arguments: isRecord(block.arguments) ? block.arguments : {},
    };
  return undefined;
}

/** A pi-ai / OpenClaw message as Switchboard's message model; undefined for roles it has not. */
function convertMessage(value: unknown, fallbackTimestamp: number): Message | undefined {
  if (!isRecord(value)) return undefined;
  const timestamp = timestampOf(value.timestamp, fallbackTimestamp);
  if (value.role === 'user') {
    const content = typeof value.content === 'string' ? value.content : contentBlocks(value.content);
    return { role: 'user', content, timestamp };
  }
  if (value.role === 'assistant') {
    const content = Array.isArray(value.content)
      ? value.content.map(assistantBlock).filter((block) => block !== undefined)
      : typeof value.content === 'string'
        ? [{ type: 'text' as const, text: value.content }]
        : [];
    const stopReason = stopReasons.has(value.stopReason as string)
      ? (value.stopReason as AssistantMessage['stopReason'])
      : content.some((block) => block.type === 'toolCall')
        ? 'toolUse'
        : 'stop';
    return {
      role: 'assistant',
      content,
      provider: typeof value.provider === 'string' ? value.provider : 'unknown',
      model: typeof value.model === 'string' ? value.model : 'unknown',
      ...(typeof value.responseId === 'string' ? { responseId: value.responseId } : {}),
      usage: usageOf(value.usage),
      stopReason,
      ...(typeof value.errorMessage === 'string' ? { errorMessage: value.errorMessage } : {}),
      timestamp,
    };
  }
  if (value.role === 'toolResult' && typeof value.toolCallId === 'string') {
    return {
      role: 'toolResult',
      toolCallId: value.toolCallId,
      toolName: typeof value.toolName === 'string' ? value.toolName : 'unknown',
      content: contentBlocks(value.content),
      details: value.details,
      isError: value.isError === true,
      timestamp,
    };
  }
  return undefined;
}

/** Converts the events of one transcript (header included) into entries to append, in order. */
export function convertTranscript(events: readonly unknown[], now: number): ConvertedTranscript {
  const skipped: Record<string, number> = {};
  const skip = (type: string) => {
    skipped[type] = (skipped[type] ?? 0) + 1;
  };
  const records = events.filter(isRecord);
  const header = records.find((event) => event.type === 'session');
  const body = activeBranch(
    records.filter((event) => event.type !== 'session'),
    skipped,
  );
  // The model context starts again at the latest reset (2026.9), keeping what it retained.
  let start = 0;
  for (let index = body.length - 1; index >= 0; index -= 1) {
    const event = body[index]!;
    if (event.type !== 'reset') continue;
    const kept = body.findIndex((candidate) => candidate.id === event.firstKeptEntryId);
    start = kept >= 0 && kept < index ? kept : index + 1;
    if (start > 0) skipped['before:reset'] = start;
    break;
  }

  const entries: NewTranscriptEntry[] = [];
  const sequenceOf = new Map<string, number>();
  for (const event of body.slice(start)) {
    const timestamp = timestampOf(event.timestamp, now);
    const remember = () => {
      if (typeof event.id === 'string') sequenceOf.set(event.id, entries.length);
    };
    switch (event.type) {
      case 'message': {
        const message = convertMessage(event.message, timestamp);
        if (message === undefined) {
          skip(`message:${String(isRecord(event.message) ? event.message.role : 'unknown')}`);
          continue;
        }
        entries.push({ type: 'message', message, timestamp });
        remember();
        continue;
      }
      case 'compaction': {
        if (typeof event.summary !== 'string') {
          skip('compaction');
          continue;
        }
        const ownSequence = entries.length + 1;
        const kept =
          typeof event.firstKeptEntryId === 'string' ? sequenceOf.get(event.firstKeptEntryId) : undefined;
        entries.push({
          type: 'compaction',
          summary: event.summary,
          firstKeptSequence: kept ?? ownSequence,
          tokensBefore: number(event.tokensBefore),
          details: event.details,
          timestamp,
        });
        remember();
        continue;
      }
      case 'custom_message': {
        const content = typeof event.content === 'string' ? event.content : contentBlocks(event.content);
        entries.push({
          type: 'custom_message',
          customType: typeof event.customType === 'string' ? event.customType : 'openclaw',
          content,
          ...(typeof event.display === 'boolean' ? { display: event.display } : {}),
          details: event.details,
          timestamp,
        });
        remember();
        continue;
      }
      case 'custom':
        entries.push({
          type: 'custom',
          customType: typeof event.customType === 'string' ? event.customType : 'openclaw',
          data: event.data,
          timestamp,
        });
        remember();
        continue;
      case 'model_change': {
        const model = event.modelId ?? event.model;
        if (typeof event.provider !== 'string' || typeof model !== 'string') {
          skip('model_change');
          continue;
        }
        entries.push({ type: 'model_change', provider: event.provider, model, timestamp });
        remember();
        continue;
      }
      case 'branch_summary':
        if (typeof event.summary !== 'string') {
          skip('branch_summary');
          continue;
        }
        entries.push({
          type: 'custom_message',
          customType: 'openclaw.branch_summary',
          content: event.summary,
          display: false,
          timestamp,
        });
        remember();
        continue;
      default:
        skip(String(event.type ?? 'untyped'));
    }
  }
  return { entries, skipped, cwd: typeof header?.cwd === 'string' ? header.cwd : undefined };
}
