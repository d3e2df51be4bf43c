// Replay hygiene and the default converter.
import { type AssistantMessage, emptyUsage, type Message } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { defaultConvertToLlm, missingToolResultText, prepareReplay } from './replay.ts';

function assistant(
  content: AssistantMessage['content'],
  stopReason: AssistantMessage['stopReason'] = 'stop',
): AssistantMessage {
  return {
    role: 'assistant',
    content,
    provider: 'p',
    model: 'm',
    usage: emptyUsage,
    stopReason,
    timestamp: 1,
  };
}

const call = (id: string) => ({ type: 'toolCall' as const, id, name: 'tool', arguments: {} });
const result = (toolCallId: string): Message => ({
  role: 'toolResult',
  toolCallId,
  toolName: 'tool',
  content: [{ type: 'text', text: 'ok' }],
  isError: false,
  timestamp: 1,
});
const user = (text: string): Message => ({ role: 'user', content: text, timestamp: 1 });

describe('prepareReplay', () => {
  it('case 49: drops error and aborted assistant messages, with their orphaned results', () => {
    const messages: Message[] = [
      user('a'),
      assistant([call('x')], 'aborted'),
      result('x'),
      user('b'),
      assistant([{ type: 'text', text: 'oops' }], 'error'),
      user('c'),
    ];
    expect(prepareReplay(messages)).toEqual([user('a'), user('b'), user('c')]);
  });

  it('case 53: a dangling tool call gets a synthetic error result before the next message and at the end', () => {
    const messages: Message[] = [
      user('a'),
      assistant([call('1'), call('2')], 'toolUse'),
      result('1'),
      user('b'),
      assistant([call('3')], 'toolUse'),
    ];
    const replayed = prepareReplay(messages, () => 7);
    const synthetic = (id: string) => ({
      role: 'toolResult',
      toolCallId: id,
      toolName: 'tool',
      content: [{ type: 'text', text: missingToolResultText }],
      isError: true,
      timestamp: 7,
    });
    expect(replayed).toEqual([
      user('a'),
      messages[1],
      result('1'),
      synthetic('2'),
      user('b'),
      messages[4],
      synthetic('3'),
    ]);
    // The input is untouched.
    expect(messages).toHaveLength(5);
  });

  it('keeps a valid transcript as it is', () => {
    const messages: Message[] = [
      user('a'),
      assistant([call('1')], 'toolUse'),
      result('1'),
      assistant([{ type: 'text', text: 'done' }]),
    ];
    expect(prepareReplay(messages)).toEqual(messages);
  });
});

describe('defaultConvertToLlm', () => {
  it('keeps model messages and drops custom kinds', () => {
    const custom = { role: 'compactionSummary', summary: 's', timestamp: 1 } as unknown as Message;
    expect(defaultConvertToLlm([user('a'), custom, assistant([])])).toEqual([user('a'), assistant([])]);
  });
});
