// Property-based tests (fast-check) of the outbound chunker on random long Markdown, with each
// platform's real limits (channelDeliveryDefaults): no chunk exceeds the limit, code fences
// stay balanced in every chunk, no text is lost or reordered, and every chunk renders to
// Telegram HTML Telegram accepts. A failure prints fast-check's seed and shrunk input.
//
// "No text lost or reordered", defined: with all whitespace removed, the source is a
// subsequence of the concatenated chunks, and the only characters added are the fence lines
// of code blocks the chunker closed and reopened (at most one opening line and one marker per
// chunk boundary).
import { findCodeFences, renderTelegramHtmlChunks } from '@switchboard/markdown';
import { parseTelegramHtml } from '@switchboard/testkit/telegram';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkText } from './chunk-text.ts';
import { channelDeliveryDefaults, resolveDeliveryConfig } from './config.ts';

const platforms = ['telegram', 'discord', 'slack', 'whatsapp'] as const;

const word: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom('the', 'service', 'rolled', 'out.', 'Done!', 'a<b', 'x&y', 'snake_case'),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('**bold**', '*it*', '`code`', '[link](https://e.x/p?a=1&b=2)', '||s||'),
  },
  { weight: 1, arbitrary: fc.constantFrom('😀', '日本語', 'naïve', '𝔘𝔫𝔦') },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }) },
  {
    weight: 1,
    arbitrary: fc.string({ minLength: 40, maxLength: 300 }).map((text) => text.replace(/\s/g, 'x')),
  },
);

const paragraph: fc.Arbitrary<string> = fc
  .array(word, { minLength: 1, maxLength: 300, size: 'medium' })
  .chain((words) => fc.constantFrom(' ', '\n').map((separator) => words.join(separator)));

const codeLine: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('  indented(1);', 'if (a < b && c) {', '}', '', '# not a heading', '> not a quote'),
  fc.string({ maxLength: 120 }).map((line) => line.replace(/[`~\n]/g, '-')),
);

const fence: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('```', '~~~', '````'),
    fc.constantFrom('', 'ts', 'python', 'c++'),
    fc.array(codeLine, { maxLength: 120, size: 'medium' }),
  )
  .map(([marker, language, lines]) => [`${marker}${language}`, ...lines, marker].join('\n'));

const list: fc.Arbitrary<string> = fc
  .array(fc.tuple(fc.constantFrom('- ', '1. ', '- [ ] ', '  - '), paragraph), {
    minLength: 1,
    maxLength: 30,
    size: 'medium',
  })
  .map((items) =>
    items.map(([marker, text]) => marker + [...text].slice(0, 200).join('').replace(/\n/g, ' ')).join('\n'),
  );

const block: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: paragraph },
  { weight: 2, arbitrary: fence },
  { weight: 1, arbitrary: list },
  { weight: 1, arbitrary: paragraph.map((text) => `> ${text.replace(/\n/g, '\n> ')}`) },
  { weight: 1, arbitrary: fc.constantFrom('# Heading', '---', '| a | b |\n|---|---|\n| 1 | 2 |') },
);

/** Long Markdown: many blocks, most far longer than a message. */
const longMarkdown: fc.Arbitrary<string> = fc
  .array(fc.tuple(block, fc.constantFrom('\n\n', '\n', '\n\n\n')), {
    minLength: 1,
    maxLength: 10,
    size: 'medium',
  })
  .map((blocks) => blocks.map(([text, separator]) => text + separator).join(''));

const squeeze = (text: string) => text.replace(/\s+/g, '');

function isSubsequence(needle: string, haystack: string): boolean {
  let position = 0;
  for (let index = 0; index < needle.length; index += 1) {
    position = haystack.indexOf(needle[index]!, position);
    if (position === -1) return false;
    position += 1;
  }
  return true;
}

describe('chunking random Markdown at the platforms’ limits', () => {
  for (const platform of platforms) {
    const config = resolveDeliveryConfig(channelDeliveryDefaults[platform]);
    const lines = config.maxLinesPerMessage === undefined ? '' : `, ${config.maxLinesPerMessage} lines`;
    it(`${platform}: ${config.textLimit} characters${lines}`, () => {
      fc.assert(
        fc.property(longMarkdown, (markdown) => {
          const chunks = chunkText(markdown, {
            limit: config.textLimit,
            maxLines: config.maxLinesPerMessage,
          });
          const sourceFences = findCodeFences(markdown);
          const longestOpening = Math.max(0, ...sourceFences.map((span) => squeeze(span.openLine).length));
          const longestMarker = Math.max(0, ...sourceFences.map((span) => span.marker.length));
          chunks.forEach((chunk, index) => {
            // Within the limit, and never half a surrogate pair at a cut.
            expect(chunk.length).toBeLessThanOrEqual(config.textLimit);
            expect(chunk.isWellFormed()).toBe(true);
            // Every code block a chunk opens, it closes (the source's are all closed).
            const open = findCodeFences(chunk).filter((span) => span.closeStart === -1);
            expect(
              open,
              `chunk ${index} leaves a code block open: ${JSON.stringify(chunk.slice(-200))}`,
            ).toEqual([]);
          });
          const joined = squeeze(chunks.join(''));
          const source = squeeze(markdown);
          expect(isSubsequence(source, joined)).toBe(true);
          expect(joined.length - source.length).toBeLessThanOrEqual(
            Math.max(0, chunks.length - 1) * (longestOpening + longestMarker),
          );
          if (platform === 'telegram') {
            for (const chunk of chunks) {
              for (const message of renderTelegramHtmlChunks(chunk)) {
                expect(message.text.length).toBeLessThanOrEqual(4096);
                const parsed = parseTelegramHtml(message.html);
                if (!parsed.ok) throw new Error(`${JSON.stringify(message.html)}: ${parsed.description}`);
              }
            }
          }
        }),
        { numRuns: Number(process.env.PROPERTY_RUNS ?? 100) },
      );
    });
  }

  it('generates documents that need splitting, inside code blocks too', () => {
    // Guards the generator: the properties above must not pass on short texts alone.
    const samples = fc.sample(longMarkdown, { numRuns: 60, seed: 19 });
    const split = samples.map((markdown) => chunkText(markdown, { limit: 2000 }));
    expect(split.filter((chunks) => chunks.length > 1).length).toBeGreaterThan(30);
    const reopened = split
      .flatMap((chunks) => chunks.slice(1))
      .filter((chunk) => /^(```|~~~)/.test(chunk) && findCodeFences(chunk).length > 0);
    expect(reopened.length).toBeGreaterThan(5);
  });
});
