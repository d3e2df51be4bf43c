import { emptyUsage, type Message } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { parseOverflowLimit } from './compactor.ts';
import { serializeMessage, truncateMiddle } from './serialize.ts';

describe('truncateMiddle', () => {
  it('keeps head and tail, says how much went, and never exceeds the limit', () => {
    expect(truncateMiddle('short', 10)).toBe('short');
    const text = `${'a'.repeat(5000)}${'z'.repeat(5000)}`;
    const cut = truncateMiddle(text, 1000);
    expect(cut.length).toBeLessThanOrEqual(1000);
    expect(cut.startsWith('aaa')).toBe(true);
    expect(cut.endsWith('zzz')).toBe(true);
    expect(cut).toContain('[… 9000 characters truncated …]');
  });
});

describe('serializeMessage', () => {
  const limits = { maxCharacters: 100_000 };

  it('labels each part so the summariser reads a transcript, not a chat', () => {
    const messages: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'image', mediaType: 'image/png', data: 'AAAA' },
        ],
        timestamp: 1,
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'plan it' },
          { type: 'thinking', thinking: 'opaque', redacted: true },
          { type: 'text', text: 'on it' },
          { type: 'toolCall', id: 'c', name: 'read', arguments: { path: 'a.md' } },
        ],
        provider: 'p',
        model: 'm',
        usage: emptyUsage,
        stopReason: 'toolUse',
        timestamp: 1,
      },
      {
        role: 'toolResult',
        toolCallId: 'c',
        toolName: 'read',
        content: [{ type: 'text', text: 'no such file' }],
        details: { secret: 1 },
        isError: true,
        timestamp: 1,
      },
    ];
    expect(messages.map((message) => serializeMessage(message, limits))).toEqual([
      '[User]: hi\n[image: image/png]',
      '[Assistant thinking]: plan it\n[Assistant]: on it\n[Assistant tool call] read: {"path":"a.md"}',
      '[Tool error] read: no such file',
    ]);
  });

  it('leaves out failed turns and cuts long tool output', () => {
    const failed: Message = {
      role: 'assistant',
      content: [{ type: 'text', text: 'partial' }],
      provider: 'p',
      model: 'm',
      usage: emptyUsage,
      stopReason: 'error',
      errorMessage: 'boom',
      timestamp: 1,
    };
    expect(serializeMessage(failed, limits)).toBe('');
    const long: Message = {
      role: 'toolResult',
      toolCallId: 'c',
      toolName: 'dump',
      content: [{ type: 'text', text: 'x'.repeat(50_000) }],
      isError: false,
      timestamp: 1,
    };
    expect(serializeMessage(long, limits).length).toBeLessThan(1600);
    expect(
      serializeMessage(long, { maxCharacters: limits.maxCharacters, toolResultCharacters: 300 }).length,
    ).toBeLessThan(340);
  });
});

describe('parseOverflowLimit', () => {
  it('reads the window a provider names in its overflow message', () => {
    expect(parseOverflowLimit('prompt is too long: 9500 tokens > 8192 maximum')).toBe(8192);
    expect(
      parseOverflowLimit('input length and `max_tokens` exceed context limit: 190,000 + 20,000 > 200,000'),
    ).toBe(200_000);
    expect(parseOverflowLimit("This model's maximum context length is 128000 tokens.")).toBe(128_000);
    expect(parseOverflowLimit('context length exceeded')).toBeUndefined();
  });
});
