import { type AssistantMessage, emptyUsage, type Message } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import {
  estimateContext,
  estimateFixedTokens,
  estimateMessageTokens,
  estimateTextTokens,
} from './estimate.ts';

function assistant(
  text: string,
  input = 0,
  stopReason: AssistantMessage['stopReason'] = 'stop',
): AssistantMessage {
  return {
    role: 'assistant',
    content: [{ type: 'text', text }],
    provider: 'anthropic',
    model: 'm',
    usage: { ...emptyUsage, input, totalTokens: input },
    stopReason,
    timestamp: 1,
  };
}

const user = (text: string): Message => ({ role: 'user', content: text, timestamp: 1 });

describe('estimateMessageTokens', () => {
  it('counts characters / 4 of what the provider receives, plus a small overhead', () => {
    expect(estimateTextTokens('abcdefgh')).toBe(2);
    expect(estimateMessageTokens(user('x'.repeat(400)))).toBe(104);
    expect(
      estimateMessageTokens({
        role: 'user',
        content: [
          { type: 'text', text: 'x'.repeat(40) },
          { type: 'image', mediaType: 'image/png', data: 'A'.repeat(100_000) },
        ],
        timestamp: 1,
      }),
    ).toBe(10 + 1200 + 4);
    expect(
      estimateMessageTokens({
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 't'.repeat(80) },
          { type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'a.txt' } },
        ],
        provider: 'p',
        model: 'm',
        usage: emptyUsage,
        stopReason: 'toolUse',
        timestamp: 1,
      }),
    ).toBe(Math.ceil((80 + 4 + JSON.stringify({ path: 'a.txt' }).length) / 4) + 4);
  });

  it('counts a tool result by its content, never its details, and a failed turn as nothing', () => {
    const result: Message = {
      role: 'toolResult',
      toolCallId: 'c1',
      toolName: 'read',
      content: [{ type: 'text', text: 'y'.repeat(396) }],
      details: { huge: 'z'.repeat(100_000) },
      isError: false,
      timestamp: 1,
    };
    expect(estimateMessageTokens(result)).toBe(100 + 4);
    expect(estimateMessageTokens(assistant('oops', 0, 'error'))).toBe(0);
    expect(estimateMessageTokens(assistant('stopped', 0, 'aborted'))).toBe(0);
  });

  it('counts the system prompt and tool definitions', () => {
    expect(
      estimateFixedTokens('s'.repeat(40), [
        { name: 'read', description: 'd'.repeat(8), parameters: { a: 1 } },
      ]),
    ).toBe(10 + 1 + 2 + Math.ceil(JSON.stringify({ a: 1 }).length / 4));
  });
});

describe('estimateContext', () => {
  const history = [user('x'.repeat(384)), assistant('y'.repeat(384), 0)];

  it('uses the safety margin until a provider reported usage', () => {
    const estimate = estimateContext({ messages: history, safetyMargin: 1.2 });
    expect(estimate.rawTokens).toBe(200);
    expect(estimate.tokens).toBe(240);
    expect(estimate.source).toBe('margin');
  });

  it('calibrates on the newest reported usage: prompt tokens / raw tokens before that message', () => {
    // The provider said the 100-raw-token prefix (system prompt + first message) was 300 tokens.
    const messages = [...history.slice(0, 1), assistant('y'.repeat(384), 300), user('z'.repeat(384))];
    const estimate = estimateContext({ messages });
    expect(estimate.source).toBe('usage');
    expect(estimate.anchorIndex).toBe(1);
    expect(estimate.ratio).toBe(3);
    expect(estimate.tokens).toBe(900);
  });

  it('ignores usage from before the latest compaction (usageFromIndex), using the stored ratio instead', () => {
    const messages = [user('summary'), assistant('y'.repeat(384), 50_000), user('z'.repeat(384))];
    const stale = estimateContext({ messages, usageFromIndex: 2, storedRatio: 1.5 });
    expect(stale.source).toBe('stored');
    expect(stale.ratio).toBe(1.5);
    expect(stale.tokens).toBe(Math.ceil(stale.rawTokens * 1.5));
    const fresh = estimateContext({ messages, usageFromIndex: 0 });
    expect(fresh.source).toBe('usage');
  });

  it('clamps an absurd ratio and skips failed turns as anchors', () => {
    const absurd = estimateContext({ messages: [user('x'.repeat(384)), assistant('a', 10_000_000)] });
    expect(absurd.ratio).toBe(8);
    const failed = estimateContext({
      messages: [user('x'), assistant('error', 999, 'error')],
      safetyMargin: 1.1,
    });
    expect(failed.source).toBe('margin');
  });

  it('counts pending messages and the fixed part', () => {
    const estimate = estimateContext({
      messages: [],
      pending: [user('x'.repeat(384))],
      systemPrompt: 's'.repeat(400),
      safetyMargin: 1,
    });
    expect(estimate.tokens).toBe(200);
  });
});
