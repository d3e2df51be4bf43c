/**
 * The typed hook map: every point where a plugin can observe or change what the gateway
 * does, with its payload, what a handler may return and how the results of several
 * handlers are merged. The names follow OpenClaw's so its plugin authors feel at home.
 *
 * Kinds (see {@link HookKind}):
 * - `observe`: handlers run concurrently; return values are ignored.
 * - `modify`: handlers run one after another by priority (higher first, ties in
 *   registration order); every handler sees the original event; results merge by the
 *   hook's rule.
 * - `gate`: like `modify`, but each handler sees the event as changed by the ones before,
 *   and a block/cancel stops the chain.
 * - `claim`: handlers run in priority order until one returns `{ handled: true }`.
 * - `sync`: like `gate`, but synchronous, on the transcript write path; a handler that
 *   returns a promise is ignored with a warning.
 *
 * A handler that throws or times out is logged with its plugin's name and skipped; the
 * chain goes on. The one exception is `before_tool_call`, which fails closed: a throw or a
 * timeout there blocks the tool call.
 */
import type { InboundMessage, OutboundMessage, Sender } from './channel.ts';
import type { AssistantMessage, Message, ToolResultMessage, Usage } from './messages.ts';

/** How a hook runs its handlers and combines their results. */
export type HookKind = 'observe' | 'modify' | 'gate' | 'claim' | 'sync';

// ---------------------------------------------------------------------------------------
// Shared payload parts
// ---------------------------------------------------------------------------------------

/** Identifies the session a hook fires for. */
export interface SessionScope {
  /** The routing session key (`agent:main:telegram:group:-100123`). */
  readonly sessionKey: string;
  /** The agent that owns the session. */
  readonly agentId: string;
}

/** Identifies one agent run (one inbound prompt and everything the agent did for it). */
export interface RunScope extends SessionScope {
  readonly runId: string;
  /** The channel the run's prompt came from (`telegram`, `webchat`, ...), if any. */
  readonly channel?: string;
}

// ---------------------------------------------------------------------------------------
// Gateway lifecycle
// ---------------------------------------------------------------------------------------

export interface GatewayStartEvent {
  /** When the gateway finished starting, in milliseconds since the epoch. */
  readonly startedAt: number;
  /** Where the gateway's HTTP/WebSocket server listens. */
  readonly address?: { readonly host: string; readonly port: number };
  /** Aborted when the gateway begins to stop: end background work started here. */
  readonly signal: AbortSignal;
}

export interface GatewayStopEvent {
  readonly reason: 'shutdown' | 'restart';
}

// ---------------------------------------------------------------------------------------
// Messages in and out
// ---------------------------------------------------------------------------------------

export interface MessageReceivedEvent {
  /** The accepted and journaled inbound message. */
  readonly message: InboundMessage;
}

export interface InboundClaimEvent {
  readonly message: InboundMessage;
}

/** Return `{ handled: true }` to take the message; the agent will not see it. */
export interface InboundClaimResult {
  readonly handled: boolean;
  /** A text reply the gateway sends to the conversation on the claimer's behalf. */
  readonly reply?: string;
}

export type InboundClaimOutcome =
  | { readonly handled: false }
  | { readonly handled: true; readonly plugin: string; readonly reply?: string };

/** Fields of outbound hooks when the message belongs to an agent run. */
export interface OutboundScope {
  readonly sessionKey?: string;
  readonly agentId?: string;
  readonly runId?: string;
}

export interface MessageSendingEvent extends OutboundScope {
  /** The message about to be sent, as changed by higher-priority handlers. */
  readonly message: OutboundMessage;
}

export interface MessageSendingResult {
  /** Replaces the text (of a text message) or the caption (of a media message). */
  readonly text?: string;
  /** `true` drops the message and stops the chain. */
  readonly cancel?: boolean;
  readonly cancelReason?: string;
}

export type MessageSendingOutcome =
  | { readonly cancel: false; readonly message: OutboundMessage }
  | { readonly cancel: true; readonly plugin: string; readonly reason?: string };

export interface MessageSentEvent extends OutboundScope {
  readonly message: OutboundMessage;
  readonly result:
    | { readonly ok: true; readonly messageIds: readonly string[] }
    | { readonly ok: false; readonly error: string };
  readonly durationMs: number;
}

// ---------------------------------------------------------------------------------------
// The agent run
// ---------------------------------------------------------------------------------------

export interface BeforeModelResolveEvent extends RunScope {
  /** The prompt text of the run. */
  readonly prompt: string;
  /** The provider and model the gateway would use without an override. */
  readonly provider: string;
  readonly model: string;
}

export interface BeforeModelResolveResult {
  readonly modelOverride?: string;
  readonly providerOverride?: string;
}

export interface BeforePromptBuildEvent extends RunScope {
  readonly prompt: string;
  /** The session's messages as they will be sent (before this run's prompt). */
  readonly messages: readonly Message[];
  /** The system prompt the gateway built. */
  readonly systemPrompt: string;
  readonly provider: string;
  readonly model: string;
}

export interface BeforePromptBuildResult {
  /** Replaces the whole system prompt. */
  readonly systemPrompt?: string;
  /** Text added before / after the user's prompt. */
  readonly prependContext?: string;
  readonly appendContext?: string;
  /** Text added at the start / end of the system prompt. */
  readonly prependSystemContext?: string;
  readonly appendSystemContext?: string;
}

export interface BeforeAgentStartEvent extends RunScope {
  readonly prompt: string;
  readonly messages: readonly Message[];
}

/** The legacy combination of {@link BeforeModelResolveResult} and {@link BeforePromptBuildResult}. */
export interface BeforeAgentStartResult extends BeforeModelResolveResult, BeforePromptBuildResult {}

export interface LlmInputEvent extends RunScope {
  readonly provider: string;
  readonly model: string;
  readonly systemPrompt: string;
  /** The messages of the request, in order. */
  readonly messages: readonly Message[];
  /** The names of the tools offered to the model. */
  readonly tools: readonly string[];
}

export interface LlmOutputEvent extends RunScope {
  readonly provider: string;
  readonly model: string;
  readonly message: AssistantMessage;
  /** The usage of this one call (same as `message.usage`). */
  readonly usage: Usage;
}

export interface BeforeToolCallEvent extends RunScope {
  readonly toolCallId: string;
  readonly toolName: string;
  /** The validated arguments, as changed by higher-priority handlers. */
  readonly params: Readonly<Record<string, unknown>>;
}

export interface BeforeToolCallResult {
  /** Replaces the arguments the tool receives. */
  readonly params?: Readonly<Record<string, unknown>>;
  /** `true` blocks the call (the model gets an error result) and stops the chain. */
  readonly block?: boolean;
  /** Told to the model when blocked. */
  readonly blockReason?: string;
}

export type BeforeToolCallOutcome =
  | { readonly block: false; readonly params: Readonly<Record<string, unknown>> }
  | { readonly block: true; readonly plugin: string; readonly reason: string };

export interface AfterToolCallEvent extends RunScope {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly params: Readonly<Record<string, unknown>>;
  /** The tool result message (`isError` set when the tool failed or was blocked). */
  readonly result: ToolResultMessage;
  readonly durationMs: number;
}

export interface AgentEndEvent extends RunScope {
  /** The messages this run added to the session, in order. */
  readonly messages: readonly Message[];
  readonly success: boolean;
  /** Why the run failed, when `success` is false. */
  readonly error?: string;
  readonly durationMs: number;
  /** Summed over the run's model calls. */
  readonly usage: Usage;
}

// ---------------------------------------------------------------------------------------
// The transcript write path (sync)
// ---------------------------------------------------------------------------------------

export interface ToolResultPersistEvent extends SessionScope {
  /** The tool result about to be appended, as changed by higher-priority handlers. */
  readonly message: ToolResultMessage;
}

export interface ToolResultPersistResult {
  /** Replaces the message. Must keep `role`, `toolCallId` and `toolName`, or it is ignored. */
  readonly message?: ToolResultMessage;
}

export interface ToolResultPersistOutcome {
  readonly message: ToolResultMessage;
}

export interface BeforeMessageWriteEvent extends SessionScope {
  /** The message about to be appended, as changed by higher-priority handlers. */
  readonly message: Message;
}

export interface BeforeMessageWriteResult {
  /** Replaces the message. Must keep its `role`, or it is ignored. */
  readonly message?: Message;
  /** `true` keeps the message out of the transcript and stops the chain. */
  readonly block?: boolean;
}

export type BeforeMessageWriteOutcome =
  | { readonly block: false; readonly message: Message }
  | { readonly block: true; readonly plugin: string };

// ---------------------------------------------------------------------------------------
// Sessions and compaction
// ---------------------------------------------------------------------------------------

/** Why compaction runs: the context passed its threshold, the model said it overflowed, or `/compact`. */
export type CompactionReason = 'threshold' | 'overflow' | 'manual';

export interface BeforeCompactionEvent extends SessionScope {
  readonly reason: CompactionReason;
  readonly messageCount: number;
  readonly tokenCount: number;
}

export interface AfterCompactionEvent extends SessionScope {
  readonly reason: CompactionReason;
  readonly messagesBefore: number;
  readonly messagesAfter: number;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** The summary that replaced the compacted messages. */
  readonly summary: string;
}

export interface BeforeResetEvent extends SessionScope {
  readonly reason: 'new' | 'reset';
  /** The session's messages, about to be archived. */
  readonly messages: readonly Message[];
}

export interface SessionStartEvent extends SessionScope {
  /** The id of the new session entry (a key keeps its id until reset). */
  readonly sessionId: string;
  readonly channel?: string;
}

/** Why a session ended. */
export type SessionEndReason =
  | 'new'
  | 'reset'
  | 'idle'
  | 'daily'
  | 'compaction'
  | 'deleted'
  | 'shutdown'
  | 'restart'
  | 'unknown';

export interface SessionEndEvent extends SessionScope {
  readonly sessionId: string;
  readonly reason: SessionEndReason;
}

/** A subagent run was accepted: its record is durable and its task queued. */
export interface SubagentSpawnedEvent {
  readonly runId: string;
  /** The child's session (`agent:<id>:subagent:<uuid>`). */
  readonly childSessionKey: string;
  /** The child's agent. */
  readonly agentId: string;
  readonly requesterSessionKey: string;
  readonly requesterAgentId: string;
  readonly task: string;
  readonly label?: string;
  /** `<provider>/<model>` the child runs with. */
  readonly model?: string;
  /** 1 for a child of a top-level session, 2 for a grandchild, … */
  readonly depth: number;
}

/** How a subagent run ended, from the runtime (never guessed from its text). */
export type SubagentOutcome = 'ok' | 'error' | 'timeout' | 'killed';

/** A subagent run ended (once per run, also when the end is found after a restart). */
export interface SubagentEndedEvent {
  readonly runId: string;
  readonly childSessionKey: string;
  readonly agentId: string;
  readonly requesterSessionKey: string;
  readonly outcome: SubagentOutcome;
  /** The error, for `error` and `timeout`. */
  readonly error?: string;
  readonly startedAt: number;
  readonly endedAt: number;
}

export interface ChannelPairingRequestedEvent {
  readonly channel: string;
  readonly accountId: string;
  readonly sender: Sender;
  /** The code the sender was given; an operator approves it. */
  readonly code: string;
  readonly expiresAt: number;
}

// ---------------------------------------------------------------------------------------
// The map
// ---------------------------------------------------------------------------------------

interface HookSpec<Kind extends HookKind, Event, Result, Outcome> {
  readonly kind: Kind;
  readonly event: Event;
  readonly result: Result;
  readonly outcome: Outcome;
}

/** A hook whose handlers run concurrently and return nothing. */
export type ObserveHook<Event> = HookSpec<'observe', Event, void, void>;
/** A sequential hook whose results merge by a per-hook rule. */
export type ModifyHook<Event, Result, Outcome = Result> = HookSpec<'modify', Event, Result, Outcome>;
/** A sequential hook that can change the event for later handlers and stop the chain. */
export type GateHook<Event, Result, Outcome> = HookSpec<'gate', Event, Result, Outcome>;
/** A sequential hook where the first `{ handled: true }` wins. */
export type ClaimHook<Event, Result, Outcome> = HookSpec<'claim', Event, Result, Outcome>;
/** A synchronous gate on the transcript write path. */
export type SyncHook<Event, Result, Outcome> = HookSpec<'sync', Event, Result, Outcome>;

/**
 * Every hook, by name. Each entry says when it fires, what a handler may return, how
 * results merge, its default timeout and what happens when a handler fails.
 */
export interface HookMap {
  /**
   * Fires once, after every plugin is registered and every channel account started.
   * Observe; results ignored. Timeout 30 s. `event.signal` aborts when the gateway stops.
   */
  gateway_start: ObserveHook<GatewayStartEvent>;
  /**
   * Fires once when the gateway begins to stop, before channels stop. Observe; timeout 5 s,
   * after which shutdown goes on without the handler.
   */
  gateway_stop: ObserveHook<GatewayStopEvent>;
  /**
   * Fires for every inbound message that passed access control and was journaled, before
   * routing. Observe; timeout 30 s. The gateway does not wait for it to route the message.
   */
  message_received: ObserveHook<MessageReceivedEvent>;
  /**
   * Fires for every accepted inbound message before it is routed to an agent. Claim: handlers
   * run by priority until one returns `{ handled: true }`; that plugin owns the message, the
   * agent never sees it, and `reply` (if any) is sent back. A failing handler is skipped.
   * Timeout 15 s.
   */
  inbound_claim: ClaimHook<InboundClaimEvent, InboundClaimResult, InboundClaimOutcome>;
  /**
   * Fires before each outbound message (each chunk of a reply) is handed to the channel,
   * from every path: agent replies, directives, pairing messages, the `send` method. Gate:
   * each handler sees the text as rewritten by the ones before; `text` replaces it (last
   * writer wins); `cancel: true` drops the message and stops the chain. Fails open
   * (a failing handler is skipped). Timeout 15 s.
   */
  message_sending: GateHook<MessageSendingEvent, MessageSendingResult, MessageSendingOutcome>;
  /** Fires after each delivery attempt, with the platform ids or the error. Observe; timeout 30 s. */
  message_sent: ObserveHook<MessageSentEvent>;
  /**
   * Fires at the start of every run, before the model is chosen. Modify: the first
   * handler (by priority) that sets `modelOverride` / `providerOverride` wins each field.
   * Timeout 15 s.
   */
  before_model_resolve: ModifyHook<BeforeModelResolveEvent, BeforeModelResolveResult>;
  /**
   * Fires once per run after the session's messages are loaded, before the request is
   * built. Modify: `systemPrompt` — first set wins; the four context fields are joined
   * with a blank line, in priority order. Timeout 15 s.
   */
  before_prompt_build: ModifyHook<BeforePromptBuildEvent, BeforePromptBuildResult>;
  /**
   * Legacy (OpenClaw's first hook): fires once per run, after `before_model_resolve` and
   * before `before_prompt_build`. Modify, with the merge rules of both. Where both are
   * set, the results of `before_model_resolve` and `before_prompt_build` take precedence.
   * Timeout 15 s. Prefer the two specific hooks in new plugins.
   */
  before_agent_start: ModifyHook<BeforeAgentStartEvent, BeforeAgentStartResult>;
  /** Fires before every model call with the exact request. Observe; timeout 30 s. */
  llm_input: ObserveHook<LlmInputEvent>;
  /** Fires after every model call with the assistant message and its usage. Observe; timeout 30 s. */
  llm_output: ObserveHook<LlmOutputEvent>;
  /**
   * Fires before every tool call, from every runner and for every tool (built-in, plugin,
   * the `message` tool). Gate: each handler sees `params` as replaced by the ones before;
   * `block: true` refuses the call and stops the chain. **Fails closed**: a handler that
   * throws or times out blocks the call. Timeout 15 s.
   */
  before_tool_call: GateHook<BeforeToolCallEvent, BeforeToolCallResult, BeforeToolCallOutcome>;
  /** Fires after every tool call (also blocked and failed ones). Observe; timeout 30 s. */
  after_tool_call: ObserveHook<AfterToolCallEvent>;
  /**
   * Fires synchronously before a tool result is appended to the transcript. Sync: each
   * handler sees the message as replaced by the ones before. No timeout; a handler that
   * returns a promise is ignored with a warning; a throwing handler is skipped.
   */
  tool_result_persist: SyncHook<ToolResultPersistEvent, ToolResultPersistResult, ToolResultPersistOutcome>;
  /**
   * Fires synchronously before any message is appended to the transcript (after
   * `tool_result_persist` for tool results). Sync: `message` replaces it for later
   * handlers; `block: true` keeps it out and stops the chain. Same rules as
   * `tool_result_persist` for promises and throws.
   */
  before_message_write: SyncHook<
    BeforeMessageWriteEvent,
    BeforeMessageWriteResult,
    BeforeMessageWriteOutcome
  >;
  /** Fires before a session is compacted. Observe (no veto); timeout 30 s. */
  before_compaction: ObserveHook<BeforeCompactionEvent>;
  /** Fires after a successful compaction. Observe; timeout 30 s. */
  after_compaction: ObserveHook<AfterCompactionEvent>;
  /** Fires when `/new` or `/reset` is about to clear a session. Observe; timeout 30 s. */
  before_reset: ObserveHook<BeforeResetEvent>;
  /** Fires when a session entry is created (first message, or after a reset). Observe; timeout 30 s. */
  session_start: ObserveHook<SessionStartEvent>;
  /** Fires when a session entry ends (reset, idle or daily expiry, deletion, shutdown). Observe; timeout 30 s. */
  session_end: ObserveHook<SessionEndEvent>;
  /** Fires when a run finishes, successfully or not. Observe; timeout 30 s. */
  agent_end: ObserveHook<AgentEndEvent>;
  /**
   * Fires when an unknown DM sender is given a new pairing code. Observe (cannot approve
   * or reject); timeout 2 s.
   */
  channel_pairing_requested: ObserveHook<ChannelPairingRequestedEvent>;
  /** Fires when a subagent run was accepted (`sessions_spawn`). Observe; timeout 30 s. */
  subagent_spawned: ObserveHook<SubagentSpawnedEvent>;
  /** Fires once when a subagent run ends, with the runtime's outcome. Observe; timeout 30 s. */
  subagent_ended: ObserveHook<SubagentEndedEvent>;
}

/** The name of a hook. */
export type HookName = keyof HookMap;
/** The kind of a hook. */
export type HookKindOf<Name extends HookName> = HookMap[Name]['kind'];
/** The payload a handler of the hook receives. */
export type HookEvent<Name extends HookName> = HookMap[Name]['event'];
/** What a handler of the hook may return (`void` for observe hooks). */
export type HookResult<Name extends HookName> = HookMap[Name]['result'];
/** What the runner returns after merging every handler's result. */
export type HookOutcome<Name extends HookName> = HookMap[Name]['outcome'];
/** Hooks whose runner is synchronous (`runSync`). */
export type SyncHookName = { [Name in HookName]: HookKindOf<Name> extends 'sync' ? Name : never }[HookName];
/** Hooks whose runner returns a promise (`run`). */
export type AsyncHookName = Exclude<HookName, SyncHookName>;

/** The second argument of every handler. */
export interface HookContext<Name extends HookName = HookName> {
  readonly hook: Name;
  /** The plugin the handler belongs to. */
  readonly plugin: string;
  /** Aborted when the handler's timeout passes; stop work then. Never aborts for sync hooks. */
  readonly signal: AbortSignal;
}

/**
 * A hook handler. Sync hooks must return synchronously; every other hook may return a
 * promise. Observe handlers return nothing.
 */
export type HookHandler<Name extends HookName> = (
  event: HookEvent<Name>,
  context: HookContext<Name>,
) => HookKindOf<Name> extends 'sync' ? HookReturn<Name> : HookReturn<Name> | Promise<HookReturn<Name>>;

/** What a handler returns: a result, or nothing (`void` so `async () => {}` handlers fit). */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler that returns nothing has type void, not undefined.
export type HookReturn<Name extends HookName> = HookResult<Name> | undefined | void;

/** Options of `api.on`. */
export interface HookOptions {
  /** Higher runs first; ties run in registration order. Default 0. */
  readonly priority?: number;
  /**
   * How long the runner waits for this handler, in ms (1–600000). Defaults to the hook's
   * default; the operator's `plugins.entries.<name>.hooks` settings override both.
   * Ignored for sync hooks.
   */
  readonly timeoutMs?: number;
}

/** The runtime facts of one hook. */
export interface HookDefinition<Kind extends HookKind = HookKind> {
  readonly kind: Kind;
  /** The default per-handler timeout in ms; `undefined` for sync hooks. */
  readonly timeoutMs: number | undefined;
  /** `closed`: a failing handler blocks (only `before_tool_call`). */
  readonly failure: 'open' | 'closed';
}

const observe = (timeoutMs = 30_000): HookDefinition<'observe'> => ({
  kind: 'observe',
  timeoutMs,
  failure: 'open',
});
const modify: HookDefinition<'modify'> = { kind: 'modify', timeoutMs: 15_000, failure: 'open' };
const sync: HookDefinition<'sync'> = { kind: 'sync', timeoutMs: undefined, failure: 'open' };

/** Kind, default timeout and failure policy of every hook. */
export const hookDefinitions: { readonly [Name in HookName]: HookDefinition<HookKindOf<Name>> } =
  Object.freeze({
    gateway_start: observe(),
    gateway_stop: observe(5_000),
    message_received: observe(),
    inbound_claim: { kind: 'claim', timeoutMs: 15_000, failure: 'open' },
    message_sending: { kind: 'gate', timeoutMs: 15_000, failure: 'open' },
    message_sent: observe(),
    before_model_resolve: modify,
    before_prompt_build: modify,
    before_agent_start: modify,
    llm_input: observe(),
    llm_output: observe(),
    before_tool_call: { kind: 'gate', timeoutMs: 15_000, failure: 'closed' },
    after_tool_call: observe(),
    tool_result_persist: sync,
    before_message_write: sync,
    before_compaction: observe(),
    after_compaction: observe(),
    before_reset: observe(),
    session_start: observe(),
    session_end: observe(),
    agent_end: observe(),
    channel_pairing_requested: observe(2_000),
    subagent_spawned: observe(),
    subagent_ended: observe(),
  });

const listedHookNames = [
  'gateway_start',
  'gateway_stop',
  'message_received',
  'inbound_claim',
  'message_sending',
  'message_sent',
  'before_model_resolve',
  'before_prompt_build',
  'before_agent_start',
  'llm_input',
  'llm_output',
  'before_tool_call',
  'after_tool_call',
  'tool_result_persist',
  'before_message_write',
  'before_compaction',
  'after_compaction',
  'before_reset',
  'session_start',
  'session_end',
  'agent_end',
  'channel_pairing_requested',
  'subagent_spawned',
  'subagent_ended',
] as const satisfies readonly HookName[];

// Compile-time proof that the list names every hook of the map: adding a hook to HookMap
// without listing it here fails the build.
type UnlistedHookName = Exclude<HookName, (typeof listedHookNames)[number]>;
const everyHookListed: [UnlistedHookName] extends [never] ? true : UnlistedHookName = true;
void everyHookListed;

/** Every hook name, in the order of the pipeline. */
export const hookNames: readonly HookName[] = Object.freeze(listedHookNames);

/** The largest per-handler timeout an operator or plugin may set, in ms. */
export const maxHookTimeoutMs = 600_000;

const hookNameSet: ReadonlySet<string> = new Set(listedHookNames);

/** True when `name` is a hook of the map. */
export function isHookName(name: unknown): name is HookName {
  return typeof name === 'string' && hookNameSet.has(name);
}
