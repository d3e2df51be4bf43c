import { describe, expect, it } from 'vitest';
import { chunkText } from './chunk-text.ts';
import { parseFenceSpans } from './fences.ts';

function fencesBalanced(chunk: string): boolean {
  return parseFenceSpans(chunk).every((span) => span.closeStart >= 0);
}

function lineCount(chunk: string): number {
  return chunk.split('\n').length;
}

describe('chunkText', () => {
  it('returns text that fits as one piece, and nothing for blank text', () => {
    expect(chunkText('Hello\n\nWorld', { limit: 2000 })).toEqual(['Hello\n\nWorld']);
    expect(chunkText('  \n\t ', { limit: 2000 })).toEqual([]);
  });

  it('splits a 10,000-character reply with a long code block at 2,000 without ever breaking the fence', () => {
    const prose = (label: string): string =>
      Array.from(
        { length: 6 },
        (_, index) => `${label} sentence ${index} explains a detail of the design.`,
      ).join(' ');
    const code = Array.from(
      { length: 160 },
      (_, index) => `  const value${index} = await compute(input[${index}], { retries: 3 });`,
    ).join('\n');
    const text = `${prose('Intro')}\n\n${prose('Setup')}\n\n\`\`\`typescript\n${code}\n\`\`\`\n\n${prose('Outro')}`;
    expect(text.length).toBeGreaterThan(10_000);

    const pieces = chunkText(text, { limit: 2000 });
    expect(pieces.length).toBeGreaterThanOrEqual(6);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(2000);
      expect(fencesBalanced(piece)).toBe(true);
    }
    // Every piece holding code opens with the original fence line (language tag kept) and
    // code lines are never cut in the middle.
    const codePieces = pieces.filter((piece) => piece.includes('const value'));
    expect(codePieces.length).toBeGreaterThan(3);
    for (const piece of codePieces.slice(1)) expect(piece.startsWith('```typescript\n')).toBe(true);
    for (const piece of codePieces) {
      for (const line of piece.split('\n')) {
        if (line.includes('const value')) expect(line).toMatch(/^ {2}const value\d+ = await .*\);$/);
      }
    }
    // Nothing is lost: the code lines all arrive once, in order.
    const deliveredCode = codePieces.flatMap((piece) =>
      piece.split('\n').filter((line) => line.includes('const value')),
    );
    expect(deliveredCode).toEqual(code.split('\n'));
    expect(pieces.at(-1)).toContain('Outro sentence 5');
  });

  it('prefers a late paragraph or line break and keeps pieces large in length mode', () => {
    const text = `${'a'.repeat(30)}\n\n${'b '.repeat(60)}\n${'c'.repeat(50)}`;
    const pieces = chunkText(text, { limit: 100 });
    expect(pieces.every((piece) => piece.length <= 100)).toBe(true);
    // The blank line at 30 is in the first half of the window: a later whitespace wins.
    expect(pieces[0]?.length).toBeGreaterThan(50);
  });

  it('newline mode packs whole paragraphs and splits at blank lines first', () => {
    const paragraphs = ['First paragraph is short.', 'Second one is a little longer than that.', 'Third.'];
    expect(chunkText(paragraphs.join('\n\n'), { limit: 70, mode: 'newline' })).toEqual([
      'First paragraph is short.\n\nSecond one is a little longer than that.',
      'Third.',
    ]);
    // An early blank line wins in newline mode; length mode keeps the piece large instead.
    const text = `Short intro.\n\n${'word '.repeat(20).trim()}`;
    expect(chunkText(text, { limit: 70, mode: 'newline' })[0]).toBe('Short intro.');
    expect(chunkText(text, { limit: 70, mode: 'length' })[0]?.startsWith('Short intro.\n\nword word')).toBe(
      true,
    );
  });

  it('caps lines per message (Discord: 17), closing and reopening fences at the cut', () => {
    const lines = Array.from({ length: 40 }, (_, index) => `print(${index})`);
    const text = `Here is the script:\n\`\`\`python\n${lines.join('\n')}\n\`\`\`\nThat is all.`;
    const pieces = chunkText(text, { limit: 2000, maxLines: 17 });
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    for (const piece of pieces) {
      expect(lineCount(piece)).toBeLessThanOrEqual(17);
      expect(fencesBalanced(piece)).toBe(true);
    }
    const delivered = pieces.flatMap((piece) =>
      piece.split('\n').filter((line) => line.startsWith('print(')),
    );
    expect(delivered).toEqual(lines);
    expect(
      pieces.slice(1).every((piece) => piece.startsWith('```python\n') || piece === 'That is all.'),
    ).toBe(true);
  });

  it('hard-cuts a single long word and never splits a surrogate pair', () => {
    const text = `${'x'.repeat(9)}😀${'y'.repeat(20)}`;
    const pieces = chunkText(text, { limit: 10 });
    expect(pieces.join('')).toBe(text);
    expect(pieces[0]).toBe('x'.repeat(9));
    expect(pieces.every((piece) => piece.length <= 10)).toBe(true);
  });

  it('rejects bad options with the option path', () => {
    expect(() => chunkText('text', { limit: 0 })).toThrow(/chunkText\.limit/);
    expect(() => chunkText('text', { limit: 10, mode: 'words' as 'length' })).toThrow(/chunkText\.mode/);
    expect(() => chunkText('text', { limit: 10, maxLines: 0 })).toThrow(/chunkText\.maxLines/);
  });
});
