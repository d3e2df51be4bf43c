// The WebChat page's Markdown reader and error wording, run in Node: both are plain modules
// without DOM access, so what the browser shows is decided here.
import { describe, expect, it } from 'vitest';
import {
  describeConnectError,
  describeRunError,
  formatDuration,
  retryAfterFromText,
} from '../src/webchat/static/describe-error.js';
import {
  type MarkdownElement,
  type MarkdownNode,
  parseInline,
  parseMarkdown,
  safeUrl,
  textOf,
} from '../src/webchat/static/markdown.js';

/** A compact rendering of the tree for assertions: `<tag attr=value>children</tag>`. */
function show(nodes: readonly MarkdownNode[]): string {
  return nodes
    .map((node) => {
      if (typeof node === 'string') return node;
      const attrs = Object.entries(node.attrs ?? {})
        .map(([name, value]) => ` ${name}=${value}`)
        .join('');
      return `<${node.tag}${attrs}>${show(node.children)}</${node.tag}>`;
    })
    .join('');
}

function tags(nodes: readonly MarkdownNode[]): string[] {
  return nodes.flatMap((node) => (typeof node === 'string' ? [] : [node.tag, ...tags(node.children)]));
}

describe('WebChat markdown: blocks', () => {
  it('reads headings, paragraphs with line breaks, rules and quotes', () => {
    const tree = parseMarkdown('# Title\n\nfirst line\nsecond line\n\n---\n\n> quoted *text*');
    expect(show(tree)).toBe(
      '<h1>Title</h1><p>first line<br></br>second line</p><hr></hr><blockquote><p>quoted <em>text</em></p></blockquote>',
    );
  });

  it('keeps fenced code verbatim with its language, and runs an unclosed fence to the end (streaming)', () => {
    const closed = parseMarkdown('```ts\nconst a = `<b>` && b;\n**not bold**\n```\nafter');
    expect(show(closed)).toBe(
      '<pre data-language=ts><code data-language=ts>const a = `<b>` && b;\n**not bold**</code></pre><p>after</p>',
    );
    const open = parseMarkdown('text\n\n~~~python\nprint(1)\nprint(2)');
    expect(show(open)).toBe(
      '<p>text</p><pre data-language=python><code data-language=python>print(1)\nprint(2)</code></pre>',
    );
    expect(parseMarkdown('```js" onload="x\nx\n```')[0]).toMatchObject({ attrs: { 'data-language': 'js' } });
  });

  it('reads nested lists, ordered lists with a start, and tight items without paragraphs', () => {
    const tree = parseMarkdown('- one\n- two\n  - inner\n  - inner 2\n- three\n\n3. c\n4. d');
    expect(show(tree)).toBe(
      '<ul><li>one</li><li><p>two</p><ul><li>inner</li><li>inner 2</li></ul></li><li>three</li></ul><ol start=3><li>c</li><li>d</li></ol>',
    );
  });

  it('reads pipe tables with alignment and escaped pipes', () => {
    const tree = parseMarkdown('| Name | Count |\n|:-----|------:|\n| a \\| b | `1` |\n| c | 2 |');
    expect(show(tree)).toBe(
      '<div class=table-wrap><table><thead><tr><th data-align=left>Name</th><th data-align=right>Count</th></tr></thead>' +
        '<tbody><tr><td data-align=left>a | b</td><td data-align=right><code>1</code></td></tr>' +
        '<tr><td data-align=left>c</td><td data-align=right>2</td></tr></tbody></table></div>',
    );
  });

  it('starts a list or a fence right after a paragraph line', () => {
    expect(tags(parseMarkdown('Steps:\n1. first\n2. second'))).toEqual(['p', 'ol', 'li', 'li']);
    expect(tags(parseMarkdown('Run this:\n```sh\nls\n```'))).toEqual(['p', 'pre', 'code']);
  });
});

describe('WebChat markdown: inline', () => {
  it('reads code spans, bold, italic, strike-through and escapes', () => {
    expect(show(parseInline('**bold** and *it* and _it_ and ~~gone~~ and `a*b*c` and \\*star\\*'))).toBe(
      '<strong>bold</strong> and <em>it</em> and <em>it</em> and <del>gone</del> and <code>a*b*c</code> and *star*',
    );
    expect(show(parseInline('snake_case_name stays, 2 * 3 * 4 too'))).toBe(
      'snake_case_name stays, 2 * 3 * 4 too',
    );
    expect(show(parseInline('**bold with `code`** after'))).toBe(
      '<strong>bold with <code>code</code></strong> after',
    );
  });

  it('links only to http(s) and mailto, and opens them in a new tab without a referrer', () => {
    const [anchor] = parseInline('[docs](https://example.com/a?b=1)') as MarkdownElement[];
    expect(anchor).toEqual({
      tag: 'a',
      attrs: { href: 'https://example.com/a?b=1', rel: 'noopener noreferrer nofollow', target: '_blank' },
      children: ['docs'],
    });
    expect(show(parseInline('[x](javascript:alert(1)) [y](data:text/html,hi) [z](vbscript:x)'))).toBe(
      'x y z',
    );
    expect(show(parseInline('see https://example.com/path. and <mailto:a@b.c>'))).toBe(
      'see <a href=https://example.com/path rel=noopener noreferrer nofollow target=_blank>https://example.com/path</a>. and ' +
        '<a href=mailto:a@b.c rel=noopener noreferrer nofollow target=_blank>mailto:a@b.c</a>',
    );
    expect(safeUrl(' JAVASCRIPT:alert(1)')).toBeUndefined();
    expect(safeUrl('https://exa mple.com')).toBeUndefined();
  });

  it('shows images as links and never as images (a reply must not make the browser fetch)', () => {
    const tree = parseMarkdown('![chart](https://example.com/c.png) ![x](javascript:1)');
    expect(tags(tree)).toEqual(['p', 'a']);
    expect(textOf(tree)).toBe('🖼 chart [x]');
  });

  it('leaves HTML as text: no tag name or attribute comes from the input', () => {
    const hostile =
      '<img src=x onerror="alert(1)"> <script>alert(2)</script> <a href="javascript:alert(3)">x</a>\n\n' +
      '<iframe srcdoc="<script>alert(4)</script>"></iframe> [a](https://ok.example/"onmouseover="alert(5))';
    const tree = parseMarkdown(hostile);
    const used = new Set(tags(tree));
    for (const tag of used) expect(['p', 'br', 'a']).toContain(tag);
    expect(textOf(tree)).toContain('<img src=x onerror="alert(1)">');
    expect(textOf(tree)).toContain('<script>alert(2)</script>');
    const anchors = JSON.stringify(tree).match(/"href":"[^"]*"/g) ?? [];
    for (const href of anchors) expect(href).toMatch(/^"href":"https:\/\/ok\.example\//);
  });

  it('survives deep nesting and long input without blowing the stack or taking long', () => {
    const deep = `${'> '.repeat(200)}deep\n\n${'- '.repeat(200)}x\n\n${'*'.repeat(5000)}`;
    const started = performance.now();
    const tree = parseMarkdown(deep.repeat(5));
    expect(textOf(tree)).toContain('deep');
    const big = parseMarkdown('word **bold** `code` [l](https://a.example) '.repeat(4000));
    expect(textOf(big).length).toBeGreaterThan(60_000);
    for (const pathological of [
      '*a '.repeat(20_000),
      '['.repeat(40_000),
      '[a]('.repeat(20_000),
      '_x '.repeat(20_000),
    ])
      expect(textOf(parseMarkdown(pathological)).length).toBeGreaterThan(30_000);
    expect(performance.now() - started).toBeLessThan(3000);
  });
});

describe('WebChat error wording', () => {
  it('says rate-limited with the wait, from the detail or from the message', () => {
    expect(
      describeRunError({
        errorKind: 'rate_limit',
        errorDetail: { errorClass: 'rate_limit', retryAfterMs: 42_000 },
      }),
    ).toMatchObject({
      title: 'The model provider is rate-limiting this gateway.',
      hint: 'Try again in 42 s.',
    });
    const fromText = describeRunError({
      errorKind: 'rate_limit',
      errorMessage:
        'All models failed (1 tried):\n- anthropic/claude-sonnet-4-6: rate limited on anthropic:main\nSoonest usable again: anthropic/claude-sonnet-4-6 in 5 min.',
    });
    expect(fromText.hint).toBe('Try again in 5 min.');
    expect(describeRunError({ errorKind: 'rate_limit' }).hint).toBe('Try again in a little while.');
  });

  it('names authentication failures, unreachable models, overflow and unknown failures plainly', () => {
    expect(describeRunError({ errorDetail: { errorClass: 'auth' } }).title).toMatch(/rejected the API key/);
    expect(describeRunError({ errorKind: 'timeout', errorDetail: { errorClass: 'timeout' } }).title).toMatch(
      /unreachable/,
    );
    expect(describeRunError({ errorKind: 'context_length' }).hint).toMatch(/\/compact/);
    expect(describeRunError({ errorMessage: 'socket hang up\nstack…' }).title).toBe(
      'The reply failed: socket hang up',
    );
  });

  it('says plainly that no API key is configured, apart from a rejected key', () => {
    const live = describeRunError({
      errorMessage:
        'no API key is configured for anthropic: set ANTHROPIC_API_KEY or models.providers.anthropic.apiKey — turns will fail until then',
      errorKind: 'unknown',
      errorDetail: { errorClass: 'no_credentials' },
    });
    expect(live.title).toBe('No API key is configured for anthropic, so the gateway cannot answer.');
    expect(live.hint).toMatch(/ANTHROPIC_API_KEY.*models\.providers\.anthropic\.apiKey.*switchboard doctor/);
    expect(live.title).not.toMatch(/rejected/);
    // A failed message loaded from history: the provider's own words, with its class or without.
    const stored = 'No API key or auth token for provider work (model claude-sonnet-4-6).';
    expect(
      describeRunError({ errorMessage: stored, errorDetail: { errorClass: 'no_credentials' } }),
    ).toMatchObject({
      title: 'No API key is configured for work, so the gateway cannot answer.',
      hint: expect.stringContaining('models.providers.work.apiKey'),
    });
    expect(describeRunError({ errorMessage: stored }).title).toMatch(/^No API key is configured for work/);
  });

  it('recognizes the failure from the text alone, as history gives it', () => {
    const fromHistory = (errorMessage: string) => describeRunError({ errorMessage });
    expect(
      fromHistory(
        'All models failed (1 tried):\n- anthropic/claude-sonnet-4-6: rate limited on anthropic:main\nSoonest usable again: anthropic/claude-sonnet-4-6 in 42 s.',
      ),
    ).toMatchObject({
      title: 'The model provider is rate-limiting this gateway.',
      hint: 'Try again in 42 s.',
    });
    expect(
      fromHistory('All models failed (1 tried):\n- anthropic/claude-sonnet-4-6: key rejected').title,
    ).toMatch(/rejected the API key/);
    expect(fromHistory('anthropic/claude-sonnet-4-6: timed out').title).toMatch(/unreachable/);
    expect(fromHistory('something odd').title).toBe('The reply failed: something odd');
  });

  it('words handshake refusals and says when to ask for the token again', () => {
    expect(describeConnectError({ details: { code: 'AUTH_TOKEN_MISMATCH' } })).toEqual({
      message: 'The gateway refused this token. Check it and try again.',
      askToken: true,
    });
    expect(
      describeConnectError({ details: { code: 'AUTH_RATE_LIMITED' }, retryAfterMs: 300_000 }).message,
    ).toBe('Too many wrong tokens from here. Try again in 5 min.');
    expect(describeConnectError({ message: 'boom' })).toEqual({ message: 'boom', askToken: false });
  });

  it('formats and reads durations', () => {
    expect([
      formatDuration(400),
      formatDuration(42_000),
      formatDuration(600_000),
      formatDuration(7_200_000),
    ]).toEqual(['1 s', '42 s', '10 min', '2 h']);
    expect(retryAfterFromText('retry in 1500 ms')).toBe(1500);
    expect(retryAfterFromText('usable again: x in 2 h.')).toBe(7_200_000);
    expect(retryAfterFromText('nothing here in 5 s')).toBeUndefined();
  });
});
