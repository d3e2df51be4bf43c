import {
  type Model,
  type ModelCredential,
  ModelError,
  type StreamFunction,
  type StreamOptions,
  toModelError,
} from '@switchboard/core-loop';
import type { AssistantMessage } from '@switchboard/hooks';
import { CompactionError } from './errors.ts';
import { charactersPerToken, estimateTextTokens } from './estimate.ts';
import { type CompactionPlan, summaryPromptOverheadTokens } from './plan.ts';
import { chunkPrompt, mergePrompt, summarySystemPrompt } from './prompts.ts';
import { truncateMiddle } from './serialize.ts';

/** One request to the summary model. */
export interface SummaryRequest {
  /** `chunk`: summarise part of the conversation; `merge`: merge partial summaries. */
  readonly kind: 'chunk' | 'merge';
  readonly systemPrompt: string;
  readonly prompt: string;
  /** Output limit for the answer. */
  readonly maxTokens: number;
}

/**
 * Writes summaries. `createModelSummarizer` calls a model through core-loop's stream
 * function; anything else (another service, a test double) can implement it. It throws
 * when it cannot summarise; the compactor then truncates instead.
 */
export interface Summarizer {
  /** Context window of the model that writes summaries; chunks are sized to fit it. Default: the session model's. */
  readonly contextWindow?: number;
  summarize(request: SummaryRequest, signal?: AbortSignal): Promise<string>;
}

export interface ModelSummarizerOptions {
  readonly streamFn: StreamFunction;
  /** The model that writes summaries (the session's model, or a cheaper one). */
  readonly model: Model;
  /** Endpoint, headers, timeouts… (signal, maxTokens and thinking are set per request). */
  readonly streamOptions?: Omit<StreamOptions, 'signal' | 'maxTokens' | 'thinkingLevel'>;
  /** Resolves the credential before every request. */
  readonly getApiKey?: (
    provider: string,
  ) => ModelCredential | undefined | Promise<ModelCredential | undefined>;
  /** Attempts per request for retryable failures (rate limit, overload, timeout). Default 3. */
  readonly maxAttempts?: number;
  /** First retry delay, doubled each time (at most 5 s). Default 500 ms. */
  readonly retryDelayMs?: number;
  /** Waits between retries; injectable so tests never sleep. */
  readonly sleep?: (milliseconds: number, signal?: AbortSignal) => Promise<void>;
  readonly now?: () => number;
}

function defaultSleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function credentialOptions(
  credential: ModelCredential | undefined,
): Pick<StreamOptions, 'apiKey' | 'authToken'> {
  if (credential === undefined) return {};
  if (typeof credential === 'string') return { apiKey: credential };
  if ('apiKey' in credential) return { apiKey: credential.apiKey };
  return { authToken: credential.authToken };
}

function textOf(message: AssistantMessage): string {
  let text = '';
  for (const block of message.content) if (block.type === 'text') text += block.text;
  return text.trim();
}

/**
 * A summariser that asks a model through core-loop's `StreamFunction` (thinking off, the
 * request's output limit). Retryable failures are retried with backoff; a context overflow
 * or any other failure is thrown as the `ModelError`; an empty answer throws
 * `COMPACTION_SUMMARY_EMPTY`.
 */
export function createModelSummarizer(options: ModelSummarizerOptions): Summarizer {
  const maxAttempts = options.maxAttempts ?? 3;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new CompactionError(
      'COMPACTION_INVALID_SETTINGS',
      `maxAttempts of the model summarizer must be an integer ≥ 1; got ${String(maxAttempts)}.`,
      { details: { key: 'maxAttempts' } },
    );
  }
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const { model } = options;
  return {
    contextWindow: model.contextWindow,
    async summarize(request: SummaryRequest, signal?: AbortSignal): Promise<string> {
      let delay = options.retryDelayMs ?? 500;
      for (let attempt = 1; ; attempt += 1) {
        let message: AssistantMessage;
        try {
          const credential = await options.getApiKey?.(model.provider);
          const stream = await options.streamFn(
            model,
            {
              systemPrompt: request.systemPrompt,
              messages: [{ role: 'user', content: request.prompt, timestamp: now() }],
            },
            {
              ...options.streamOptions,
              ...credentialOptions(credential),
              maxTokens: Math.max(1, Math.min(request.maxTokens, model.maxOutputTokens)),
              thinkingLevel: 'off',
              signal,
            },
          );
          message = await stream.result();
        } catch (error) {
          throw toModelError(error, {
            provider: model.provider,
            model: model.id,
            ...(signal ? { signal } : {}),
          });
        }
        const failure = ModelError.fromAssistantMessage(message);
        if (failure === undefined) {
          const text = textOf(message);
          if (text === '') {
            throw new CompactionError(
              'COMPACTION_SUMMARY_EMPTY',
              `The summary model ${model.id} answered without any text (stop reason ${message.stopReason}).`,
            );
          }
          return text;
        }
        if (!failure.retryable || attempt >= maxAttempts || signal?.aborted === true) throw failure;
        await sleep(Math.min(5000, failure.retryAfterMs ?? delay), signal);
        delay = Math.min(5000, delay * 2);
      }
    },
  };
}

export interface SummarizePlanOptions {
  readonly summarizer: Summarizer;
  readonly signal?: AbortSignal;
  /** `/compact <focus>`: what the user wants the summary to keep. */
  readonly instructions?: string;
}

/** A summary and how many model requests it took. */
export interface PlanSummary {
  readonly text: string;
  readonly requests: number;
}

/** Cuts a summary to `maxTokens` estimated tokens (head and tail kept). */
export function capSummary(text: string, maxTokens: number, ratio: number): string {
  const maxCharacters = Math.max(200, Math.floor((maxTokens / ratio) * charactersPerToken));
  return truncateMiddle(text.trim(), maxCharacters);
}

/**
 * Writes the summary of a plan: one request when the summarised part fits one chunk (the
 * previous summary is updated in place); otherwise one request per chunk, then merge
 * requests (the previous summary first, then the chunk summaries, oldest first), in
 * batches that fit the summary model's window. Every answer is cut to the summary budget.
 * Throws whatever the summariser throws.
 */
export async function summarizePlan(
  plan: CompactionPlan,
  options: SummarizePlanOptions,
): Promise<PlanSummary> {
  const { summarizer, signal, instructions } = options;
  const maxTokens = plan.summaryMaxTokens;
  let requests = 0;
  const ask = async (kind: SummaryRequest['kind'], prompt: string): Promise<string> => {
    if (signal?.aborted === true) throw signal.reason;
    requests += 1;
    const text = await summarizer.summarize(
      { kind, systemPrompt: summarySystemPrompt, prompt, maxTokens },
      signal,
    );
    if (typeof text !== 'string' || text.trim() === '') {
      throw new CompactionError('COMPACTION_SUMMARY_EMPTY', 'The summarizer returned an empty summary.');
    }
    return capSummary(text, maxTokens, plan.ratio);
  };
  const focus = instructions === undefined ? {} : { instructions };
  const previous = plan.previousSummary === undefined ? {} : { previousSummary: plan.previousSummary };
  if (plan.chunks.length === 0) {
    return { text: plan.previousSummary ?? '', requests };
  }
  if (plan.chunks.length === 1) {
    const chunk = plan.chunks[0] as CompactionPlan['chunks'][number];
    const text = await ask(
      'chunk',
      chunkPrompt({ conversation: chunk.text, splitTurn: plan.splitTurn, maxTokens, ...previous, ...focus }),
    );
    return { text, requests };
  }
  const partials: string[] = [];
  if (plan.previousSummary !== undefined)
    partials.push(capSummary(plan.previousSummary, maxTokens, plan.ratio));
  for (const [index, chunk] of plan.chunks.entries()) {
    const last = index === plan.chunks.length - 1;
    partials.push(
      await ask(
        'chunk',
        chunkPrompt({ conversation: chunk.text, splitTurn: last && plan.splitTurn, maxTokens, ...focus }),
      ),
    );
  }
  // Merge in batches that fit the summary model's window, until one summary is left.
  const mergeBudget = Math.max(
    2 * maxTokens,
    plan.summarizerWindow - maxTokens - summaryPromptOverheadTokens,
  );
  let level = partials;
  while (level.length > 1) {
    const next: string[] = [];
    let batch: string[] = [];
    let batchTokens = 0;
    const flush = async (): Promise<void> => {
      if (batch.length === 1) next.push(batch[0] as string);
      else if (batch.length > 1)
        next.push(await ask('merge', mergePrompt({ summaries: batch, maxTokens, ...focus })));
      batch = [];
      batchTokens = 0;
    };
    for (const summary of level) {
      const tokens = Math.ceil(estimateTextTokens(summary) * plan.ratio) + 20;
      if (batch.length > 0 && batchTokens + tokens > mergeBudget) await flush();
      batch.push(summary);
      batchTokens += tokens;
    }
    await flush();
    if (next.length >= level.length) {
      throw new CompactionError(
        'COMPACTION_SUMMARY_FAILED',
        `Partial summaries cannot be merged: ${level.length} summaries of up to ${maxTokens} tokens do not fit the summary model's window of ${plan.summarizerWindow} tokens two at a time.`,
      );
    }
    level = next;
  }
  return { text: level[0] as string, requests };
}
