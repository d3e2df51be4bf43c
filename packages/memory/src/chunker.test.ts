import { describe, expect, it } from 'vitest';
import { loadChunker } from './chunker.ts';

describe('loadChunker', () => {
  it('starts a chunk at each heading and remembers the heading trail', async () => {
    const chunk = await loadChunker({ tokens: 400, overlap: 80 });
    const chunks = chunk(
      '# Projects\n\nIntro text.\n\n## Switchboard\n\nWe chose SQLite.\n\n# People\n\nAlice.\n',
    );
    expect(chunks.map((part) => [part.heading, part.startLine, part.endLine])).toEqual([
      ['Projects', 1, 3],
      ['Projects › Switchboard', 5, 7],
      ['People', 9, 11],
    ]);
    expect(chunks[1]!.text).toBe('## Switchboard\n\nWe chose SQLite.');
  });

  it('cuts long sections by size with overlap and never inside a code fence', async () => {
    const chunk = await loadChunker({ tokens: 60, overlap: 40 });
    const paragraphs = Array.from({ length: 12 }, (_, index) => `Paragraph ${index} ${'word '.repeat(20)}`);
    const fence = ['```ts', 'const a = 1;', 'const b = 2;', '```'];
    const lines = [
      ...paragraphs.slice(0, 6).flatMap((line) => [line, '']),
      ...fence,
      '',
      ...paragraphs.slice(6).flatMap((line) => [line, '']),
    ];
    const chunks = chunk(lines.join('\n'));
    expect(chunks.length).toBeGreaterThan(4);
    const fenceStart = lines.indexOf('```ts') + 1;
    const fenceEnd = fenceStart + 3;
    for (const part of chunks) {
      const cutsFence =
        (part.startLine > fenceStart && part.startLine <= fenceEnd) ||
        (part.endLine >= fenceStart && part.endLine < fenceEnd);
      expect(cutsFence, `chunk ${part.startLine}-${part.endLine} splits the code fence`).toBe(false);
    }
    // Consecutive size cuts overlap: the next chunk starts before the previous one ends.
    const overlapping = chunks.slice(1).filter((part, index) => part.startLine <= chunks[index]!.endLine);
    expect(overlapping.length).toBeGreaterThan(0);
    // Every line with text is in some chunk.
    lines.forEach((line, index) => {
      if (line.trim() === '') return;
      expect(chunks.some((part) => part.startLine <= index + 1 && part.endLine >= index + 1)).toBe(true);
    });
  });

  it('gives the same hash to the same text and a different one to changed text', async () => {
    const chunk = await loadChunker();
    const [first] = chunk('# A\n\nsame text');
    const [second] = chunk('# A\n\nsame text');
    const [third] = chunk('# A\n\nother text');
    expect(first!.hash).toBe(second!.hash);
    expect(first!.hash).not.toBe(third!.hash);
  });
});
