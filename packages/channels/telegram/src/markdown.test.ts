import { splitTelegramSpans as splitSpans } from '@switchboard/markdown/internal';
import { parseTelegramHtml } from '@switchboard/testkit/telegram';
import { describe, expect, it } from 'vitest';
import { markdownToTelegramHtml, parseMarkdown, spansText, truncateSpans } from './markdown.ts';

const html = (markdown: string) => markdownToTelegramHtml(markdown).map((chunk) => chunk.html);

describe('markdownToTelegramHtml', () => {
  it.each([
    ['**bold**, __bold__, *italic*, _italic_', '<b>bold</b>, <b>bold</b>, <i>italic</i>, <i>italic</i>'],
    ['~~gone~~ and ||hidden||', '<s>gone</s> and <tg-spoiler>hidden</tg-spoiler>'],
    ['***both***', '<b><i>both</i></b>'],
    [
      '[a cat][pic] and *[alt text][pic]*\n\n[pic]: https://e.x/p',
      '<a href="https://e.x/p">a cat</a> and <i><a href="https://e.x/p">alt text</a></i>',
    ],
    ['- [ ] todo\n- [x] done\n  - nested\n\n  more', '• ☐ todo\n• ☑ done\n  • nested\n\n  more'],
    ['snake_case_names stay_as_they_are', 'snake_case_names stay_as_they_are'],
    ['2 * 3 * 4 and a*b', '2 * 3 * 4 and a*b'],
    ['`a < b && c`', '<code>a &lt; b &amp;&amp; c</code>'],
    ['`` code with ` inside ``', '<code>code with ` inside</code>'],
    ['**bold with `code` inside**', '<b>bold with </b><code>code</code><b> inside</b>'],
    [
      '[docs](https://example.com/a?b=1&c="2")',
      '<a href="https://example.com/a?b=1&amp;c=&quot;2&quot;">docs</a>',
    ],
    ['[**bold link**](https://e.x)', '<a href="https://e.x"><b>bold link</b></a>'],
    ['[click](javascript:alert(1))', 'click'],
    ['![a cat](https://e.x/cat.png)', '<a href="https://e.x/cat.png">a cat</a>'],
    ['<https://e.x/path>', '<a href="https://e.x/path">https://e.x/path</a>'],
    ['<b>not a tag</b> & <script>', '&lt;b&gt;not a tag&lt;/b&gt; &amp; &lt;script&gt;'],
    ['\\*not italic\\* and \\_not\\_', '*not italic* and _not_'],
    ['# Title\n## Sub', '<b>Title</b>\n<b>Sub</b>'],
    ['> quoted **line**\n> second', '<blockquote>quoted <b>line</b>\nsecond</blockquote>'],
    ['- one\n* two\n+ three\n1. four', '• one\n• two\n• three\n1. four'],
    ['above\n\n---\n\nbelow', 'above\n\n———\n\nbelow'],
    [
      '```ts\nconst a = x < y;\n  indented();\n```',
      '<pre><code class="language-ts">const a = x &lt; y;\n  indented();</code></pre>',
    ],
    ['```\nno language\n```', '<pre>no language</pre>'],
    ['```js\nnever closed', '<pre><code class="language-js">never closed</code></pre>'],
    ['| a | b |\n|---|---|\n| 1 | 2 |', '<pre>| a | b |\n|---|---|\n| 1 | 2 |</pre>'],
    ['**never closed and *this neither', '**never closed and *this neither'],
    // A bare URL is a link (GFM autolink literal); the old regex reader left it as text.
    ['[unclosed](https://e.x', '[unclosed](<a href="https://e.x">https://e.x</a>'],
  ])('renders %j', (markdown, expected) => {
    expect(html(markdown)).toEqual([expected]);
  });

  it('gives nothing for blank input and keeps blank lines between paragraphs', () => {
    expect(markdownToTelegramHtml('  \n\n ')).toEqual([]);
    expect(markdownToTelegramHtml('one\n\n\ntwo')).toEqual([{ html: 'one\n\n\ntwo', text: 'one\n\n\ntwo' }]);
  });

  it('splits at paragraph breaks by visible length, reopening styles in the next piece', () => {
    const paragraph = `**${'a'.repeat(30)}**`;
    const chunks = markdownToTelegramHtml(`${paragraph}\n\n${paragraph}\n\n${paragraph}`, 70);
    expect(chunks.map((chunk) => chunk.text.length)).toEqual([62, 30]);
    expect(chunks[0]?.html).toBe(`<b>${'a'.repeat(30)}</b>\n\n<b>${'a'.repeat(30)}</b>`);
    // The markup does not count: 4,096 bold characters are one message.
    expect(markdownToTelegramHtml(`**${'b'.repeat(4096)}**`)).toHaveLength(1);
  });

  it('splits a long code block into code blocks, keeping indentation', () => {
    const code = Array.from({ length: 12 }, (_, line) => `    step(${line})`).join('\n');
    const chunks = markdownToTelegramHtml(`\`\`\`py\n${code}\n\`\`\``, 60);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(chunk.html.startsWith('<pre><code class="language-py">')).toBe(true);
      expect(chunk.html.endsWith('</code></pre>')).toBe(true);
      expect(chunk.text.startsWith('    step(')).toBe(true);
    }
    expect(chunks.map((chunk) => chunk.text).join('\n')).toBe(code);
  });

  it('cuts a word too long for one piece hard, never between the halves of a surrogate pair', () => {
    const pieces = splitSpans(parseMarkdown(`${'x'.repeat(9)}😀${'y'.repeat(5)}`), 10);
    expect(pieces.map(spansText)).toEqual(['x'.repeat(9), `😀${'y'.repeat(5)}`]);
  });

  it('truncates with an ellipsis', () => {
    const spans = truncateSpans(parseMarkdown('**abcdefghij**'), 5);
    expect(spansText(spans)).toBe('abcd…');
  });

  it('never produces HTML Telegram refuses, whatever the input (seeded random Markdown)', () => {
    const tokens = [
      '*',
      '**',
      '***',
      '_',
      '__',
      '`',
      '```',
      '```ts',
      '~~',
      '||',
      '[',
      ']',
      '(',
      ')',
      '](https://x.y/?a=1&b=2)',
      '<',
      '>',
      '&',
      '"',
      '\\',
      '\n',
      '\n\n',
      '# ',
      '> ',
      '- ',
      '1. ',
      '| a | b |',
      '|---|---|',
      'word',
      ' ',
      'snake_case',
      '😀',
      'https://e.x',
      '<https://e.x>',
      '![i](https://e.x/i.png)',
      '---',
    ];
    let seed = 20_251_122;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (let sample = 0; sample < 1500; sample += 1) {
      const length = 1 + Math.floor(random() * 40);
      const markdown = Array.from({ length }, () => tokens[Math.floor(random() * tokens.length)]).join('');
      const limit = 20 + Math.floor(random() * 200);
      for (const chunk of markdownToTelegramHtml(markdown, limit)) {
        const parsed = parseTelegramHtml(chunk.html);
        if (!parsed.ok)
          throw new Error(
            `${JSON.stringify(markdown)} → ${JSON.stringify(chunk.html)}: ${parsed.description}`,
          );
        expect(parsed.text).toBe(chunk.text);
        expect(chunk.text.length).toBeLessThanOrEqual(limit);
        expect(chunk.text.trim()).not.toBe('');
      }
    }
  });

  it('handles thousands of unmatched delimiters quickly', () => {
    const started = performance.now();
    markdownToTelegramHtml(`${'*a '.repeat(1500)}${'[b '.repeat(1000)}${'_c '.repeat(1000)}`);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
