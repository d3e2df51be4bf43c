import { describe, expect, it } from 'vitest';
import {
  createSilentGate,
  isSilentReplyPrefix,
  isSilentReplyText,
  type SilentGate,
  stripSilentTokens,
} from './silent-token.ts';

function gateAll(
  parts: readonly string[],
  gate: SilentGate = createSilentGate(),
): { released: string[]; out: string } {
  const released = parts.map((part) => gate.push(part));
  const out = released.join('') + gate.end();
  return { released, out };
}

function characters(text: string): string[] {
  return Array.from(text);
}

describe('isSilentReplyText', () => {
  it('is true for the token alone, any case, with surrounding whitespace or punctuation', () => {
    for (const text of ['NO_REPLY', '  no_reply \n', 'NO_REPLY NO_REPLY', '**NO_REPLY**', 'NO_REPLY.']) {
      expect(isSilentReplyText(text)).toBe(true);
    }
  });

  it('is true for the JSON envelope {"action": "NO_REPLY"} and a JSON string of the token', () => {
    expect(isSilentReplyText('{"action":"NO_REPLY"}')).toBe(true);
    expect(isSilentReplyText(' { "action" : "NO_REPLY" } ')).toBe(true);
    expect(isSilentReplyText('"NO_REPLY"')).toBe(true);
    expect(isSilentReplyText('{"action":"NO_REPLY","why":"x"}')).toBe(false);
    expect(isSilentReplyText('{"action":"reply"}')).toBe(false);
  });

  it('is false for a substantive reply that merely ends or starts with the token (regression #19537)', () => {
    expect(isSilentReplyText('Here is the answer you asked for. NO_REPLY')).toBe(false);
    expect(isSilentReplyText('NO_REPLY: the user only said thanks')).toBe(false);
    expect(isSilentReplyText('')).toBe(false);
    expect(isSilentReplyText('No reply needed')).toBe(false);
  });
});

describe('isSilentReplyPrefix (preview guard)', () => {
  it('holds uppercase prefixes of at least "NO" or containing "_", never lowercase text', () => {
    expect(isSilentReplyPrefix('NO')).toBe(true);
    expect(isSilentReplyPrefix('NO_')).toBe(true);
    expect(isSilentReplyPrefix('NO_REP')).toBe(true);
    expect(isSilentReplyPrefix('N')).toBe(false);
    expect(isSilentReplyPrefix('No')).toBe(false);
    expect(isSilentReplyPrefix('Nope')).toBe(false);
    expect(isSilentReplyPrefix('NO_REPLY and more')).toBe(false);
    expect(isSilentReplyPrefix('HEARTBEAT_', 'HEARTBEAT_OK')).toBe(true);
    expect(isSilentReplyPrefix('HE', 'HEARTBEAT_OK')).toBe(false);
  });
});

describe('stripSilentTokens', () => {
  it('strips a trailing token and a leading glued token, keeps punctuation-led explanations', () => {
    expect(stripSilentTokens('Here you go.\n\nNO_REPLY')).toBe('Here you go.');
    expect(stripSilentTokens('NO_REPLYhello there')).toBe('hello there');
    expect(stripSilentTokens('NO_REPLY\n\nActually, one thing.')).toBe('Actually, one thing.');
    expect(stripSilentTokens('NO_REPLY: because')).toBe('NO_REPLY: because');
    expect(stripSilentTokens('All good HEARTBEAT_OK')).toBe('All good');
  });
});

describe('createSilentGate', () => {
  it('a whole NO_REPLY reply releases nothing', () => {
    const gate = createSilentGate();
    const { out } = gateAll(['NO_REPLY'], gate);
    expect(out).toBe('');
    expect(gate.state).toBe('silent');
  });

  it('a NO_REPLY streamed one character at a time never leaks a character', () => {
    for (const text of [
      'NO_REPLY',
      '  NO_REPLY  \n',
      '{"action": "NO_REPLY"}',
      'HEARTBEAT_OK',
      '**NO_REPLY**',
    ]) {
      const gate = createSilentGate();
      const { released, out } = gateAll(characters(text), gate);
      expect(released.join('')).toBe('');
      expect(out).toBe('');
      expect(gate.state).toBe('silent');
    }
  });

  it('releases lowercase "No…" text at once and holds an uppercase "NO" only briefly', () => {
    expect(createSilentGate().push('No problem, ')).toBe('No problem, '.trimEnd());
    const gate = createSilentGate();
    expect(gate.push('NO')).toBe('');
    expect(gate.push('TE: the build')).toBe('NOTE: the build');
    expect(gate.push(' is N')).toBe(' is');
    expect(gate.push('OT green')).toBe(' NOT green');
    expect(gate.end()).toBe('');
  });

  it('strips a leading glued token and delivers the rest', () => {
    expect(gateAll(characters('NO_REPLYhello there')).out).toBe('hello there');
    expect(gateAll(['NO_REPLY', '\n\nActually, ', 'one more thing.']).out).toBe('Actually, one more thing.');
  });

  it('does not treat "NO_REPLY: explanation" as silent', () => {
    expect(gateAll(characters('NO_REPLY: the user said thanks')).out).toBe('NO_REPLY: the user said thanks');
  });

  it('a real answer that ends with the token is delivered without the token, even streamed', () => {
    const text = 'The deploy finished at 14:02 and all checks passed. NO_REPLY';
    const gate = createSilentGate();
    const { released, out } = gateAll(characters(text), gate);
    expect(out).toBe('The deploy finished at 14:02 and all checks passed.');
    expect(released.join('')).not.toContain('NO_');
    expect(gate.state).toBe('passed');
  });

  it('delivers a trailing partial token that turns out not to be one', () => {
    expect(gateAll(['Say ', 'NO_', 'RMAL things']).out).toBe('Say NO_RMAL things');
    expect(gateAll(['The code is N', 'O_REPL']).out).toBe('The code is NO_REPL');
  });

  it('holds a JSON envelope until it diverges', () => {
    const gate = createSilentGate();
    expect(gate.push('{"act')).toBe('');
    expect(gate.push('ive": true}')).toBe('{"active": true}');
  });

  it('reset starts a new message', () => {
    const gate = createSilentGate();
    gateAll(['NO_REPLY'], gate);
    gate.reset();
    expect(gate.state).toBe('undecided');
    expect(gateAll(['Hello'], gate).out).toBe('Hello');
  });
});
