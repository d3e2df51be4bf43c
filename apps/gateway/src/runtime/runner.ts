import { readFile } from 'node:fs/promises';
import {
  type AuthProfileManager,
  AuthProfilesError,
  outcomeFromAssistantMessage,
  type SessionAuthPin,
} from '@switchboard/auth-profiles';
import {
  type CompactionCallOptions,
  type CompactionSettings,
  type Compactor,
  createModelSummarizer,
} from '@switchboard/compaction';
import {
  Agent,
  type AgentEvent,
  type AgentMessage,
  type AnyAgentTool,
  type Model,
  ModelError,
  type StreamFunction,
  type ThinkingLevel,
  toModelError,
  toolSpec,
} from '@switchboard/core-loop';
import type {
  AssistantMessage,
  HookRunner,
  ImageContent,
  InboundMedia,
  Logger,
  Message,
  OutboundMessage,
  ToolContext,
  Usage,
  UserMessage,
} from '@switchboard/hooks';
import type {
  ActiveRun,
  NewTranscriptEntry,
  QueuedMessage,
  RunBatch,
  SessionEntry,
  SessionStore,
} from '@switchboard/sessions';
import {
  applyResetPolicy,
  evaluateSessionFreshness,
  formatCollectPrompt,
  type ResolvedResetPolicy,
  resolveResetPolicy,
} from '@switchboard/sessions';
import type { AgentConfig, GatewayConfig } from '../config/schema.ts';
import {
  createReplyStream,
  isSilentReplyText,
  type ReplySummary,
  stripReasoningTags,
  stripSilentTokens,
} from '../delivery/index.ts';
import { type BootstrapFile, buildSystemPrompt } from '../prompt/system-prompt.ts';
import { toProtocolError } from '../protocol/errors.ts';
import { createBuiltinTools, type MessageTarget } from '../tools/builtin.ts';
import { openWorkspace, type WorkspaceFiles } from '../tools/workspace-files.ts';
import type { ChannelManager } from './channels.ts';
import { crashPoint } from './crash-points.ts';
import type { LiveConfig } from './live-config.ts';
import { missingCredentialsText } from './model-credentials.ts';
import {
  agentConfigOf,
  modelChoiceOf,
  resolveModelReference,
  resolveThinkingLevel,
} from './model-selection.ts';
import type { ModelCatalog, ModelTarget } from './models.ts';
import type { SendOutbound } from './outbound.ts';
import { type Broadcast, createRunEvents } from './run-events.ts';
import type { RunFinal, RunRegistry } from './runs.ts';
import { refKey, type TurnInput } from './turn-input.ts';

/** The transcript marker written with every answered turn (decision 0004). */
export const answeredMarkerType = 'inbound-answered';

interface AnsweredMarker {
  /** Every journal ref the turn answers: its batch, the summarized messages and steered ones. */
  readonly refs: readonly string[];
  readonly runId: string;
  readonly replies: readonly string[];
  /**
   * The base of the reply's delivery-receipt keys (`<base>:final:<chunk>`). Absent in markers
   * written before it existed, whose base was their last ref.
   */
  readonly deliveryKey?: string;
}

/** The delivery-key base a marker's reply was sent under (decision 0004). */
function deliveryKeyOf(marker: AnsweredMarker): string {
  return marker.deliveryKey ?? marker.refs[marker.refs.length - 1] ?? marker.runId;
}

/** The model, credential and thinking level of one attempt. */
export interface AttemptTarget {
  readonly target: ModelTarget;
  readonly apiKey?: string;
  readonly authToken?: string;
  readonly thinkingLevel?: ThinkingLevel;
  /** The credential profile, for status and cooldowns. */
  readonly profileId?: string;
}

export interface RunnerServices {
  /** Read when used (a turn takes it once, at its start): a reload applies to the next turn. */
  readonly config: LiveConfig;
  readonly stateDirectory: string;
  readonly store: SessionStore;
  readonly hooks: HookRunner;
  readonly catalog: ModelCatalog;
  readonly streamFn: StreamFunction;
  readonly channels: ChannelManager;
  readonly send: SendOutbound;
  readonly runs: RunRegistry;
  readonly broadcast: Broadcast;
  readonly logger: Logger;
  readonly now: () => number;
  readonly loadBootstrap: (workspace: string) => Promise<BootstrapFile[]>;
  readonly pluginTools: (context: ToolContext) => readonly AnyAgentTool[];
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

const zeroUsage: Usage = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

function assistantText(message: AssistantMessage): string {
  let text = '';
  for (const block of message.content) if (block.type === 'text') text += block.text;
  return text;
}

/** What the user sees of a reply: no reasoning tags, no silent token. */
export function visibleText(text: string): string {
  const stripped = stripReasoningTags(text).trim();
  return isSilentReplyText(stripped) ? '' : stripSilentTokens(stripped).trim();
}

/** The normalized error of a failed assistant message. */
function errorOf(message: AssistantMessage): ModelError {
  return (
    ModelError.fromAssistantMessage(message) ??
    toModelError(new Error(message.errorMessage ?? 'the model call failed'))
  );
}

function lastAssistant(messages: readonly AgentMessage[]): AssistantMessage | undefined {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role === 'assistant') return message as AssistantMessage;
  }
  return undefined;
}

export function createTurnRunner(services: RunnerServices): TurnRunner {
  const { store, hooks, logger, now } = services;
  /** The config in force (decision 0011): helpers read it per call, a turn once at its start. */
  const liveConfig = (): GatewayConfig => services.config.current();
  /** By workspace path: a reload that moves an agent's workspace opens the new one. */
  const workspaces = new Map<string, Promise<WorkspaceFiles>>();
  const dailyBoundaries = new Map<string, number>();
  const dateFormatters = new Map<string, Intl.DateTimeFormat>();
  const dateFormatter = (timeZone: string): Intl.DateTimeFormat => {
    let formatter = dateFormatters.get(timeZone);
    if (formatter === undefined) {
      formatter = new Intl.DateTimeFormat('en-CA', { timeZone });
      dateFormatters.set(timeZone, formatter);
    }
    return formatter;
  };
  const active = new Map<string, { agent: Agent; compacting: boolean; steeredRefs: TurnInput[] }>();

  const agentConfig = (agentId: string): AgentConfig | undefined => agentConfigOf(liveConfig(), agentId);

  function workspace(agentId: string): Promise<WorkspaceFiles> {
    const path = services.workspaceFor(agentId);
    let files = workspaces.get(path);
    if (files === undefined) {
      files = openWorkspace(path);
      workspaces.set(path, files);
    }
    return files;
  }

  const modelReference = (agentId: string, session: SessionEntry): string =>
    resolveModelReference(liveConfig(), agentId, session);

  function replyTarget(
    input: TurnInput,
    session: SessionEntry | undefined,
  ): { channel: string; accountId: string; peer: OutboundMessage['peer']; threadId?: string } | undefined {
    if (input.origin === 'channel' && input.peer !== undefined) {
      return {
        channel: input.channel,
        accountId: input.accountId,
        peer: input.peer,
        ...(input.threadId === undefined ? {} : { threadId: input.threadId }),
      };
    }
    const route = session?.lastRoute;
    if (input.deliver === true && route !== undefined) {
      return {
        channel: route.channel,
        accountId: route.accountId ?? 'default',
        peer: { kind: route.peerKind ?? 'direct', id: route.to },
        ...(route.threadId === undefined ? {} : { threadId: route.threadId }),
      };
    }
    return undefined;
  }

  /** Sends reply payloads for one turn; chunk keys make redelivery after a crash skip what was sent. */
  function createReply(
    input: TurnInput,
    target: ReturnType<typeof replyTarget>,
    scope: { sessionKey: string; agentId: string; runId: string },
    keyBase: string,
  ) {
    if (target === undefined) return undefined;
    const capabilities = services.channels.account(target.channel, target.accountId)?.channel.capabilities;
    return createReplyStream({
      channel: {
        textChunkLimit: capabilities?.textLimit ?? 4000,
        ...(capabilities?.maxLinesPerMessage === undefined
          ? {}
          : { maxLinesPerMessage: capabilities.maxLinesPerMessage }),
      },
      streaming: { mode: liveConfig().agents.defaults.blockStreaming },
      origin: {
        channel: target.channel,
        accountId: target.accountId,
        to: target.peer.id,
        ...(target.threadId === undefined ? {} : { threadId: target.threadId }),
      },
      ...(input.chatType !== 'direct' && input.replyToMessageId !== undefined
        ? { replyToId: input.replyToMessageId }
        : {}),
      send: async (payload, context) => {
        const result = await services.send(
          {
            kind: 'text',
            channel: target.channel,
            accountId: target.accountId,
            peer: target.peer,
            ...(target.threadId === undefined ? {} : { threadId: target.threadId }),
            ...(payload.replyToId === undefined ? {} : { replyToMessageId: payload.replyToId }),
            text: payload.text,
          },
          { idempotencyKey: `${keyBase}:${payload.kind}:${context.index}`, scope, signal: context.signal },
        );
        return result.status === 'cancelled' ? { cancelled: true, reason: result.reason } : undefined;
      },
    });
  }

  /** The answered-markers of the session's recent turns, by each ref they answer. */
  async function answeredMarkers(sessionKey: string): Promise<Map<string, AnsweredMarker>> {
    const byRef = new Map<string, AnsweredMarker>();
    const session = await store.getSession(sessionKey);
    if (session === undefined) return byRef;
    const info = await store.getTranscript(session.sessionId);
    if (info === undefined) return byRef;
    const entries = await store.readTranscript(session.sessionId, {
      fromSequence: Math.max(1, info.lastSequence - 400),
      types: ['custom'],
    });
    for (const entry of entries) {
      if (entry?.type !== 'custom' || entry.customType !== answeredMarkerType) continue;
      const marker = entry.data as AnsweredMarker;
      for (const ref of marker.refs) byRef.set(ref, marker);
    }
    return byRef;
  }

  /**
   * Recovery, per journal record (decision 0004): each recovered input that a persisted turn
   * already answered gets that turn's stored reply re-delivered under the turn's own delivery
   * keys (receipts skip what was sent) and is marked replied. Returns the inputs no turn
   * answered yet: only those reach the model.
   */
  async function settleAnswered(
    inputs: readonly TurnInput[],
    sessionKey: string,
    agentId: string,
  ): Promise<{ unanswered: TurnInput[]; markers: AnsweredMarker[] }> {
    const byRef = await answeredMarkers(sessionKey);
    const groups = new Map<AnsweredMarker, TurnInput[]>();
    const unanswered: TurnInput[] = [];
    for (const input of inputs) {
      const marker = input.recovered === true ? byRef.get(refKey(input.ref)) : undefined;
      if (marker === undefined) unanswered.push(input);
      else groups.set(marker, [...(groups.get(marker) ?? []), input]);
    }
    for (const [marker, answered] of groups) {
      await redeliver(answered[answered.length - 1]!, marker, sessionKey, agentId);
      crashPoint('after-redelivery');
      await finishInbound(answered, 'replied');
    }
    return { unanswered, markers: [...groups.keys()] };
  }

  async function finishInbound(
    inputs: readonly TurnInput[],
    state: 'replied' | 'failed',
    error?: string,
  ): Promise<void> {
    await Promise.all(
      inputs.map((input) =>
        store
          .updateInbound(input.ref, state, error === undefined ? {} : { error })
          .catch((failure: unknown) => {
            logger.warn('could not update the inbound journal', {
              ref: refKey(input.ref),
              error: String(failure),
            });
          }),
      ),
    );
  }

  /** Fresh unless past its daily boundary or idle limit; the daily boundary is cached per session id. */
  function isFresh(
    entry: SessionEntry,
    policy: ResolvedResetPolicy,
    options: { now: number; timeZone?: string },
  ): boolean {
    if (policy.mode === 'off') return true;
    const key = `${entry.sessionId}:${policy.mode}:${policy.atHour}`;
    let boundary = dailyBoundaries.get(key);
    if (boundary === undefined) {
      const freshness = evaluateSessionFreshness(entry, { ...policy, idleMinutes: undefined }, options);
      if (!freshness.fresh) return false;
      boundary = freshness.dailyResetAt ?? Number.POSITIVE_INFINITY;
      if (dailyBoundaries.size > 10_000) dailyBoundaries.clear();
      dailyBoundaries.set(key, boundary);
    }
    if (options.now >= boundary) return false;
    if (policy.idleMinutes === undefined) return true;
    const lastActive = entry.lastInteractionAt ?? entry.sessionStartedAt;
    return options.now - lastActive < policy.idleMinutes * 60_000;
  }

  async function persistFinal(runId: string, final: RunFinal): Promise<void> {
    await store
      .putState('run-results', runId, final, { expiresAt: now() + 24 * 60 * 60_000 })
      .catch(() => undefined);
  }

  function startTyping(target: ReturnType<typeof replyTarget>): () => void {
    if (target === undefined) return () => {};
    const account = services.channels.account(target.channel, target.accountId);
    const typing = account?.running?.typing;
    if (account === undefined || typing === undefined) return () => {};
    const conversation = {
      peer: target.peer,
      ...(target.threadId === undefined ? {} : { threadId: target.threadId }),
    };
    const tick = () => {
      typing.call(account.running, conversation).catch(() => undefined);
    };
    tick();
    const timer = setInterval(tick, liveConfig().agents.defaults.typingIntervalSeconds * 1000);
    timer.unref();
    return () => {
      clearInterval(timer);
      account.running?.stopTyping?.(conversation).catch(() => undefined);
    };
  }

  /** `/compact` and `sessions.compact`: a compaction in the session's lane, reported like a run. */
  async function runCompaction(
    batch: RunBatch<TurnInput>,
    last: TurnInput,
    signal: AbortSignal,
  ): Promise<void> {
    const runId = last.runId ?? batch.runId;
    const sessionKey = batch.sessionKey;
    if (services.runs.get(runId) === undefined) services.runs.accept(runId, sessionKey, last.agentId);
    services.runs.start(runId);
    let text: string;
    let details: Record<string, unknown> = {};
    try {
      const session = await store.getSession(sessionKey);
      if (services.compactor === undefined) {
        text = 'Compaction is turned off (agents.defaults.compaction.enabled).';
      } else if (session === undefined) {
        text = 'There is nothing to compact yet.';
      } else {
        const target = services.catalog.resolve(modelReference(last.agentId, session));
        const credentials: AttemptTarget = { target };
        const result = await services.compactor.compact(sessionKey, {
          settings: { ...services.compactionSettings, contextWindow: target.model.contextWindow },
          signal,
          summarizer: createModelSummarizer({
            streamFn: services.streamFn,
            model: target.model,
            streamOptions: credentialsOf(credentials),
          }),
        });
        if (result.status === 'skipped') {
          text = 'There is nothing to compact yet.';
          details = { compacted: false, reason: result.reason };
        } else {
          const outcome = result.outcome;
          text = `Compacted: ${outcome.messagesBefore} messages became ${outcome.messagesAfter}, about ${outcome.tokensBefore} → ${outcome.tokensAfter} tokens.`;
          details = {
            compacted: true,
            kind: outcome.kind,
            tokensBefore: outcome.tokensBefore,
            tokensAfter: outcome.tokensAfter,
            messagesBefore: outcome.messagesBefore,
            messagesAfter: outcome.messagesAfter,
          };
        }
      }
    } catch (error) {
      text = `Compaction failed: ${error instanceof Error ? error.message : String(error)}`;
      details = { compacted: false, error: text };
    }
    const target = replyTarget(last, undefined);
    if (target !== undefined) {
      await services
        .send(
          {
            kind: 'text',
            channel: target.channel,
            accountId: target.accountId,
            peer: target.peer,
            ...(target.threadId === undefined ? {} : { threadId: target.threadId }),
            text,
          },
          { idempotencyKey: `${refKey(last.ref)}:compact` },
        )
        .catch((error: unknown) => logger.warn('could not report the compaction', { error: String(error) }));
    }
    await finishInbound([last], 'replied');
    const final: RunFinal = {
      ok: true,
      payload: {
        runId,
        status: 'ok',
        summary: 'compacted',
        result: { payloads: [{ text }] },
        compaction: details,
      },
    };
    await persistFinal(runId, final);
    services.runs.finish(runId, 'ok', final, { stopReason: 'stop' });
  }

  async function runBatch(batch: RunBatch<TurnInput>, signal: AbortSignal): Promise<void> {
    const config = liveConfig();
    // Summarized messages of this conversation ride in this turn: it answers them too.
    let inputs = [...batch.summarized, ...batch.messages].map((message) => message.payload);
    const last = inputs[inputs.length - 1]!;
    if (last.kind === 'compact') {
      await runCompaction(batch, last, signal);
      return;
    }
    const sessionKey = batch.sessionKey;
    const agentId = last.agentId;
    const runId = inputs.length === 1 && last.runId !== undefined ? last.runId : batch.runId;
    let prompt = batch.prompt;
    if (services.runs.get(runId)?.final === undefined && services.runs.get(runId) === undefined)
      services.runs.accept(runId, sessionKey, agentId);
    services.runs.start(runId);
    const startedAt = now();
    const events = createRunEvents({ broadcast: services.broadcast, runId, sessionKey, agentId, now });
    const scope = { sessionKey, agentId, runId, channel: last.channel };
    // The journal record stays `received` until the turn is answered: recovery only asks
    // "not replied yet?", so an intermediate `running` write would cost a commit per message.
    events.start();

    if (inputs.some((input) => input.recovered === true)) {
      const settled = await settleAnswered(inputs, sessionKey, agentId);
      if (settled.unanswered.length === 0) {
        const replies = settled.markers.flatMap((marker) => marker.replies);
        const final: RunFinal = { ok: true, payload: okPayload(runId, replies, undefined, startedAt) };
        if (last.origin === 'rpc') await persistFinal(runId, final);
        events.end({ status: 'ok', message: undefined, text: replies.join('\n\n') });
        services.runs.finish(runId, 'ok', final, { stopReason: 'stop' });
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

    const created = await store.ensureSession(sessionKey, {
      agentId,
      chatType: last.chatType,
      channel: last.channel,
      ...(last.origin === 'channel' && last.peer !== undefined
        ? {
            lastRoute: {
              channel: last.channel,
              accountId: last.accountId,
              to: last.peer.id,
              peerKind: last.peer.kind,
              ...(last.threadId === undefined ? {} : { threadId: last.threadId }),
            },
          }
        : {}),
    });
    let session = created.entry;
    if (created.created && hooks.has('session_start')) {
      void hooks.run('session_start', {
        sessionKey,
        agentId,
        sessionId: session.sessionId,
        channel: last.channel,
      });
    }
    const policy = resolveResetPolicy(config.session, {
      chatType: last.chatType,
      isThread: last.threadId !== undefined,
      channel: last.channel,
    });
    const freshnessOptions = {
      now: now(),
      ...(config.agents.defaults.timeZone === undefined ? {} : { timeZone: config.agents.defaults.timeZone }),
    };
    // The check is pure and cheap on the entry at hand; only a stale session touches the store.
    const reset = isFresh(session, policy, freshnessOptions)
      ? { reset: false as const, entry: session }
      : await applyResetPolicy(store, sessionKey, policy, freshnessOptions);
    session = reset.entry;
    if (reset.reset) {
      if (hooks.has('session_end'))
        void hooks.run('session_end', {
          sessionKey,
          agentId,
          sessionId: reset.previousSessionId,
          reason: reset.reason,
        });
      if (hooks.has('session_start'))
        void hooks.run('session_start', {
          sessionKey,
          agentId,
          sessionId: session.sessionId,
          channel: last.channel,
        });
    }

    const target = replyTarget(last, session);
    const reply = createReply(last, target, scope, deliveryKey);
    const stopTyping = startTyping(target);
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
    let replies: string[] = [];
    let finalMessage: AssistantMessage | undefined;
    let persisted = false;
    let failure: AuthProfilesError | undefined;
    let pinToSave: SessionAuthPin | undefined;
    try {
      // Model resolution.
      let reference = modelReference(agentId, session);
      if (hooks.has('before_model_resolve')) {
        const [provider = 'anthropic', ...rest] = reference.split('/');
        const outcome = await hooks.run('before_model_resolve', {
          ...scope,
          prompt,
          provider,
          model: rest.join('/'),
        });
        if (outcome.modelOverride !== undefined || outcome.providerOverride !== undefined) {
          reference = `${outcome.providerOverride ?? provider}/${outcome.modelOverride ?? rest.join('/')}`;
        }
      }
      const attempt: AttemptTarget = { target: services.catalog.resolve(reference) };
      const modelChoice = modelChoiceOf(config, agentId);
      const thinking: ThinkingLevel = resolveThinkingLevel(config, agentId, session, last.thinking);

      // Tools and the system prompt.
      const files = await workspace(agentId);
      const tools: AnyAgentTool[] = [
        ...createBuiltinTools({
          workspace: files,
          webFetch: config.tools.webFetch ?? {},
          exec: {
            allow: config.tools.exec?.allow ?? [],
            timeoutMs: (config.tools.exec?.timeoutSeconds ?? 30) * 1000,
          },
          sendMessage: (text, messageTarget, toolSignal) => sendFromTool(text, messageTarget, toolSignal),
        }),
        ...services.pluginTools({
          agentId,
          sessionKey,
          channel: last.channel,
          accountId: last.accountId,
          ...(last.senderId === undefined ? {} : { senderId: last.senderId }),
          workspaceDir: files.root,
        }),
      ];
      const allowed = agentConfig(agentId)?.tools;
      const usableTools = tools.filter(
        (tool) =>
          (allowed?.allow === undefined || allowed.allow.includes(tool.name)) &&
          !(allowed?.deny ?? []).includes(tool.name),
      );
      const date = dateFormatter(config.agents.defaults.timeZone ?? 'UTC').format(now());
      let systemPrompt = buildSystemPrompt({
        agentId,
        ...(agentConfig(agentId)?.name === undefined ? {} : { agentName: agentConfig(agentId)?.name }),
        bootstrapFiles: await services.loadBootstrap(files.root),
        tools: usableTools.map((tool) => ({ name: tool.name, description: tool.description })),
        date,
        timeZone: config.agents.defaults.timeZone ?? 'UTC',
        ...(last.origin === 'channel' ? { channel: { name: last.channel, chatType: last.chatType } } : {}),
      });

      if (hooks.has('before_prompt_build') || hooks.has('before_agent_start')) {
        const context = await store.buildContext(sessionKey);
        const [provider = 'anthropic', ...rest] = attempt.target.reference.split('/');
        const built = hooks.has('before_prompt_build')
          ? await hooks.run('before_prompt_build', {
              ...scope,
              prompt,
              messages: context.messages,
              systemPrompt,
              provider,
              model: rest.join('/'),
            })
          : {};
        const started = hooks.has('before_agent_start')
          ? await hooks.run('before_agent_start', { ...scope, prompt, messages: context.messages })
          : {};
        for (const outcome of [built, started]) {
          if (outcome.systemPrompt !== undefined) systemPrompt = outcome.systemPrompt;
          if (outcome.prependSystemContext !== undefined)
            systemPrompt = `${outcome.prependSystemContext}\n\n${systemPrompt}`;
          if (outcome.appendSystemContext !== undefined)
            systemPrompt = `${systemPrompt}\n\n${outcome.appendSystemContext}`;
          if (outcome.prependContext !== undefined) prompt = `${outcome.prependContext}\n\n${prompt}`;
          if (outcome.appendContext !== undefined) prompt = `${prompt}\n\n${outcome.appendContext}`;
        }
      }

      const media = await loadMedia(last.media ?? [], logger);
      if (media.notes.length > 0)
        prompt = prompt.trim() === '' ? media.notes.join('\n') : `${prompt}\n\n${media.notes.join('\n')}`;
      const images = [...(last.images ?? []), ...media.images];
      const userMessage: UserMessage = {
        role: 'user',
        content: images.length === 0 ? prompt : [{ type: 'text', text: prompt }, ...images],
        timestamp: now(),
      };
      const compactionCall = (model: Model, credentials: AttemptTarget): CompactionCallOptions => ({
        settings: { ...services.compactionSettings, contextWindow: model.contextWindow },
        systemPrompt,
        tools: usableTools.map(toolSpec),
        signal: runController.signal,
        summarizer: createModelSummarizer({
          streamFn: services.streamFn,
          model,
          streamOptions: {
            ...credentialsOf(credentials),
            ...(credentials.target.headers === undefined ? {} : { headers: credentials.target.headers }),
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

      const toolStarts = new Map<string, number>();
      let current = attempt;
      const streamFn: StreamFunction = async (model, llmContext, options) => {
        if (hooks.has('llm_input')) {
          void hooks.run('llm_input', {
            ...scope,
            provider: model.provider,
            model: model.id,
            systemPrompt: llmContext.systemPrompt ?? '',
            messages: llmContext.messages as readonly Message[],
            tools: (llmContext.tools ?? []).map((tool) => tool.name),
          });
        }
        const stream = await services.streamFn(model, llmContext, {
          ...options,
          ...credentialsOf(current),
          ...(current.target.headers === undefined ? {} : { headers: current.target.headers }),
          ...(current.target.timeoutMs === undefined ? {} : { timeoutMs: current.target.timeoutMs }),
        });
        if (hooks.has('llm_output')) {
          void stream.result().then((message) =>
            hooks.run('llm_output', {
              ...scope,
              provider: model.provider,
              model: model.id,
              message,
              usage: message.usage,
            }),
          );
        }
        return stream;
      };

      agent = new Agent({
        systemPrompt,
        model: attempt.target.model,
        thinkingLevel: attempt.thinkingLevel ?? thinking,
        tools: usableTools,
        messages,
        streamFn,
        maxModelCalls: config.agents.defaults.maxModelCalls,
        sessionId: session.sessionId,
        now,
        beforeToolCall: async (toolContext) => {
          toolStarts.set(toolContext.toolCall.id, now());
          if (!hooks.has('before_tool_call')) return undefined;
          const outcome = await hooks.run('before_tool_call', {
            ...scope,
            toolCallId: toolContext.toolCall.id,
            toolName: toolContext.toolCall.name,
            params: (toolContext.args ?? {}) as Record<string, unknown>,
          });
          if (outcome.block) return { block: true, reason: outcome.reason };
          return { args: outcome.params };
        },
        afterToolCall: async (toolContext) => {
          if (hooks.has('after_tool_call')) {
            void hooks.run('after_tool_call', {
              ...scope,
              toolCallId: toolContext.toolCall.id,
              toolName: toolContext.toolCall.name,
              params: (toolContext.args ?? {}) as Record<string, unknown>,
              result: {
                role: 'toolResult',
                toolCallId: toolContext.toolCall.id,
                toolName: toolContext.toolCall.name,
                content: toolContext.result.content,
                details: toolContext.result.details,
                isError: toolContext.isError,
                timestamp: now(),
              },
              durationMs: now() - (toolStarts.get(toolContext.toolCall.id) ?? now()),
            });
          }
          return undefined;
        },
      });
      // Messages before this index are in the transcript; the turn's replies start at turnStartsAt.
      let unpersistedFrom = agent.state.messages.length;
      let turnStartsAt = unpersistedFrom;
      let turnFirstMessage = true;
      active.set(sessionKey, { agent, compacting: false, steeredRefs: [] });
      agent.subscribe((event) => {
        events.onAgentEvent(event);
        if (reply !== undefined) feedReply(reply, event);
      });
      runController.signal.addEventListener('abort', () => agent?.abort(), { once: true });

      // Attempts: auth-profiles rotates keys, downgrades thinking and falls back to other
      // models; an overflow comes back here to be compacted (never a reason to fall back).
      let sessionPin = session.metadata.authPin as SessionAuthPin | undefined;
      for (let compactionRound = 0; ; compactionRound += 1) {
        try {
          const result = await services.auth.runWithFailover({
            model: reference,
            ...(modelChoice?.primary === undefined ? {} : { primary: modelChoice.primary }),
            fallbacks: modelChoice?.fallbacks ?? [],
            thinkingLevel: thinking,
            ...(sessionPin === undefined ? {} : { sessionPin }),
            compactionCount: session.compactionCount,
            signal: runController.signal,
            maxWaitMs: config.agents.defaults.rateLimitMaxWaitSeconds * 1000,
            onWait: (wait) => {
              logger.info('waiting for a rate-limited model before trying again', {
                sessionKey,
                runId,
                waitMs: wait.waitMs,
                reason: wait.reason,
                model: `${wait.provider}/${wait.model}`,
                ...(wait.profileId === undefined ? {} : { profile: wait.profileId }),
                attempt: wait.attempt,
              });
              events.waiting(wait);
            },
            attempt: async (candidate) => {
              const target = services.catalog.resolve(`${candidate.provider}/${candidate.model}`);
              current = {
                target,
                ...(candidate.credential === undefined ? {} : candidate.credential),
                ...(candidate.thinkingLevel === undefined ? {} : { thinkingLevel: candidate.thinkingLevel }),
                ...(candidate.profileId === undefined ? {} : { profileId: candidate.profileId }),
              };
              agent!.setModel(target.model);
              if (candidate.thinkingLevel !== undefined) agent!.setThinkingLevel(candidate.thinkingLevel);
              if (turnFirstMessage) {
                turnFirstMessage = false;
                await agent!.prompt(userMessage);
              } else {
                dropFailedTail(agent!);
                reply?.resetForRetry();
                await agent!.continue();
              }
              const answer = lastAssistant(agent!.state.messages);
              if (answer === undefined)
                return { ok: false, error: new Error('the model produced no message') };
              return outcomeFromAssistantMessage(answer);
            },
          });
          sessionPin = result.sessionPin;
          break;
        } catch (error) {
          if (!(error instanceof AuthProfilesError)) throw error;
          if (
            error.code === 'AUTH_PROFILES_CONTEXT_OVERFLOW' &&
            services.compactor !== undefined &&
            error.modelError !== undefined
          ) {
            // The compactor works on the stored transcript: store the turn so far first.
            dropFailedTail(agent);
            const sofar = agent.state.messages.slice(unpersistedFrom);
            await appendTurn(sofar, undefined);
            active.get(sessionKey)!.compacting = true;
            try {
              const recovered = await services.compactor.recoverFromOverflow(sessionKey, {
                ...compactionCall(current.target.model, current),
                attempt: compactionRound + 1,
                error: error.modelError,
              });
              agent.replaceMessages(recovered.messages);
              unpersistedFrom = recovered.messages.length;
              turnStartsAt = Math.min(turnStartsAt, unpersistedFrom);
              continue;
            } catch (compactionError) {
              failure = error;
              errorText =
                compactionError instanceof Error ? compactionError.message : String(compactionError);
              break;
            } finally {
              active.get(sessionKey)!.compacting = false;
            }
          }
          if (error.code === 'AUTH_PROFILES_ABORTED') break;
          failure = error;
          break;
        }
      }
      if (sessionPin !== undefined) pinToSave = sessionPin;

      const turnMessages = agent.state.messages.slice(turnStartsAt);
      const newMessages = agent.state.messages.slice(unpersistedFrom);
      finalMessage = lastAssistant(turnMessages);
      replies = turnMessages
        .filter(
          (message): message is AssistantMessage =>
            message.role === 'assistant' &&
            message.stopReason !== 'error' &&
            message.stopReason !== 'aborted',
        )
        .map((message) => visibleText(assistantText(message)))
        .filter((text) => text.length > 0);
      const runUsage = agent.state.usage;
      usage = {
        input: runUsage.input,
        output: runUsage.output,
        cacheRead: runUsage.cacheRead,
        cacheWrite: runUsage.cacheWrite,
        totalTokens: runUsage.totalTokens,
        cost: runUsage.cost,
      };
      if (runController.signal.aborted) {
        status = timedOut ? 'error' : 'aborted';
        if (timedOut)
          errorText = `The reply took longer than ${Math.round(runTimeoutMs / 1000)} s and was stopped.`;
      } else if (failure !== undefined || finalMessage?.stopReason === 'error') {
        status = 'error';
        const modelError =
          failure?.modelError ?? (finalMessage === undefined ? undefined : errorOf(finalMessage));
        errorClass = modelError?.errorClass;
        errorCode = modelError?.code;
        retryAfterMs = failure?.retryAfterMs ?? modelError?.retryAfterMs;
        // No key at all: plain words on what to set, not the list of models that failed.
        if (
          modelError?.errorClass === 'no_credentials' &&
          modelError.provider !== undefined &&
          (failure?.attempts ?? []).every((tried) => tried.ok || tried.errorClass === 'no_credentials')
        )
          errorText ??= missingCredentialsText(modelError.provider, config);
        errorText ??= failure?.message ?? modelError?.message ?? 'the model call failed';
      }

      // Persist the turn with its marker in one transaction (decision 0004). A turn cut short
      // by a shutdown is not persisted: it runs again from the journal after the restart.
      try {
        if (runController.signal.aborted && services.isShuttingDown())
          throw new Error('cut short by a shutdown');
        const steeredRefs = active.get(sessionKey)?.steeredRefs ?? [];
        const refs = [...inputs, ...steeredRefs].map((input) => refKey(input.ref));
        await appendTurn(newMessages, { refs, runId, replies, deliveryKey });
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

      /** Appends messages (through the transcript hooks) and, for the finished turn, its marker. */
      async function appendTurn(
        toAppend: readonly AgentMessage[],
        marker: AnsweredMarker | undefined,
      ): Promise<void> {
        const entries: NewTranscriptEntry[] = [];
        for (const message of toAppend) {
          if (!isModelMessage(message)) continue;
          let written: Message = message;
          if (written.role === 'toolResult' && hooks.has('tool_result_persist')) {
            written = hooks.runSync('tool_result_persist', { sessionKey, agentId, message: written }).message;
          }
          if (hooks.has('before_message_write')) {
            const outcome = hooks.runSync('before_message_write', { sessionKey, agentId, message: written });
            if (outcome.block) continue;
            written = outcome.message;
          }
          entries.push({ type: 'message', message: written });
        }
        if (marker !== undefined)
          entries.push({ type: 'custom', customType: answeredMarkerType, data: marker });
        if (entries.length === 0) return;
        const usageNow = agent!.state.usage;
        await store.appendEntries(sessionKey, entries, {
          expectedSessionId: session.sessionId,
          patch: {
            lastInteractionAt: now(),
            ...(target !== undefined && last.origin === 'channel'
              ? {
                  lastRoute: {
                    channel: target.channel,
                    accountId: target.accountId,
                    to: target.peer.id,
                    peerKind: target.peer.kind,
                    ...(target.threadId === undefined ? {} : { threadId: target.threadId }),
                  },
                }
              : {}),
            ...(marker === undefined || pinToSave === undefined ? {} : { metadata: { authPin: pinToSave } }),
            modelProvider: current.target.provider,
            model: current.target.model.id,
            ...(usageNow.calls === 0 ? {} : { contextTokens: usageNow.contextTokens }),
            ...(marker === undefined
              ? {}
              : {
                  addUsage: {
                    input: usageNow.input,
                    output: usageNow.output,
                    cacheRead: usageNow.cacheRead,
                    cacheWrite: usageNow.cacheWrite,
                    costUsd: usageNow.cost.total,
                  },
                }),
          },
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

    // Deliver, then close the journal records.
    let summary: ReplySummary | undefined;
    try {
      if (reply !== undefined) {
        if (status === 'error' && errorText !== undefined) {
          reply.onMessageStart();
          reply.onMessageEnd(`⚠️ ${errorText}`);
        }
        summary = await reply.onRunEnd({ aborted: status === 'aborted' });
        crashPoint('before-journal-closed');
      }
    } catch (error) {
      logger.error('reply delivery failed', { sessionKey, runId, error: String(error) });
    } finally {
      stopTyping();
    }
    const allInputs = [...inputs, ...steeredInputs];
    if (status === 'aborted' && services.isShuttingDown()) {
      // Cut short by a shutdown, not by a user: leave the journal records as they are so the
      // next start resumes them (decision 0004); the client retries with the same key.
      events.end({ status, message: finalMessage, text: '' });
      services.runs.finish(runId, 'aborted', {
        ok: false,
        error: {
          code: 'UNAVAILABLE',
          message: 'the gateway shut down during the run; retry with the same idempotencyKey',
          details: { code: 'SHUTTING_DOWN', runId },
          retryable: true,
        },
      });
      return;
    }

    const final: RunFinal =
      status === 'ok'
        ? { ok: true, payload: okPayload(runId, replies, { session, usage, model: finalMessage }, startedAt) }
        : status === 'aborted'
          ? { ok: true, payload: { runId, status: 'aborted', summary: 'aborted' } }
          : {
              ok: false,
              payload: { runId, status: 'error', summary: errorText ?? 'the run failed' },
              error: {
                ...toProtocolError(undefined),
                code: 'UNAVAILABLE',
                message: errorText ?? 'the run failed',
                details: {
                  code: 'RUN_FAILED',
                  runId,
                  ...(errorClass === undefined ? {} : { errorClass }),
                  ...(errorCode === undefined ? {} : { errorCode }),
                  ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
                },
              },
            };
    // Protocol runs summarized into this turn end with it: their clients wait on their own ids.
    const carried = allInputs.filter(
      (input) => input.origin === 'rpc' && input.runId !== undefined && input.runId !== runId,
    );
    const carriedFinal = (input: TurnInput): RunFinal => ({
      ...final,
      payload: { ...final.payload, runId: input.runId },
    });
    // Closing the journal and storing the finals in the same tick: one group commit.
    await Promise.all([
      status === 'ok'
        ? finishInbound(allInputs, 'replied')
        : finishInbound(allInputs, 'failed', status === 'aborted' ? 'aborted' : errorText),
      last.origin === 'rpc' ? persistFinal(runId, final) : undefined,
      ...carried.map((input) => persistFinal(input.runId!, carriedFinal(input))),
    ]);
    for (const input of carried) services.runs.finish(input.runId!, status, carriedFinal(input));
    events.end({
      status,
      message: finalMessage,
      text: replies.join('\n\n'),
      usage,
      ...(finalMessage === undefined ? {} : { stopReason: finalMessage.stopReason }),
      ...(errorText === undefined ? {} : { error: errorText }),
      ...(errorClass === undefined ? {} : { errorClass }),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
    services.runs.finish(runId, status, final, {
      ...(finalMessage === undefined ? {} : { stopReason: finalMessage.stopReason }),
      ...(errorText === undefined ? {} : { error: errorText }),
    });
    if (hooks.has('agent_end')) {
      void hooks.run('agent_end', {
        ...scope,
        messages: agent === undefined ? [] : agent.state.messages.filter(isModelMessage),
        success: status === 'ok',
        ...(errorText === undefined ? {} : { error: errorText }),
        durationMs: now() - startedAt,
        usage,
      });
    }
    if (!persisted && status === 'ok') logger.debug('turn finished without persistence', { runId, summary });

    async function sendFromTool(
      text: string,
      messageTarget: MessageTarget | undefined,
      toolSignal: AbortSignal,
    ): Promise<readonly string[]> {
      const destination =
        messageTarget === undefined
          ? target
          : {
              channel: messageTarget.channel,
              accountId: messageTarget.accountId ?? 'default',
              peer: { kind: 'direct' as const, id: messageTarget.to },
              ...(messageTarget.threadId === undefined ? {} : { threadId: messageTarget.threadId }),
            };
      if (destination === undefined)
        throw new Error('this conversation has no channel to send to; give channel and to');
      const result = await services.send(
        {
          kind: 'text',
          channel: destination.channel,
          accountId: destination.accountId,
          peer: destination.peer,
          ...(destination.threadId === undefined ? {} : { threadId: destination.threadId }),
          text,
        },
        { scope, signal: toolSignal },
      );
      if (result.status === 'cancelled') throw new Error(`the message was not sent: ${result.reason}`);
      return result.messageIds;
    }
  }

  async function redeliver(
    input: TurnInput,
    marker: AnsweredMarker,
    sessionKey: string,
    agentId: string,
  ): Promise<void> {
    const session = await store.getSession(sessionKey);
    const reply = createReply(
      input,
      replyTarget(input, session),
      { sessionKey, agentId, runId: marker.runId },
      deliveryKeyOf(marker),
    );
    if (reply === undefined) return;
    for (const text of marker.replies) {
      reply.onMessageStart();
      reply.onMessageEnd(text);
    }
    await reply.onRunEnd({});
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

function credentialsOf(attempt: AttemptTarget): { apiKey?: string; authToken?: string; baseUrl?: string } {
  const apiKey = attempt.apiKey ?? attempt.target.apiKey;
  const authToken = attempt.authToken ?? attempt.target.authToken;
  return {
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(authToken === undefined || apiKey !== undefined ? {} : { authToken }),
    ...(attempt.target.baseUrl === undefined ? {} : { baseUrl: attempt.target.baseUrl }),
  };
}

/** Images the model accepts inline; larger ones are described instead. */
const maxInlineImageBytes = 5 * 1024 * 1024;

/**
 * Turns a channel message's media into what the model sees: images (read from the file the
 * channel downloaded, or fetched from a plain URL) as image blocks, anything else as a line
 * of text naming it.
 */
async function loadMedia(
  media: readonly InboundMedia[],
  logger: Logger,
): Promise<{ images: ImageContent[]; notes: string[] }> {
  const images: ImageContent[] = [];
  const notes: string[] = [];
  for (const item of media) {
    const label = `[${item.kind}${item.fileName === undefined ? '' : `: ${item.fileName}`}${item.mimeType === undefined ? '' : ` (${item.mimeType})`}]`;
    if (item.kind !== 'image' && item.kind !== 'sticker') {
      notes.push(label);
      continue;
    }
    try {
      let bytes: Buffer | undefined;
      if (item.path !== undefined) bytes = await readFile(item.path);
      else if (item.url !== undefined && /^https?:/.test(item.url)) {
        const response = await fetch(item.url, { signal: AbortSignal.timeout(15_000) });
        if (response.ok) bytes = Buffer.from(await response.arrayBuffer());
      }
      if (bytes === undefined || bytes.length > maxInlineImageBytes) {
        notes.push(label);
        continue;
      }
      images.push({
        type: 'image',
        mediaType: item.mimeType ?? 'image/jpeg',
        data: bytes.toString('base64'),
      });
      if (item.fileName !== undefined) notes.push(label);
    } catch (error) {
      logger.warn('could not read inbound media', { kind: item.kind, error: String(error) });
      notes.push(label);
    }
  }
  return { images, notes };
}

/** Removes a failed assistant message at the end of the history (core-loop's continue() refuses it). */
function dropFailedTail(agent: Agent): void {
  const messages = agent.state.messages;
  const tail = messages[messages.length - 1];
  if (
    tail?.role === 'assistant' &&
    ((tail as AssistantMessage).stopReason === 'error' || (tail as AssistantMessage).stopReason === 'aborted')
  ) {
    agent.replaceMessages(messages.slice(0, -1));
  }
}

function isModelMessage(message: AgentMessage): message is Message {
  return message.role === 'user' || message.role === 'assistant' || message.role === 'toolResult';
}

function feedReply(reply: NonNullable<ReturnType<typeof createReplyStream>>, event: AgentEvent): void {
  switch (event.type) {
    case 'message_start':
      if (event.message.role === 'assistant') reply.onMessageStart();
      return;
    case 'message_update': {
      const update = event.assistantEvent;
      if (update.type === 'text_delta') reply.onTextDelta(update.delta);
      else if (update.type === 'text_end') reply.onTextEnd(update.content);
      return;
    }
    case 'message_end':
      if (event.message.role === 'assistant') {
        const message = event.message as AssistantMessage;
        if (message.stopReason !== 'error' && message.stopReason !== 'aborted')
          reply.onMessageEnd(assistantText(message));
      }
      return;
    case 'tool_execution_start':
      if (event.toolName === 'message') {
        const args = (event.args ?? {}) as {
          text?: string;
          channel?: string;
          to?: string;
          accountId?: string;
          threadId?: string;
        };
        reply.onMessageToolSend({
          toolCallId: event.toolCallId,
          ...(args.text === undefined ? {} : { text: args.text }),
          ...(args.channel !== undefined && args.to !== undefined
            ? {
                target: {
                  channel: args.channel,
                  to: args.to,
                  ...(args.accountId === undefined ? {} : { accountId: args.accountId }),
                },
              }
            : {}),
        });
      }
      void reply.onToolStart({ toolCallId: event.toolCallId, toolName: event.toolName });
      return;
    case 'tool_execution_end':
      reply.onToolEnd({ toolCallId: event.toolCallId, toolName: event.toolName, isError: event.isError });
      return;
    default:
      return;
  }
}

function okPayload(
  runId: string,
  replies: readonly string[],
  details: { session: SessionEntry; usage: Usage; model: AssistantMessage | undefined } | undefined,
  startedAt: number,
): Record<string, unknown> {
  return {
    runId,
    status: 'ok',
    summary: 'completed',
    result: {
      payloads: replies.map((text) => ({ text })),
      meta: {
        durationMs: Date.now() - startedAt,
        ...(details === undefined
          ? {}
          : {
              agentMeta: {
                sessionId: details.session.sessionId,
                provider: details.model?.provider,
                model: details.model?.model,
                usage: {
                  input: details.usage.input,
                  output: details.usage.output,
                  cacheRead: details.usage.cacheRead,
                  cacheWrite: details.usage.cacheWrite,
                  total: details.usage.totalTokens,
                  cost: details.usage.cost.total,
                },
              },
            }),
      },
    },
  };
}
