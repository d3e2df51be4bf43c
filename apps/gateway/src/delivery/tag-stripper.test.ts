import { describe, expect, it } from 'vitest';
import {
  createTagStripper,
  stripDowngradedToolCallText,
  stripReasoningTags,
  type TagStripperOptions,
} from './tag-stripper.ts';

function streamed(parts: readonly string[], options: TagStripperOptions = {}): string {
  const stripper = createTagStripper(options);
  let out = '';
  for (const part of parts) out += stripper.push(part);
  return out + stripper.flush();
}

/** Every way of cutting `text` into three deltas. */
function* threeWaySplits(text: string): Generator<[string, string, string]> {
  for (let first = 0; first <= text.length; first++) {
    for (let second = first; second <= text.length; second++) {
      yield [text.slice(0, first), text.slice(first, second), text.slice(second)];
    }
  }
}

describe('createTagStripper: thinking tags', () => {
  it('never leaks a think block spanning three deltas, at any cut points', () => {
    const text = 'Hi <think>secret plan</think>there';
    for (const parts of threeWaySplits(text)) {
      const stripper = createTagStripper();
      const outputs = parts.map((part) => stripper.push(part));
      const out = outputs.join('') + stripper.flush();
      expect(out).toBe('Hi there');
      // No intermediate output ever contains a piece of the tag or the hidden text.
      for (const output of outputs) expect(output).not.toMatch(/[<>]|secret|plan|think/);
    }
  });

  it('the classic three-delta case', () => {
    const stripper = createTagStripper();
    expect(stripper.push('Answer: <thi')).toBe('Answer: ');
    expect(stripper.push('nk>weighing options, 2+2')).toBe('');
    expect(stripper.insideThinking).toBe(true);
    expect(stripper.push(' is 4</think> 4')).toBe(' 4');
  });

  it('handles every thinking variant, any case, spaces inside the brackets and attributes', () => {
    expect(stripReasoningTags('a<thinking>x</thinking>b')).toBe('ab');
    expect(stripReasoningTags('a<thought>x</thought>b')).toBe('ab');
    expect(stripReasoningTags('a<antthinking>x</antthinking>b')).toBe('ab');
    expect(stripReasoningTags('a< THINK >x</ Think >b')).toBe('ab');
    expect(stripReasoningTags('a<think mode="deep">x< / think>b')).toBe('ab');
  });

  it('an unclosed opening tag hides everything after it, in later chunks too', () => {
    expect(streamed(['Visible. <think>hidden', ' still hidden', ' and more'])).toBe('Visible. ');
  });

  it('removes stray closing tags and leaves look-alike words alone', () => {
    expect(stripReasoningTags('Done</think> now')).toBe('Done now');
    expect(stripReasoningTags('I <thinker> and x < y and 3<4')).toBe('I <thinker> and x < y and 3<4');
  });

  it('releases a partial tag at the end of a text block as plain text', () => {
    const stripper = createTagStripper();
    expect(stripper.push('compare a <th')).toBe('compare a ');
    expect(stripper.flush()).toBe('<th');
  });

  it('ignores tags inside inline code and fences, tracking code across deltas', () => {
    expect(stripReasoningTags('Use `<think>` tags like `<final>` here')).toBe(
      'Use `<think>` tags like `<final>` here',
    );
    expect(streamed(['Write ``a `<think>` b`', '` then <think>x</think>done'])).toBe(
      'Write ``a `<think>` b`` then done',
    );
    const fenced = ['Example:\n`', '``html\n<think>kept', '</think>\n``', '`\nafter <think>gone</think>!'];
    expect(streamed(fenced)).toBe('Example:\n```html\n<think>kept</think>\n```\nafter !');
    expect(streamed(['~~~\n<final>literal</final>\n~~~\n<final>x</final>'])).toBe(
      '~~~\n<final>literal</final>\n~~~\nx',
    );
  });

  it('a line that merely starts with a longer backtick run inside a fence does not close it', () => {
    const text = '````md\n```\n<think>inside</think>\n```\n````\n<think>gone</think>end';
    expect(stripReasoningTags(text)).toBe('````md\n```\n<think>inside</think>\n```\n````\nend');
  });

  it('an unclosed inline code span ends at a blank line', () => {
    expect(stripReasoningTags('a ` b\n\n<think>x</think>c')).toBe('a ` b\n\nc');
  });
});

describe('createTagStripper: final tags', () => {
  it('default mode removes the tags and keeps their content', () => {
    expect(streamed(['Pre <fin', 'al>The answer</final> post'])).toBe('Pre The answer post');
  });

  it('enforced mode delivers only text inside <final>', () => {
    expect(
      streamed(['Let me think out loud... <final>', 'The answer is 4.', '</final> trailing'], {
        enforceFinal: true,
      }),
    ).toBe('The answer is 4.');
  });

  it('enforced mode delivers nothing when no <final> was ever seen', () => {
    const stripper = createTagStripper({ enforceFinal: true });
    expect(stripper.push('Thinking out loud about `code` and <b>stuff</b>')).toBe('');
    expect(stripper.flush()).toBe('');
    expect(stripper.seenFinal).toBe(false);
  });

  it('enforced mode strips thinking and stray final tags inside the kept text', () => {
    expect(
      stripReasoningTags('x<final>A <think>no</think>B<final> C</final>y<final>D</final>', {
        enforceFinal: true,
      }),
    ).toBe('A B CD');
  });

  it('reset forgets state between messages', () => {
    const stripper = createTagStripper();
    stripper.push('<think>open');
    stripper.reset();
    expect(stripper.push('fresh text')).toBe('fresh text');
  });
});

describe('stripDowngradedToolCallText', () => {
  it('removes tool-call and historical-context artefacts from replayed transcripts', () => {
    const text =
      'Checking.\n[Tool Call: web_fetch (ID: toolu_1)]\nArguments: {"url":"x"}\n\nDone. [Historical context: earlier turn]';
    expect(stripDowngradedToolCallText(text)).toBe('Checking.\n\nDone.');
    expect(stripDowngradedToolCallText('Plain [link](x) text')).toBe('Plain [link](x) text');
  });
});

describe('createTagStripper: any partition of the input gives the same output', () => {
  it('matches the one-shot result for 500 random partitions of a mixed text', () => {
    const text = [
      '<think>plan: use `code`</think>Intro with `<think>` in code and < less-than.',
      '```html',
      '<final>inside a fence</final>',
      '```',
      'Then <THINKING attr="1">hidden\n\nstill hidden</thinking> visible ~~~ tildes',
      '~~~',
      '<think>fenced</think>',
      '~~~',
      'End <final>kept</final> and a partial <thi at the end',
    ].join('\n');
    const expected =
      'Intro with `<think>` in code and < less-than.\n```html\n<final>inside a fence</final>\n```\n' +
      'Then  visible ~~~ tildes\n~~~\n<think>fenced</think>\n~~~\nEnd kept and a partial <thi at the end';
    expect(stripReasoningTags(text)).toBe(expected);
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let round = 0; round < 500; round++) {
      const parts: string[] = [];
      for (let index = 0; index < text.length; ) {
        const size = 1 + Math.floor(random() * 12);
        parts.push(text.slice(index, index + size));
        index += size;
      }
      expect(streamed(parts)).toBe(expected);
    }
  });
});
