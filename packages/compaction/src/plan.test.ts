import { type AssistantMessage, emptyUsage, type Message, type ToolResultMessage } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { estimateMessageTokens } from './estimate.ts';
import { planCompaction, validCutPoints } from './plan.ts';
import { resolveCompactionBudget } from './settings.ts';

const user = (text: string): Message => ({ role: 'user', content: text, timestamp: 1 });

function assistant(
  text: string,
  calls: readonly string[] = [],
  stopReason?: AssistantMessage['stopReason'],
): AssistantMessage {
  return {
    role: 'assistant',
    content: [
      ...(text === '' ? [] : [{ type: 'text' as const, text }]),
      ...calls.map((id) => ({ type: 'toolCall' as const, id, name: 'lookup', arguments: { id } })),
    ],
    provider: 'anthropic',
    model: 'm',
    usage: emptyUsage,
    stopReason: stopReason ?? (calls.length > 0 ? 'toolUse' : 'stop'),
    timestamp: 1,
  };
}

function result(id: string, text: string, details?: unknown): ToolResultMessage {
  return {
    role: 'toolResult',
    toolCallId: id,
    toolName: 'lookup',
    content: [{ type: 'text', text }],
    details,
    isError: false,
    timestamp: 1,
  };
}

/** A deterministic pseudo-random generator (xorshift) so failures reproduce. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return ((state >>> 0) % 1_000_000) / 1_000_000;
  };
}

/** A conversation of `turns` turns, each with 0-3 tool rounds of 1-3 parallel calls, sizes varying. */
function conversation(turns: number, seed: number): Message[] {
  const next = random(seed);
  const messages: Message[] = [];
  let id = 0;
  for (let turn = 0; turn < turns; turn += 1) {
    messages.push(user(`turn ${turn} ${'u'.repeat(Math.floor(next() * 600))}`));
    const rounds = Math.floor(next() * 4);
    for (let round = 0; round < rounds; round += 1) {
      const calls = Array.from({ length: 1 + Math.floor(next() * 3) }, () => {
        id += 1;
        return `call_${id}`;
      });
      messages.push(assistant(next() < 0.5 ? 'let me look' : '', calls));
      for (const call of calls) {
        messages.push(
          result(call, `r${call} ${'r'.repeat(Math.floor(next() * 3000))}`, { payload: 'SECRET' }),
        );
      }
    }
    if (next() < 0.1) messages.push(assistant('', [], 'error'));
    messages.push(assistant(`answer ${turn} ${'a'.repeat(Math.floor(next() * 400))}`));
  }
  return messages;
}

/** Index of the assistant message holding each tool call. */
function callIndexes(messages: readonly Message[]): Map<string, number> {
  const map = new Map<string, number>();
  messages.forEach((message, index) => {
    if (message.role === 'assistant')
      for (const block of message.content) if (block.type === 'toolCall') map.set(block.id, index);
  });
  return map;
}

describe('validCutPoints', () => {
  it('never allows a cut between a tool call and its result, nor before a tool result', () => {
    const messages: Message[] = [
      user('q'), // 0
      assistant('', ['a', 'b']), // 1
      result('a', 'A'), // 2
      user('steered in between'), // 3
      result('b', 'B'), // 4
      assistant('done'), // 5
      result('orphan', 'no call'), // 6
      user('next'), // 7
    ];
    expect([...validCutPoints(messages)]).toEqual([1, 1, 0, 0, 0, 1, 0, 1, 1]);
  });
});

describe('planCompaction', () => {
  const budget = resolveCompactionBudget({
    contextWindow: 16_384,
    reserveTokens: 4096,
    keepRecentTokens: 3000,
  });

  it('keeps the newest messages within the keep budget and cuts at a tool-safe point', () => {
    for (let seed = 1; seed <= 40; seed += 1) {
      const messages = conversation(40, seed);
      const plan = planCompaction({ messages, budget, ratio: 1.2 });
      const valid = validCutPoints(messages);
      expect(valid[plan.cutIndex], `seed ${seed}`).toBe(1);
      // Checked directly too: no kept tool result has its call in the summarised part.
      const calls = callIndexes(messages);
      for (let index = plan.cutIndex; index < messages.length; index += 1) {
        const message = messages[index] as Message;
        if (message.role === 'toolResult')
          expect(calls.get(message.toolCallId)!).toBeGreaterThanOrEqual(plan.cutIndex);
      }
      expect(plan.keptTokens).toBeLessThanOrEqual(budget.keepRecentTokens);
      // Keeping one more message (the previous valid point) would have broken the budget.
      let previous = plan.cutIndex - 1;
      while (previous >= 0 && valid[previous] !== 1) previous -= 1;
      if (previous >= 0) {
        let tokens = 0;
        for (let index = previous; index < messages.length; index += 1) {
          tokens += estimateMessageTokens(messages[index] as Message) * 1.2;
        }
        expect(tokens, `seed ${seed}`).toBeGreaterThan(budget.keepRecentTokens);
      }
      expect(plan.hasWork).toBe(true);
      expect(plan.fits).toBe(true);
    }
  });

  it('splits the older part by token share into chunks that never separate a call from its result', () => {
    const small = resolveCompactionBudget({ contextWindow: 8192, reserveTokens: 2048 });
    for (let seed = 1; seed <= 40; seed += 1) {
      const messages = conversation(120, seed);
      const plan = planCompaction({ messages, budget: small, ratio: 1.2 });
      expect(plan.chunks.length, `seed ${seed}`).toBeGreaterThan(1);
      const owner = new Map<number, number>();
      plan.chunks.forEach((chunk, chunkIndex) => {
        expect(chunk.text.length).toBeLessThanOrEqual(plan.chunkCharacterLimit);
        for (let index = chunk.start; index < chunk.end; index += 1) owner.set(index, chunkIndex);
        if (chunkIndex > 0) expect(chunk.start).toBeGreaterThanOrEqual(plan.chunks[chunkIndex - 1]!.end);
      });
      const calls = callIndexes(messages);
      for (let index = 0; index < plan.cutIndex; index += 1) {
        const message = messages[index] as Message;
        if (message.role !== 'toolResult') continue;
        expect(owner.get(index), `seed ${seed}: result ${index}`).toBe(
          owner.get(calls.get(message.toolCallId)!),
        );
      }
      // Balanced by token share: no chunk but the last is under a third of the largest.
      const sizes = plan.chunks.map((chunk) => chunk.text.length);
      const largest = Math.max(...sizes);
      for (const size of sizes.slice(0, -1)) expect(size).toBeGreaterThan(largest / 3);
      // Tool payloads (details) and failed turns never reach the summariser.
      for (const chunk of plan.chunks) {
        expect(chunk.text).not.toContain('SECRET');
        expect(chunk.text).not.toMatch(/\[Assistant\]: \n/);
      }
    }
  });

  it('cuts messages too large to summarise and strips tool output to a few thousand characters', () => {
    const messages: Message[] = [
      user(`huge paste ${'p'.repeat(200_000)} END-OF-PASTE`),
      assistant('', ['c1']),
      result('c1', `begin ${'o'.repeat(50_000)} end`),
      assistant('ok'),
      ...conversation(10, 7),
    ];
    const plan = planCompaction({ messages, budget, ratio: 1.2, mode: 'minimal' });
    const text = plan.chunks.map((chunk) => chunk.text).join('\n');
    expect(text).toContain('huge paste');
    expect(text).toContain('END-OF-PASTE');
    expect(text).toMatch(/\[… \d+ characters truncated …\]/);
    expect(text.length).toBeLessThan(60_000);
    const toolLine = text.split('\n\n').find((part) => part.startsWith('[Tool result] lookup: begin'))!;
    expect(toolLine.length).toBeLessThan(2000);
    for (const chunk of plan.chunks) expect(chunk.text.length).toBeLessThanOrEqual(plan.chunkCharacterLimit);
  });

  it('marks a split turn when the kept part starts inside a turn', () => {
    const messages: Message[] = [
      user('old question'),
      assistant('old answer'),
      user('long task'),
      assistant('', ['a']),
      result('a', 'x'.repeat(8000)),
      assistant('', ['b']),
      result('b', 'y'.repeat(400)),
      assistant('final'),
    ];
    const plan = planCompaction({
      messages,
      budget: resolveCompactionBudget({ contextWindow: 16_384, keepRecentTokens: 400 }),
      ratio: 1,
    });
    expect(plan.cutIndex).toBe(5);
    expect(plan.splitTurn).toBe(true);
    expect(plan.summarizedMessages).toBe(5);
  });

  it('minimal keeps nothing; truncate_tool_results halves the keep budget and shortens kept tool results', () => {
    const messages = [
      ...conversation(20, 3),
      user('q'),
      assistant('', ['big']),
      result('big', 'B'.repeat(40_000)),
    ];
    const minimal = planCompaction({ messages, budget, ratio: 1.2, mode: 'minimal' });
    expect(minimal.cutIndex).toBe(messages.length);
    expect(minimal.keptMessages).toBe(0);
    const truncate = planCompaction({ messages, budget, ratio: 1.2, mode: 'truncate_tool_results' });
    expect(truncate.keptTokens).toBeLessThanOrEqual(budget.keepRecentTokens / 2);
    const rewrite = truncate.rewrites.find((item) => item.message.toolCallId === 'big');
    expect(rewrite).toBeDefined();
    expect(rewrite!.tokensAfter).toBeLessThanOrEqual(budget.toolResultMaxTokens * 1.2 + 10);
    expect(rewrite!.tokensBefore).toBeGreaterThan(10_000);
    expect(JSON.stringify(rewrite!.message.content)).toMatch(/characters truncated/);
  });

  it('has no work when everything already fits the keep budget', () => {
    const messages = conversation(2, 5).slice(0, 2);
    const plan = planCompaction({ messages, budget, ratio: 1.2 });
    expect(plan.cutIndex).toBe(0);
    expect(plan.hasWork).toBe(false);
    expect(plan.chunks).toEqual([]);
  });

  it('leaves room for the pending message and the system prompt', () => {
    const messages = conversation(40, 11);
    const plain = planCompaction({ messages, budget, ratio: 1.2 });
    const crowded = planCompaction({
      messages,
      budget,
      ratio: 1.2,
      pending: [user('n'.repeat(20_000))],
      systemPrompt: 's'.repeat(8000),
    });
    expect(crowded.fixedTokens).toBeGreaterThan(8000);
    expect(crowded.keptTokens).toBeLessThan(plain.keptTokens);
    expect(crowded.tokensAfterMax).toBeLessThanOrEqual(budget.promptBudget);
  });

  it('rejects an unknown mode and a non-array', () => {
    expect(() => planCompaction({ messages: [], budget, mode: 'gentle' as never })).toThrow(
      /mode must be one of normal, truncate_tool_results, minimal; got "gentle"/,
    );
    expect(() => planCompaction({ messages: 'x' as never, budget })).toThrow(/messages must be an array/);
  });
});
