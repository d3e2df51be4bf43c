import { describe, expect, it } from 'vitest';
import { parseTelegramHtml } from './html.ts';
import { multipartBoundary, parseMultipart } from './multipart.ts';

describe('parseTelegramHtml', () => {
  it('decodes entities and reports entity offsets in UTF-16 units of the visible text', () => {
    const result = parseTelegramHtml('😀 <b>a &lt;b&gt;</b> <i>it</i> &#65;&#x42; &amp;');
    expect(result).toEqual({
      ok: true,
      text: '😀 a <b> it AB &',
      entities: [
        { type: 'bold', offset: 3, length: 5 },
        { type: 'italic', offset: 9, length: 2 },
      ],
    });
  });

  it('puts the language of <pre><code class="language-x"> on the pre entity', () => {
    const result = parseTelegramHtml('<pre><code class="language-ts">const a = 1;</code></pre>');
    expect(result).toEqual({
      ok: true,
      text: 'const a = 1;',
      entities: [{ type: 'pre', offset: 0, length: 12, language: 'ts' }],
    });
  });

  it('supports spoilers, blockquotes and the tag aliases', () => {
    const result = parseTelegramHtml(
      '<strong>s</strong><em>e</em><ins>u</ins><del>d</del><span class="tg-spoiler">x</span><tg-spoiler>y</tg-spoiler><blockquote expandable>q</blockquote>',
    );
    expect(result.ok && result.entities.map((entity) => entity.type)).toEqual([
      'bold',
      'italic',
      'underline',
      'strikethrough',
      'spoiler',
      'spoiler',
      'expandable_blockquote',
    ]);
  });

  it.each([
    ['<b>open', /Can't find end tag corresponding to start tag "b"/],
    ['<b><i>x</b></i>', /Unmatched end tag at byte offset 7, expected "<\/i>", found "<\/b>"/],
    ['x</b>', /Unexpected end tag/],
    ['<div>x</div>', /Unsupported start tag "div"/],
    ['<code><b>x</b></code>', /Can't use a "b" tag inside a "code" tag/],
    ['<pre><i>x</i></pre>', /Can't use a "i" tag inside a "pre" tag/],
    ['<a href="https://a"><a href="https://b">x</a></a>', /Nested "a" tags/],
    ['<blockquote><blockquote>x</blockquote></blockquote>', /Nested "blockquote" tags/],
    ['<span>x</span>', /must have class "tg-spoiler"/],
    ['1 < 2 > 0', /Unsupported start tag/],
    ['a < b', /Unclosed start tag/],
    ['a <b', /Unclosed start tag/],
  ])('refuses %j', (html, pattern) => {
    const result = parseTelegramHtml(html);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.description).toMatch(/^Bad Request: can't parse entities: /);
      expect(result.description).toMatch(pattern);
    }
  });
});

describe('parseMultipart', () => {
  it('reads lenient part headers (no spaces, unquoted filename) and binary bodies', () => {
    const boundary = 'grammy0123';
    const binary = Buffer.from([0, 1, 2, 13, 10, 255]);
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\ncontent-disposition:form-data;name="chat_id"\r\n\r\n42\r\n`),
      Buffer.from(
        `--${boundary}\r\ncontent-disposition:form-data;name="abc";filename=a.jpg\r\ncontent-type:image/jpeg\r\n\r\n`,
      ),
      binary,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    expect(multipartBoundary(`multipart/form-data; boundary=${boundary}`)).toBe(boundary);
    const parts = parseMultipart(body, boundary);
    expect(parts.map((part) => [part.name, part.fileName, part.contentType])).toEqual([
      ['chat_id', undefined, undefined],
      ['abc', 'a.jpg', 'image/jpeg'],
    ]);
    expect(parts[0]?.data.toString()).toBe('42');
    expect(parts[1]?.data.equals(binary)).toBe(true);
  });

  it('names what is wrong with a malformed body', () => {
    expect(() => parseMultipart(Buffer.from('nothing here'), 'b')).toThrow(/no boundary line/);
    expect(() => parseMultipart(Buffer.from('--b\r\nx: y\r\n\r\nbody\r\n--b--'), 'b')).toThrow(/no name/);
    expect(() =>
      parseMultipart(Buffer.from('--b\r\ncontent-disposition: form-data; name="a"\r\n\r\nbody'), 'b'),
    ).toThrow(/without a closing boundary/);
  });
});
