// Telegram HTML (`parse_mode: 'HTML'`) from styled spans: only the tags the Bot API accepts
// (b, i, u, s, tg-spoiler, code, pre with a language class, a href, blockquote), every tag
// closed in the same message, everything else escaped. Splitting by visible length, the
// count Telegram's limits use; each piece is rendered on its own.
import { MarkdownError } from './errors.ts';
import type { MarkdownDocument } from './parse.ts';
import { type StyledSpan, spansText, type TelegramStyle, telegramSpans } from './telegram-spans.ts';

/** One message's worth of rendered text. */
export interface TelegramHtmlChunk {
  /** Telegram HTML, every tag balanced. */
  readonly html: string;
  /** What the user sees (the text after Telegram parses the HTML). */
  readonly text: string;
}

/** Telegram's limit on a message's text, counted after entity parsing. */
export const telegramTextLimit = 4096;
/** Telegram's limit on a media caption, counted after entity parsing. */
export const telegramCaptionLimit = 1024;

/**
 * Applies Telegram's nesting rules to a span's styles: `pre` contains nothing; `code` lives
 * only inside a blockquote; a link never contains code (the code style is dropped); one link
 * and one blockquote at most.
 */
function allowedStyles(styles: readonly TelegramStyle[]): readonly TelegramStyle[] {
  if (styles.length <= 1) return styles;
  const pre = styles.find((style) => style.type === 'pre');
  if (pre !== undefined) return [pre];
  const quote = styles.find((style) => style.type === 'blockquote');
  const link = styles.find((style) => style.type === 'link');
  const code = styles.find((style) => style.type === 'code');
  if (code !== undefined && link === undefined) return quote === undefined ? [code] : [quote, code];
  const result: TelegramStyle[] = [];
  const seen = new Set<string>();
  for (const style of styles) {
    if (style.type === 'code' || seen.has(style.type)) continue;
    if (style.type === 'blockquote' && result.length > 0) continue;
    seen.add(style.type);
    result.push(style);
  }
  return result;
}

/** Escapes text for Telegram HTML (`&`, `<`, `>`). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>]/g, (character) =>
    character === '&' ? '&amp;' : character === '<' ? '&lt;' : '&gt;',
  );
}

function escapeAttribute(text: string): string {
  return escapeHtml(text).replace(/"/g, '&quot;');
}

const simpleTags: Readonly<Record<string, string>> = {
  bold: 'b',
  italic: 'i',
  underline: 'u',
  strikethrough: 's',
  spoiler: 'tg-spoiler',
  code: 'code',
  blockquote: 'blockquote',
};

function openTag(style: TelegramStyle): string {
  if (style.type === 'pre') {
    return style.language === undefined
      ? '<pre>'
      : `<pre><code class="language-${escapeAttribute(style.language)}">`;
  }
  if (style.type === 'link') return `<a href="${escapeAttribute(style.href)}">`;
  return `<${simpleTags[style.type]}>`;
}

function closeTag(style: TelegramStyle): string {
  if (style.type === 'pre') return style.language === undefined ? '</pre>' : '</code></pre>';
  if (style.type === 'link') return '</a>';
  return `</${simpleTags[style.type]}>`;
}

/** Renders spans as Telegram HTML. Every tag opened is closed, properly nested. */
export function renderTelegramHtml(spans: readonly StyledSpan[]): string {
  let html = '';
  const open: TelegramStyle[] = [];
  for (const span of spans) {
    if (span.text === '') continue;
    const styles = allowedStyles(span.styles);
    let common = 0;
    while (common < open.length && common < styles.length && open[common] === styles[common]) common += 1;
    for (let level = open.length - 1; level >= common; level -= 1) html += closeTag(open[level]!);
    open.length = common;
    for (let level = common; level < styles.length; level += 1) {
      html += openTag(styles[level]!);
      open.push(styles[level]!);
    }
    html += escapeHtml(span.text);
  }
  for (let level = open.length - 1; level >= 0; level -= 1) html += closeTag(open[level]!);
  return html;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function assertLimit(limit: number, what: string): void {
  if (!Number.isInteger(limit) || limit < 2) {
    throw new MarkdownError(
      'MARKDOWN_INVALID_LIMIT',
      `${what}: the limit must be an integer of at least 2, got ${limit}`,
      {
        details: { limit },
      },
    );
  }
}

/**
 * Where to cut `text` so that the piece from `start` has at most `limit` characters, and how
 * many separator characters to drop after the cut.
 */
function cutPosition(text: string, start: number, limit: number): { cut: number; skip: number } {
  const end = start + limit;
  const window = text.slice(start, end + 1);
  // The character right after the window counts: a break there keeps the window whole.
  for (const separator of ['\n\n', '\n', ' ']) {
    const found = window.lastIndexOf(separator, limit);
    if (found > 0) return { cut: start + found, skip: separator.length };
  }
  let cut = end;
  if (isHighSurrogate(text.charCodeAt(cut - 1))) cut -= 1;
  return { cut, skip: 0 };
}

/** Splits spans into pieces of at most `limit` visible characters, preferring paragraph, line and word breaks. */
export function splitTelegramSpans(spans: readonly StyledSpan[], limit: number): StyledSpan[][] {
  assertLimit(limit, 'splitTelegramSpans');
  const text = spansText(spans);
  if (text.length <= limit) return [spans.slice()];
  const ranges: Array<[number, number]> = [];
  let start = 0;
  while (start < text.length) {
    if (text.length - start <= limit) {
      ranges.push([start, text.length]);
      break;
    }
    const { cut, skip } = cutPosition(text, start, limit);
    ranges.push([start, cut]);
    start = cut + skip;
    // Blank lines after a break go; indentation (code) stays.
    while (start < text.length && text[start] === '\n') start += 1;
  }
  return ranges
    .map(([from, to]) => sliceSpans(spans, from, to))
    .filter((piece) => spansText(piece).trim() !== '');
}

function sliceSpans(spans: readonly StyledSpan[], from: number, to: number): StyledSpan[] {
  const result: StyledSpan[] = [];
  let offset = 0;
  for (const span of spans) {
    const spanStart = offset;
    const spanEnd = offset + span.text.length;
    offset = spanEnd;
    if (spanEnd <= from || spanStart >= to) continue;
    const text = span.text.slice(Math.max(0, from - spanStart), Math.min(span.text.length, to - spanStart));
    if (text !== '') result.push({ text, styles: span.styles });
  }
  return result;
}

/** Cuts spans to at most `limit` visible characters, ending with an ellipsis when cut. */
export function truncateTelegramSpans(spans: readonly StyledSpan[], limit: number): StyledSpan[] {
  assertLimit(limit, 'truncateTelegramSpans');
  const text = spansText(spans);
  if (text.length <= limit) return spans.slice();
  let cut = limit - 1;
  if (isHighSurrogate(text.charCodeAt(cut - 1))) cut -= 1;
  return [...sliceSpans(spans, 0, cut), { text: '…', styles: [] }];
}

/** Drops leading and trailing blank lines (never a code block's own indentation). */
function trimSpans(spans: readonly StyledSpan[]): StyledSpan[] {
  const result = spans.slice();
  while (result.length > 0) {
    const first = result[0]!;
    const text = first.styles.some((style) => style.type === 'pre')
      ? first.text.replace(/^\n+/, '')
      : first.text.replace(/^\s+/, '');
    if (text === '') result.shift();
    else {
      result[0] = { text, styles: first.styles };
      break;
    }
  }
  while (result.length > 0) {
    const last = result.at(-1)!;
    const text = last.text.replace(/\s+$/, '');
    if (text === '') result.pop();
    else {
      result[result.length - 1] = { text, styles: last.styles };
      break;
    }
  }
  return result;
}

/**
 * Renders Markdown as Telegram HTML, split into messages of at most `limit` visible
 * characters (default 4,096). Whitespace-only pieces are left out, so an empty or blank
 * input gives no chunks.
 */
export function renderTelegramHtmlChunks(
  markdown: string | MarkdownDocument,
  limit: number = telegramTextLimit,
): TelegramHtmlChunk[] {
  return splitTelegramSpans(telegramSpans(markdown), limit)
    .map((piece) => trimSpans(piece))
    .filter((piece) => piece.length > 0)
    .map((piece) => ({ html: renderTelegramHtml(piece), text: spansText(piece) }));
}
