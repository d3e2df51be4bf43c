import { describe, expect, it } from 'vitest';
import { markdownToWhatsApp, renderWhatsAppMessages, splitWhatsAppText } from './format.ts';

const fences = (text: string) => (text.match(/^```/gm) ?? []).length;

describe('markdownToWhatsApp', () => {
  it('turns Markdown emphasis into WhatsApp markup', () => {
    expect(markdownToWhatsApp('**bold**, __bold__, *italic*, _italic_ and ~~strike~~')).toBe(
      '*bold*, *bold*, _italic_, _italic_ and ~strike~',
    );
    expect(markdownToWhatsApp('***both***')).toBe('*_both_*');
  });

  it('makes headings bold lines and keeps lists and quotes readable', () => {
    expect(markdownToWhatsApp('## A **big** title ##')).toBe('*A big title*');
    expect(markdownToWhatsApp('* first *one*\n+ second\n  - nested **x**')).toBe(
      '- first _one_\n- second\n  - nested *x*',
    );
    expect(markdownToWhatsApp('> a **quoted** line')).toBe('> a *quoted* line');
    expect(markdownToWhatsApp('---')).toBe('───');
  });

  it('writes links as label (url), since WhatsApp has no labelled links', () => {
    expect(markdownToWhatsApp('see [the docs](https://example.com/docs "Docs")')).toBe(
      'see the docs (https://example.com/docs)',
    );
    expect(markdownToWhatsApp('[https://a.example](https://a.example) and <https://b.example>')).toBe(
      'https://a.example and https://b.example',
    );
    expect(markdownToWhatsApp('![a cat](https://x.example/cat.png)')).toBe(
      'a cat (https://x.example/cat.png)',
    );
  });

  it('keeps code spans and code blocks verbatim, as monospace', () => {
    expect(markdownToWhatsApp('run `rm **-rf**` now')).toBe('run `rm **-rf**` now');
    expect(markdownToWhatsApp('use ``a ` b`` here')).toBe('use ``a ` b`` here');
    expect(markdownToWhatsApp('```ts\nconst x = **y** * _z_;\n```\nafter **it**')).toBe(
      '```\nconst x = **y** * _z_;\n```\nafter *it*',
    );
    expect(markdownToWhatsApp('~~~\nraw\n~~~')).toBe('```\nraw\n```');
  });

  it('closes a code block the text left open', () => {
    expect(markdownToWhatsApp('```\nunfinished')).toBe('```\nunfinished\n```');
  });

  it('leaves things that only look like markup alone, and keeps escaped characters from pairing into markup', () => {
    expect(markdownToWhatsApp('snake_case_name and 2 * 3 * 4')).toBe('snake_case_name and 2 * 3 * 4');
    // WhatsApp has no escapes: an escaped pair gets look-alikes (∗), else WhatsApp would make it bold.
    expect(markdownToWhatsApp('\\*not bold\\* and 5\\_000')).toBe('∗not bold∗ and 5_000');
  });
});

describe('splitWhatsAppText', () => {
  it('returns short text as one message and nothing for blank text', () => {
    expect(splitWhatsAppText('hello', 100)).toEqual(['hello']);
    expect(splitWhatsAppText('  \n\n ', 100)).toEqual([]);
  });

  it('splits between paragraphs first', () => {
    const paragraphs = Array.from({ length: 6 }, (_, index) => `${index} ${'x'.repeat(40)}`);
    const chunks = splitWhatsAppText(paragraphs.join('\n\n'), 100);
    expect(chunks).toEqual([
      `${paragraphs[0]}\n\n${paragraphs[1]}`,
      `${paragraphs[2]}\n\n${paragraphs[3]}`,
      `${paragraphs[4]}\n\n${paragraphs[5]}`,
    ]);
  });

  it('cuts a long code block into blocks that each open and close', () => {
    const code = Array.from({ length: 80 }, (_, index) => `line ${index} of the code`).join('\n');
    const chunks = splitWhatsAppText(`intro\n\n\`\`\`\n${code}\n\`\`\`\n\noutro`, 300);
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(300);
      expect(fences(chunk) % 2).toBe(0);
    }
    const joined = chunks.join('\n');
    for (let index = 0; index < 80; index += 1) expect(joined).toContain(`line ${index} of the code`);
    expect(chunks[0]).toBe('intro');
    expect(chunks.at(-1)).toContain('outro');
  });

  it('cuts a paragraph longer than a message between words, and a word longer than a message anywhere', () => {
    const words = Array.from({ length: 100 }, (_, index) => `word${index}`).join(' ');
    const chunks = splitWhatsAppText(words, 120);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(120);
    expect(chunks.join(' ')).toBe(words);
    const blob = 'y'.repeat(1000);
    const pieces = splitWhatsAppText(blob, 200);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(200);
    expect(pieces.join('')).toBe(blob);
  });

  it('holds for many mixed documents: every message fits and every code block is balanced', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 60; round += 1) {
      const blocks: string[] = [];
      for (let block = 0; block < 12; block += 1) {
        if (random() < 0.3) {
          const lines = Array.from(
            { length: 1 + Math.floor(random() * 60) },
            (_, line) => `  code ${round}.${block}.${line};`,
          );
          blocks.push(`\`\`\`js\n${lines.join('\n')}\n\`\`\``);
        } else {
          blocks.push(Array.from({ length: 1 + Math.floor(random() * 80) }, () => '**word**').join(' '));
        }
      }
      const limit = 120 + Math.floor(random() * 900);
      for (const chunk of renderWhatsAppMessages(blocks.join('\n\n'), limit)) {
        expect(chunk.length).toBeLessThanOrEqual(limit);
        expect(fences(chunk) % 2).toBe(0);
      }
    }
  });

  it('refuses a limit too small to hold a code fence', () => {
    expect(() => splitWhatsAppText('x', 8)).toThrow(RangeError);
  });
});
