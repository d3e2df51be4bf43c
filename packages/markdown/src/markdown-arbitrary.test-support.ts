// A fast-check arbitrary of Markdown as models write it (and as they get it wrong): emphasis,
// code spans, fences with languages, links, images, lists, quotes, headings, tables, rules,
// raw `<>&`, unicode, Slack tokens, unbalanced delimiters, and raw random strings.
import fc from 'fast-check';

const fragments: readonly string[] = [
  'word',
  'snake_case_name',
  'x < y && z > w',
  'a & b',
  '"quoted"',
  "it's",
  '2 * 3 * 4',
  'a*b',
  '😀',
  'naïve café',
  '日本語',
  'ⅷ',
  '\\*escaped\\*',
  '&amp;',
  '&#x27;',
  '<b>tag</b>',
  '<script>',
  '<@U123>',
  '<!here>',
  'https://e.x/p?a=1&b=2',
  '<https://auto.link/x>',
  'www.example.com',
  'me@example.com',
  '*',
  '**',
  '_',
  '~~',
  '||',
  '`',
  '[',
  ']',
  '(',
  ')',
  '|',
  '\\',
  '#',
  '>',
];

const fragment: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...fragments) },
  { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
);

const url: fc.Arbitrary<string> = fc.constantFrom(
  'https://example.com/a?b=1&c=2',
  'https://e.x/(paren)',
  'tg://user?id=1',
  'mailto:a@b.co',
  'javascript:alert(1)',
  'relative/path',
);

const language: fc.Arbitrary<string> = fc.constantFrom('', 'ts', 'py', 'c++', 'a b', 'x"y', '<html>');

/** Inline Markdown: fragments, some wrapped in emphasis, code, links. */
const inlineMarkdown: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: fragment },
      { weight: 1, arbitrary: fragment.map((text) => `**${text}**`) },
      { weight: 1, arbitrary: fragment.map((text) => `*${text}*`) },
      { weight: 1, arbitrary: fragment.map((text) => `_${text}_`) },
      { weight: 1, arbitrary: fragment.map((text) => `~~${text}~~`) },
      { weight: 1, arbitrary: fragment.map((text) => `||${text}||`) },
      { weight: 1, arbitrary: fragment.map((text) => `***${text}***`) },
      { weight: 1, arbitrary: fragment.map((text) => `\`${text.replace(/`/g, '')}\``) },
      { weight: 1, arbitrary: fragment.map((text) => `\`\` ${text} \`\``) },
      { weight: 1, arbitrary: fc.tuple(fragment, url).map(([label, target]) => `[${label}](${target})`) },
      { weight: 1, arbitrary: fc.tuple(fragment, url).map(([label, target]) => `![${label}](${target})`) },
      { weight: 1, arbitrary: fc.tuple(fragment, fragment).map(([a, b]) => `**${a} *${b}* ${a}**`) },
    ),
    { minLength: 1, maxLength: 8 },
  )
  .chain((parts) => fc.constantFrom(' ', '', '\n').map((separator) => parts.join(separator)));

const codeLine: fc.Arbitrary<string> = fc.oneof(
  fragment,
  fc.constantFrom('  indented();', '\tconst a = b < c;', '```', '~~~', '', '<div>&amp;</div>'),
);

const fence: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom('```', '~~~', '````'), language, fc.array(codeLine, { maxLength: 12 }), fc.boolean())
  .map(([marker, lang, lines, closed]) =>
    [
      `${marker}${lang}`,
      ...lines.filter((line) => !line.startsWith(marker[0]!)),
      ...(closed ? [marker] : []),
    ].join('\n'),
  );

const listItem: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom('- ', '* ', '+ ', '1. ', '- [ ] ', '- [x] '), inlineMarkdown, fc.boolean())
  .map(
    ([marker, text, nested]) =>
      `${marker}${text.replace(/\n/g, ' ')}${nested ? `\n  - nested ${marker.length}` : ''}`,
  );

const cell: fc.Arbitrary<string> = fragment.map((text) => text.replace(/[|\n]/g, ' ').trim() || 'c');

const table: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 4 }))
  .chain(([columns, rows]) =>
    fc
      .array(fc.array(cell, { minLength: columns, maxLength: columns }), {
        minLength: rows + 1,
        maxLength: rows + 1,
      })
      .map((grid) => {
        const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
        const delimiter = `|${Array.from({ length: columns }, () => '---').join('|')}|`;
        return [line(grid[0]!), delimiter, ...grid.slice(1).map(line)].join('\n');
      }),
  );

/** One block of Markdown. */
const blockMarkdown: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: inlineMarkdown },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 6 }), inlineMarkdown)
      .map(([depth, text]) => `${'#'.repeat(depth)} ${text.replace(/\n/g, ' ')}`),
  },
  { weight: 2, arbitrary: fence },
  {
    weight: 1,
    arbitrary: fc
      .array(inlineMarkdown, { minLength: 1, maxLength: 3 })
      .map((lines) => lines.map((line) => `> ${line.replace(/\n/g, ' ')}`).join('\n')),
  },
  {
    weight: 1,
    arbitrary: fc.array(listItem, { minLength: 1, maxLength: 5 }).map((items) => items.join('\n')),
  },
  { weight: 1, arbitrary: table },
  {
    weight: 1,
    arbitrary: fc.constantFrom('---', '***', '<div>\n<b>html</b> & more\n</div>', '    indented code'),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
);

/** A Markdown document: blocks separated by blank lines or single newlines. */
export const markdownDocument: fc.Arbitrary<string> = fc
  .array(fc.tuple(blockMarkdown, fc.constantFrom('\n\n', '\n', '\n\n\n')), { maxLength: 10 })
  .map((blocks) => blocks.map(([block, separator]) => block + separator).join(''));
