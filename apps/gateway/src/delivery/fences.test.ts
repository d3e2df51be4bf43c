import { describe, expect, it } from 'vitest';
import { createFenceSpanTracker, fenceAt, isSafeBreak, parseFenceSpans } from './fences.ts';

describe('parseFenceSpans', () => {
  it('finds backtick and tilde fences with their opening line, indent and marker', () => {
    const text = 'Intro\n  ```ts title="a"\nconst a = 1;\n  ```\nMiddle\n~~~~\nx\n~~~~~\nEnd';
    const spans = parseFenceSpans(text);
    expect(spans).toHaveLength(2);
    expect(spans[0]).toMatchObject({ openLine: '  ```ts title="a"', indent: '  ', marker: '```' });
    expect(text.slice(spans[0]?.start, spans[0]?.end)).toBe('  ```ts title="a"\nconst a = 1;\n  ```');
    expect(text.slice(spans[1]?.start, spans[1]?.end)).toBe('~~~~\nx\n~~~~~');
    expect(text.slice(spans[1]?.closeStart)).toBe('~~~~~\nEnd');
  });

  it('closes only on the same marker, at least as long, with nothing but spaces after it', () => {
    const text = '````\n```\n~~~~\n````js\n````  \nafter';
    const spans = parseFenceSpans(text);
    expect(spans).toHaveLength(1);
    expect(text.slice(spans[0]?.end)).toBe('\nafter');
  });

  it('ignores lines indented by four spaces and runs shorter than three', () => {
    expect(parseFenceSpans('    ```\ncode\n``\n')).toEqual([]);
  });

  it('runs an unclosed fence to the end of the text', () => {
    const text = 'a\n```py\nprint(1)';
    const [span] = parseFenceSpans(text);
    expect(span?.closeStart).toBe(-1);
    expect(span?.end).toBe(text.length);
    // More code may still stream in: even the end of the text is inside the fence.
    expect(isSafeBreak(parseFenceSpans(text), text.length)).toBe(false);
  });

  it('agrees with the renderers: a backtick in the info string opens nothing, a list item ends its fence', () => {
    expect(parseFenceSpans('```a`b\nnot code\n```')).toHaveLength(1);
    expect(parseFenceSpans('```a`b\nnot code\n```')[0]?.start).toBe(16);
    const text = '- item\n  ```js\n  x()\nafter the list';
    const [span] = parseFenceSpans(text);
    expect(span).toMatchObject({ openLine: '  ```js', indent: '  ', marker: '```' });
    // No closing line: the item (and its fence) ended where the unindented paragraph starts.
    expect(text.slice(span?.closeStart)).toBe('\nafter the list');
    expect(isSafeBreak(parseFenceSpans(text), text.indexOf('after'))).toBe(true);
    // A fence inside a quote is not reopened by the chunker (it would need the quote's prefix).
    expect(parseFenceSpans('> ```\n> code\n> ```')).toEqual([]);
  });

  it('a break is safe unless strictly inside a fence', () => {
    const text = 'ab\n```\nx\n```\ncd';
    const spans = parseFenceSpans(text);
    const fence = spans[0];
    expect(fence).toBeDefined();
    if (fence === undefined) return;
    expect(isSafeBreak(spans, fence.start)).toBe(true);
    expect(isSafeBreak(spans, fence.start + 1)).toBe(false);
    expect(isSafeBreak(spans, fence.end - 1)).toBe(false);
    expect(isSafeBreak(spans, fence.end)).toBe(true);
    expect(fenceAt(spans, fence.start + 4)).toBe(fence);
  });
});

describe('createFenceSpanTracker', () => {
  it('returns what parseFenceSpans returns for a growing buffer, and for a buffer cut from the front', () => {
    const text = 'Intro\n\n```ts\nconst a = 1;\n``\n```\n\nafter\n~~~\nunclosed';
    const spansOf = createFenceSpanTracker();
    for (let end = 0; end <= text.length; end++) {
      expect(spansOf(text.slice(0, end)), `prefix of ${end}`).toEqual(parseFenceSpans(text.slice(0, end)));
    }
    expect(spansOf(text)).toHaveLength(2);
    const rest = text.slice(text.indexOf('after'));
    expect(spansOf(rest)).toEqual(parseFenceSpans(rest));
    expect(spansOf(rest)[0]?.closeStart).toBe(-1);
  });
});
