// The turn runner: runs one batch of a session's lane. A short orchestrator over the run
// modules in run/ (the layout is in AGENTS.md): prepare the session, build the turn's
// context, run the attempts, persist the turn with its marker, deliver, close the journal.
import type { AuthProfileManager, AuthProfilesError, SessionAuthPin } from '@switchboard/auth-profiles';
import {
  type CompactionCallOptions,
  type CompactionSettings,
  type Compactor,
  createModelSummarizer,
} from '@switchboard/compaction';
import {
  type Agent,
  type Model,
  type StreamFunction,
  type ThinkingLevel,
  toolSpec,
} from '@switchboard/core-loop';
import type { AssistantMessage, HookRunner, Logger, Message, Usage } from '@switchboard/hooks';
import type { ActiveRun, QueuedMessage, RunBatch, SessionEntry, SessionStore } from '@switchboard/sessions';
import { formatCollectPrompt } from '@switchboard/sessions';
import type { Broadcast } from '../access/event-audience.ts';
import type { GatewayConfig } from '../config/schema.ts';
import { loadFenceParser } from '../delivery/index.ts';
import type { PromptSectionRegistry } from '../extensions/prompt-sections.ts';
import type { ToolRegistry } from '../extensions/tool-registry.ts';
import type { ChannelManager } from './channels.ts';
import { crashPoint } from './crash-points.ts';
import type { InboundJournal } from './journal.ts';
import type { LiveConfig } from './live-config.ts';
import { modelChoiceOf, resolveModelReference, resolveThinkingLevel } from './model-selection.ts';
import type { ModelCatalog } from './models.ts';
import type { SendOutbound } from './outbound.ts';
import { type AttemptTarget, credentialsOf } from './run/attempt-target.ts';
import { runAttempts, type TurnState } from './run/attempts.ts';
import { runCompaction } from './run/compaction-run.ts';
import { completeRun } from './run/completion.ts';
import { zeroUsage } from './run/messages.ts';
import type { RunOutcome } from './run/outcome.ts';
import { createRecovery } from './run/recovery.ts';
import { createReplyBridge, createToolSender, feedReply, replyTarget } from './run/reply-bridge.ts';
import { createSessionPreparation } from './run/session-preparation.ts';
import { createTurnAgent } from './run/turn-agent.ts';
import { createTurnContextBuilder } from './run/turn-context.ts';
import { judgeTurn } from './run/turn-judgement.ts';
import { appendTurn, type TurnRecord } from './run/turn-persistence.ts';
import { createRunEvents } from './run-events.ts';
import type { RunRegistry } from './runs.ts';
import { refKey, type TurnInput } from './turn-input.ts';

export interface RunnerServices {
  /** Read when used (a turn takes it once, at its start): a reload applies to the next turn. */
  readonly config: LiveConfig;
  readonly stateDirectory: string;
  readonly store: SessionStore;
  /** Closes the journal records a turn answers (runtime/journal.ts). */
  readonly journal: InboundJournal;
  readonly hooks: HookRunner;
  readonly catalog: ModelCatalog;
  readonly streamFn: StreamFunction;
  readonly channels: ChannelManager;
  readonly send: SendOutbound;
  readonly runs: RunRegistry;
  readonly broadcast: Broadcast;
  readonly logger: Logger;
  readonly now: () => number;
  readonly tools: ToolRegistry;
  readonly promptSections: PromptSectionRegistry;
  readonly auth: AuthProfileManager;
  /** Undefined when compaction is turned off (`agents.defaults.compaction.enabled: false`). */
  readonly compactor: Compactor | undefined;
  readonly compactionSettings: Partial<CompactionSettings>;
  readonly workspaceFor: (agentId: string) => string;
  /** True once the gateway is shutting down: runs it aborts stay journaled and resume on restart. */
  readonly isShuttingDown: () => boolean;
}

export interface TurnRunner {
  runBatch(batch: RunBatch<TurnInput>, signal: AbortSignal): Promise<void>;
  trySteer(run: ActiveRun<TurnInput>, message: QueuedMessage<TurnInput>): boolean;
}

export function createTurnRunner(services: RunnerServices): TurnRunner {
  const { store, logger, now } = services;
  /** The config in force (decision 0011): helpers read it per call, a turn once at its start. */
  const liveConfig = (): GatewayConfig => services.config.current();
  const active = new Map<string, { agent: Agent; compacting: boolean; steeredRefs: TurnInput[] }>();
  const modelReference = (agentId: string, session: SessionEntry): string =>
    resolveModelReference(liveConfig(), agentId, session);

  const { journal } = services;
  async function finishInbound(
    inputs: readonly TurnInput[],
    state: 'replied' | 'failed',
    error?: string,
  ): Promise<void> {
    const refs = inputs.map((input) => input.ref);
    await (state === 'replied' ? journal.replied(refs) : journal.failed(refs, error));
  }
  const markReplied = (inputs: readonly TurnInput[]) => finishInbound(inputs, 'replied');

  const replies = createReplyBridge(services);
  const recovery = createRecovery({ store, replies, markReplied });
  const sessions = createSessionPreparation(services);
  const turnContext = createTurnContextBuilder(services);

  async function persistOutcome(runId: string, outcome: RunOutcome): Promise<void> {
    await store
      .putState('run-results', runId, outcome, { expiresAt: now() + 24 * 60 * 60_000 })
      .catch(() => undefined);
  }

  async function runBatch(batch: RunBatch<TurnInput>, signal: AbortSignal): Promise<void> {
    const config = liveConfig();
    // Summarized messages of this conversation ride in this turn: it answers them too.
    let inputs = [...batch.summarized, ...batch.messages].map((message) => message.payload);
    const last = inputs[inputs.length - 1]!;
    if (last.kind === 'compact') {
      const runId = last.runId ?? batch.runId;
      if (services.runs.get(runId) === undefined) services.runs.accept(runId, batch.sessionKey, last.agentId);
      services.runs.start(runId);
      const outcome = await runCompaction(
        { ...services, modelReference, markReplied },
        batch,
        last,
        runId,
        signal,
      );
      await persistOutcome(runId, outcome);
      services.runs.finish(runId, outcome, { stopReason: 'stop' });
      return;
    }
    const sessionKey = batch.sessionKey;
    const agentId = last.agentId;
    const runId = inputs.length === 1 && last.runId !== undefined ? last.runId : batch.runId;
    let prompt = batch.prompt;
    if (services.runs.get(runId) === undefined) services.runs.accept(runId, sessionKey, agentId);
    services.runs.start(runId);
    const startedAt = now();
    const events = createRunEvents({ broadcast: services.broadcast, runId, sessionKey, agentId, now });
    const scope = { sessionKey, agentId, runId, channel: last.channel };
    // The journal record stays `received` until the turn is answered: recovery only asks
    // "not replied yet?", so an intermediate `running` write would cost a commit per message.
    events.start();

    if (inputs.some((input) => input.recovered === true)) {
      const settled = await recovery.settleAnswered(inputs, sessionKey, agentId);
      if (settled.unanswered.length === 0) {
        const texts = settled.markers.flatMap((marker) => marker.replies);
        const outcome: RunOutcome = { status: 'ok', runId, replies: texts, durationMs: now() - startedAt };
        if (last.origin === 'rpc') await persistOutcome(runId, outcome);
        events.end({ status: 'ok', message: undefined, text: texts.join('\n\n') });
        services.runs.finish(runId, outcome, { stopReason: 'stop' });
        return;
      }
      if (settled.unanswered.length < inputs.length) {
        // Only what no stored turn answered goes to the model.
        inputs = settled.unanswered;
        prompt =
          inputs.length === 1
            ? inputs[0]!.text
            : formatCollectPrompt(
                inputs.map((input) => input.text),
                undefined,
              );
      }
    }
    // The reply's receipt keys: from the last message this turn answers (never one a stored
    // turn answered, whose keys belong to that turn's reply).
    const deliveryKey = refKey(inputs[inputs.length - 1]!.ref);
    const session = await sessions.prepare(config, sessionKey, last);

    const target = replyTarget(last, session);
    // The reply's chunker finds code fences with the Markdown parser, loaded on the first reply.
    if (target !== undefined) await loadFenceParser();
    const reply = replies.createReply(last, target, scope, deliveryKey);
    const stopTyping = replies.startTyping(target);
    const runTimeoutMs = last.timeoutMs ?? config.agents.defaults.timeoutSeconds * 1000;
    const runController = new AbortController();
    const onAbort = () => runController.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const runTimer = setTimeout(() => {
      timedOut = true;
      runController.abort(new Error('run timed out'));
    }, runTimeoutMs);
    runTimer.unref();

    let agent: Agent | undefined;
    /** Messages steered into this run: it answers them too. */
    let steeredInputs: readonly TurnInput[] = [];
    let status: 'ok' | 'error' | 'aborted' = 'ok';
    let errorText: string | undefined;
    let errorClass: string | undefined;
    /** The model error's code (`MODEL_CREDENTIALS_MISSING`, …), in the final's details. */
    let errorCode: string | undefined;
    let retryAfterMs: number | undefined;
    let usage: Usage = zeroUsage;
    let texts: string[] = [];
    let finalMessage: AssistantMessage | undefined;
    let persisted = false;
    let failure: AuthProfilesError | undefined;
    let pinToSave: SessionAuthPin | undefined;
    try {
      const reference = await turnContext.resolveModel(scope, prompt, modelReference(agentId, session));
      const attempt: AttemptTarget = { target: services.catalog.resolve(reference) };
      const thinking: ThinkingLevel = resolveThinkingLevel(config, agentId, session, last.thinking);
      const { systemPrompt, tools, userMessage } = await turnContext.build({
        config,
        scope,
        sessionId: session.sessionId,
        last,
        prompt,
        reference: attempt.target.reference,
        sendMessage: createToolSender(services.send, target, scope),
        signal: runController.signal,
      });
      const compactionCall = (model: Model, credentials: AttemptTarget): CompactionCallOptions => ({
        settings: { ...services.compactionSettings, contextWindow: model.contextWindow },
        systemPrompt,
        tools: tools.map(toolSpec),
        signal: runController.signal,
        summarizer: createModelSummarizer({
          streamFn: services.streamFn,
          model,
          streamOptions: {
            ...credentialsOf(credentials),
            headers: credentials.target.headers,
          },
        }),
      });
      let messages: readonly Message[];
      if (services.compactor === undefined) {
        const context = await store.buildContext(sessionKey);
        messages = context.messages;
      } else {
        const prepared = await services.compactor.prepareContext(sessionKey, {
          ...compactionCall(attempt.target.model, attempt),
          pending: [userMessage],
        });
        messages = prepared.messages;
      }

      const state: TurnState = { current: attempt, unpersistedFrom: 0, turnStartsAt: 0 };
      agent = createTurnAgent({
        services,
        scope,
        systemPrompt,
        model: attempt.target.model,
        thinkingLevel: attempt.thinkingLevel ?? thinking,
        tools,
        messages,
        maxModelCalls: config.agents.defaults.maxModelCalls,
        sessionId: session.sessionId,
        current: () => state.current,
      });
      // Messages before this index are in the transcript; the turn's replies start at turnStartsAt.
      state.unpersistedFrom = agent.state.messages.length;
      state.turnStartsAt = state.unpersistedFrom;
      active.set(sessionKey, { agent, compacting: false, steeredRefs: [] });
      agent.subscribe((event) => {
        events.onAgentEvent(event);
        if (reply !== undefined) feedReply(reply, event);
      });
      runController.signal.addEventListener('abort', () => agent?.abort(), { once: true });

      const turnRecord = (): TurnRecord => ({
        sessionKey,
        agentId,
        sessionId: session.sessionId,
        route: last.origin === 'channel' ? target : undefined,
        pin: pinToSave,
        provider: state.current.target.provider,
        model: state.current.target.model.id,
        usage: agent!.state.usage,
      });
      const attempts = await runAttempts(services, {
        agent,
        state,
        reply,
        userMessage,
        sessionKey,
        runId,
        reference,
        modelChoice: modelChoiceOf(config, agentId),
        thinking,
        sessionPin: session.metadata.authPin as SessionAuthPin | undefined,
        compactionCount: session.compactionCount,
        signal: runController.signal,
        maxWaitMs: config.agents.defaults.rateLimitMaxWaitSeconds * 1000,
        events,
        compactionCall,
        persistSoFar: (sofar) => appendTurn(services, turnRecord(), sofar, undefined),
        setCompacting: (compacting) => {
          active.get(sessionKey)!.compacting = compacting;
        },
      });
      failure = attempts.failure;
      errorText = attempts.errorText;
      if (attempts.sessionPin !== undefined) pinToSave = attempts.sessionPin;

      const judged = judgeTurn({
        messages: agent.state.messages,
        turnStartsAt: state.turnStartsAt,
        unpersistedFrom: state.unpersistedFrom,
        usage: agent.state.usage,
        model: state.current.target.model,
        stopped: runController.signal.aborted ? (timedOut ? 'timeout' : 'user') : undefined,
        runTimeoutMs,
        failure,
        errorText,
        shuttingDown: services.isShuttingDown(),
        config,
        now: now(),
      });
      ({ status, errorText, errorClass, errorCode, retryAfterMs, usage, texts, finalMessage } = judged);
      const newMessages = judged.newMessages;

      // Persist the turn with its marker in one transaction (decision 0004). A turn cut short
      // by a shutdown is not persisted: it runs again from the journal after the restart.
      try {
        if (runController.signal.aborted && services.isShuttingDown())
          throw new Error('cut short by a shutdown');
        const steeredRefs = active.get(sessionKey)?.steeredRefs ?? [];
        const refs = [...inputs, ...steeredRefs].map((input) => refKey(input.ref));
        await appendTurn(services, turnRecord(), newMessages, { refs, runId, replies: texts, deliveryKey });
        persisted = true;
        crashPoint('after-turn-persisted');
      } catch (error) {
        // The session was reset (`/new`) while this turn ran: the turn belonged to the old one.
        logger.warn('turn not persisted', {
          sessionKey,
          runId,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    } catch (error) {
      status = runController.signal.aborted && !timedOut ? 'aborted' : 'error';
      errorText ??= error instanceof Error ? error.message : String(error);
      logger.error('run failed', { sessionKey, runId, error: errorText });
    } finally {
      clearTimeout(runTimer);
      signal.removeEventListener('abort', onAbort);
      steeredInputs = active.get(sessionKey)?.steeredRefs ?? [];
      active.delete(sessionKey);
    }

    await completeRun(
      { ...services, finishInbound, persistOutcome },
      {
        scope,
        last,
        inputs: [...inputs, ...steeredInputs],
        sessionId: session.sessionId,
        startedAt,
        reply,
        stopTyping,
        events,
        result: {
          status,
          errorText,
          errorClass,
          errorCode,
          retryAfterMs,
          usage,
          texts,
          finalMessage,
          persisted,
          messages: agent === undefined ? [] : agent.state.messages,
        },
      },
    );
  }

  return {
    runBatch,
    trySteer(run, message) {
      const current = active.get(run.sessionKey);
      if (current === undefined || current.compacting || !current.agent.state.isStreaming) return false;
      current.agent.steer({ role: 'user', content: message.payload.text, timestamp: now() });
      current.steeredRefs.push(message.payload);
      return true;
    },
  };
}
