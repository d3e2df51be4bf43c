import { describe, expect, it } from 'vitest';
import { findCodeFences } from './code-fences.ts';

describe('findCodeFences', () => {
  it('finds fences with their opening line, indent, marker and closing line', () => {
    const text = 'Intro\n  ```ts title="a"\nconst a = 1;\n  ```\nMiddle\n~~~~\nx\n~~~~~\nEnd';
    const fences = findCodeFences(text);
    expect(fences).toHaveLength(2);
    expect(fences[0]).toMatchObject({ openLine: '  ```ts title="a"', indent: '  ', marker: '```' });
    expect(text.slice(fences[0]?.start, fences[0]?.end)).toBe('  ```ts title="a"\nconst a = 1;\n  ```');
    expect(text.slice(fences[1]?.closeStart)).toBe('~~~~~\nEnd');
  });

  it('runs an unclosed fence to the end of the text', () => {
    const text = 'a\n```py\nprint(1)';
    expect(findCodeFences(text)).toEqual([
      {
        start: 2,
        openLineEnd: 7,
        closeStart: -1,
        end: text.length,
        openLine: '```py',
        indent: '',
        marker: '```',
      },
    ]);
  });

  it('leaves out indented code, fences in quotes, and text without a fence (without parsing)', () => {
    expect(findCodeFences('    ```\n    code')).toEqual([]);
    expect(findCodeFences('> ```\n> code\n> ```')).toEqual([]);
    expect(findCodeFences('just `code` and ``more``')).toEqual([]);
  });

  it('ends a fence with its list item', () => {
    const text = '- item\n  ```js\n  x()\nafter';
    const [fence] = findCodeFences(text);
    expect(fence?.closeStart).toBe(text.indexOf('\nafter'));
    expect(fence?.end).toBe(text.indexOf('\nafter'));
  });
});
