// The assistant message being streamed, block by block, and the events each step produces.
// Both OpenAI APIs feed it; it knows nothing of either wire format.

import { type AssistantStreamEvent, createUsage, type Model } from '@switchboard/core-loop';
import type {
  AssistantMessage,
  StopReason,
  TextContent,
  ThinkingContent,
  ToolCallContent,
} from '@switchboard/hooks';
import { parse as parsePartialJson } from 'partial-json';

type Block = TextContent | ThinkingContent | ToolCallContent;

/** Token counts as the provider reported them. */
export interface ReportedUsage {
  input: number;
  output: number;
  cacheRead: number;
}

/** Builds one assistant message from streamed pieces; every method returns the event to push. */
export class ResponseBuilder {
  readonly #model: Model;
  readonly #timestamp: number;
  readonly content: Block[] = [];
  readonly #argumentBuffers = new Map<number, string>();
  responseId: string | undefined;
  readonly usage: ReportedUsage = { input: 0, output: 0, cacheRead: 0 };

  constructor(model: Model, timestamp: number) {
    this.#model = model;
    this.#timestamp = timestamp;
  }

  snapshot(stopReason: StopReason = 'stop', extra: Partial<AssistantMessage> = {}): AssistantMessage {
    // OpenAI-family servers report cached tokens inside the prompt count; the message model
    // keeps them apart (input excludes cache reads), as Anthropic reports them.
    const input = Math.max(0, this.usage.input - this.usage.cacheRead);
    return {
      role: 'assistant',
      content: this.content.slice(),
      provider: this.#model.provider,
      model: this.#model.id,
      responseId: this.responseId,
      usage: createUsage(
        { input, output: this.usage.output, cacheRead: this.usage.cacheRead, cacheWrite: 0 },
        this.#model.cost,
      ),
      stopReason,
      timestamp: this.#timestamp,
      ...extra,
    };
  }

  start(): AssistantStreamEvent {
    return { type: 'start', partial: this.snapshot() };
  }

  startText(): { index: number; event: AssistantStreamEvent } {
    const index = this.content.push({ type: 'text', text: '' }) - 1;
    return { index, event: { type: 'text_start', contentIndex: index, partial: this.snapshot() } };
  }

  appendText(index: number, delta: string): AssistantStreamEvent {
    const block = this.content[index] as TextContent;
    this.content[index] = { type: 'text', text: block.text + delta };
    return { type: 'text_delta', contentIndex: index, delta, partial: this.snapshot() };
  }

  endText(index: number): AssistantStreamEvent {
    const block = this.content[index] as TextContent;
    return { type: 'text_end', contentIndex: index, content: block.text, partial: this.snapshot() };
  }

  startThinking(): { index: number; event: AssistantStreamEvent } {
    const index = this.content.push({ type: 'thinking', thinking: '' }) - 1;
    return { index, event: { type: 'thinking_start', contentIndex: index, partial: this.snapshot() } };
  }

  appendThinking(index: number, delta: string): AssistantStreamEvent {
    const block = this.content[index] as ThinkingContent;
    this.content[index] = { ...block, thinking: block.thinking + delta };
    return { type: 'thinking_delta', contentIndex: index, delta, partial: this.snapshot() };
  }

  /** Ends a thinking block; `signature` is what must go back to the provider on later turns. */
  endThinking(index: number, signature?: string): AssistantStreamEvent {
    const block = this.content[index] as ThinkingContent;
    const ended: ThinkingContent = signature === undefined ? block : { ...block, signature };
    this.content[index] = ended;
    return { type: 'thinking_end', contentIndex: index, content: ended.thinking, partial: this.snapshot() };
  }

  startToolCall(id: string, name: string): { index: number; event: AssistantStreamEvent } {
    const index = this.content.push({ type: 'toolCall', id, name, arguments: {} }) - 1;
    this.#argumentBuffers.set(index, '');
    return { index, event: { type: 'toolcall_start', contentIndex: index, partial: this.snapshot() } };
  }

  /** Adds a piece of the arguments' JSON; the partial message holds the best parse so far. */
  appendToolArguments(index: number, delta: string): AssistantStreamEvent {
    const buffer = (this.#argumentBuffers.get(index) ?? '') + delta;
    this.#argumentBuffers.set(index, buffer);
    const block = this.content[index] as ToolCallContent;
    this.content[index] = { ...block, arguments: partialArguments(buffer) };
    return { type: 'toolcall_delta', contentIndex: index, delta, partial: this.snapshot() };
  }

  /** Names a tool call whose name arrived after its first piece. */
  renameToolCall(index: number, id: string | undefined, name: string | undefined): void {
    const block = this.content[index] as ToolCallContent;
    this.content[index] = { ...block, ...(id ? { id } : {}), ...(name ? { name } : {}) };
  }

  endToolCall(index: number, fullArguments?: string): AssistantStreamEvent {
    const buffer = fullArguments ?? this.#argumentBuffers.get(index) ?? '';
    this.#argumentBuffers.delete(index);
    const block = this.content[index] as ToolCallContent;
    const toolCall: ToolCallContent = { ...block, arguments: finalArguments(buffer) };
    this.content[index] = toolCall;
    return { type: 'toolcall_end', contentIndex: index, toolCall, partial: this.snapshot() };
  }
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function partialArguments(buffer: string): Record<string, unknown> {
  if (buffer.trim() === '') return {};
  try {
    return asRecord(parsePartialJson(buffer)) ?? {};
  } catch {
    return {};
  }
}

/**
 * The arguments of a finished call: its JSON, or the best partial parse when the server sent
 * something broken (the tool's validation then tells the model what is missing).
 */
function finalArguments(buffer: string): Record<string, unknown> {
  if (buffer.trim() === '') return {};
  try {
    return asRecord(JSON.parse(buffer)) ?? {};
  } catch {
    return partialArguments(buffer);
  }
}
