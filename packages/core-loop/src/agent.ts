import type { AssistantMessage, ImageContent, UserMessage } from '@switchboard/hooks';
import { assertContinuable, assertValidBudget, defaultMaxModelCalls, runAgentLoop } from './agent-loop.ts';
import { CoreLoopError } from './errors.ts';
import { defaultModel } from './models.ts';
import { defaultStreamFunction } from './providers/default.ts';
import { assertValidTools } from './tools.ts';
import type {
  AgentEvent,
  AgentLoopConfig,
  AgentMessage,
  AnyAgentTool,
  Model,
  StreamFunction,
  StreamOptions,
  ThinkingLevel,
  ToolExecutionMode,
} from './types.ts';
import { createUsageAccumulator, type RunUsage, type UsageAccumulator } from './usage.ts';

/** How many queued messages one poll delivers. */
export type QueueMode = 'one-at-a-time' | 'all';

/** Receives every event of every run, synchronously and in order. */
export type AgentListener = (event: AgentEvent) => void;

/** Options of an `Agent`. Everything but the state fields can also be changed later. */
export interface AgentOptions {
  readonly systemPrompt?: string;
  /** Default: `defaultModel` (Claude Sonnet 4.6). */
  readonly model?: Model;
  /** Default `off`. */
  readonly thinkingLevel?: ThinkingLevel;
  readonly tools?: readonly AnyAgentTool[];
  readonly messages?: readonly AgentMessage[];
  /** Default: the Anthropic provider (`defaultStreamFunction`). */
  readonly streamFn?: StreamFunction;
  readonly convertToLlm?: AgentLoopConfig['convertToLlm'];
  readonly transformContext?: AgentLoopConfig['transformContext'];
  readonly getApiKey?: AgentLoopConfig['getApiKey'];
  readonly beforeToolCall?: AgentLoopConfig['beforeToolCall'];
  readonly afterToolCall?: AgentLoopConfig['afterToolCall'];
  /** Default `parallel`. */
  readonly toolExecution?: ToolExecutionMode;
  /** Default `one-at-a-time`. */
  readonly steeringMode?: QueueMode;
  /** Default `one-at-a-time`. */
  readonly followUpMode?: QueueMode;
  /** Model calls per run (default 50). */
  readonly maxModelCalls?: number;
  /** Passed to the stream function with every call. */
  readonly sessionId?: string;
  /** Other per-call options (max tokens, endpoint, headers, timeouts, cache retention, key). */
  readonly streamOptions?: Omit<StreamOptions, 'signal' | 'thinkingLevel' | 'sessionId'>;
  readonly now?: () => number;
  /** Called when a listener throws; the default writes to `console.error`. */
  readonly onListenerError?: (error: unknown, event: AgentEvent) => void;
}

/** A read-only view of the agent. */
export interface AgentState {
  readonly systemPrompt: string;
  readonly model: Model;
  readonly thinkingLevel: ThinkingLevel;
  readonly tools: readonly AnyAgentTool[];
  readonly messages: readonly AgentMessage[];
  /** True from `prompt()`/`continue()` until the run's `agent_end`. */
  readonly isStreaming: boolean;
  /** The assistant message being streamed, if any. */
  readonly streamMessage: AssistantMessage | undefined;
  /** Ids of tool calls started and not yet ended. */
  readonly pendingToolCalls: ReadonlySet<string>;
  /** The error text of the last run that failed (cleared when a run starts). */
  readonly error: string | undefined;
  /** Usage summed over every model call of this agent; context size from the last call. */
  readonly usage: RunUsage;
}

interface ActiveRun {
  readonly controller: AbortController;
  stale: boolean;
}

/**
 * The stateful agent: owns the history, the steering and follow-up queues and the abort
 * controller, and runs the loop. Listeners get every event synchronously, after the
 * agent's own state was updated for it. Mutators never emit events.
 */
export class Agent {
  #systemPrompt: string;
  #model: Model;
  #thinkingLevel: ThinkingLevel;
  #tools: readonly AnyAgentTool[];
  #messages: AgentMessage[];
  #streamMessage: AssistantMessage | undefined;
  #pendingToolCalls = new Set<string>();
  #error: string | undefined;
  #usage: UsageAccumulator = createUsageAccumulator();
  #steeringQueue: AgentMessage[] = [];
  #followUpQueue: AgentMessage[] = [];
  #listeners: AgentListener[] = [];
  #active: ActiveRun | undefined;
  #idle: Promise<void> | undefined;
  readonly #options: AgentOptions;
  #sessionId: string | undefined;
  #steeringMode: QueueMode;
  #followUpMode: QueueMode;
  readonly #streamFn: StreamFunction;

  constructor(options: AgentOptions = {}) {
    this.#options = options;
    this.#systemPrompt = options.systemPrompt ?? '';
    this.#model = options.model ?? defaultModel;
    this.#thinkingLevel = options.thinkingLevel ?? 'off';
    const tools = options.tools ?? [];
    assertValidTools(tools);
    assertValidBudget(options.maxModelCalls);
    this.#tools = tools;
    this.#messages = options.messages === undefined ? [] : [...options.messages];
    this.#sessionId = options.sessionId;
    this.#steeringMode = options.steeringMode ?? 'one-at-a-time';
    this.#followUpMode = options.followUpMode ?? 'one-at-a-time';
    this.#streamFn = options.streamFn ?? defaultStreamFunction;
  }

  /** A snapshot of the state (the arrays and sets are live views; do not mutate them). */
  get state(): AgentState {
    return {
      systemPrompt: this.#systemPrompt,
      model: this.#model,
      thinkingLevel: this.#thinkingLevel,
      tools: this.#tools,
      messages: this.#messages,
      isStreaming: this.#active !== undefined,
      streamMessage: this.#streamMessage,
      pendingToolCalls: this.#pendingToolCalls,
      error: this.#error,
      usage: this.#usage.snapshot(),
    };
  }

  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  set sessionId(value: string | undefined) {
    this.#sessionId = value;
  }

  get steeringMode(): QueueMode {
    return this.#steeringMode;
  }

  set steeringMode(mode: QueueMode) {
    this.#steeringMode = mode;
  }

  get followUpMode(): QueueMode {
    return this.#followUpMode;
  }

  set followUpMode(mode: QueueMode) {
    this.#followUpMode = mode;
  }

  // -------------------------------------------------------------------------------------
  // Mutators (never emit events)

  setSystemPrompt(systemPrompt: string): void {
    this.#systemPrompt = systemPrompt;
  }

  setModel(model: Model): void {
    this.#model = model;
  }

  setThinkingLevel(level: ThinkingLevel): void {
    this.#thinkingLevel = level;
  }

  /** Replaces the tool list (kept by reference). Throws `CORE_LOOP_INVALID_TOOL` for a bad list. */
  setTools(tools: readonly AnyAgentTool[]): void {
    assertValidTools(tools);
    this.#tools = tools;
  }

  /** Replaces the history with a copy of `messages`. */
  replaceMessages(messages: readonly AgentMessage[]): void {
    this.#messages = [...messages];
  }

  appendMessage(message: AgentMessage): void {
    this.#messages.push(message);
  }

  clearMessages(): void {
    this.#messages = [];
  }

  /** Aborts a running run (its remaining events are ignored) and clears history, queues and flags. */
  reset(): void {
    if (this.#active !== undefined) {
      this.#active.stale = true;
      this.#active.controller.abort();
      this.#active = undefined;
    }
    this.#messages = [];
    this.#steeringQueue = [];
    this.#followUpQueue = [];
    this.#streamMessage = undefined;
    this.#pendingToolCalls = new Set();
    this.#error = undefined;
    this.#usage = createUsageAccumulator();
  }

  // -------------------------------------------------------------------------------------
  // Queues

  /**
   * Queues a message for the running run: delivered at the next poll point (before the
   * next model call, between tool calls — the remaining tool calls are then skipped).
   * With no run, it is delivered when the next run starts.
   */
  steer(message: AgentMessage): void {
    this.#steeringQueue.push(message);
  }

  /** Queues a message delivered only when the run would otherwise stop. */
  followUp(message: AgentMessage): void {
    this.#followUpQueue.push(message);
  }

  clearSteeringQueue(): void {
    this.#steeringQueue = [];
  }

  clearFollowUpQueue(): void {
    this.#followUpQueue = [];
  }

  clearAllQueues(): void {
    this.#steeringQueue = [];
    this.#followUpQueue = [];
  }

  hasQueuedMessages(): boolean {
    return this.#steeringQueue.length > 0 || this.#followUpQueue.length > 0;
  }

  /** Messages waiting in the steering queue (a copy). */
  get queuedSteering(): readonly AgentMessage[] {
    return [...this.#steeringQueue];
  }

  /** Messages waiting in the follow-up queue (a copy). */
  get queuedFollowUps(): readonly AgentMessage[] {
    return [...this.#followUpQueue];
  }

  #dequeue(queue: 'steering' | 'followUp'): AgentMessage[] {
    const mode = queue === 'steering' ? this.#steeringMode : this.#followUpMode;
    const items = queue === 'steering' ? this.#steeringQueue : this.#followUpQueue;
    if (items.length === 0) return [];
    if (mode === 'all') {
      if (queue === 'steering') this.#steeringQueue = [];
      else this.#followUpQueue = [];
      return items;
    }
    return [items.shift() as AgentMessage];
  }

  // -------------------------------------------------------------------------------------
  // Runs

  /** Subscribes to every event; returns the function that unsubscribes. */
  subscribe(listener: AgentListener): () => void {
    this.#listeners.push(listener);
    return () => {
      const index = this.#listeners.indexOf(listener);
      if (index >= 0) this.#listeners.splice(index, 1);
    };
  }

  /**
   * Starts a run with a new user message (text, plus optional images) or ready-made
   * messages, and resolves when it ends. Never rejects because of model or tool failures
   * (see `state.error`); rejects with `CORE_LOOP_BUSY` while a run is streaming.
   */
  prompt(
    input: string | AgentMessage | readonly AgentMessage[],
    images?: readonly ImageContent[],
  ): Promise<void> {
    if (this.#active !== undefined) {
      return Promise.reject(
        new CoreLoopError(
          'CORE_LOOP_BUSY',
          'Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.',
        ),
      );
    }
    let prompts: AgentMessage[];
    if (typeof input === 'string') {
      const message: UserMessage = {
        role: 'user',
        content:
          images === undefined || images.length === 0 ? input : [{ type: 'text', text: input }, ...images],
        timestamp: this.#now(),
      };
      prompts = [message];
    } else if (Array.isArray(input)) {
      prompts = [...(input as readonly AgentMessage[])];
    } else {
      prompts = [input as AgentMessage];
    }
    return this.#run(prompts, false);
  }

  /**
   * Resumes from the current history. With a user or tool-result message last it calls the
   * model again; with an assistant message last it delivers queued steering (one poll's
   * worth) or else queued follow-ups as the prompt. Rejects with `CORE_LOOP_BUSY` while
   * streaming, `CORE_LOOP_NOTHING_TO_CONTINUE` on an empty history, and
   * `CORE_LOOP_CANNOT_CONTINUE` with an assistant message last and nothing queued.
   */
  continue(): Promise<void> {
    if (this.#active !== undefined) {
      return Promise.reject(
        new CoreLoopError(
          'CORE_LOOP_BUSY',
          'Agent is already processing. Wait for completion before continuing.',
        ),
      );
    }
    const last = this.#messages.at(-1);
    if (last === undefined) {
      return Promise.reject(
        new CoreLoopError('CORE_LOOP_NOTHING_TO_CONTINUE', 'No messages to continue from.'),
      );
    }
    if ((last as { role?: unknown }).role === 'assistant') {
      const steering = this.#dequeue('steering');
      if (steering.length > 0) return this.#run(steering, true);
      const followUps = this.#dequeue('followUp');
      if (followUps.length > 0) return this.#run(followUps, false);
      return Promise.reject(
        new CoreLoopError(
          'CORE_LOOP_CANNOT_CONTINUE',
          'Cannot continue from message role: assistant (nothing is queued to answer).',
        ),
      );
    }
    try {
      assertContinuable(this.#messages);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#run([], false);
  }

  /** Aborts the running run: the model request and running tools see the signal. No-op when idle. */
  abort(): void {
    this.#active?.controller.abort();
  }

  /** Resolves when no run is active (at once when idle). */
  waitForIdle(): Promise<void> {
    return this.#idle ?? Promise.resolve();
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  #run(prompts: AgentMessage[], skipInitialSteeringPoll: boolean): Promise<void> {
    const options = this.#options;
    const run: ActiveRun = { controller: new AbortController(), stale: false };
    const config: AgentLoopConfig = {
      model: this.#model,
      streamOptions: {
        ...options.streamOptions,
        thinkingLevel: this.#thinkingLevel,
        // After `...options.streamOptions` (decision 0028): no session id must not erase the caller's.
        ...(this.#sessionId === undefined ? {} : { sessionId: this.#sessionId }),
      },
      convertToLlm: options.convertToLlm,
      transformContext: options.transformContext,
      getApiKey: options.getApiKey,
      beforeToolCall: options.beforeToolCall,
      afterToolCall: options.afterToolCall,
      toolExecution: options.toolExecution,
      maxModelCalls: options.maxModelCalls,
      now: options.now,
      getSteeringMessages: () => (run.stale ? [] : this.#dequeue('steering')),
      getFollowUpMessages: () => (run.stale ? [] : this.#dequeue('followUp')),
      skipInitialSteeringPoll,
    };
    let finished: Promise<unknown>;
    this.#active = run;
    this.#error = undefined;
    this.#streamMessage = undefined;
    try {
      finished = runAgentLoop(
        prompts,
        { systemPrompt: this.#systemPrompt, messages: this.#messages, tools: this.#tools },
        config,
        (event) => this.#process(run, event),
        run.controller.signal,
        this.#streamFn,
      );
    } catch (error) {
      this.#active = undefined;
      return Promise.reject(error);
    }
    const idle = finished.then(
      () => this.#settle(run),
      () => this.#settle(run),
    );
    this.#idle = idle;
    return idle;
  }

  #settle(run: ActiveRun): void {
    if (this.#active === run) this.#active = undefined;
  }

  #process(run: ActiveRun, event: AgentEvent): void {
    if (run.stale) return;
    switch (event.type) {
      case 'message_start':
      case 'message_update':
        if ((event.message as { role?: unknown }).role === 'assistant') {
          this.#streamMessage = event.message as AssistantMessage;
        }
        break;
      case 'message_end':
        this.#streamMessage = undefined;
        this.#messages.push(event.message);
        if ((event.message as { role?: unknown }).role === 'assistant') {
          this.#usage.addMessage(event.message as AssistantMessage);
        }
        break;
      case 'tool_execution_start':
        this.#pendingToolCalls.add(event.toolCallId);
        break;
      case 'tool_execution_end':
        this.#pendingToolCalls.delete(event.toolCallId);
        break;
      case 'turn_end':
        if (event.message.errorMessage !== undefined) this.#error = event.message.errorMessage;
        break;
      case 'agent_end':
        this.#streamMessage = undefined;
        if (event.stopReason === 'budget_exhausted') {
          const budget = this.#options.maxModelCalls ?? defaultMaxModelCalls;
          this.#error = `The run stopped after ${budget} model calls, its budget (maxModelCalls), while the model still asked for tools. continue() resumes with a fresh budget.`;
        }
        if (this.#active === run) this.#active = undefined;
        break;
      default:
        break;
    }
    for (const listener of this.#listeners.slice()) {
      try {
        listener(event);
      } catch (error) {
        const report =
          this.#options.onListenerError ??
          ((thrown: unknown) => console.error('[core-loop] an agent listener threw:', thrown));
        report(error, event);
      }
    }
  }
}
