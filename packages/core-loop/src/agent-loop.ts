import {
  type AssistantMessage,
  emptyUsage,
  type ToolCallContent,
  type ToolResult,
  type ToolResultMessage,
} from '@switchboard/hooks';
import { CoreLoopError, ModelError, toModelError } from './errors.ts';
import { EventStream } from './event-stream.ts';
import { defaultConvertToLlm } from './replay.ts';
import { assertValidTools, toolSpec, validateToolArguments } from './tools.ts';
import type {
  AgentContext,
  AgentEvent,
  AgentLoopConfig,
  AgentMessage,
  AgentStopReason,
  AnyAgentTool,
  LlmContext,
  Model,
  ModelCredential,
  StreamFunction,
  StreamOptions,
  ToolSpec,
} from './types.ts';
import { createUsageAccumulator, type UsageAccumulator } from './usage.ts';

/** Default number of model calls one run may make. */
export const defaultMaxModelCalls = 50;

/** Text of the result given to tool calls skipped because steering arrived. */
export const skippedToolCallText = 'Skipped due to queued user message.';

/** Text of the result given to tool calls not started because the run was aborted. */
const abortedToolCallText = 'Tool call not executed: the run was aborted.';

/** The event stream of one run; `result()` resolves with the messages the run added. */
export type AgentEventStream = EventStream<AgentEvent, AgentMessage[]>;

/** Receives every event of a run synchronously, in order. Must not throw (throws are ignored). */
export type AgentEventSink = (event: AgentEvent) => void;

function createAgentEventStream(): AgentEventStream {
  return new EventStream<AgentEvent, AgentMessage[]>(
    (event) => event.type === 'agent_end',
    (event) => (event.type === 'agent_end' ? [...event.messages] : []),
  );
}

/**
 * Runs the agent on new prompt messages: appends them to a copy of the context, then calls
 * the model, runs the tools it asks for, injects steering and follow-up messages, until the
 * model stops. Returns the event stream at once; `result()` gives the messages added.
 * Never throws once started: every failure ends the run with `turn_end` and `agent_end`.
 * Throws synchronously (`CORE_LOOP_INVALID_TOOL`, `CORE_LOOP_INVALID_CONFIG`) for a bad
 * tool list or budget, before any event.
 */
export function agentLoop(
  prompts: readonly AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  signal: AbortSignal | undefined,
  streamFn: StreamFunction,
): AgentEventStream {
  validateRun(context, config);
  const stream = createAgentEventStream();
  void runValidated(prompts, context, config, (event) => stream.push(event), signal, streamFn);
  return stream;
}

/**
 * Resumes from the existing context without new messages (the last message must be a user,
 * tool-result or custom message). Throws synchronously `CORE_LOOP_NOTHING_TO_CONTINUE` for
 * an empty context and `CORE_LOOP_CANNOT_CONTINUE` when the last message is an assistant's.
 */
export function agentLoopContinue(
  context: AgentContext,
  config: AgentLoopConfig,
  signal: AbortSignal | undefined,
  streamFn: StreamFunction,
): AgentEventStream {
  assertContinuable(context.messages);
  return agentLoop([], context, config, signal, streamFn);
}

/** Throws unless a run can continue from these messages. */
export function assertContinuable(messages: readonly AgentMessage[]): void {
  const last = messages.at(-1);
  if (last === undefined) {
    throw new CoreLoopError('CORE_LOOP_NOTHING_TO_CONTINUE', 'Cannot continue: no messages in context.');
  }
  if ((last as { role?: unknown }).role === 'assistant') {
    throw new CoreLoopError(
      'CORE_LOOP_CANNOT_CONTINUE',
      'Cannot continue from message role: assistant (the last message must be a user, tool-result or custom message).',
    );
  }
}

/**
 * The loop with a synchronous event sink instead of a stream (the Agent uses this): every
 * event reaches `emit` in order before the run moves on. Resolves with the messages the
 * run added; never rejects once validation passed.
 */
export function runAgentLoop(
  prompts: readonly AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  emit: AgentEventSink,
  signal: AbortSignal | undefined,
  streamFn: StreamFunction,
): Promise<AgentMessage[]> {
  validateRun(context, config);
  return runValidated(prompts, context, config, emit, signal, streamFn);
}

function validateRun(context: AgentContext, config: AgentLoopConfig): void {
  if (context.tools !== undefined) assertValidTools(context.tools);
  assertValidBudget(config.maxModelCalls);
}

/** Throws `CORE_LOOP_INVALID_CONFIG` unless the budget is absent or a whole number >= 1. */
export function assertValidBudget(budget: number | undefined): void {
  if (budget !== undefined && (!Number.isInteger(budget) || budget < 1)) {
    throw new CoreLoopError(
      'CORE_LOOP_INVALID_CONFIG',
      `maxModelCalls must be a whole number of at least 1, got ${String(budget)}.`,
      { details: { option: 'maxModelCalls', value: budget } },
    );
  }
}

const neverAborted: AbortSignal = new AbortController().signal;

/** A stage of the run threw; the run ends with an error message carrying this. */
class StageFailure {
  readonly error: unknown;
  readonly stage: string;
  constructor(stage: string, error: unknown) {
    this.stage = stage;
    this.error = error;
  }
}

interface RunState {
  readonly config: AgentLoopConfig;
  readonly model: Model;
  readonly systemPrompt: string | undefined;
  readonly tools: ReadonlyMap<string, AnyAgentTool>;
  readonly toolSpecs: readonly ToolSpec[] | undefined;
  readonly messages: AgentMessage[];
  readonly newMessages: AgentMessage[];
  readonly signal: AbortSignal;
  readonly streamFn: StreamFunction;
  readonly emit: AgentEventSink;
  readonly now: () => number;
  readonly usage: UsageAccumulator;
  /** A failure recorded where the run could not stop at once (a poll between tool calls). */
  deferredFailure: StageFailure | undefined;
  /** Whether a `turn_start` was emitted without its `turn_end` yet. */
  turnOpen: boolean;
}

async function runValidated(
  prompts: readonly AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  sink: AgentEventSink,
  signal: AbortSignal | undefined,
  streamFn: StreamFunction,
): Promise<AgentMessage[]> {
  const tools = new Map<string, AnyAgentTool>();
  for (const tool of context.tools ?? []) tools.set(tool.name, tool);
  const emit: AgentEventSink = (event) => {
    try {
      sink(event);
    } catch {
      // The sink's contract says it must not throw; a throw must not break the run.
    }
  };
  const state: RunState = {
    config,
    model: config.model,
    systemPrompt: context.systemPrompt,
    tools,
    toolSpecs: tools.size === 0 ? undefined : [...tools.values()].map(toolSpec),
    messages: context.messages.slice(),
    newMessages: [],
    signal: signal ?? neverAborted,
    streamFn,
    emit,
    now: config.now ?? Date.now,
    usage: createUsageAccumulator(),
    deferredFailure: undefined,
    turnOpen: true,
  };
  emit({ type: 'agent_start' });
  emit({ type: 'turn_start' });
  for (const prompt of prompts) {
    state.messages.push(prompt);
    state.newMessages.push(prompt);
    emit({ type: 'message_start', message: prompt });
    emit({ type: 'message_end', message: prompt });
  }
  try {
    const stopReason = await runTurns(state);
    emitAgentEnd(state, stopReason);
  } catch (error) {
    const failure = error instanceof StageFailure ? error : new StageFailure('loop', error);
    if (!state.turnOpen) emit({ type: 'turn_start' });
    const message = failureMessage(state, failure);
    state.messages.push(message);
    state.newMessages.push(message);
    emit({ type: 'message_start', message });
    emit({ type: 'message_end', message });
    emit({ type: 'turn_end', message, toolResults: [] });
    emitAgentEnd(state, message.stopReason);
  }
  return state.newMessages;
}

function emitAgentEnd(state: RunState, stopReason: AgentStopReason): void {
  state.emit({
    type: 'agent_end',
    messages: state.newMessages,
    stopReason,
    usage: state.usage.snapshot(),
  });
}

async function poll(
  getter: (() => AgentMessage[] | Promise<AgentMessage[]>) | undefined,
  stage: string,
): Promise<AgentMessage[]> {
  if (getter === undefined) return [];
  try {
    return (await getter()) ?? [];
  } catch (error) {
    throw new StageFailure(stage, error);
  }
}

/** The double loop. Returns the run's stop reason; throws `StageFailure` for a failed stage. */
async function runTurns(state: RunState): Promise<AgentStopReason> {
  const { config, emit } = state;
  const budget = config.maxModelCalls ?? defaultMaxModelCalls;
  let modelCalls = 0;
  let firstTurn = true;
  let pending: AgentMessage[] = config.skipInitialSteeringPoll
    ? []
    : await poll(config.getSteeringMessages, 'getSteeringMessages');
  let lastStop: AgentStopReason = 'stop';
  for (;;) {
    let hasMoreToolCalls = true;
    while (hasMoreToolCalls || pending.length > 0) {
      if (firstTurn) firstTurn = false;
      else {
        emit({ type: 'turn_start' });
        state.turnOpen = true;
      }
      for (const message of pending) {
        emit({ type: 'message_start', message });
        emit({ type: 'message_end', message });
        state.messages.push(message);
        state.newMessages.push(message);
      }
      pending = [];

      const assistant = await streamAssistantResponse(state);
      modelCalls += 1;
      state.newMessages.push(assistant);
      lastStop = assistant.stopReason;
      if (assistant.stopReason === 'error' || assistant.stopReason === 'aborted') {
        emit({ type: 'turn_end', message: assistant, toolResults: [] });
        state.turnOpen = false;
        return assistant.stopReason;
      }

      const toolCalls = assistant.content.filter(
        (block): block is ToolCallContent => block.type === 'toolCall',
      );
      hasMoreToolCalls = toolCalls.length > 0;
      let toolResults: ToolResultMessage[] = [];
      let steering: AgentMessage[] = [];
      // On the last call the budget allows, steering could not be delivered anyway: the
      // tools run to the end and every queue stays untouched.
      const budgetLeft = modelCalls < budget;
      if (hasMoreToolCalls) {
        const executed = await executeToolCalls(state, assistant, toolCalls, budgetLeft);
        toolResults = executed.results;
        steering = executed.steering;
      }
      emit({ type: 'turn_end', message: assistant, toolResults });
      state.turnOpen = false;
      if (state.deferredFailure !== undefined) throw state.deferredFailure;
      if (!budgetLeft) return hasMoreToolCalls ? 'budget_exhausted' : lastStop;
      pending =
        steering.length > 0 ? steering : await poll(config.getSteeringMessages, 'getSteeringMessages');
    }
    const followUps = await poll(config.getFollowUpMessages, 'getFollowUpMessages');
    if (followUps.length === 0) return lastStop;
    pending = followUps;
  }
}

// ---------------------------------------------------------------------------------------
// One model call

/** A resolved credential replaces both credential options of the call. */
function credentialOptions(credential: ModelCredential | undefined): Partial<StreamOptions> {
  if (credential === undefined || credential === '') return {};
  if (typeof credential === 'string') return { apiKey: credential, authToken: undefined };
  if ('authToken' in credential) return { authToken: credential.authToken, apiKey: undefined };
  return { apiKey: credential.apiKey, authToken: undefined };
}

/**
 * Calls the model once and emits the assistant message's start, updates and end. Always
 * resolves with a complete message (failures become `error`/`aborted` messages); the
 * message is already in `state.messages`. Stage failures before the call are thrown as
 * `StageFailure` so the run ends with the loop's own error code.
 */
async function streamAssistantResponse(state: RunState): Promise<AssistantMessage> {
  const { config, model, signal, emit } = state;
  let llmContext: LlmContext;
  let options: StreamOptions;
  if (signal.aborted) {
    return settle(state, abortedMessage(state, undefined), false);
  }
  try {
    const history = config.transformContext
      ? await config.transformContext(state.messages, signal)
      : state.messages;
    const converted = await (config.convertToLlm ?? defaultConvertToLlm)(history);
    const credential = config.getApiKey ? await config.getApiKey(model.provider) : undefined;
    llmContext = {
      systemPrompt: state.systemPrompt,
      messages: converted,
      tools: state.toolSpecs,
    };
    options = { ...config.streamOptions, ...credentialOptions(credential), signal };
  } catch (error) {
    throw new StageFailure('context', error);
  }

  let started = false;
  let partial: AssistantMessage | undefined;
  let final: AssistantMessage | undefined;
  try {
    const stream = await state.streamFn(model, llmContext, options);
    for await (const event of stream) {
      if (event.type === 'done') {
        final = event.message;
        break;
      }
      if (event.type === 'error') {
        final = event.error;
        break;
      }
      partial = event.partial;
      if (!started) {
        // A provider that skips `start` still gets a message_start before its first update.
        started = true;
        state.messages.push(partial);
        emit({ type: 'message_start', message: partial });
      } else {
        state.messages[state.messages.length - 1] = partial;
      }
      if (event.type !== 'start') emit({ type: 'message_update', message: partial, assistantEvent: event });
    }
    if (final === undefined) {
      throw new ModelError('timeout', 'The model stream ended without a final message.', {
        provider: model.provider,
        model: model.id,
      });
    }
  } catch (error) {
    final = failedCallMessage(state, error, partial);
  }
  return settle(state, final, started);
}

function settle(state: RunState, reported: AssistantMessage, started: boolean): AssistantMessage {
  const final = withErrorClass(reported);
  if (started) state.messages[state.messages.length - 1] = final;
  else {
    state.messages.push(final);
    state.emit({ type: 'message_start', message: final });
  }
  state.emit({ type: 'message_end', message: final });
  state.usage.addMessage(final);
  return final;
}

/** Gives a failed message from a provider that did not classify it its error class and code. */
function withErrorClass(message: AssistantMessage): AssistantMessage {
  if (message.stopReason !== 'error' && message.stopReason !== 'aborted') return message;
  if (message.errorClass !== undefined || message.errorCode?.startsWith('CORE_LOOP_') === true)
    return message;
  const error = ModelError.fromAssistantMessage(message);
  if (error === undefined) return message;
  return { ...message, errorClass: error.errorClass, errorCode: message.errorCode ?? error.code };
}

function baseAssistant(state: RunState): Omit<AssistantMessage, 'stopReason'> {
  return {
    role: 'assistant',
    content: [],
    provider: state.model.provider,
    model: state.model.id,
    usage: emptyUsage,
    timestamp: state.now(),
  };
}

function abortedMessage(state: RunState, partial: AssistantMessage | undefined): AssistantMessage {
  return {
    ...baseAssistant(state),
    // Spread over the base's defaults (decision 0028): without a partial, content and usage stay empty.
    ...(partial === undefined ? {} : { content: partial.content, usage: partial.usage }),
    stopReason: 'aborted',
    errorMessage: 'Request was aborted',
    errorCode: 'MODEL_ABORTED',
    errorClass: 'aborted',
  };
}

/** A provider call that threw (breaking the stream contract) or was cut off. */
function failedCallMessage(
  state: RunState,
  error: unknown,
  partial: AssistantMessage | undefined,
): AssistantMessage {
  const modelError = toModelError(error, {
    signal: state.signal,
    provider: state.model.provider,
    model: state.model.id,
  });
  if (modelError.errorClass === 'aborted') return abortedMessage(state, partial);
  const details = modelError.toDetails();
  return {
    ...baseAssistant(state),
    ...(partial === undefined ? {} : { content: partial.content, usage: partial.usage }),
    stopReason: 'error',
    errorMessage: modelError.message,
    errorCode: modelError.code,
    errorClass: modelError.errorClass,
    ...(Object.keys(details).length === 0 ? {} : { errorDetails: details }),
  };
}

/** The message that ends a run whose own stage threw. */
function failureMessage(state: RunState, failure: StageFailure): AssistantMessage {
  if (state.signal.aborted) return abortedMessage(state, undefined);
  const text = failure.error instanceof Error ? failure.error.message : String(failure.error);
  return {
    ...baseAssistant(state),
    stopReason: 'error',
    errorMessage: `${failure.stage} failed: ${text}`,
    errorCode: 'CORE_LOOP_STAGE_FAILED',
  };
}

// ---------------------------------------------------------------------------------------
// Tool calls

interface PreparedCall {
  readonly toolCall: ToolCallContent;
  readonly tool: AnyAgentTool;
  readonly args: unknown;
}

interface Outcome {
  readonly result: ToolResult;
  readonly isError: boolean;
}

function textResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }], details: {} };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function pollBetweenTools(state: RunState): Promise<AgentMessage[]> {
  if (state.deferredFailure !== undefined) return [];
  try {
    return await poll(state.config.getSteeringMessages, 'getSteeringMessages');
  } catch (error) {
    state.deferredFailure =
      error instanceof StageFailure ? error : new StageFailure('getSteeringMessages', error);
    return [];
  }
}

async function executeToolCalls(
  state: RunState,
  assistant: AssistantMessage,
  toolCalls: readonly ToolCallContent[],
  pollSteering: boolean,
): Promise<{ results: ToolResultMessage[]; steering: AgentMessage[] }> {
  const pollBetween = (): Promise<AgentMessage[]> =>
    pollSteering ? pollBetweenTools(state) : Promise.resolve([]);
  const results: ToolResultMessage[] = [];
  const finish = (toolCall: ToolCallContent, outcome: Outcome): void => {
    results.push(emitToolResult(state, toolCall, outcome));
  };
  const skipRest = (from: number, withStart: boolean, text: string): void => {
    for (let index = from; index < toolCalls.length; index += 1) {
      const toolCall = toolCalls[index] as ToolCallContent;
      if (withStart) emitToolStart(state, toolCall);
      finish(toolCall, { result: textResult(text), isError: true });
    }
  };

  if ((state.config.toolExecution ?? 'parallel') === 'sequential') {
    for (let index = 0; index < toolCalls.length; index += 1) {
      const toolCall = toolCalls[index] as ToolCallContent;
      if (state.signal.aborted) {
        skipRest(index, true, abortedToolCallText);
        break;
      }
      const preparation = await prepareToolCall(state, assistant, toolCall);
      if ('outcome' in preparation) finish(toolCall, preparation.outcome);
      else {
        const outcome = await executePrepared(state, preparation);
        finish(toolCall, await finalizeExecuted(state, assistant, preparation, outcome));
      }
      const steering = await pollBetween();
      if (steering.length > 0) {
        skipRest(index + 1, true, skippedToolCallText);
        return { results, steering };
      }
    }
    return { results, steering: [] };
  }

  const prepared: PreparedCall[] = [];
  for (let index = 0; index < toolCalls.length; index += 1) {
    const toolCall = toolCalls[index] as ToolCallContent;
    const preparation = await prepareToolCall(state, assistant, toolCall);
    if ('outcome' in preparation) finish(toolCall, preparation.outcome);
    else prepared.push(preparation);
    const steering = await pollBetween();
    if (steering.length > 0) {
      for (const call of prepared) {
        finish(call.toolCall, { result: textResult(skippedToolCallText), isError: true });
      }
      skipRest(index + 1, true, skippedToolCallText);
      return { results, steering };
    }
  }
  if (state.signal.aborted) {
    for (const call of prepared) {
      finish(call.toolCall, { result: textResult(abortedToolCallText), isError: true });
    }
    return { results, steering: [] };
  }
  const running = prepared.map((call) => executePrepared(state, call));
  for (let index = 0; index < prepared.length; index += 1) {
    const call = prepared[index] as PreparedCall;
    const outcome = await (running[index] as Promise<Outcome>);
    finish(call.toolCall, await finalizeExecuted(state, assistant, call, outcome));
  }
  return { results, steering: await pollBetween() };
}

function emitToolStart(state: RunState, toolCall: ToolCallContent): void {
  state.emit({
    type: 'tool_execution_start',
    toolCallId: toolCall.id,
    toolName: toolCall.name,
    args: toolCall.arguments,
  });
}

async function prepareToolCall(
  state: RunState,
  assistant: AssistantMessage,
  toolCall: ToolCallContent,
): Promise<PreparedCall | { readonly outcome: Outcome }> {
  emitToolStart(state, toolCall);
  const tool = state.tools.get(toolCall.name);
  if (tool === undefined) {
    return { outcome: { result: textResult(`Tool ${toolCall.name} not found`), isError: true } };
  }
  const validation = validateToolArguments(tool, toolCall.arguments);
  if (!validation.ok) return { outcome: { result: textResult(validation.message), isError: true } };
  let args = validation.args;
  const before = state.config.beforeToolCall;
  if (before !== undefined) {
    let decision: Awaited<ReturnType<typeof before>>;
    try {
      decision = await before(
        { assistantMessage: assistant, toolCall, tool, args, messages: state.messages },
        state.signal,
      );
    } catch (error) {
      return {
        outcome: {
          result: textResult(`Tool call blocked: beforeToolCall failed: ${errorText(error)}`),
          isError: true,
        },
      };
    }
    if (decision?.block === true) {
      return {
        outcome: { result: textResult(decision.reason ?? 'Tool execution was blocked'), isError: true },
      };
    }
    if (typeof decision === 'object' && decision !== null && 'args' in decision) {
      const revalidated = validateToolArguments(tool, decision.args);
      if (!revalidated.ok) {
        return {
          outcome: {
            result: textResult(
              `beforeToolCall rewrote the arguments into invalid ones.\n${revalidated.message}`,
            ),
            isError: true,
          },
        };
      }
      args = revalidated.args;
    }
  }
  return { toolCall, tool, args };
}

async function executePrepared(state: RunState, call: PreparedCall): Promise<Outcome> {
  let finished = false;
  const onUpdate = (partialResult: ToolResult): void => {
    if (finished) return;
    state.emit({
      type: 'tool_execution_update',
      toolCallId: call.toolCall.id,
      toolName: call.toolCall.name,
      args: call.args,
      partialResult,
    });
  };
  try {
    const result = await call.tool.execute(call.toolCall.id, call.args, state.signal, onUpdate);
    finished = true;
    if (result === null || typeof result !== 'object' || !Array.isArray(result.content)) {
      return {
        result: textResult(`Tool ${call.tool.name} returned no content (expected { content: [...] }).`),
        isError: true,
      };
    }
    return { result, isError: result.isError === true };
  } catch (error) {
    finished = true;
    return { result: textResult(errorText(error)), isError: true };
  }
}

async function finalizeExecuted(
  state: RunState,
  assistant: AssistantMessage,
  call: PreparedCall,
  outcome: Outcome,
): Promise<Outcome> {
  const after = state.config.afterToolCall;
  if (after === undefined) return outcome;
  try {
    const override = await after(
      {
        assistantMessage: assistant,
        toolCall: call.toolCall,
        tool: call.tool,
        args: call.args,
        result: outcome.result,
        isError: outcome.isError,
        messages: state.messages,
      },
      state.signal,
    );
    if (override === undefined) return outcome;
    return {
      result: {
        content: override.content ?? outcome.result.content,
        details: 'details' in override ? override.details : outcome.result.details,
      },
      isError: override.isError ?? outcome.isError,
    };
  } catch (error) {
    return { result: textResult(`afterToolCall failed: ${errorText(error)}`), isError: true };
  }
}

function emitToolResult(state: RunState, toolCall: ToolCallContent, outcome: Outcome): ToolResultMessage {
  const result: ToolResult = {
    content: outcome.result.content,
    details: outcome.result.details,
  };
  state.emit({
    type: 'tool_execution_end',
    toolCallId: toolCall.id,
    toolName: toolCall.name,
    result,
    isError: outcome.isError,
  });
  const message: ToolResultMessage = {
    role: 'toolResult',
    toolCallId: toolCall.id,
    toolName: toolCall.name,
    content: result.content,
    details: result.details,
    isError: outcome.isError,
    timestamp: state.now(),
  };
  state.messages.push(message);
  state.newMessages.push(message);
  state.emit({ type: 'message_start', message });
  state.emit({ type: 'message_end', message });
  return message;
}
