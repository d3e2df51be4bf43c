// Property-based tests over random Markdown (see markdown-arbitrary.test-support.ts). fast-check
// prints the seed and the shrunk counterexample of a failure; rerun one with
// `fc.assert(…, { seed, path })`. The number of runs is kept moderate for a 2-core machine.
import { parseTelegramHtml } from '@switchboard/testkit/telegram';
import fc from 'fast-check';
import { Parser } from 'htmlparser2';
import type { Nodes } from 'mdast';
import { describe, expect, it } from 'vitest';
import { renderDiscordMarkdown } from './discord.ts';
import { restoreLookalikes } from './lookalikes.ts';
import { markdownDocument } from './markdown-arbitrary.test-support.ts';
import { parseMarkdown } from './parse.ts';
import { renderSlackMrkdwn } from './slack-mrkdwn.ts';
import { renderTelegramHtmlChunks } from './telegram-html.ts';
import { renderWhatsApp } from './whatsapp.ts';

const runs = { numRuns: Number(process.env.PROPERTY_RUNS ?? 300) };

const allowedTags = new Set(['b', 'i', 'u', 's', 'code', 'pre', 'a', 'blockquote', 'tg-spoiler']);

/** Parses Telegram HTML with htmlparser2; throws on anything Telegram would refuse. Returns the visible text. */
function checkTelegramHtml(html: string): string {
  const open: string[] = [];
  let text = '';
  const problems: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (!allowedTags.has(name)) problems.push(`tag <${name}> is not one Telegram accepts`);
        const names = Object.keys(attributes);
        if (name === 'a' && (names.length !== 1 || names[0] !== 'href'))
          problems.push('<a> needs exactly href');
        if (name === 'code' && names.some((attribute) => attribute !== 'class'))
          problems.push('<code> attributes');
        if (name === 'code' && names.length > 0 && open.at(-1) !== 'pre')
          problems.push('a language outside <pre>');
        if (name !== 'a' && name !== 'code' && names.length > 0)
          problems.push(`<${name}> takes no attributes`);
        open.push(name);
      },
      onclosetag(name, implied) {
        if (implied) problems.push(`</${name}> is missing`);
        if (open.pop() !== name) problems.push(`</${name}> closes the wrong tag`);
      },
      ontext(data) {
        text += data;
      },
    },
    { decodeEntities: true, recognizeSelfClosing: false, lowerCaseTags: false },
  );
  parser.write(html);
  parser.end();
  if (open.length > 0) problems.push(`unclosed: ${open.join(', ')}`);
  // Outside tags, only the four entities Telegram knows may start with &.
  const stripped = html.replace(/<\/?[a-z-]+(?: [a-z]+="[^"]*")?>/g, '');
  if (/[<>]/.test(stripped)) problems.push('a raw < or > in text');
  if (/&(?!(amp|lt|gt|quot);)/.test(stripped)) problems.push('a raw & in text');
  if (problems.length > 0) throw new Error(`${JSON.stringify(html)}: ${problems.join('; ')}`);
  return text;
}

/** The leaf text of the tree (what must survive rendering), whitespace removed. */
function leafText(node: Nodes): string {
  if (node.type === 'image' || node.type === 'imageReference') return node.alt ?? '';
  if (node.type === 'text' || node.type === 'inlineCode' || node.type === 'code' || node.type === 'html')
    return node.value;
  if (node.type === 'definition' || node.type === 'table') return '';
  if ('children' in node) return node.children.map((child) => leafText(child)).join('');
  return '';
}

const squeeze = (text: string) => text.replace(/\s+/g, '');

/** True when `needle` is a subsequence of `haystack` (its characters appear in order). */
function isSubsequence(needle: string, haystack: string): boolean {
  const characters = [...haystack];
  let position = 0;
  for (const character of needle) {
    while (position < characters.length && characters[position] !== character) position += 1;
    if (position === characters.length) return false;
    position += 1;
  }
  return true;
}

describe('Telegram HTML for random Markdown', () => {
  it('is well formed, uses only the tags Telegram accepts, escapes text, fits the limit and loses no text', () => {
    fc.assert(
      fc.property(markdownDocument, fc.integer({ min: 16, max: 400 }), (markdown, limit) => {
        const document = parseMarkdown(markdown);
        const chunks = renderTelegramHtmlChunks(document, limit);
        let visible = '';
        for (const chunk of chunks) {
          const text = checkTelegramHtml(chunk.html);
          expect(text).toBe(chunk.text);
          expect(chunk.text.length).toBeLessThanOrEqual(limit);
          expect(chunk.text.trim()).not.toBe('');
          // Telegram's own rules (the testkit's parser of its HTML mode) agree.
          const telegram = parseTelegramHtml(chunk.html);
          if (!telegram.ok) throw new Error(`${JSON.stringify(chunk.html)}: ${telegram.description}`);
          expect(telegram.text).toBe(chunk.text);
          visible += chunk.text;
        }
        // Splitting and trimming drop whitespace only; the spoiler's || is markup, not text.
        const whole = renderTelegramHtmlChunks(document, Number.MAX_SAFE_INTEGER);
        expect(squeeze(visible)).toBe(squeeze(whole.map((chunk) => chunk.text).join('')));
        expect(
          isSubsequence(
            squeeze(leafText(document.tree)).replace(/\|/g, ''),
            squeeze(visible).replace(/\|/g, ''),
          ),
        ).toBe(true);
      }),
      runs,
    );
  });
});

describe('Slack, WhatsApp and Discord for random Markdown', () => {
  it('keep every piece of text, in order', () => {
    fc.assert(
      fc.property(markdownDocument, (markdown) => {
        const document = parseMarkdown(markdown);
        // Look-alikes the model wrote itself compare as the characters they stand for.
        const leaves = restoreLookalikes(squeeze(leafText(document.tree)));
        const slack = restoreLookalikes(renderSlackMrkdwn(document))
          .replace(/ˋ/g, '`')
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&amp;/g, '&');
        // A link label's | becomes / in Slack (| ends the label).
        // Slack shows a backtick in code as ˋ, so a ˋ the model wrote compares as a backtick too.
        const slackLeaves = leaves.replace(/ˋ/g, '`').replace(/[|/]/g, '');
        expect(isSubsequence(slackLeaves, squeeze(slack).replace(/[|/]/g, ''))).toBe(true);
        expect(isSubsequence(leaves, squeeze(restoreLookalikes(renderWhatsApp(document))))).toBe(true);
        // Discord shows the Markdown as written (entities included): all of it stays, but a deep heading's #s.
        const discord = renderDiscordMarkdown(document);
        expect(
          isSubsequence(squeeze(document.source).replace(/#/g, ''), squeeze(discord).replace(/#/g, '')),
        ).toBe(true);
      }),
      runs,
    );
  });

  it('escape every <, > and & in Slack text outside its own tokens', () => {
    fc.assert(
      fc.property(markdownDocument, (markdown) => {
        // Leave out Slack's tokens and links, and the > that starts a quoted line.
        const outside = renderSlackMrkdwn(markdown)
          .replace(/<[@#!][^<>\s]*>|<[^<>\s|]+(\|[^<>]*)?>/g, '')
          // (also on a list item's continuation line, indented under its bullet).
          .replace(/^ *( *(• |[☐☑] |\d+\. ))*(> ?)+/gm, '');
        expect(outside).not.toMatch(/[<>]|&(?!(amp|lt|gt);)/);
      }),
      runs,
    );
  });
});
