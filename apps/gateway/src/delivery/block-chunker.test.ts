import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BlockChunkerOptions, createBlockChunker } from './block-chunker.ts';
import { chunkText } from './chunk-text.ts';
import { parseFenceSpans } from './fences.ts';

function drainAll(
  options: BlockChunkerOptions,
  text: string,
  force = false,
): { chunks: string[]; rest: string } {
  const chunker = createBlockChunker(options);
  chunker.append(text);
  const chunks = chunker.drain({ force });
  return { chunks, rest: chunker.bufferedText };
}

/** Every fence that opens inside the chunk also closes inside it. */
function fencesBalanced(chunk: string): boolean {
  return parseFenceSpans(chunk).every((span) => span.closeStart >= 0);
}

describe('createBlockChunker: acceptance cases', () => {
  it('chooses the paragraph break right after a fence close and keeps the fence intact', () => {
    const text = [
      'Intro',
      '```js',
      "console.log('x')",
      '```',
      '',
      'After first line',
      'After second line',
    ].join('\n');
    const { chunks, rest } = drainAll({ minChars: 1, maxChars: 40 }, text);
    expect(chunks).toEqual(["Intro\n```js\nconsole.log('x')\n```"]);
    expect(rest).toBe('After first line\nAfter second line');
  });

  it('flushOnParagraph waits for minChars, then flushes whole paragraphs', () => {
    const chunker = createBlockChunker({ minChars: 20, maxChars: 200, flushOnParagraph: true });
    chunker.append('Short one.\n\nSecond');
    // The only paragraph break sits before minChars: nothing yet.
    expect(chunker.drain()).toEqual([]);
    chunker.append(' paragraph is here.\n\nThird paragraph.\n\nFourth');
    // The next break is only 16 characters into "Third paragraph.": below minChars, so it waits.
    expect(chunker.drain()).toEqual(['Short one.\n\nSecond paragraph is here.']);
    expect(chunker.bufferedText).toBe('Third paragraph.\n\nFourth');
    chunker.append(' paragraph, long enough.\n\nFifth');
    expect(chunker.drain()).toEqual(['Third paragraph.\n\nFourth paragraph, long enough.']);
    expect(chunker.bufferedText).toBe('Fifth');
  });

  it('treats a blank line holding spaces as a paragraph break when flushOnParagraph is set', () => {
    const { chunks, rest } = drainAll(
      { minChars: 5, maxChars: 200, flushOnParagraph: true },
      'First paragraph.\n \t\nSecond paragraph.',
    );
    expect(chunks).toEqual(['First paragraph.']);
    expect(rest).toBe('Second paragraph.');
  });

  it('force flush sends paragraphs shorter than minChars at the end', () => {
    const chunker = createBlockChunker({ minChars: 800, maxChars: 1200 });
    chunker.append('Tiny.\n\nAlso tiny.');
    expect(chunker.drain()).toEqual([]);
    expect(chunker.drain({ force: true })).toEqual(['Tiny.\n\nAlso tiny.']);
    expect(chunker.hasBuffered()).toBe(false);
  });

  it('flushOnParagraph without any paragraph break hard-cuts at maxChars', () => {
    const { chunks, rest } = drainAll(
      { minChars: 1, maxChars: 10, flushOnParagraph: true },
      'abcdefghijKLMNOP',
    );
    expect(chunks).toEqual(['abcdefghij']);
    expect(rest).toBe('KLMNOP');
  });

  it('clamps long paragraphs to maxChars when flushOnParagraph is set', () => {
    const { chunks, rest } = drainAll(
      { minChars: 1, maxChars: 10, flushOnParagraph: true },
      'abcdefghijk\n\nRest',
    );
    expect(chunks).toEqual(['abcdefghij', 'k']);
    expect(chunks.every((chunk) => chunk.length <= 10)).toBe(true);
    expect(rest).toBe('Rest');
  });

  it('ignores paragraph breaks inside fences when flushOnParagraph is set', () => {
    const text = ['Intro', '```js', 'const a = 1;', '', 'const b = 2;', '```', '', 'After fence'].join('\n');
    const { chunks, rest } = drainAll({ minChars: 10, maxChars: 200, flushOnParagraph: true }, text);
    expect(chunks).toEqual(['Intro\n```js\nconst a = 1;\n\nconst b = 2;\n```']);
    expect(rest).toBe('After fence');
  });

  it('parses fence spans once per drain call, however many blocks it cuts', () => {
    let parses = 0;
    const chunker = createBlockChunker({
      minChars: 20,
      maxChars: 80,
      parseFences: (text) => {
        parses++;
        return parseFenceSpans(text);
      },
    });
    chunker.append(`\`\`\`txt\n${'line\n'.repeat(600)}\`\`\``);
    const chunks = chunker.drain();
    expect(chunks.length).toBeGreaterThan(2);
    expect(parses).toBe(1);
    chunker.append(`\n${'more\n'.repeat(100)}`);
    chunker.drain({ force: true });
    expect(parses).toBe(2);
    expect(chunker.hasBuffered()).toBe(false);
  });

  it('a forced clamp inside a fence never cuts inside the closing marker; every piece reopens the fence', () => {
    const text = `\`\`\`txt\n${'a'.repeat(80)}\n\`\`\``;
    const { chunks, rest } = drainAll({ minChars: 10, maxChars: 30 }, text, true);
    expect(rest).toBe('');
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(chunk.startsWith('```txt\n')).toBe(true);
      expect(chunk.endsWith('\n```')).toBe(true);
      expect(chunk.length).toBeLessThanOrEqual(30);
      expect(fencesBalanced(chunk)).toBe(true);
    }
    expect(chunks.join('').replace(/```txt\n|\n```/g, '')).toBe('a'.repeat(80));
  });

  it('when the closing line straddles the window end, the cut lands before it, never inside it', () => {
    // 7 + 20 + 4 = 31 characters: the closing "```" runs from 28 to 31, past maxChars 30.
    const text = `\`\`\`txt\n${'a'.repeat(20)}\n\`\`\``;
    const { chunks } = drainAll({ minChars: 10, maxChars: 30 }, text, true);
    expect(chunks.length).toBe(2);
    for (const chunk of chunks) {
      expect(chunk.startsWith('```txt\n')).toBe(true);
      expect(chunk.endsWith('\n```')).toBe(true);
      expect(chunk.length).toBeLessThanOrEqual(30);
      // No empty reopened block and no stray backticks from a split marker.
      expect(chunk).not.toBe('```txt\n```');
      expect(chunk.split('\n').every((line) => !/^`{1,2}$/.test(line))).toBe(true);
    }
  });

  it('consumes the original closing line instead of reopening an empty block', () => {
    // A longer closing run ("`````") does not fit, but ours ("```") does: after the last code
    // line only the original closing line would remain, so it is consumed, not reopened.
    const text = '```py\nprint(1)\n`````\nDone.';
    const { chunks } = drainAll({ minChars: 1, maxChars: 19 }, text, true);
    expect(chunks).toEqual(['```py\nprint(1)\n```', 'Done.']);
  });
});

describe('createBlockChunker: drain rules', () => {
  it('does nothing while the buffer is below minChars', () => {
    const chunker = createBlockChunker({ minChars: 50, maxChars: 100 });
    chunker.append('Sentence one. Sentence two.\n\nParagraph two.');
    expect(chunker.drain()).toEqual([]);
    expect(chunker.bufferedText).toBe('Sentence one. Sentence two.\n\nParagraph two.');
  });

  it('between minChars and maxChars emits one block at the best break and keeps the tail', () => {
    const chunker = createBlockChunker({ minChars: 10, maxChars: 100 });
    chunker.append('First paragraph here.\n\nSecond paragraph.\nThird line and more');
    expect(chunker.drain()).toEqual(['First paragraph here.']);
    expect(chunker.bufferedText).toBe('Second paragraph.\nThird line and more');
  });

  it('prefers paragraph, then newline, then sentence end, then whitespace', () => {
    const options = { minChars: 5, maxChars: 30 };
    expect(drainAll(options, 'aaaaaa bbbbbb\ncccccc. dddddd\n\neeeeeeeeeeeeeeeeeeeee').chunks[0]).toBe(
      'aaaaaa bbbbbb\ncccccc. dddddd',
    );
    expect(drainAll(options, 'aaaaaa bbbbbb\ncccccc. dddddd eeeeeeeeeeeeeeeeeeeee').chunks[0]).toBe(
      'aaaaaa bbbbbb',
    );
    expect(drainAll(options, 'aaaaaa bbbbbb. cccccc ddddddeeeeeeeeeeeeeeeeeeeee').chunks[0]).toBe(
      'aaaaaa bbbbbb.',
    );
    expect(drainAll(options, 'aaaaaa bbbbbb cccccc ddddddeeeeeeeeeeeeeeeeeeeee').chunks[0]).toBe(
      'aaaaaa bbbbbb cccccc',
    );
  });

  it('newline preference waits for a newline until the buffer reaches maxChars', () => {
    const chunker = createBlockChunker({ minChars: 5, maxChars: 40, breakPreference: 'newline' });
    chunker.append('Words without a newline. More words');
    expect(chunker.drain()).toEqual([]);
    chunker.append(' and more words to pass the max');
    const chunks = chunker.drain();
    expect(chunks[0]).toBe('Words without a newline. More words and');
    expect(chunks.every((chunk) => chunk.length <= 40)).toBe(true);
  });

  it('mid-stream, waits for the next delta when the buffer ends in sentence punctuation', () => {
    const chunker = createBlockChunker({ minChars: 10, maxChars: 100 });
    chunker.append('The value of pi is roughly 3.');
    expect(chunker.drain()).toEqual([]);
    chunker.append('14159, and more');
    expect(chunker.drain()).toEqual(['The value of pi is roughly 3.14159, and']);
    chunker.append(' digits follow. Then');
    expect(chunker.drain()).toEqual(['more digits follow.']);
  });

  it('sentence preference breaks after the last sentence end in the window', () => {
    const { chunks, rest } = drainAll(
      { minChars: 5, maxChars: 50, breakPreference: 'sentence' },
      'One here.\nTwo here! Three here? Four continues on and on and on',
    );
    expect(chunks).toEqual(['One here.\nTwo here! Three here?']);
    expect(rest).toBe('Four continues on and on and on');
  });

  it('never emits whitespace-only blocks and leaves no leading blank lines in the remainder', () => {
    const chunker = createBlockChunker({ minChars: 1, maxChars: 20 });
    chunker.append('Hello there friend\n\n\n\n   \n\nSecond part');
    const chunks = chunker.drain({ force: true });
    expect(chunks.every((chunk) => chunk.trim().length > 0)).toBe(true);
    expect(chunks[0]).toBe('Hello there friend');
    expect(chunks.at(-1)).toBe('Second part');
  });

  it('a forced drain over maxChars splits the fitting tail at its first soft boundaries', () => {
    const chunker = createBlockChunker({ minChars: 5, maxChars: 40 });
    chunker.append(`${'x'.repeat(30)} yyyyy\n\nTail one.\n\nTail two.`);
    const chunks = chunker.drain({ force: true });
    // The 20-character tail would have gone out whole on its own; after a clamp it is split.
    expect(chunks).toEqual([`${'x'.repeat(30)} yyyyy`, 'Tail one.', 'Tail two.']);
  });

  it('reset drops the buffer', () => {
    const chunker = createBlockChunker({ minChars: 5, maxChars: 40 });
    chunker.append('something');
    chunker.reset();
    expect(chunker.hasBuffered()).toBe(false);
    expect(chunker.drain({ force: true })).toEqual([]);
  });

  it('streams a long reply with code in 20-character deltas: bounded, balanced, lossless', () => {
    const paragraphs: string[] = [];
    for (let index = 0; index < 12; index++) {
      paragraphs.push(`Paragraph ${index} ${'words and more words '.repeat(8)}ends here.`);
      if (index % 4 === 1) {
        paragraphs.push(`\`\`\`ts\n${'const value = compute(input, options);\n'.repeat(30)}\`\`\``);
      }
    }
    const text = paragraphs.join('\n\n');
    const chunker = createBlockChunker({ minChars: 200, maxChars: 400 });
    const chunks: string[] = [];
    for (let index = 0; index < text.length; index += 20) {
      chunker.append(text.slice(index, index + 20));
      chunks.push(...chunker.drain());
    }
    chunks.push(...chunker.drain({ force: true }));
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(400);
      expect(fencesBalanced(chunk)).toBe(true);
    }
    const squash = (value: string): string => value.replace(/```ts\n|\n?```/g, '').replace(/\s+/g, '');
    expect(squash(chunks.join(''))).toBe(squash(text));
  });

  it('rejects bad options with the option path', () => {
    expect(() => createBlockChunker({ minChars: 0, maxChars: 10 })).toThrow(/chunker\.minChars/);
    expect(() => createBlockChunker({ minChars: 20, maxChars: 10 })).toThrow(/chunker\.maxChars/);
    expect(() =>
      createBlockChunker({ minChars: 1, maxChars: 10, breakPreference: 'word' as 'paragraph' }),
    ).toThrow(/chunker\.breakPreference/);
  });
});

/** A small deterministic PRNG (mulberry32) so the randomized cases are reproducible. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

function randomMarkdown(random: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const words = ['alpha', 'beta', 'gamma', 'delta', 'x', 'configuration', 'a.b', 'end.', 'why?', 'go!', '😀'];
  const parts: string[] = [];
  const count = 3 + Math.floor(random() * 10);
  for (let part = 0; part < count; part++) {
    if (random() < 0.3) {
      const marker = pick(['```', '````', '~~~']);
      const lines = Array.from({ length: 1 + Math.floor(random() * 25) }, () =>
        Array.from({ length: Math.floor(random() * 12) }, () => pick(words)).join(' '),
      );
      parts.push(`${marker}${pick(['', 'js', 'python'])}\n${lines.join('\n')}\n${marker}`);
    } else {
      const sentences = Array.from({ length: 1 + Math.floor(random() * 6) }, () =>
        Array.from({ length: 1 + Math.floor(random() * 20) }, () => pick(words)).join(' '),
      );
      parts.push(sentences.join(pick([' ', '\n', '. '])));
    }
  }
  return parts.join(pick(['\n\n', '\n', '\n\n\n']));
}

const fenceLine = /^ {0,3}(`{3,}|~{3,}).*$/gm;
const squash = (value: string): string => value.replace(fenceLine, '').replace(/\s+/g, '');

describe('randomized streams (seeded)', () => {
  it('the block chunker stays within maxChars, keeps fences balanced and loses nothing', () => {
    const random = seeded(20260413);
    for (let round = 0; round < 300; round++) {
      const text = randomMarkdown(random);
      const maxChars = 40 + Math.floor(random() * 400);
      const minChars = 1 + Math.floor(random() * maxChars);
      const breakPreference = (['paragraph', 'newline', 'sentence'] as const)[round % 3];
      const chunker = createBlockChunker({
        minChars,
        maxChars,
        breakPreference,
        flushOnParagraph: round % 5 === 0,
      });
      const chunks: string[] = [];
      for (let index = 0; index < text.length; ) {
        const size = 1 + Math.floor(random() * 40);
        chunker.append(text.slice(index, index + size));
        index += size;
        chunks.push(...chunker.drain());
      }
      chunks.push(...chunker.drain({ force: true }));
      const context = `round ${round} (min ${minChars}, max ${maxChars}, ${breakPreference})`;
      for (const chunk of chunks) {
        expect(chunk.length, context).toBeLessThanOrEqual(maxChars);
        expect(chunk.trim().length, context).toBeGreaterThan(0);
        expect(fencesBalanced(chunk), `${context}: ${JSON.stringify(chunk)}`).toBe(true);
      }
      expect(squash(chunks.join('\n')), context).toBe(squash(text));
    }
  });

  it('chunkText stays within the limit and the line cap, keeps fences balanced and loses nothing', () => {
    const random = seeded(17);
    for (let round = 0; round < 300; round++) {
      const text = randomMarkdown(random);
      const limit = 60 + Math.floor(random() * 500);
      const maxLines = round % 2 === 0 ? 5 + Math.floor(random() * 15) : undefined;
      const mode = round % 3 === 0 ? 'newline' : 'length';
      const pieces = chunkText(text, maxLines === undefined ? { limit, mode } : { limit, mode, maxLines });
      const context = `round ${round} (limit ${limit}, lines ${maxLines}, ${mode})`;
      for (const piece of pieces) {
        expect(piece.length, context).toBeLessThanOrEqual(limit);
        if (maxLines !== undefined) expect(piece.split('\n').length, context).toBeLessThanOrEqual(maxLines);
        expect(fencesBalanced(piece), `${context}: ${JSON.stringify(piece)}`).toBe(true);
      }
      expect(squash(pieces.join('\n')), context).toBe(squash(text));
    }
  });
});

/** Markdown with the constructs that decide where a fence is: fences, list items, quotes, HTML. */
const markdownLine: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom('plain words here.', 'more text, then', 'end!', '', '', 'x') },
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.constantFrom('', '', ' ', '  ', '    '),
        fc.constantFrom('```', '~~~', '````'),
        fc.constantFrom('', 'js', ' x'),
      )
      .map(([indent, marker, info]) => indent + marker + info),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '- item',
      '1. item',
      '> quote',
      '  code()',
      '<div>',
      '<think>a</think>',
      'lazy',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
);

const streamedMarkdown = fc.record({
  text: fc.array(markdownLine, { minLength: 1, maxLength: 80 }).map((lines) => lines.join('\n')),
  deltaSizes: fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 8 }),
  minChars: fc.integer({ min: 1, max: 120 }),
  extra: fc.integer({ min: 0, max: 200 }),
  breakPreference: fc.constantFrom('paragraph', 'newline', 'sentence'),
  flushOnParagraph: fc.boolean(),
});

describe('the block chunker’s fence tracker', () => {
  it('cuts exactly as a full fence parse on every drain would', () => {
    fc.assert(
      fc.property(
        streamedMarkdown,
        ({ text, deltaSizes, minChars, extra, breakPreference, flushOnParagraph }) => {
          const options = { minChars, maxChars: minChars + extra + 20, breakPreference, flushOnParagraph };
          const tracked = createBlockChunker(options);
          const parsed = createBlockChunker({ ...options, parseFences: parseFenceSpans });
          let offset = 0;
          for (let step = 0; offset < text.length; step++) {
            const delta = text.slice(offset, offset + (deltaSizes[step % deltaSizes.length] ?? 1));
            offset += delta.length;
            tracked.append(delta);
            parsed.append(delta);
            expect(tracked.drain()).toEqual(parsed.drain());
            expect(tracked.bufferedText).toBe(parsed.bufferedText);
          }
          expect(tracked.drain({ force: true })).toEqual(parsed.drain({ force: true }));
        },
      ),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 200) },
    );
  });
});
