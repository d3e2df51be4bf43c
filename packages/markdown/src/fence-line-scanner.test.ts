// The line scan must return exactly what the mdast parse returns on every text it accepts, and
// give up (so the caller parses) on the rest. Checked on random Markdown (the renderers'
// arbitrary, and one built from the lines that matter to fences), on hand-written edge cases,
// and, for the tracker, on every prefix of a text streamed in random pieces.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCodeFenceTracker, findCodeFences, findCodeFencesByParse } from './code-fences.ts';
import { scanFenceBlocks } from './fence-line-scanner.ts';
import { markdownDocument } from './markdown-arbitrary.test-support.ts';

const runs = { numRuns: Number(process.env.PROPERTY_RUNS ?? 300) };

const indent = fc.constantFrom('', '', '', ' ', '  ', '   ', '    ', '\t', ' \t', '     ');
const fenceRun = fc.constantFrom('```', '```', '~~~', '````', '~~~~', '``', '`````', '~~');
const info = fc.constantFrom('', '', 'ts', ' js', 'a`b', ' x ~~~', '```', '  ', '\t', 'py title="a"');

/** One line of the kinds that decide where a fence is. */
const fenceLine: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(indent, fenceRun, info).map(([space, run, rest]) => space + run + rest) },
  {
    weight: 5,
    arbitrary: fc
      .tuple(fc.constantFrom('', '', ' ', '   ', '    '), fenceRun, fc.constantFrom('', '', ' ', '\t', ' x'))
      .map(([space, run, rest]) => space + run + rest),
  },
  { weight: 3, arbitrary: fc.constantFrom('', '', ' ', '\t', '   ') },
  {
    weight: 4,
    arbitrary: fc.constantFrom('code();', 'plain text', 'a ``` b', 'x ~~~', '# heading', '---', '***', '==='),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        indent,
        fc.constantFrom('- ', '* ', '+ ', '1. ', '2) ', '> ', '>', '-', '- [ ] ', '10. ', '> - ', '- > '),
        fc.constantFrom('item', '```', '~~~js', '', '  ```', 'a ``` b'),
      )
      .map(([space, marker, rest]) => space + marker + rest),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        indent,
        fc.constantFrom(
          '<div>',
          '<pre>',
          '</pre>',
          '<!-- c',
          '-->',
          '<?x',
          '<3',
          '<a href="x">',
          '<https://e.x>',
          '<think>plan</think>',
          '<think>',
          '</think>  ',
          '<a',
          'b="x">',
          "<x y='>'>",
          '<x y=">" z',
          '<custom-tag attr=1 />',
          '<DIV class=x',
          '<a>b',
          '<!DOCTYPE html>',
        ),
      )
      .map(([space, html]) => space + html),
  },
  {
    // A list item holding a fence, indented to its content column or near it, closed or not.
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.constantFrom('- ', '* ', '+ ', '1. ', '2) ', '10. ', '-   ', '1.    ', '-', '- # h', '3.  '),
        fc.constantFrom('step', '', '# title', 'a ``` b', '```', '[a]: /u'),
        fc.constantFrom('\n', '\n\n', '\nlazy\n', '\n\n\n'),
        fc.integer({ min: 0, max: 7 }),
        fc.constantFrom('```', '~~~', '````', '```js'),
        fc.array(fc.constantFrom('code', '', '  ', '\tx', 'lazy', '    deep', '- x', '```', '~~~'), {
          maxLength: 4,
        }),
        fc.integer({ min: 0, max: 7 }),
        fc.constantFrom('```', '~~~', '````', '``` x', ''),
        fc.constantFrom('', '\n', '\n\n', '\nafter', '\n\n2. next', '\n- next', '\n  more', '\n\nafter'),
      )
      .map(
        ([marker, content, between, openIndent, opening, body, closeIndent, closing, after]) =>
          `${marker}${content}${between}${' '.repeat(openIndent)}${opening}\n${body
            .map((line) => ' '.repeat(openIndent) + line)
            .join('\n')}${body.length > 0 ? '\n' : ''}${' '.repeat(closeIndent)}${closing}${after}`,
      ),
  },
  {
    // A container, then a lazy line or a blank line or nothing, then a fence that may be inside it.
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.constantFrom('- a', '1. a', '> a', '-', '  - a', '- > a'),
        fc.constantFrom('', '\nlazy', '\n', '\n\nnext', '\n  more', '\n\n  more'),
        fc.constantFrom(' ', '  ', '   ', '', '\t', '     '),
        fc.constantFrom('```', '~~~'),
      )
      .map(([container, between, space, run]) => `${container}${between}\n${space}${run}`),
  },
  { weight: 1, arbitrary: fc.constantFrom("[a]: /url 'title", "'", '[a]:', '  /url', '[b]: <x> "t') },
  {
    weight: 1,
    arbitrary: fc.string({
      unit: fc.constantFrom('`', '~', ' ', '\t', 'a', '-', '>', '<', '\n', '\r'),
      maxLength: 12,
    }),
  },
);

/** Text built from those lines, sometimes ending without a newline, sometimes with one. */
const fenceDocument: fc.Arbitrary<string> = fc
  .tuple(fc.array(fenceLine, { minLength: 2, maxLength: 24 }), fc.constantFrom('', '\n'))
  .map(([lines, ending]) => lines.join('\n') + ending);

/** A text likely to have fences, streamed: the text and the offsets where pieces end. */
const streamedDocument: fc.Arbitrary<{ text: string; cuts: number[] }> = fc
  .oneof(fenceDocument, markdownDocument)
  .chain((text) =>
    fc
      .uniqueArray(fc.integer({ min: 0, max: text.length }), { maxLength: 30 })
      .map((cuts) => ({ text, cuts: [...cuts.sort((a, b) => a - b), text.length] })),
  );

describe('the fence line scan', () => {
  it('returns what the parse returns on fence-heavy random text', () => {
    fc.assert(
      fc.property(fenceDocument, (text) => {
        expect(findCodeFences(text)).toEqual(findCodeFencesByParse(text));
      }),
      runs,
    );
  });

  it('returns what the parse returns on the renderers’ random Markdown', () => {
    fc.assert(
      fc.property(markdownDocument, (text) => {
        expect(findCodeFences(text)).toEqual(findCodeFencesByParse(text));
      }),
      runs,
    );
  });

  it('the generators exercise the scan: most fence texts are scanned, some give up, many have fences', () => {
    const sample = fc.sample(fenceDocument, { numRuns: 400, seed: 28 });
    const scanned = sample.filter((text) => scanFenceBlocks(text) !== undefined);
    const withFences = scanned.filter((text) => (scanFenceBlocks(text)?.length ?? 0) > 0);
    const closed = scanned.filter((text) => findCodeFences(text).some((fence) => fence.closeStart >= 0));
    expect(scanned.length).toBeGreaterThan(100);
    expect(sample.length - scanned.length).toBeGreaterThan(40);
    expect(withFences.length).toBeGreaterThan(80);
    expect(closed.length).toBeGreaterThan(20);
    // List items holding fences are scanned too, not only given up on.
    const inItems = scanned.filter(
      (text) =>
        /^(\d+[.)]|[-+*]) /m.test(text) && findCodeFences(text).some((fence) => fence.indent.length >= 2),
    );
    expect(inItems.length).toBeGreaterThan(10);
  });

  it('a tracker fed a growing text returns, at every step, what the parse returns', () => {
    fc.assert(
      fc.property(streamedDocument, ({ text, cuts }) => {
        const tracker = createCodeFenceTracker();
        for (const cut of cuts) {
          const prefix = text.slice(0, cut);
          expect(tracker.fences(prefix)).toEqual(findCodeFencesByParse(prefix));
        }
        // A text that does not extend the last one starts a new scan.
        const shifted = text.slice(Math.floor(text.length / 2));
        expect(tracker.fences(shifted)).toEqual(findCodeFencesByParse(shifted));
      }),
      runs,
    );
  });
});

/** The scan's answer, checked against the parse; undefined when the scan gave up. */
function scanned(text: string): ReturnType<typeof findCodeFences> | undefined {
  const blocks = scanFenceBlocks(text);
  expect(findCodeFences(text)).toEqual(findCodeFencesByParse(text));
  return blocks === undefined ? undefined : findCodeFences(text);
}

describe('the fence line scan, edge cases', () => {
  it('a backtick in a backtick fence’s info string opens nothing; a tilde fence’s info may hold one', () => {
    expect(scanned('```a`b\nnot code\n```')).toEqual([
      expect.objectContaining({ start: 16, closeStart: -1, openLine: '```' }),
    ]);
    expect(scanned('~~~a`b\ncode\n~~~')).toEqual([
      expect.objectContaining({ start: 0, closeStart: 12, openLine: '~~~a`b' }),
    ]);
  });

  it('closes only on the same character, at least as long, with only spaces or tabs after it', () => {
    const text = '````\n```\n~~~~\n````js\n`````\t \nafter';
    expect(scanned(text)).toEqual([
      expect.objectContaining({ start: 0, closeStart: text.indexOf('`````'), end: text.indexOf('\nafter') }),
    ]);
    expect(scanned('~~~\n```\n~~~')?.[0]?.closeStart).toBe(8);
  });

  it('a closing line may be indented by up to three spaces, not four and not by a tab', () => {
    expect(scanned('```\nx\n   ```\ny')?.[0]?.closeStart).toBe(6);
    // Four spaces or a tab: code; the fence stays open to the end.
    expect(scanned('```\nx\n    ```\ny')?.[0]?.closeStart).toBe(-1);
    expect(scanned('```\nx\n\t```\ny')?.[0]?.closeStart).toBe(-1);
    expect(scanned('```\nx\n \t```\ny')?.[0]?.closeStart).toBe(-1);
  });

  it('an opening line indented four columns is not a fence', () => {
    expect(scanned('    ```\ncode\n```')).toEqual([expect.objectContaining({ start: 13, closeStart: -1 })]);
    expect(scanned('para\n\t```\nx')).toEqual([]);
  });

  it('runs an unclosed fence to the end, and reads a half-streamed closing line as the parse does', () => {
    expect(scanned('a\n```py\nprint(1)\n``')).toEqual([
      expect.objectContaining({ start: 2, closeStart: -1, end: 19 }),
    ]);
    expect(scanned('a\n```py\nprint(1)\n```')).toEqual([
      expect.objectContaining({ start: 2, closeStart: 17, end: 20 }),
    ]);
    expect(scanned('```\n')).toEqual([
      expect.objectContaining({ start: 0, openLineEnd: 3, closeStart: -1, end: 4 }),
    ]);
  });

  it('a fence interrupts a paragraph and a definition’s title', () => {
    expect(scanned('para\n```\ncode\n```')?.[0]?.start).toBe(5);
    expect(scanned("[a]: /u 'title\n```\n'\n")?.[0]?.start).toBe(15);
  });

  it('gives up near list items and quotes, and on HTML blocks and carriage returns', () => {
    expect(scanned('- item\n  ```js\n  x()\nafter')).toBeUndefined();
    expect(scanned('- ```\ncode')).toBeUndefined();
    expect(scanned('> ```\n> code\n> ```')).toBeUndefined();
    expect(scanned('<div>\n```\n</div>')).toBeUndefined();
    expect(scanned('<custom a="1">\n```\n')).toBeUndefined();
    expect(scanned('<div>text\n```\nx\n</div>')).toBeUndefined();
    // Not an HTML block: a tag with text after it, on the same line.
    expect(scanned('<think>the plan</think>\n```\nx\n```')?.[0]?.closeStart).toBe(30);
    expect(scanned('```\r\ncode\r\n```')).toBeUndefined();
  });

  it('a fence at column zero ends every list item and quote, and a blank line before column zero does too', () => {
    expect(scanned('- a\n- b\n\n```sh\nls\n```')?.[0]?.start).toBe(9);
    expect(scanned('> quote\n```\nx\n```')?.[0]?.start).toBe(8);
    expect(scanned('- a\n\nnext\n  ```\nx\n  ```')?.[0]?.start).toBe(10);
    // Without the blank line "next" may continue the item, so an indented fence gives up.
    expect(scanned('- a\nnext\n  ```\nx')).toBeUndefined();
  });

  it('models fences inside simple list items: numbered steps with code', () => {
    const text =
      '1. Install:\n\n   ```bash\n   npm i\n   ```\n\n2. Run:\n   ```\n   npm start\n       ```\n   ```';
    expect(scanned(text)).toEqual([
      expect.objectContaining({ start: 13, indent: '   ', closeStart: text.indexOf('   ```\n\n2.') }),
      expect.objectContaining({
        openLine: '   ```',
        closeStart: text.lastIndexOf('   ```'),
        end: text.length,
      }),
    ]);
    // Still streaming: the fence of the last item is open to the end.
    expect(scanned('- a\n  ```js\n  x()\n')).toEqual([expect.objectContaining({ start: 4, closeStart: -1 })]);
    // A lazy line continues the item's paragraph, so the fence after it is still inside the item.
    expect(scanned('- a\nlazy\n  ```\n  x\n  ```\n')?.[0]?.closeStart).toBe(19);
  });

  it('gives up where micromark’s list rules get subtle', () => {
    // An item whose fence its end closes; a list of another kind; a nested list; a tab.
    expect(scanned('- a\n  ```\n  x\n- b')).toBeUndefined();
    expect(scanned('1. a\n   ```\n   x\n   ```\n2) b\n   ```\n')).toBeUndefined();
    expect(scanned('- a\n  - b\n    ```\n')).toBeUndefined();
    expect(scanned('- a\n \t```\n')).toBeUndefined();
    // Five spaces after the marker: the content is indented code and the item's column is 2.
    expect(scanned('-     code\n  ```\n  x\nafter')).toBeUndefined();
    // After indented code and a blank line, micromark reads "2." as a paragraph, not a list.
    expect(findCodeFences('    code\n\n2. next\n   ```\n')).toEqual(
      findCodeFencesByParse('    code\n\n2. next\n   ```\n'),
    );
  });

  it('text inside a fence is code, whatever it looks like', () => {
    const text = '```md\n- ```\n> quote\n<div>\n    ```\n```\nafter';
    expect(scanned(text)).toEqual([
      expect.objectContaining({ start: 0, closeStart: text.indexOf('```\nafter') }),
    ]);
  });
});

describe('the code-fence tracker', () => {
  it('reads each line of a growing text once, and starts over on a text that does not extend it', () => {
    const text = `Intro\n\n\`\`\`txt\n${'line of code\n'.repeat(600)}\`\`\`\nafter\n`;
    const tracker = createCodeFenceTracker();
    for (let end = 7; end <= text.length; end += 7) tracker.fences(text.slice(0, end));
    const fences = tracker.fences(text);
    expect(fences).toEqual(findCodeFencesByParse(text));
    expect(fences[0]?.closeStart).toBe(text.indexOf('```\nafter'));
    // 605 lines: each read once, however many pieces it arrived in.
    expect(tracker.linesRead()).toBe(605);
    tracker.fences(text.slice(7));
    expect(tracker.linesRead()).toBe(605 + 603);
  });
});
