// An in-process model for loop tests: a stream function that answers scripted replies
// on the next microtask, like a provider would, and records every call.
import type { AssistantMessage, TextContent, ToolCallContent } from '@switchboard/hooks';
import { emptyUsage } from '@switchboard/hooks';
import { createAssistantMessageEventStream } from '../src/event-stream.ts';
import {
  type AgentEvent,
  type AssistantStreamEvent,
  anthropicModel,
  createUsage,
  type LlmContext,
  type Model,
  type ModelErrorClass,
  type StreamFunction,
  type StreamOptions,
  type TokenCounts,
} from '../src/index.ts';

export const testModel: Model = anthropicModel('claude-sonnet-4-6', { api: 'scripted' });

interface ScriptedReply {
  readonly text?: string;
  readonly toolCalls?: ReadonlyArray<{
    readonly id?: string;
    readonly name: string;
    readonly arguments: unknown;
  }>;
  readonly stopReason?: 'stop' | 'length' | 'toolUse';
  /** Ends the call with an error message instead. */
  readonly error?: { readonly message: string; readonly errorClass?: ModelErrorClass };
  readonly usage?: Partial<TokenCounts>;
  /** Skip the provider `start` event (only `done`). */
  readonly noStart?: boolean;
  /** Stream `start` and the text, then wait until the signal fires and end as aborted. */
  readonly waitForAbort?: boolean;
}

export type ScriptEntry =
  | ScriptedReply
  | ((context: LlmContext, options: StreamOptions, call: number) => ScriptedReply | Promise<ScriptedReply>);

interface ScriptedCall {
  readonly context: LlmContext;
  readonly options: StreamOptions;
}

export interface ScriptedModel {
  readonly streamFn: StreamFunction;
  readonly calls: ScriptedCall[];
  /** Adds replies to the end of the script. */
  push(...entries: ScriptEntry[]): void;
}

/** A model that answers `entries` in order, then "done" forever. */
export function scriptedModel(...entries: ScriptEntry[]): ScriptedModel {
  const script = [...entries];
  const calls: ScriptedCall[] = [];
  const streamFn: StreamFunction = (model, context, options) => {
    const call = calls.length;
    calls.push({ context: { ...context, messages: [...context.messages] }, options });
    const entry = script.shift() ?? { text: 'done' };
    const stream = createAssistantMessageEventStream();
    queueMicrotask(() => {
      void (async () => {
        const reply = typeof entry === 'function' ? await entry(context, options, call) : entry;
        play(stream, model, reply, options.signal);
      })();
    });
    return stream;
  };
  return { streamFn, calls, push: (...more) => script.push(...more) };
}

let toolCallCounter = 0;

function play(
  stream: ReturnType<typeof createAssistantMessageEventStream>,
  model: Model,
  reply: ScriptedReply,
  signal: AbortSignal | undefined,
): void {
  const content: Array<TextContent | ToolCallContent> = [];
  const base = {
    role: 'assistant' as const,
    provider: model.provider,
    model: model.id,
    timestamp: 1,
  };
  const usage =
    reply.usage === undefined
      ? emptyUsage
      : createUsage({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, ...reply.usage }, model.cost);
  const snapshot = (): AssistantMessage => ({ ...base, content: content.slice(), usage, stopReason: 'stop' });
  const push = (event: AssistantStreamEvent): void => stream.push(event);
  if (!reply.noStart) push({ type: 'start', partial: snapshot() });
  if (reply.text !== undefined && !reply.noStart) {
    content.push({ type: 'text', text: '' });
    const index = content.length - 1;
    push({ type: 'text_start', contentIndex: index, partial: snapshot() });
    content[index] = { type: 'text', text: reply.text };
    push({ type: 'text_delta', contentIndex: index, delta: reply.text, partial: snapshot() });
    push({ type: 'text_end', contentIndex: index, content: reply.text, partial: snapshot() });
  } else if (reply.text !== undefined) {
    content.push({ type: 'text', text: reply.text });
  }
  for (const call of reply.toolCalls ?? []) {
    toolCallCounter += 1;
    const toolCall: ToolCallContent = {
      type: 'toolCall',
      id: call.id ?? `call_${toolCallCounter}`,
      name: call.name,
      arguments: call.arguments as Record<string, unknown>,
    };
    content.push(toolCall);
    if (!reply.noStart) {
      const index = content.length - 1;
      push({ type: 'toolcall_start', contentIndex: index, partial: snapshot() });
      push({ type: 'toolcall_end', contentIndex: index, toolCall, partial: snapshot() });
    }
  }
  if (reply.waitForAbort) {
    const finish = (): void => {
      push({
        type: 'error',
        reason: 'aborted',
        error: {
          ...snapshot(),
          stopReason: 'aborted',
          errorMessage: 'Request was aborted',
          errorClass: 'aborted',
          errorCode: 'MODEL_ABORTED',
        },
      });
    };
    if (signal?.aborted) finish();
    else signal?.addEventListener('abort', finish, { once: true });
    return;
  }
  if (reply.error !== undefined) {
    push({
      type: 'error',
      reason: 'error',
      error: {
        ...snapshot(),
        stopReason: 'error',
        errorMessage: reply.error.message,
        errorClass: reply.error.errorClass,
      },
    });
    return;
  }
  const stopReason =
    reply.stopReason ?? (reply.toolCalls !== undefined && reply.toolCalls.length > 0 ? 'toolUse' : 'stop');
  push({ type: 'done', reason: stopReason, message: { ...snapshot(), stopReason } });
}

/** A compact form of an event list for order assertions. */
export function eventNames(events: readonly AgentEvent[]): string[] {
  return events.map((event) => {
    if (event.type === 'message_start' || event.type === 'message_end') {
      return `${event.type}(${String((event.message as { role?: unknown }).role)})`;
    }
    return event.type;
  });
}

/** A user message. */
export function user(text: string): { role: 'user'; content: string; timestamp: number } {
  return { role: 'user', content: text, timestamp: 1 };
}

/** A finished assistant text message. */
export function assistantText(text: string): AssistantMessage {
  return {
    role: 'assistant',
    content: [{ type: 'text', text }],
    provider: 'anthropic',
    model: 'claude-sonnet-4-6',
    usage: emptyUsage,
    stopReason: 'stop',
    timestamp: 1,
  };
}

/** Collects every event of an event stream and its result. */
export async function collect<Event, Result>(
  stream: AsyncIterable<Event> & { result(): Promise<Result> },
): Promise<{ events: Event[]; result: Result }> {
  const events: Event[] = [];
  for await (const event of stream) events.push(event);
  return { events, result: await stream.result() };
}

/** A promise with its resolve function exposed. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Reads a provider stream to the end: its events and final message. */
export async function collectStream(
  stream: AsyncIterable<AssistantStreamEvent> & { result(): Promise<AssistantMessage> },
): Promise<{ events: AssistantStreamEvent[]; message: AssistantMessage }> {
  const events: AssistantStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return { events, message: await stream.result() };
}
