import type { AssistantMessage, Usage, UsageCost } from '@switchboard/hooks';
import type { ModelCost } from './types.ts';

/** Token counts of one call, before cost. */
export interface TokenCounts {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
}

/**
 * Builds a `Usage` from token counts: `totalTokens` is the sum of the four buckets and the
 * cost is priced per million tokens with the model's prices.
 */
export function createUsage(counts: TokenCounts, cost?: ModelCost): Usage {
  const input = nonNegative(counts.input);
  const output = nonNegative(counts.output);
  const cacheRead = nonNegative(counts.cacheRead);
  const cacheWrite = nonNegative(counts.cacheWrite);
  const price = (tokens: number, perMillion: number | undefined): number =>
    perMillion === undefined ? 0 : (tokens * perMillion) / 1_000_000;
  const inputCost = price(input, cost?.input);
  const outputCost = price(output, cost?.output);
  const cacheReadCost = price(cacheRead, cost?.cacheRead);
  const cacheWriteCost = price(cacheWrite, cost?.cacheWrite);
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: input + output + cacheRead + cacheWrite,
    cost: {
      input: inputCost,
      output: outputCost,
      cacheRead: cacheReadCost,
      cacheWrite: cacheWriteCost,
      total: inputCost + outputCost + cacheReadCost + cacheWriteCost,
    },
  };
}

function nonNegative(value: number): number {
  return Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * Usage of a run (or a session): every bucket and the cost summed over all calls — for
 * billing — and, separately, the last call's usage, which alone says how full the context
 * is (with prompt caching each call reports the whole cached prefix again, so a sum would
 * count it once per call).
 */
export interface RunUsage {
  /** Model calls counted (calls that reported no tokens at all are not counted). */
  readonly calls: number;
  /** Sums over every call: billing and cost. */
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly totalTokens: number;
  readonly cost: UsageCost;
  /** The most recent call that reported tokens. */
  readonly lastCall: Usage | undefined;
  /**
   * Prompt-side tokens of the last call (input + cache read + cache write): the context
   * size. Output is excluded. 0 before any call.
   */
  readonly contextTokens: number;
}

/** Sums usage across calls while keeping the last call separate. */
export interface UsageAccumulator {
  /** Adds one call's usage. Usage with every bucket at zero is ignored. */
  add(usage: Usage): void;
  /** Adds the usage of an assistant message (errors included: they may have consumed input). */
  addMessage(message: AssistantMessage): void;
  snapshot(): RunUsage;
}

/** Creates an empty accumulator. */
export function createUsageAccumulator(): UsageAccumulator {
  let calls = 0;
  let input = 0;
  let output = 0;
  let cacheRead = 0;
  let cacheWrite = 0;
  let costInput = 0;
  let costOutput = 0;
  let costCacheRead = 0;
  let costCacheWrite = 0;
  let lastCall: Usage | undefined;
  const add = (usage: Usage): void => {
    if (usage.input + usage.output + usage.cacheRead + usage.cacheWrite === 0) return;
    calls += 1;
    input += usage.input;
    output += usage.output;
    cacheRead += usage.cacheRead;
    cacheWrite += usage.cacheWrite;
    costInput += usage.cost.input;
    costOutput += usage.cost.output;
    costCacheRead += usage.cost.cacheRead;
    costCacheWrite += usage.cost.cacheWrite;
    lastCall = usage;
  };
  return {
    add,
    addMessage(message: AssistantMessage): void {
      add(message.usage);
    },
    snapshot(): RunUsage {
      return {
        calls,
        input,
        output,
        cacheRead,
        cacheWrite,
        totalTokens: input + output + cacheRead + cacheWrite,
        cost: {
          input: costInput,
          output: costOutput,
          cacheRead: costCacheRead,
          cacheWrite: costCacheWrite,
          total: costInput + costOutput + costCacheRead + costCacheWrite,
        },
        lastCall,
        contextTokens: lastCall === undefined ? 0 : lastCall.input + lastCall.cacheRead + lastCall.cacheWrite,
      };
    },
  };
}
