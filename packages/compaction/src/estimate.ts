import type { ToolSpec } from '@switchboard/core-loop';
import type { AssistantMessage, Message } from '@switchboard/hooks';

/**
 * Token estimates. The raw estimate is characters / 4 (an image counts as 4800
 * characters), deliberately simple and fast; it is then multiplied by a ratio calibrated
 * on what the provider really reported (see {@link estimateContext}).
 */

/** Characters per token of the raw estimate. */
export const charactersPerToken = 4;
/** Raw tokens an image counts for. */
const imageTokens = 1200;
/** Raw tokens each message adds for its role and framing. */
export const messageOverheadTokens = 4;
/** Bounds of a calibrated ratio: a provider figure outside them is treated as an outlier. */
const calibrationBounds: { readonly minimum: number; readonly maximum: number } = Object.freeze({
  minimum: 0.25,
  maximum: 8,
});

/** Raw tokens of a text: characters / 4, rounded up. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / charactersPerToken);
}

/** True for an assistant message that ended in an error or was aborted: providers leave it out of requests. */
export function isFailedAssistant(message: Message): boolean {
  return message.role === 'assistant' && (message.stopReason === 'error' || message.stopReason === 'aborted');
}

/**
 * Raw token estimate of one message as a provider receives it. Failed assistant messages
 * count 0 (they are never sent); tool results count their content, never their `details`.
 */
export function estimateMessageTokens(message: Message): number {
  let characters = 0;
  let images = 0;
  switch (message.role) {
    case 'user':
      if (typeof message.content === 'string') characters = message.content.length;
      else
        for (const block of message.content) {
          if (block.type === 'text') characters += block.text.length;
          else images += 1;
        }
      break;
    case 'assistant':
      if (isFailedAssistant(message)) return 0;
      for (const block of message.content) {
        if (block.type === 'text') characters += block.text.length;
        else if (block.type === 'thinking') characters += block.thinking.length;
        else characters += block.name.length + jsonLength(block.arguments);
      }
      break;
    case 'toolResult':
      characters = message.toolName.length;
      for (const block of message.content) {
        if (block.type === 'text') characters += block.text.length;
        else images += 1;
      }
      break;
  }
  return Math.ceil(characters / charactersPerToken) + images * imageTokens + messageOverheadTokens;
}

function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return 0;
  }
}

/**
 * Tool schemas are shared objects (core-loop caches one per tool), so their serialized length
 * is computed once, not on every turn.
 */
const schemaLengths = new WeakMap<object, number>();

function schemaLength(schema: unknown): number {
  if (typeof schema !== 'object' || schema === null) return jsonLength(schema);
  let length = schemaLengths.get(schema);
  if (length === undefined) {
    length = jsonLength(schema);
    schemaLengths.set(schema, length);
  }
  return length;
}

/** Raw tokens of the parts of a request that are not history: system prompt and tool definitions. */
export function estimateFixedTokens(
  systemPrompt: string | undefined,
  tools: readonly ToolSpec[] | undefined,
): number {
  let tokens = systemPrompt === undefined ? 0 : estimateTextTokens(systemPrompt);
  for (const tool of tools ?? []) {
    tokens += estimateTextTokens(tool.name) + estimateTextTokens(tool.description);
    tokens += Math.ceil(schemaLength(tool.parameters) / charactersPerToken);
  }
  return tokens;
}

/** Where the ratio of an estimate came from. */
type CalibrationSource = 'usage' | 'stored' | 'margin';

/** The estimated size of a request and how it was calibrated. */
export interface ContextEstimate {
  /** Estimated prompt tokens of the whole request (system prompt, tools, history, pending messages). */
  readonly tokens: number;
  /** Raw (characters/4) tokens of the same request. */
  readonly rawTokens: number;
  /** Tokens per raw token applied: `tokens ≈ rawTokens × ratio`. */
  readonly ratio: number;
  /**
   * `usage`: the last reported usage after the latest compaction; `stored`: the ratio
   * recorded with the latest compaction (after an overflow, the one measured from the size
   * the provider reported); `margin`: no figure yet, the safety margin.
   */
  readonly source: CalibrationSource;
  /** Index in `messages` of the assistant message whose usage calibrated the estimate. */
  readonly anchorIndex: number | undefined;
}

export interface EstimateContextInput {
  /** The history as sent, oldest first (a compaction summary message included). */
  readonly messages: readonly Message[];
  /** Messages about to be sent that are not in `messages` yet (the new prompt). */
  readonly pending?: readonly Message[];
  readonly systemPrompt?: string;
  readonly tools?: readonly ToolSpec[];
  /**
   * Usage of assistant messages before this index is ignored: it was reported for a
   * context that a later compaction replaced, and must not trigger another one. Default 0.
   */
  readonly usageFromIndex?: number;
  /** A ratio known from earlier (the latest compaction's), used when no usage qualifies. */
  readonly storedRatio?: number;
  /** Ratio used when nothing was measured. Default 1.2. */
  readonly safetyMargin?: number;
}

/** Clamps a measured ratio into {@link calibrationBounds}; `undefined` for a nonsense figure. */
export function clampRatio(ratio: number): number | undefined {
  if (!Number.isFinite(ratio) || ratio <= 0) return undefined;
  return Math.min(calibrationBounds.maximum, Math.max(calibrationBounds.minimum, ratio));
}

/**
 * Estimates the prompt tokens of a request. The newest successful assistant message at or
 * after `usageFromIndex` anchors the estimate: its reported prompt tokens (input + cache
 * read + cache write) cover the system prompt, tools and every message before it, which
 * gives the ratio between real and raw tokens; that ratio then scales the whole request.
 * Without such a message the stored ratio, else the safety margin, is used.
 */
export function estimateContext(input: EstimateContextInput): ContextEstimate {
  const { messages } = input;
  const fixed = estimateFixedTokens(input.systemPrompt, input.tools);
  const from = Math.max(0, input.usageFromIndex ?? 0);
  let anchorIndex: number | undefined;
  for (let index = messages.length - 1; index >= from; index -= 1) {
    const message = messages[index] as Message;
    if (message.role !== 'assistant' || isFailedAssistant(message)) continue;
    const usage = message.usage;
    if (usage.input + usage.cacheRead + usage.cacheWrite > 0) {
      anchorIndex = index;
      break;
    }
  }
  let prefixRaw = fixed;
  let rawTokens = fixed;
  for (let index = 0; index < messages.length; index += 1) {
    const tokens = estimateMessageTokens(messages[index] as Message);
    if (anchorIndex !== undefined && index < anchorIndex) prefixRaw += tokens;
    rawTokens += tokens;
  }
  for (const message of input.pending ?? []) rawTokens += estimateMessageTokens(message);
  let ratio: number | undefined;
  let source: CalibrationSource = 'margin';
  if (anchorIndex !== undefined) {
    const usage = (messages[anchorIndex] as AssistantMessage).usage;
    ratio = clampRatio((usage.input + usage.cacheRead + usage.cacheWrite) / Math.max(1, prefixRaw));
    if (ratio !== undefined) source = 'usage';
  }
  if (ratio === undefined && input.storedRatio !== undefined) {
    ratio = clampRatio(input.storedRatio);
    if (ratio !== undefined) source = 'stored';
  }
  if (ratio === undefined) {
    ratio = input.safetyMargin ?? 1.2;
    source = 'margin';
  }
  return {
    tokens: Math.ceil(rawTokens * ratio),
    rawTokens,
    ratio,
    source,
    anchorIndex: source === 'usage' ? anchorIndex : undefined,
  };
}
