import { isContextOverflow, ModelError, type ToolSpec, toModelError } from '@switchboard/core-loop';
import type {
  AfterCompactionEvent,
  BeforeCompactionEvent,
  CompactionReason,
  Message,
  ToolResultMessage,
} from '@switchboard/hooks';
import {
  type ContextCompaction,
  formatCompactionSummary,
  type NewTranscriptEntry,
  type SessionStore,
} from '@switchboard/sessions';
import { CompactionError } from './errors.ts';
import {
  type ContextEstimate,
  clampRatio,
  estimateContext,
  estimateMessageTokens,
  estimateTextTokens,
  isFailedAssistant,
} from './estimate.ts';
import type {
  CompactionEntryDetails,
  CompactionEvent,
  CompactionKind,
  CompactionOutcome,
} from './outcome.ts';
import { type CompactionMode, type CompactionPlan, compactionModes, planCompaction } from './plan.ts';
import { shortenedNotice, truncationNotice } from './prompts.ts';
import { contextMessages, type LoadedSessionContext, loadSessionContext } from './session-context.ts';
import {
  type CompactionBudget,
  type CompactionSettings,
  minimumContextWindow,
  resolveCompactionBudget,
} from './settings.ts';
import { capSummary, type Summarizer, summarizePlan } from './summarize.ts';

/** Callbacks the gateway wires to its hook bus (`before_compaction`, `after_compaction`). */
export interface CompactorHooks {
  readonly beforeCompaction?: (event: BeforeCompactionEvent) => void | Promise<void>;
  readonly afterCompaction?: (event: AfterCompactionEvent) => void | Promise<void>;
}

export interface CompactorOptions {
  /** Where transcripts live; compaction entries are appended through it. */
  readonly store: SessionStore;
  /** Writes summaries (usually `createModelSummarizer`). */
  readonly summarizer: Summarizer;
  /** Defaults for every call; a call's `settings` override them field by field. */
  readonly settings?: Partial<CompactionSettings>;
  readonly hooks?: CompactorHooks;
  readonly onEvent?: (event: CompactionEvent) => void;
  /** How a summary becomes a model message; must match what the gateway passes to `buildContext`. */
  readonly formatSummary?: (compaction: ContextCompaction) => Message;
}

/** What every call may say about the request that is about to be made. */
export interface CompactionCallOptions {
  /** Per-model settings (at least `contextWindow`, unless the compactor has it). */
  readonly settings?: Partial<CompactionSettings>;
  readonly systemPrompt?: string;
  readonly tools?: readonly ToolSpec[];
  /** Messages about to be sent that are not in the transcript yet (the new prompt): counted, always kept. */
  readonly pending?: readonly Message[];
  /** A summariser for this call (another model), instead of the compactor's. */
  readonly summarizer?: Summarizer;
  /** Aborts the compaction; nothing is written then. */
  readonly signal?: AbortSignal;
}

export interface RecoverFromOverflowOptions extends CompactionCallOptions {
  /** 1 for the first recovery of this run, 2 for the second, … Beyond `maxAttempts` the call throws. */
  readonly attempt: number;
  /** The overflow: the failed assistant message, a `ModelError`, or whatever the provider threw. */
  readonly error?: unknown;
}

export interface CompactOptions extends CompactionCallOptions {
  /** `/compact <focus>`: what the summary should concentrate on (passed as data, not as instructions). */
  readonly instructions?: string;
}

/** The context to run the model with. */
export interface PreparedContext {
  readonly sessionId: string;
  /**
   * The history for the agent: the summary message first, then the kept messages; trailing
   * failed assistant messages are left out (so `continue()` can resume); `pending` is not
   * included.
   */
  readonly messages: readonly Message[];
  /** Estimated size of the request (history, pending, system prompt, tools). */
  readonly estimate: ContextEstimate;
  readonly budget: CompactionBudget;
  /** Whether the estimate fits the prompt budget. */
  readonly fits: boolean;
  /** The compaction this call wrote, if any. */
  readonly compaction: CompactionOutcome | undefined;
}

/** The result of an on-demand compaction. */
export type CompactResult =
  | { readonly status: 'compacted'; readonly outcome: CompactionOutcome; readonly context: PreparedContext }
  | { readonly status: 'skipped'; readonly reason: 'nothing_to_compact'; readonly context: PreparedContext };

/** Keeps sessions inside their context window; see the README for the call sequence. */
export interface Compactor {
  /** Before a run: compacts when the request would exceed `contextWindow − reserveTokens`. */
  prepareContext(sessionKey: string, options?: CompactionCallOptions): Promise<PreparedContext>;
  /** After the provider reported a context overflow: compacts harder with each attempt, then retry. */
  recoverFromOverflow(sessionKey: string, options: RecoverFromOverflowOptions): Promise<PreparedContext>;
  /** `/compact` and `sessions.compact`: compacts now, whatever the size. */
  compact(sessionKey: string, options?: CompactOptions): Promise<CompactResult>;
}

interface OverflowFacts {
  readonly observedTokens: number | undefined;
  readonly limit: number | undefined;
  readonly text: string;
}

/** The context window a provider named in its overflow message ("… > 8192 maximum"), if it did. */
export function parseOverflowLimit(text: string): number | undefined {
  const patterns = [
    /\d[\d,]*\s*(?:input\s+)?(?:tokens?\s*)?>\s*(\d[\d,]*)/i,
    /maximum context length is\s*(\d[\d,]*)/i,
    /context window (?:of|is)\s*(\d[\d,]*)/i,
  ];
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (match !== null) {
      const value = Number((match[1] as string).replaceAll(',', ''));
      if (Number.isFinite(value) && value > 0) return value;
    }
  }
  return undefined;
}

function overflowFacts(error: unknown): OverflowFacts {
  if (error === undefined) return { observedTokens: undefined, limit: undefined, text: '' };
  let modelError: ModelError | undefined;
  if (typeof error === 'object' && error !== null && (error as { role?: unknown }).role === 'assistant') {
    modelError = ModelError.fromAssistantMessage(
      error as Parameters<typeof ModelError.fromAssistantMessage>[0],
    );
  } else modelError = toModelError(error);
  const text = modelError?.message ?? '';
  return { observedTokens: modelError?.observedTokens, limit: parseOverflowLimit(text), text };
}

function withoutTrailingFailures(messages: readonly Message[]): Message[] {
  let end = messages.length;
  while (end > 0 && isFailedAssistant(messages[end - 1] as Message)) end -= 1;
  return messages.slice(0, end);
}

function abortError(signal: AbortSignal, sessionKey: string, cause?: unknown): CompactionError {
  return new CompactionError(
    'COMPACTION_ABORTED',
    `The compaction of session ${JSON.stringify(sessionKey)} was aborted; nothing was written.`,
    { cause: cause ?? signal.reason, details: { sessionKey } },
  );
}

interface RunInput {
  readonly sessionKey: string;
  readonly loaded: LoadedSessionContext;
  readonly plan: CompactionPlan;
  readonly reason: CompactionReason;
  readonly budget: CompactionBudget;
  readonly tokensBefore: number;
  readonly call: CompactionCallOptions;
  readonly instructions?: string;
  /** A ready summary (a shortened previous summary): no model request, kind `trim`. */
  readonly presetSummary?: string;
}

/**
 * Creates the compactor the gateway calls around each run: `prepareContext` before a run,
 * `recoverFromOverflow` after a context overflow, `compact` on demand. Compaction entries
 * are appended to the session's transcript through the store (with the session id it was
 * read under, so a session reset meanwhile is never written into).
 */
export function createCompactor(options: CompactorOptions): Compactor {
  const { store } = options;
  const formatSummary = options.formatSummary ?? formatCompactionSummary;

  const emit = (event: CompactionEvent): void => {
    options.onEvent?.(event);
  };

  const budgetFor = (call: CompactionCallOptions, contextWindow?: number): CompactionBudget => {
    const merged = { ...options.settings, ...call.settings } as CompactionSettings;
    if (merged.contextWindow === undefined) {
      throw new CompactionError(
        'COMPACTION_INVALID_SETTINGS',
        'settings.contextWindow is required: pass the model’s context window in the compactor’s or the call’s settings.',
        { details: { key: 'settings.contextWindow' } },
      );
    }
    return resolveCompactionBudget(
      contextWindow === undefined
        ? merged
        : { ...merged, contextWindow: Math.min(merged.contextWindow, contextWindow) },
    );
  };

  const load = (sessionKey: string): Promise<LoadedSessionContext> => {
    if (typeof sessionKey !== 'string' || sessionKey === '') {
      throw new CompactionError('COMPACTION_INVALID_ARGUMENT', 'sessionKey must be a non-empty string.');
    }
    return loadSessionContext(store, sessionKey, formatSummary);
  };

  const measure = (
    loaded: LoadedSessionContext,
    call: CompactionCallOptions,
    budget: CompactionBudget,
  ): ContextEstimate =>
    estimateContext({
      messages: contextMessages(loaded),
      pending: call.pending,
      systemPrompt: call.systemPrompt,
      tools: call.tools,
      usageFromIndex: loaded.usageFromIndex + (loaded.summaryMessage === undefined ? 0 : 1),
      storedRatio: loaded.storedRatio,
      safetyMargin: budget.safetyMargin,
    });

  const prepared = (
    loaded: LoadedSessionContext,
    estimate: ContextEstimate,
    budget: CompactionBudget,
    outcome: CompactionOutcome | undefined,
  ): PreparedContext => ({
    sessionId: loaded.sessionId,
    messages: withoutTrailingFailures(contextMessages(loaded)),
    estimate,
    budget,
    fits: estimate.tokens <= budget.promptBudget,
    compaction: outcome,
  });

  const plan = (
    loaded: LoadedSessionContext,
    call: CompactionCallOptions,
    budget: CompactionBudget,
    ratio: number,
    mode: CompactionMode,
  ): CompactionPlan => {
    const summarizer = call.summarizer ?? options.summarizer;
    return planCompaction({
      messages: loaded.messages,
      previousSummary: loaded.compaction?.summary,
      pending: call.pending,
      systemPrompt: call.systemPrompt,
      tools: call.tools,
      budget,
      ratio,
      mode,
      summarizerWindow: summarizer.contextWindow ?? budget.contextWindow,
    });
  };

  /** The first plan from `mode` on that has work and fits; else the harshest one with work. */
  const escalate = (
    loaded: LoadedSessionContext,
    call: CompactionCallOptions,
    budget: CompactionBudget,
    ratio: number,
    mode: CompactionMode,
  ): CompactionPlan | undefined => {
    let chosen: CompactionPlan | undefined;
    for (const candidate of compactionModes.slice(compactionModes.indexOf(mode))) {
      const next = plan(loaded, call, budget, ratio, candidate);
      if (!next.hasWork) continue;
      chosen = next;
      if (next.fits) break;
    }
    return chosen;
  };

  const callHook = async (
    sessionKey: string,
    hook: 'before_compaction' | 'after_compaction',
    run: () => void | Promise<void>,
  ): Promise<void> => {
    try {
      await run();
    } catch (error) {
      emit({ type: 'compaction_hook_failed', sessionKey, hook, error });
    }
  };

  const run = async (input: RunInput): Promise<CompactionOutcome> => {
    const { sessionKey, loaded, plan: chosen, reason, budget, call } = input;
    const { signal } = call;
    if (isAborted(signal)) throw abortError(signal, sessionKey);
    const agentId = loaded.session.agentId;
    const messagesBefore = loaded.messages.length + (loaded.summaryMessage === undefined ? 0 : 1);
    const previousSummary = loaded.compaction?.summary;
    await callHook(sessionKey, 'before_compaction', () =>
      options.hooks?.beforeCompaction?.({
        sessionKey,
        agentId,
        reason,
        messageCount: messagesBefore,
        tokenCount: input.tokensBefore,
      }),
    );
    emit({
      type: 'compaction_start',
      sessionKey,
      reason,
      mode: chosen.mode,
      tokensBefore: input.tokensBefore,
      messagesToSummarize: chosen.summarizedMessages,
      chunks: chosen.chunks.length,
    });

    const baseSummarizer = call.summarizer ?? options.summarizer;
    let requests = 0;
    const counting: Summarizer = {
      contextWindow: baseSummarizer.contextWindow,
      summarize: (request, requestSignal) => {
        requests += 1;
        return baseSummarizer.summarize(request, requestSignal);
      },
    };
    let kind: CompactionKind;
    let summary: string;
    let failure: CompactionError | undefined;
    const shortened = chosen.rewrites.length;
    if (input.presetSummary !== undefined) {
      kind = 'trim';
      summary = input.presetSummary;
    } else if (chosen.cutIndex === 0) {
      kind = 'trim';
      summary = [previousSummary, shortenedNotice(shortened)]
        .filter((part) => part !== undefined)
        .join('\n\n');
    } else {
      try {
        const result = await summarizePlan(chosen, {
          summarizer: counting,
          signal,
          instructions: input.instructions,
        });
        kind = 'summary';
        summary =
          result.text === ''
            ? 'The earlier messages carried nothing to summarize (failed or empty turns).'
            : result.text;
        if (shortened > 0) summary = `${summary}\n\n${shortenedNotice(shortened)}`;
      } catch (error) {
        if (isAborted(signal)) throw abortError(signal, sessionKey, error);
        failure = new CompactionError(
          'COMPACTION_SUMMARY_FAILED',
          `Summarizing ${chosen.summarizedMessages} message(s) of session ${JSON.stringify(sessionKey)} failed: ${error instanceof Error ? error.message : String(error)}`,
          {
            cause: error,
            details: {
              sessionKey,
              ...(codeOf(error) === undefined ? {} : { causeCode: codeOf(error) }),
            },
          },
        );
        emit({ type: 'compaction_summary_failed', sessionKey, reason, error: failure });
        kind = 'truncation';
        let droppedRaw = 0;
        for (let index = 0; index < chosen.cutIndex; index += 1) {
          droppedRaw += estimateMessageTokens(loaded.messages[index] as Message);
        }
        summary = truncationNotice({
          droppedMessages: chosen.summarizedMessages,
          droppedTokens: Math.ceil(droppedRaw * chosen.ratio),
          reason: error instanceof Error ? error.message : String(error),
          previousSummary:
            previousSummary === undefined
              ? undefined
              : capSummary(previousSummary, Math.max(64, budget.summaryMaxTokens - 150), chosen.ratio),
          shortenedToolResults: shortened,
        });
      }
    }
    if (isAborted(signal)) throw abortError(signal, sessionKey);

    // The entry, and the kept messages again when some of them were shortened.
    const count = loaded.messages.length;
    const ownSequence = loaded.lastSequence + 1;
    const copyKept = shortened > 0;
    const firstKeptSequence =
      copyKept || chosen.cutIndex >= count ? ownSequence : (loaded.sequences[chosen.cutIndex] as number);
    const replacements = new Map<number, ToolResultMessage>();
    for (const rewrite of chosen.rewrites) replacements.set(rewrite.index, rewrite.message);
    const kept: Message[] = [];
    for (let index = chosen.cutIndex; index < count; index += 1) {
      const message = replacements.get(index) ?? (loaded.messages[index] as Message);
      if (copyKept && isFailedAssistant(message)) continue;
      kept.push(message);
    }
    const after = estimateContext({
      messages: [
        formatSummary({
          sequence: ownSequence,
          timestamp: 0,
          summary,
          firstKeptSequence,
          tokensBefore: input.tokensBefore,
          tokensAfter: undefined,
        }),
        ...kept,
      ],
      pending: call.pending,
      systemPrompt: call.systemPrompt,
      tools: call.tools,
      usageFromIndex: kept.length + 1,
      storedRatio: chosen.ratio,
    });
    const details: CompactionEntryDetails = {
      version: 1,
      kind,
      reason,
      mode: chosen.mode,
      messagesSummarized: chosen.summarizedMessages,
      messagesKept: kept.length,
      toolResultsShortened: shortened,
      keptCopied: copyKept,
      calibrationRatio: chosen.ratio,
      summaryRequests: requests,
      failure: failure === undefined ? undefined : { code: failure.code, message: failure.message },
    };
    const entries: NewTranscriptEntry[] = [
      {
        type: 'compaction',
        summary,
        firstKeptSequence,
        tokensBefore: input.tokensBefore,
        tokensAfter: after.tokens,
        details,
      },
    ];
    if (copyKept) for (const message of kept) entries.push({ type: 'message', message });
    const appended = await store.appendEntries(sessionKey, entries, {
      expectedSessionId: loaded.sessionId,
      patch: { contextTokens: after.tokens },
    });
    const outcome: CompactionOutcome = {
      kind,
      reason,
      mode: chosen.mode,
      sessionKey,
      sessionId: loaded.sessionId,
      sequence: appended.firstSequence,
      firstKeptSequence,
      summary,
      tokensBefore: input.tokensBefore,
      tokensAfter: after.tokens,
      messagesBefore,
      messagesAfter: kept.length + 1,
      messagesSummarized: chosen.summarizedMessages,
      toolResultsShortened: shortened,
      summaryRequests: requests,
      failure,
    };
    await callHook(sessionKey, 'after_compaction', () =>
      options.hooks?.afterCompaction?.({
        sessionKey,
        agentId,
        reason,
        messagesBefore,
        messagesAfter: outcome.messagesAfter,
        tokensBefore: outcome.tokensBefore,
        tokensAfter: outcome.tokensAfter,
        summary,
      }),
    );
    emit({ type: 'compaction_end', outcome });
    return outcome;
  };

  /** Overflow with nothing left to compact but the summary itself: shorten the summary. */
  const shrinkSummary = (
    loaded: LoadedSessionContext,
    budget: CompactionBudget,
    ratio: number,
  ): string | undefined => {
    const summary = loaded.compaction?.summary;
    if (summary === undefined) return undefined;
    const target = Math.max(64, Math.floor(budget.summaryMaxTokens / 2));
    if (estimateTextTokens(summary) * ratio <= target) return undefined;
    return `[Context trimmed] The summary was shortened to fit the context window.\n\n${capSummary(summary, target, ratio)}`;
  };

  return {
    async prepareContext(sessionKey: string, call: CompactionCallOptions = {}): Promise<PreparedContext> {
      const budget = budgetFor(call);
      const loaded = await load(sessionKey);
      const estimate = measure(loaded, call, budget);
      if (estimate.tokens <= budget.promptBudget) return prepared(loaded, estimate, budget, undefined);
      const chosen = escalate(loaded, call, budget, estimate.ratio, 'normal');
      if (chosen === undefined) {
        emit({ type: 'compaction_skipped', sessionKey, reason: 'threshold', tokens: estimate.tokens });
        return prepared(loaded, estimate, budget, undefined);
      }
      const outcome = await run({
        sessionKey,
        loaded,
        plan: chosen,
        reason: 'threshold',
        budget,
        tokensBefore: estimate.tokens,
        call,
      });
      const reloaded = await load(sessionKey);
      return prepared(reloaded, measure(reloaded, call, budget), budget, outcome);
    },

    async recoverFromOverflow(
      sessionKey: string,
      call: RecoverFromOverflowOptions,
    ): Promise<PreparedContext> {
      const attempt = call?.attempt;
      if (typeof attempt !== 'number' || !Number.isInteger(attempt) || attempt < 1) {
        throw new CompactionError(
          'COMPACTION_INVALID_ARGUMENT',
          `attempt must be an integer ≥ 1 (1 for the first recovery of a run); got ${JSON.stringify(attempt)}.`,
        );
      }
      if (call.error !== undefined && !isContextOverflow(call.error)) {
        throw new CompactionError(
          'COMPACTION_INVALID_ARGUMENT',
          `recoverFromOverflow was given an error that is not a context overflow: ${overflowFacts(call.error).text || String(call.error)}`,
        );
      }
      const facts = overflowFacts(call.error);
      const configured = budgetFor(call);
      const observed =
        facts.observedTokens === undefined
          ? ''
          : ` (last observed ${facts.observedTokens} tokens${facts.limit === undefined ? '' : ` > ${facts.limit}`})`;
      if (attempt > configured.maxAttempts) {
        throw new CompactionError(
          'COMPACTION_OVERFLOW_UNRECOVERABLE',
          `Context overflow: the prompt of session ${JSON.stringify(sessionKey)} is still too large for the model after ${configured.maxAttempts} compaction attempt(s)${observed}. Try /reset (or /new) to start a fresh session.`,
          { details: { sessionKey, attempts: configured.maxAttempts, observedTokens: facts.observedTokens } },
        );
      }
      const limit =
        facts.limit !== undefined &&
        facts.limit >= minimumContextWindow &&
        facts.limit < configured.contextWindow
          ? facts.limit
          : undefined;
      const budget = limit === undefined ? configured : budgetFor(call, limit);
      const loaded = await load(sessionKey);
      const estimate = measure(loaded, call, budget);
      let ratio = estimate.ratio;
      const measured =
        facts.observedTokens === undefined
          ? undefined
          : clampRatio(facts.observedTokens / Math.max(1, estimate.rawTokens));
      if (measured !== undefined) ratio = Math.max(ratio, measured);
      else ratio = Math.min(8, ratio * (1 + 0.25 * attempt));
      const tokensBefore = Math.max(facts.observedTokens ?? 0, Math.ceil(estimate.rawTokens * ratio));
      const mode = compactionModes[Math.min(attempt, compactionModes.length) - 1] as CompactionMode;
      const chosen = escalate(loaded, call, budget, ratio, mode);
      if (chosen === undefined) {
        const shrunk = shrinkSummary(loaded, budget, ratio);
        if (shrunk === undefined) {
          throw new CompactionError(
            'COMPACTION_OVERFLOW_UNRECOVERABLE',
            `Context overflow: nothing is left to compact in session ${JSON.stringify(sessionKey)}${observed}; the system prompt, the tools and the new message alone are too large for the model. Try /reset (or /new), or a model with a larger context window.`,
            { details: { sessionKey, attempt, observedTokens: facts.observedTokens } },
          );
        }
        const outcome = await run({
          sessionKey,
          loaded,
          plan: plan(loaded, call, budget, ratio, 'minimal'),
          reason: 'overflow',
          budget,
          tokensBefore,
          call,
          presetSummary: shrunk,
        });
        const reloaded = await load(sessionKey);
        return prepared(reloaded, measure(reloaded, call, budget), budget, outcome);
      }
      const outcome = await run({
        sessionKey,
        loaded,
        plan: chosen,
        reason: 'overflow',
        budget,
        tokensBefore,
        call,
      });
      const reloaded = await load(sessionKey);
      return prepared(reloaded, measure(reloaded, call, budget), budget, outcome);
    },

    async compact(sessionKey: string, call: CompactOptions = {}): Promise<CompactResult> {
      const budget = budgetFor(call);
      const loaded = await load(sessionKey);
      const estimate = measure(loaded, call, budget);
      const chosen = plan(loaded, call, budget, estimate.ratio, 'normal');
      if (!chosen.hasWork) {
        emit({ type: 'compaction_skipped', sessionKey, reason: 'manual', tokens: estimate.tokens });
        return {
          status: 'skipped',
          reason: 'nothing_to_compact',
          context: prepared(loaded, estimate, budget, undefined),
        };
      }
      const outcome = await run({
        sessionKey,
        loaded,
        plan: chosen,
        reason: 'manual',
        budget,
        tokensBefore: estimate.tokens,
        call,
        instructions: call.instructions,
      });
      const reloaded = await load(sessionKey);
      return {
        status: 'compacted',
        outcome,
        context: prepared(reloaded, measure(reloaded, call, budget), budget, outcome),
      };
    },
  };
}

function codeOf(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string') {
    return (error as { code: string }).code;
  }
  return undefined;
}

/** Read through a function so TypeScript does not narrow `aborted` across awaits. */
function isAborted(signal: AbortSignal | undefined): signal is AbortSignal {
  return signal?.aborted === true;
}
