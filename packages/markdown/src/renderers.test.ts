import { describe, expect, it } from 'vitest';
import { renderDiscordMarkdown } from './discord.ts';
import { parseMarkdown } from './parse.ts';
import { renderSlackMrkdwn } from './slack-mrkdwn.ts';
import { renderTelegramHtml, renderTelegramHtmlChunks, truncateTelegramSpans } from './telegram-html.ts';
import { spansText, telegramSpans } from './telegram-spans.ts';
import { renderWhatsApp } from './whatsapp.ts';

const telegram = (markdown: string) => renderTelegramHtmlChunks(markdown).map((chunk) => chunk.html);

describe('one parse, four renderers', () => {
  const markdown = [
    '# Report',
    '',
    'Deployed **api** with *care*; see [the docs](https://e.x/d?a=1&b=2) and ~~old~~ notes.',
    '',
    '- [x] build',
    '- [ ] ship',
    '  1. canary',
    '',
    '> quoted `x < y`',
    '',
    '```py',
    'print("a & b")',
    '```',
    '',
    '| k | v |',
    '|---|---|',
    '| a | <1> |',
  ].join('\n');
  const document = parseMarkdown(markdown);

  it('Telegram HTML', () => {
    expect(telegram(markdown)).toEqual([
      [
        '<b>Report</b>',
        '',
        'Deployed <b>api</b> with <i>care</i>; see <a href="https://e.x/d?a=1&amp;b=2">the docs</a> and <s>old</s> notes.',
        '',
        '• ☑ build',
        '• ☐ ship',
        '  1. canary',
        '',
        '<blockquote>quoted <code>x &lt; y</code></blockquote>',
        '',
        '<pre><code class="language-py">print("a &amp; b")</code></pre>',
        '',
        '<pre>| k | v |\n|---|---|\n| a | &lt;1&gt; |</pre>',
      ].join('\n'),
    ]);
  });

  it('Slack mrkdwn', () => {
    expect(renderSlackMrkdwn(document)).toBe(
      [
        '*Report*',
        '',
        'Deployed *api* with _care_; see <https://e.x/d?a=1&amp;b=2|the docs> and ~old~ notes.',
        '',
        '• ☑ build',
        '• ☐ ship',
        '  1. canary',
        '',
        '> quoted `x &lt; y`',
        '',
        '```\nprint("a &amp; b")\n```',
        '',
        '```\n| k | v |\n|---|---|\n| a | &lt;1&gt; |\n```',
      ].join('\n'),
    );
  });

  it('WhatsApp', () => {
    expect(renderWhatsApp(document)).toBe(
      [
        '*Report*',
        '',
        'Deployed *api* with _care_; see the docs (https://e.x/d?a=1&b=2) and ~old~ notes.',
        '',
        '- ☑ build',
        '- ☐ ship',
        '  1. canary',
        '',
        '> quoted `x < y`',
        '',
        '```\nprint("a & b")\n```',
        '',
        '```\n| k | v |\n|---|---|\n| a | <1> |\n```',
      ].join('\n'),
    );
  });

  it('Discord: the text as written, tables as code blocks, deep headings bold', () => {
    expect(renderDiscordMarkdown(document)).toBe(
      markdown.replace('| k | v |\n|---|---|\n| a | <1> |', '```\n| k | v |\n|---|---|\n| a | <1> |\n```'),
    );
    expect(renderDiscordMarkdown('#### Deep ####\ntext')).toBe('**Deep**\ntext');
    expect(renderDiscordMarkdown('> | a |\n> |---|\n> | 1 |')).toBe('> | a |\n> |---|\n> | 1 |');
  });
});

describe('Telegram specifics', () => {
  it('keeps a link to a reference definition and drops the definition', () => {
    expect(telegram('[docs][d]\n\n[d]: https://e.x/docs')).toEqual(['<a href="https://e.x/docs">docs</a>']);
  });

  it('shows a link with an unsafe scheme as its label, and a label-less link as its URL', () => {
    expect(telegram('[run](javascript:alert(1)) [](https://e.x)')).toEqual([
      'run <a href="https://e.x">https://e.x</a>',
    ]);
  });

  it('never nests code in a link and keeps only a known language', () => {
    expect(telegram('[`code`](https://e.x)')).toEqual(['<a href="https://e.x">code</a>']);
    expect(telegram('```a"b\nx\n```')).toEqual(['<pre>x</pre>']);
  });

  it('renders spans and truncates them with an ellipsis', () => {
    const spans = telegramSpans('**abcdefghij**');
    expect(renderTelegramHtml(spans)).toBe('<b>abcdefghij</b>');
    expect(spansText(truncateTelegramSpans(spans, 5))).toBe('abcd…');
  });

  it('refuses a limit that cannot hold a piece, naming it', () => {
    expect(() => renderTelegramHtmlChunks('text', 1)).toThrow(
      /splitTelegramSpans: the limit must be an integer of at least 2, got 1/,
    );
  });
});
