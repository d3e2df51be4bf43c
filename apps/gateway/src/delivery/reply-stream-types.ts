// The reply stream's contract: what it is configured with, the agent events it consumes, and
// the summary it resolves with. The implementation is reply-stream.ts.
import type { BlockStreamingOptions, ChannelDeliveryCapabilities, ResolvedDeliveryConfig } from './config.ts';
import type { MessagingSend, MessagingTarget } from './messaging-dedupe.ts';
import type { DeliveryEventListener, DeliverySend, DeliveryTimers, SuppressionReason } from './types.ts';

/** A tool failure, as given to `toolErrorFallback`. */
export interface ToolFailure {
  readonly toolCallId: string;
  readonly toolName: string | undefined;
  readonly errorMessage: string | undefined;
}

export interface ReplyStreamOptions {
  /** Delivers one payload (in the gateway: `message_sending` hooks → channel send → `message_sent`). */
  readonly send: DeliverySend;
  /** The target channel's declared limits. */
  readonly channel?: ChannelDeliveryCapabilities;
  /** Block streaming; default off (finals only). */
  readonly streaming?: BlockStreamingOptions;
  /** Deliver only text inside `<final>…</final>`. */
  readonly enforceFinalTag?: boolean;
  /** The run expects silence (memory flush, background turn): no assistant text is delivered. */
  readonly expectSilence?: boolean;
  /** Silent tokens; default `NO_REPLY` and `HEARTBEAT_OK`. */
  readonly silentTokens?: readonly string[];
  /** The conversation this reply goes to (for same-origin messaging-tool suppression). */
  readonly origin?: MessagingTarget;
  /** Threads every payload as a reply to this platform message id. */
  readonly replyToId?: string;
  /** Per-send timeout; default 15,000 ms. */
  readonly sendTimeoutMs?: number;
  readonly timers?: DeliveryTimers;
  /** Monotonic milliseconds for the coalescer's idle check; default `performance.now`. */
  readonly now?: () => number;
  /** Uniform in [0, 1) for human delay; default crypto-backed. */
  readonly random?: () => number;
  readonly onEvent?: DeliveryEventListener;
  /**
   * When nothing was delivered, the reply was not silent, a tool failed and no messaging tool
   * delivered anything: `true` (default) sends a short notice, a function returns the notice
   * text (or undefined for none), `false` sends nothing.
   */
  readonly toolErrorFallback?: boolean | ((failure: ToolFailure) => string | undefined);
}

interface ToolStartInput {
  readonly toolCallId: string;
  readonly toolName: string;
}

/** What the `message` tool is about to send (recorded as pending until the tool succeeds). */
interface MessageToolSendInput extends MessagingSend {
  readonly toolCallId: string;
}

interface ToolEndInput {
  readonly toolCallId: string;
  readonly toolName?: string;
  readonly isError: boolean;
  readonly errorMessage?: string;
}

export interface RunEndInput {
  /** The run was aborted (`/stop`, `chat.abort`): undelivered text is dropped, no finals are sent. */
  readonly aborted?: boolean;
}

/** The agent-loop events a reply stream consumes, as one discriminated union. */
type ReplyStreamEvent =
  | { readonly type: 'message_start' }
  | { readonly type: 'text_start'; readonly content?: string }
  | { readonly type: 'text_delta'; readonly delta: string }
  | { readonly type: 'text_end'; readonly content?: string }
  | ({ readonly type: 'tool_start' } & ToolStartInput)
  | ({ readonly type: 'message_tool_send' } & MessageToolSendInput)
  | ({ readonly type: 'tool_end' } & ToolEndInput)
  | { readonly type: 'message_end'; readonly text?: string };

export interface ReplySummary {
  /** Payloads delivered (blocks + finals). */
  readonly sent: number;
  readonly blocksSent: number;
  readonly finalsSent: number;
  readonly sentChars: number;
  /** Nothing was delivered and the reply was silent (NO_REPLY, or a run expecting silence). */
  readonly silent: boolean;
  /** A send timed out and the remaining blocks were skipped. */
  readonly pipelineAborted: boolean;
  /** The run was aborted by its caller. */
  readonly runAborted: boolean;
  readonly failed: number;
  /** Sends a `message_sending` hook cancelled. */
  readonly cancelled: number;
  readonly timedOut: number;
  /** Suppressed pieces of text by reason. */
  readonly suppressed: Readonly<Record<SuppressionReason, number>>;
}

export interface ReplyStream {
  onMessageStart(): void;
  onTextStart(content?: string): void;
  onTextDelta(delta: string): void;
  /** End of a text block; `content`, when given, may repeat the block's full text (only the unseen suffix is used). */
  onTextEnd(content?: string): void;
  /** Flushes text written before the tool call; resolves once it is delivered. */
  onToolStart(tool: ToolStartInput): Promise<void>;
  onMessageToolSend(send: MessageToolSendInput): void;
  onToolEnd(result: ToolEndInput): void;
  /** End of an assistant message; `finalText` is its full text (used when nothing was streamed). */
  onMessageEnd(finalText?: string): void;
  /** Flushes, applies the final-payload rules, and resolves when everything is delivered. */
  onRunEnd(outcome?: RunEndInput): Promise<ReplySummary>;
  /** Routes one event to the matching method. */
  dispatch(event: ReplyStreamEvent): Promise<void> | undefined;
  /** Compaction retry: forget messaging-tool records and collected finals (sent blocks stay deduplicated). */
  resetForRetry(): void;
  readonly config: ResolvedDeliveryConfig;
}

/** The notice sent when a tool failed and nothing else reached the user. */
export function defaultToolErrorNotice(failure: ToolFailure): string {
  const name = failure.toolName === undefined ? 'A tool' : `The ${failure.toolName} tool`;
  const detail = failure.errorMessage === undefined ? '' : `: ${failure.errorMessage.slice(0, 300)}`;
  return `⚠️ ${name} failed${detail}`;
}
