import { describe, expect, it } from 'vitest';
import { convertTranscript } from './transcript-conversion.ts';

const at = Date.parse('2026-09-01T10:00:00.000Z');
const event = (id: string, parentId: string | null, body: Record<string, unknown>) => ({
  id,
  parentId,
  timestamp: new Date(at).toISOString(),
  ...body,
});
const user = (text: string) => ({ type: 'message', message: { role: 'user', content: text, timestamp: at } });

describe('convertTranscript', () => {
  it('starts at the latest reset, keeping what the reset retained', () => {
    const { entries, skipped } = convertTranscript(
      [
        { type: 'session', version: 3, id: 's', cwd: '/home/me' },
        event('a', null, user('old one')),
        event('b', 'a', user('kept by the reset')),
        event('c', 'b', { type: 'reset', firstKeptEntryId: 'b' }),
        event('d', 'c', user('after the reset')),
      ],
      at,
    );
    expect(entries.map((entry) => (entry.type === 'message' ? entry.message.content : entry.type))).toEqual([
      'kept by the reset',
      'after the reset',
    ]);
    expect(skipped).toEqual({ 'before:reset': 1, reset: 1 });
  });

  it('converts images, thinking signatures and tool results to the Switchboard message model', () => {
    const { entries } = convertTranscript(
      [
        event('a', null, {
          type: 'message',
          message: {
            role: 'user',
            content: [
              { type: 'text', text: 'what is this?' },
              { type: 'image', data: 'aGVsbG8=', mimeType: 'image/jpeg' },
            ],
            timestamp: at,
          },
        }),
        event('b', 'a', {
          type: 'message',
          message: {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: '', thinkingSignature: 'sig', redacted: true },
              { type: 'toolCall', id: 't1', name: 'image_describe', arguments: { detail: 'high' } },
            ],
            provider: 'anthropic',
            model: 'claude-sonnet-4-6',
            usage: { input: 10, output: 5 },
          },
        }),
        event('c', 'b', {
          type: 'message',
          message: {
            role: 'toolResult',
            toolCallId: 't1',
            toolName: 'image_describe',
            content: 'a cat',
            isError: false,
          },
        }),
        event('d', 'c', { type: 'message', message: { role: 'bashExecution', command: 'ls' } }),
      ],
      at,
    );
    expect(entries).toHaveLength(3);
    const [question, answer, result] = entries.map((entry) =>
      entry.type === 'message' ? entry.message : undefined,
    );
    expect(question).toMatchObject({
      content: [
        { type: 'text', text: 'what is this?' },
        { type: 'image', mediaType: 'image/jpeg', data: 'aGVsbG8=' },
      ],
    });
    expect(answer).toMatchObject({
      role: 'assistant',
      stopReason: 'toolUse',
      content: [
        { type: 'thinking', thinking: '', signature: 'sig', redacted: true },
        { type: 'toolCall', id: 't1', name: 'image_describe', arguments: { detail: 'high' } },
      ],
      usage: { input: 10, output: 5, totalTokens: 15 },
    });
    expect(result).toMatchObject({
      role: 'toolResult',
      toolCallId: 't1',
      content: [{ type: 'text', text: 'a cat' }],
    });
  });

  it('points a compaction at the entry it kept, or at itself when that entry was left out', () => {
    const { entries } = convertTranscript(
      [
        event('a', null, user('one')),
        event('b', 'a', user('two')),
        event('c', 'b', { type: 'compaction', summary: 'talked', firstKeptEntryId: 'b', tokensBefore: 900 }),
        event('d', 'c', {
          type: 'compaction',
          summary: 'again',
          firstKeptEntryId: 'gone',
          tokensBefore: 1000,
        }),
      ],
      at,
    );
    expect(entries[2]).toMatchObject({ type: 'compaction', firstKeptSequence: 2, tokensBefore: 900 });
    expect(entries[3]).toMatchObject({ type: 'compaction', firstKeptSequence: 4 });
  });
});
