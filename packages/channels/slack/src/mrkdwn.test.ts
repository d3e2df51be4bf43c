import { describe, expect, it } from 'vitest';
import { escapeMrkdwn, markdownToMrkdwn, slackMentions, slackToText, splitMrkdwn } from './mrkdwn.ts';

const fences = (text: string) => (text.match(/^```/gm) ?? []).length;

describe('markdownToMrkdwn', () => {
  it.each([
    ['**bold** and __bold__', '*bold* and *bold*'],
    ['*italic* and _italic_', '_italic_ and _italic_'],
    ['***both***', '*_both_*'],
    ['~~gone~~', '~gone~'],
    ['snake_case_name and 2 * 3 * 4', 'snake_case_name and 2 * 3 * 4'],
    ['a `code <x> & y` b', 'a `code &lt;x&gt; &amp; y` b'],
    ['a `code with ** stars` b', 'a `code with ** stars` b'],
    ['escape a < b & c > d', 'escape a &lt; b &amp; c &gt; d'],
    ['escaped \\*not bold\\* here', 'escaped ∗not bold∗ here'],
  ])('converts inline %j', (markdown, mrkdwn) => {
    expect(markdownToMrkdwn(markdown)).toBe(mrkdwn);
  });

  it('turns links and images into Slack links, keeps autolinks and bare URLs intact', () => {
    expect(markdownToMrkdwn('[the **docs**](https://example.com/a?b=1&c=2)')).toBe(
      '<https://example.com/a?b=1&amp;c=2|the docs>',
    );
    expect(markdownToMrkdwn('![a chart](https://img.example/x.png)')).toBe(
      '<https://img.example/x.png|a chart>',
    );
    expect(markdownToMrkdwn('see <https://auto.link/x>')).toBe('see <https://auto.link/x>');
    expect(markdownToMrkdwn('see https://bare.example/a_b_c?q=1&r=*2*.')).toBe(
      'see https://bare.example/a_b_c?q=1&amp;r=*2*.',
    );
    expect(markdownToMrkdwn('[a|b](https://x.example/p|q)')).toBe('<https://x.example/p%7Cq|a/b>');
  });

  it('keeps Slack tokens: user, channel and special mentions', () => {
    const text = 'ping <@U123> in <#C123|general>, <!here> and <!subteam^S1|@team>';
    expect(markdownToMrkdwn(text)).toBe(text);
  });

  it('renders headings bold, bullets as •, task boxes, quotes and rules', () => {
    expect(markdownToMrkdwn('# Title **x**\n## Sub ##')).toBe('*Title x*\n*Sub*');
    expect(markdownToMrkdwn('- one\n* **two**\n  + nested\n- [ ] todo\n- [x] done\n1. first')).toBe(
      '• one\n• *two*\n  • nested\n• ☐ todo\n• ☑ done\n1. first',
    );
    expect(markdownToMrkdwn('> quoted *text*\n>\n> more')).toBe('> quoted _text_\n>\n> more');
    expect(markdownToMrkdwn('above\n\n---\n\nbelow')).toBe('above\n\n──────────\n\nbelow');
  });

  it('drops the language of fenced code, escapes its content and leaves it unformatted', () => {
    expect(markdownToMrkdwn('```ts\nconst a = b < c && **d**;\n```\nafter *x*')).toBe(
      '```\nconst a = b &lt; c &amp;&amp; **d**;\n```\nafter _x_',
    );
    expect(markdownToMrkdwn('~~~\ntilde fence\n~~~')).toBe('```\ntilde fence\n```');
    // A longer closing fence closes; a shorter one is content.
    expect(markdownToMrkdwn('````\n```\ninner\n````')).toBe('```\n```\ninner\n```');
  });

  it('puts a table in a code block', () => {
    expect(markdownToMrkdwn('| a | b |\n|---|:-:|\n| 1 | <2> |\n\nafter')).toBe(
      '```\n| a | b |\n|---|:-:|\n| 1 | &lt;2&gt; |\n```\n\nafter',
    );
  });
});

describe('splitMrkdwn', () => {
  it('keeps short text whole and drops blank text', () => {
    expect(splitMrkdwn('hello', 100)).toEqual(['hello']);
    expect(splitMrkdwn('  \n ', 100)).toEqual([]);
  });

  it('splits at paragraph boundaries within the limit', () => {
    const paragraphs = Array.from({ length: 30 }, (_, index) =>
      `Paragraph ${index} ${'word '.repeat(15)}`.trim(),
    );
    const chunks = splitMrkdwn(paragraphs.join('\n\n'), 500);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(500);
      expect(chunk.startsWith('Paragraph')).toBe(true);
      expect(chunk.endsWith('word')).toBe(true);
    }
    expect(chunks.join('\n\n')).toBe(paragraphs.join('\n\n'));
  });

  it('closes and reopens a code block split across messages', () => {
    const code = Array.from({ length: 80 }, (_, index) => `line ${index} &amp; more`).join('\n');
    const chunks = splitMrkdwn(`intro\n\n\`\`\`\n${code}\n\`\`\`\nafter`, 400);
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(400);
      expect(fences(chunk) % 2).toBe(0);
    }
    const lines = chunks
      .join('\n')
      .split('\n')
      .filter((line) => line.startsWith('line '));
    expect(lines).toHaveLength(80);
    expect(chunks.at(-1)?.endsWith('after')).toBe(true);
  });

  it('cuts an overlong line at whitespace and never inside an entity or a <…> token', () => {
    const line = `${'abc '.repeat(60)}&amp; <https://example.com/very/long|label> ${'xyz '.repeat(60)}`;
    const chunks = splitMrkdwn(line, 100);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(100);
      expect(chunk).not.toMatch(/&[a-z]*$/);
      expect((chunk.match(/</g) ?? []).length).toBe((chunk.match(/>/g) ?? []).length);
    }
    expect(chunks.join(' ').replace(/\s+/g, ' ').trim()).toBe(line.trim().replace(/\s+/g, ' '));
  });

  it('rejects a limit too small to hold a fence', () => {
    expect(() => splitMrkdwn('x', 3)).toThrow(RangeError);
  });
});

describe('slackToText', () => {
  it('removes the bot mention and renders names, channels, specials and links', () => {
    const text =
      '<@UBOT> hey <@U1|alice> and <@U2>, see <#C1|general> <#C2>, <!here> <!subteam^S9> <https://x.com|site> <https://y.com> <mailto:a@b.co|a@b.co>';
    expect(
      slackToText(text, { botUserId: 'UBOT', userName: (id) => (id === 'U2' ? 'bob' : undefined) }),
    ).toBe('hey @alice and @bob, see #general #C2, @here @S9 site (https://x.com) https://y.com a@b.co');
  });

  it('unescapes &amp; &lt; &gt; after the tokens are read', () => {
    expect(slackToText('a &lt;b&gt; &amp;lt; c')).toBe('a <b> &lt; c');
  });

  it('keeps indentation of pasted code and a mention in the middle of a sentence', () => {
    expect(slackToText('look:\n    indented\n  code', { botUserId: 'UBOT' })).toBe(
      'look:\n    indented\n  code',
    );
    expect(slackToText('ask <@UBOT> now', { botUserId: 'UBOT' })).toBe('ask now');
  });

  it('lists mentioned user ids once, in order', () => {
    expect(slackMentions('<@U1> <@U2|two> <@U1> <#C1>')).toEqual(['U1', 'U2']);
  });

  it('escapes for mrkdwn', () => {
    expect(escapeMrkdwn('a & <b>')).toBe('a &amp; &lt;b&gt;');
  });
});
