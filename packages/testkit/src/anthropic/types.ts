// The shapes a test writes (turns, faults) and reads (request bodies) when it drives the
// fake Anthropic Messages API. Request types are deliberately loose: the fake records what
// the client sent, whatever it was, and tests assert on it.

/** One content block of a request message, as the client sent it. */
export interface RequestContentBlock {
  readonly type: string;
  readonly text?: string;
  readonly [key: string]: unknown;
}

/** One message of a request's `messages` array. */
export interface RequestMessage {
  readonly role: 'user' | 'assistant' | (string & {});
  readonly content: string | readonly RequestContentBlock[];
}

/** One entry of a request's `tools` array. */
export interface RequestTool {
  readonly name: string;
  readonly description?: string;
  readonly input_schema?: unknown;
  readonly [key: string]: unknown;
}

/** The JSON body of `POST /v1/messages` (and, without `max_tokens`, of `count_tokens`). */
export interface MessagesRequestBody {
  readonly model: string;
  readonly max_tokens?: number;
  readonly messages: readonly RequestMessage[];
  readonly system?: string | readonly RequestContentBlock[];
  readonly tools?: readonly RequestTool[];
  readonly tool_choice?: unknown;
  readonly thinking?: {
    readonly type: string;
    readonly budget_tokens?: number;
    readonly [key: string]: unknown;
  };
  readonly stream?: boolean;
  readonly temperature?: number;
  readonly stop_sequences?: readonly string[];
  readonly metadata?: Readonly<Record<string, unknown>>;
  readonly [key: string]: unknown;
}

/** Token counts a turn reports; every field is optional and defaults to an estimate or 0. */
export interface TurnUsage {
  readonly input_tokens?: number;
  readonly output_tokens?: number;
  readonly cache_read_input_tokens?: number;
  readonly cache_creation_input_tokens?: number;
}

/** A text block. A string is split into `text_delta`s of `textChunkSize` characters; an array is sent delta by delta. */
export interface FakeTextBlock {
  readonly type: 'text';
  readonly text: string | readonly string[];
}

/** A thinking block: `thinking_delta`s, then one `signature_delta`. */
export interface FakeThinkingBlock {
  readonly type: 'thinking';
  readonly thinking: string | readonly string[];
  /** Defaults to a fixed opaque string. */
  readonly signature?: string;
}

/** A redacted thinking block: sent whole in `content_block_start`, no deltas. */
export interface FakeRedactedThinkingBlock {
  readonly type: 'redacted_thinking';
  readonly data: string;
}

/** A tool call. Its input is serialised to JSON and sent as `input_json_delta` pieces. */
export interface FakeToolCall {
  readonly name: string;
  readonly input: unknown;
  /** Defaults to `toolu_fake_<request sequence>_<block index>`. */
  readonly id?: string;
  /**
   * How the input JSON is split: a number of roughly equal pieces (split at arbitrary
   * character positions, mid-string included), or the exact pieces to send (they are sent
   * as given, so they may even be invalid JSON when joined). Defaults to pieces of
   * `jsonChunkSize` characters, after an empty first piece as the real API sends.
   */
  readonly inputChunks?: number | readonly string[];
}

/** A tool_use block in an explicit `content` list. */
export interface FakeToolUseBlock extends FakeToolCall {
  readonly type: 'tool_use';
}

/** One block of an explicit `content` list (full control over block order). */
export type FakeContentBlock =
  | FakeTextBlock
  | FakeThinkingBlock
  | FakeRedactedThinkingBlock
  | FakeToolUseBlock;

/** Per-turn (or fake-wide) timing. Zero everywhere means the whole response is written at once. */
export interface FakeLatency {
  /** Milliseconds before the response headers are sent (time to first byte). */
  readonly firstByteMs?: number;
  /** Milliseconds between two SSE events (streaming only). */
  readonly chunkMs?: number;
}

/**
 * What the model answers to one request. Shorthands are sent in the order thinking, text,
 * tool calls; use `content` instead for any other order (the two cannot be mixed).
 */
export interface FakeTurn {
  readonly text?: string | readonly string[];
  readonly thinking?: string | { readonly text: string | readonly string[]; readonly signature?: string };
  readonly toolCalls?: readonly FakeToolCall[];
  readonly content?: readonly FakeContentBlock[];
  /** Defaults to `tool_use` when the turn has tool calls, else `end_turn`. */
  readonly stopReason?: string;
  readonly stopSequence?: string;
  /** Overrides the reported usage; unset fields are estimated (input, output) or 0 (cache). */
  readonly usage?: TurnUsage;
  /** Defaults to the request's model. */
  readonly model?: string;
  /** Defaults to `msg_fake_<request sequence>`. */
  readonly id?: string;
  /** Timing for this turn, instead of the fake-wide latency. */
  readonly latency?: FakeLatency;
  /** Whether a `ping` event follows `message_start` (the real API sends one). Default true. */
  readonly ping?: boolean;
  /** Makes this turn fail (see {@link FakeFault}); stream faults apply to this turn's content. */
  readonly fault?: FakeFault;
}

/** Options every fault answered with an HTTP error status accepts. */
export interface HttpFaultOptions {
  /** Overrides the status code. */
  readonly status?: number;
  /** Overrides `error.message` in the body. */
  readonly message?: string;
  /** Sends `retry-after: <seconds>` (fractions allowed; the SDK honours them). */
  readonly retryAfterSeconds?: number;
  /** Sends `x-should-retry: true|false`, which the SDK obeys over its own status rules. */
  readonly shouldRetry?: boolean;
  /** Extra response headers. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Faults answered with an HTTP error status and an Anthropic error body. */
export type HttpFault =
  | ({ readonly type: 'authentication' } & HttpFaultOptions)
  | ({ readonly type: 'permission' } & HttpFaultOptions)
  | ({ readonly type: 'billing' } & HttpFaultOptions)
  | ({ readonly type: 'rate_limit' } & HttpFaultOptions)
  | ({ readonly type: 'server' } & HttpFaultOptions)
  | ({ readonly type: 'overloaded' } & HttpFaultOptions)
  | ({
      readonly type: 'prompt_too_long';
      /** Tokens reported in the message; defaults to max(request estimate, maximum + 1). */
      readonly tokens?: number;
      /** Defaults to 200000. */
      readonly maximum?: number;
    } & HttpFaultOptions)
  | ({
      readonly type: 'model_not_found';
      /** Defaults to the request's model. */
      readonly model?: string;
    } & HttpFaultOptions)
  | ({ readonly type: 'http'; readonly status: number; readonly errorType: string } & HttpFaultOptions);

/**
 * Faults that happen inside a 200 response. `afterEvents` counts SSE events already sent
 * (message_start and ping included); it defaults to half of the turn's events ("mid-way").
 * For a non-streaming request the body is cut, replaced, or turned into the equivalent
 * HTTP error.
 */
export type StreamFault =
  | {
      readonly type: 'stream_cut';
      readonly afterEvents?: number;
      /** `destroy` (default) resets the socket; `end` ends the body cleanly but early. */
      readonly mode?: 'destroy' | 'end';
    }
  | {
      readonly type: 'stream_error';
      readonly afterEvents?: number;
      /** Defaults to `overloaded_error`. */
      readonly errorType?: string;
      /** Defaults to `Overloaded`. */
      readonly message?: string;
    }
  | { readonly type: 'malformed_json'; readonly afterEvents?: number };

/** Never answers: the request stays open until the client gives up or the fake closes. */
export interface HangFault {
  readonly type: 'hang';
}

/** Every fault the fake can produce on demand. */
export type FakeFault = HttpFault | StreamFault | HangFault;

/** The type names of {@link HttpFault} variants. */
export type HttpFaultType = HttpFault['type'];
