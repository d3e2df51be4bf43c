// Markdown (as models write it) to Telegram HTML (`parse_mode: 'HTML'`).
//
// The text is parsed into styled spans first: runs of text, each with the styles it sits in
// (outermost first). HTML is rendered from spans, opening and closing tags as the style
// stack changes, so every tag that is opened is closed in the same message, whatever the
// input: unbalanced Markdown becomes literal characters, never an unbalanced tag. Splitting
// works on spans too (by visible length, which is what Telegram's 4,096-character limit
// counts), and each piece is rendered on its own, closing and reopening styles at the cut.

/** A style Telegram's HTML can express. Objects are shared by the spans they cover. */
type TelegramStyle =
  | { readonly type: 'bold' }
  | { readonly type: 'italic' }
  | { readonly type: 'strikethrough' }
  | { readonly type: 'spoiler' }
  | { readonly type: 'code' }
  | { readonly type: 'pre'; readonly language?: string }
  | { readonly type: 'link'; readonly href: string }
  | { readonly type: 'blockquote' };

/** A run of text and the styles around it, outermost first. */
export interface StyledSpan {
  readonly text: string;
  readonly styles: readonly TelegramStyle[];
}

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

const linkSchemes = /^(https?:\/\/|tg:\/\/|mailto:)/i;

// ---------------------------------------------------------------------------------------
// Blocks
// ---------------------------------------------------------------------------------------

interface FenceOpen {
  readonly marker: string;
  readonly length: number;
  readonly language: string | undefined;
}

function fenceOpening(line: string): FenceOpen | undefined {
  const match = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/.exec(line);
  if (match === null) return undefined;
  const run = match[1]!;
  const language = match[2] !== undefined && /^[\w#+.-]{1,40}$/.test(match[2]) ? match[2] : undefined;
  return { marker: run[0]!, length: run.length, language };
}

function closesFence(line: string, fence: FenceOpen): boolean {
  const match = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
  return match !== null && match[1]![0] === fence.marker && match[1]!.length >= fence.length;
}

const headingPattern = /^ {0,3}#{1,6}(?:\s+|$)(.*?)(?:\s+#+\s*)?$/;
const quotePattern = /^ {0,3}> ?(.*)$/;
const bulletPattern = /^(\s*)[-*+]\s+(.*)$/;
const rulePattern = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const tableRowPattern = /^\s*\|.*\|\s*$/;
const tableSeparatorPattern = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

/** Parses Markdown into styled spans. */
export function parseMarkdown(markdown: string): StyledSpan[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const groups: StyledSpan[][] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index]!;
    const fence = fenceOpening(line);
    if (fence !== undefined) {
      const body: string[] = [];
      index += 1;
      while (index < lines.length && !closesFence(lines[index]!, fence)) {
        body.push(lines[index]!);
        index += 1;
      }
      index += 1; // the closing fence (or past the end: an unclosed fence runs to the end)
      const style: TelegramStyle =
        fence.language === undefined ? { type: 'pre' } : { type: 'pre', language: fence.language };
      groups.push([{ text: body.join('\n'), styles: [style] }]);
      continue;
    }
    if (
      tableRowPattern.test(line) &&
      index + 1 < lines.length &&
      tableSeparatorPattern.test(lines[index + 1]!)
    ) {
      const rows: string[] = [];
      while (index < lines.length && tableRowPattern.test(lines[index]!)) {
        rows.push(lines[index]!.trim());
        index += 1;
      }
      groups.push([{ text: rows.join('\n'), styles: [{ type: 'pre' }] }]);
      continue;
    }
    if (quotePattern.test(line)) {
      const quoted: string[] = [];
      while (index < lines.length) {
        const match = quotePattern.exec(lines[index]!);
        if (match === null) break;
        quoted.push(match[1]!);
        index += 1;
      }
      groups.push(parseInline(quoted.join('\n'), [{ type: 'blockquote' }]));
      continue;
    }
    const heading = headingPattern.exec(line);
    if (heading !== null) {
      groups.push(parseInline(heading[1]!, [{ type: 'bold' }]));
      index += 1;
      continue;
    }
    if (rulePattern.test(line)) {
      groups.push([{ text: '———', styles: [] }]);
      index += 1;
      continue;
    }
    if (line.trim() === '') {
      groups.push([]);
      index += 1;
      continue;
    }
    // A paragraph: consecutive ordinary lines, parsed together so emphasis may span lines.
    const paragraph: string[] = [];
    while (index < lines.length) {
      const current = lines[index]!;
      if (
        current.trim() === '' ||
        fenceOpening(current) !== undefined ||
        quotePattern.test(current) ||
        headingPattern.test(current) ||
        rulePattern.test(current) ||
        (paragraph.length > 0 && tableRowPattern.test(current))
      ) {
        break;
      }
      const bullet = bulletPattern.exec(current);
      paragraph.push(bullet === null ? current : `${bullet[1]}• ${bullet[2]}`);
      index += 1;
    }
    groups.push(parseInline(paragraph.join('\n'), []));
  }
  const spans: StyledSpan[] = [];
  groups.forEach((group, position) => {
    if (position > 0) spans.push({ text: '\n', styles: [] });
    spans.push(...group);
  });
  return mergeSpans(spans);
}

// ---------------------------------------------------------------------------------------
// Inline
// ---------------------------------------------------------------------------------------

const punctuation = /[!-/:-@[-`{-~]/;
const whitespace = /\s/;
const wordCharacter = /[\p{L}\p{N}]/u;

interface InlineParser {
  readonly text: string;
  /** Per delimiter: no closer exists at or after this position. */
  readonly noCloserFrom: Map<string, number>;
}

/** Parses inline Markdown (emphasis, code, links, spoilers) inside `styles`. */
function parseInline(text: string, styles: readonly TelegramStyle[]): StyledSpan[] {
  return parseRange({ text, noCloserFrom: new Map() }, 0, text.length, styles, false);
}

function parseRange(
  parser: InlineParser,
  from: number,
  to: number,
  styles: readonly TelegramStyle[],
  insideLink: boolean,
): StyledSpan[] {
  const { text } = parser;
  const spans: StyledSpan[] = [];
  let plain = '';
  const flush = () => {
    if (plain !== '') spans.push({ text: plain, styles });
    plain = '';
  };
  let index = from;
  while (index < to) {
    const character = text[index]!;
    if (character === '\\' && index + 1 < to && punctuation.test(text[index + 1]!)) {
      plain += text[index + 1];
      index += 2;
      continue;
    }
    if (character === '`') {
      const run = runLength(text, index, '`', to);
      const close = findBacktickClose(text, index + run, run, to);
      if (close === -1) {
        plain += '`'.repeat(run);
        index += run;
        continue;
      }
      flush();
      let code = text.slice(index + run, close).replace(/\n/g, ' ');
      if (code.length > 2 && code.startsWith(' ') && code.endsWith(' ') && code.trim() !== '') {
        code = code.slice(1, -1);
      }
      spans.push({ text: code, styles: [...styles, { type: 'code' }] });
      index = close + run;
      continue;
    }
    if (!insideLink && (character === '[' || (character === '!' && text[index + 1] === '['))) {
      const image = character === '!';
      const link = parseLink(text, image ? index + 1 : index, to);
      if (link !== undefined) {
        flush();
        const inner = link.labelEnd > link.labelStart;
        if (linkSchemes.test(link.href)) {
          const style: TelegramStyle = { type: 'link', href: link.href };
          if (inner)
            spans.push(...parseRange(parser, link.labelStart, link.labelEnd, [...styles, style], true));
          else spans.push({ text: link.href, styles: [...styles, style] });
        } else if (inner) {
          spans.push(...parseRange(parser, link.labelStart, link.labelEnd, styles, true));
        } else {
          spans.push({ text: link.href, styles });
        }
        index = link.end;
        continue;
      }
    }
    if (!insideLink && character === '<') {
      const autolink = /^<((?:https?|tg):\/\/[^\s<>]+|mailto:[^\s<>]+)>/i.exec(text.slice(index, to));
      if (autolink !== null) {
        flush();
        spans.push({ text: autolink[1]!, styles: [...styles, { type: 'link', href: autolink[1]! }] });
        index += autolink[0].length;
        continue;
      }
    }
    if (character === '*' || character === '_' || character === '~' || character === '|') {
      const run = runLength(text, index, character, to);
      const emphasis = tryEmphasis(parser, index, run, to, styles, insideLink);
      if (emphasis !== undefined) {
        flush();
        spans.push(...emphasis.spans);
        index = emphasis.end;
        continue;
      }
      plain += character.repeat(run);
      index += run;
      continue;
    }
    plain += character;
    index += 1;
  }
  flush();
  return spans;
}

function runLength(text: string, index: number, character: string, to: number): number {
  let end = index;
  while (end < to && text[end] === character) end += 1;
  return end - index;
}

function findBacktickClose(text: string, from: number, run: number, to: number): number {
  let index = from;
  while (index < to) {
    if (text[index] === '`') {
      const length = runLength(text, index, '`', to);
      if (length === run) return index;
      index += length;
    } else {
      index += 1;
    }
  }
  return -1;
}

/** A `[label](href)` found at `index`. */
interface ParsedLink {
  readonly labelStart: number;
  readonly labelEnd: number;
  readonly href: string;
  readonly end: number;
}

function parseLink(text: string, index: number, to: number): ParsedLink | undefined {
  let depth = 0;
  let position = index;
  let labelEnd = -1;
  while (position < to) {
    const character = text[position]!;
    if (character === '\\') {
      position += 2;
      continue;
    }
    if (character === '`') {
      const run = runLength(text, position, '`', to);
      const close = findBacktickClose(text, position + run, run, to);
      position = close === -1 ? position + run : close + run;
      continue;
    }
    if (character === '[') depth += 1;
    if (character === ']') {
      depth -= 1;
      if (depth === 0) {
        labelEnd = position;
        break;
      }
    }
    if (character === '\n' && text[position + 1] === '\n') return undefined;
    position += 1;
  }
  if (labelEnd === -1 || text[labelEnd + 1] !== '(') return undefined;
  let cursor = labelEnd + 2;
  while (cursor < to && (text[cursor] === ' ' || text[cursor] === '\t')) cursor += 1;
  let href: string;
  if (text[cursor] === '<') {
    const close = text.indexOf('>', cursor);
    if (close === -1 || close >= to) return undefined;
    href = text.slice(cursor + 1, close);
    cursor = close + 1;
  } else {
    const start = cursor;
    let parentheses = 0;
    while (cursor < to) {
      const character = text[cursor]!;
      if (whitespace.test(character)) break;
      if (character === '(') parentheses += 1;
      if (character === ')') {
        if (parentheses === 0) break;
        parentheses -= 1;
      }
      cursor += 1;
    }
    href = text.slice(start, cursor);
  }
  // An optional title: "…", '…' or (…), ignored.
  while (cursor < to && (text[cursor] === ' ' || text[cursor] === '\t')) cursor += 1;
  const quote = text[cursor];
  if (quote === '"' || quote === "'" || quote === '(') {
    const closing = quote === '(' ? ')' : quote;
    const close = text.indexOf(closing, cursor + 1);
    if (close === -1 || close >= to) return undefined;
    cursor = close + 1;
    while (cursor < to && (text[cursor] === ' ' || text[cursor] === '\t')) cursor += 1;
  }
  if (text[cursor] !== ')' || href === '') return undefined;
  return { labelStart: index + 1, labelEnd, href, end: cursor + 1 };
}

interface EmphasisResult {
  readonly spans: StyledSpan[];
  readonly end: number;
}

function canOpen(text: string, index: number, run: number, character: string): boolean {
  const after = text[index + run];
  if (after === undefined || whitespace.test(after)) return false;
  if (character === '_') {
    const before = text[index - 1];
    if (before !== undefined && wordCharacter.test(before)) return false;
  }
  return true;
}

function canClose(text: string, index: number, run: number, character: string): boolean {
  const before = text[index - 1];
  if (before === undefined || whitespace.test(before)) return false;
  if (character === '_') {
    const after = text[index + run];
    if (after !== undefined && wordCharacter.test(after)) return false;
  }
  return true;
}

/**
 * Finds the closing delimiter run of exactly `length` characters for an opener ending at
 * `from`, skipping escapes and code spans. -1 when there is none.
 */
function findCloser(
  parser: InlineParser,
  from: number,
  character: string,
  length: number,
  to: number,
): number {
  const { text } = parser;
  const key = `${character}${length}:${to}`;
  const known = parser.noCloserFrom.get(key);
  if (known !== undefined && from >= known) return -1;
  let index = from;
  while (index < to) {
    const current = text[index]!;
    if (current === '\\') {
      index += 2;
      continue;
    }
    if (current === '`') {
      const run = runLength(text, index, '`', to);
      const close = findBacktickClose(text, index + run, run, to);
      index = close === -1 ? index + run : close + run;
      continue;
    }
    if (current === character) {
      const run = runLength(text, index, character, to);
      if (run === length && index > from && canClose(text, index, run, character)) return index;
      index += run;
      continue;
    }
    index += 1;
  }
  parser.noCloserFrom.set(key, Math.min(from, known ?? from));
  return -1;
}

function emphasisStyles(character: string, length: number): TelegramStyle[] | undefined {
  if (character === '~') return length === 2 ? [{ type: 'strikethrough' }] : undefined;
  if (character === '|') return length === 2 ? [{ type: 'spoiler' }] : undefined;
  if (length === 1) return [{ type: 'italic' }];
  if (length === 2) return [{ type: 'bold' }];
  if (length === 3) return [{ type: 'bold' }, { type: 'italic' }];
  return undefined;
}

function tryEmphasis(
  parser: InlineParser,
  index: number,
  run: number,
  to: number,
  styles: readonly TelegramStyle[],
  insideLink: boolean,
): EmphasisResult | undefined {
  const { text } = parser;
  const character = text[index]!;
  // Try the whole run first, then shorter openers (`**x*` has an italic opener at its second `*`).
  for (let length = Math.min(run, 3); length >= 1; length -= 1) {
    const added = emphasisStyles(character, length);
    if (added === undefined) continue;
    const openerStart = index + run - length;
    if (!canOpen(text, openerStart, length, character)) continue;
    const close = findCloser(parser, openerStart + length, character, length, to);
    if (close === -1) continue;
    const spans: StyledSpan[] = [];
    if (openerStart > index) spans.push({ text: character.repeat(openerStart - index), styles });
    spans.push(...parseRange(parser, openerStart + length, close, [...styles, ...added], insideLink));
    return { spans, end: close + length };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------

/**
 * Applies Telegram's nesting rules to a span's styles: `pre` contains nothing; `code`
 * lives only inside a blockquote; a link never contains code (the code style is dropped);
 * one link and one blockquote at most.
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

/** Escapes text for Telegram HTML (`&`, `<`, `>`; and `"` inside attributes). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>]/g, (character) =>
    character === '&' ? '&amp;' : character === '<' ? '&lt;' : '&gt;',
  );
}

function escapeAttribute(text: string): string {
  return escapeHtml(text).replace(/"/g, '&quot;');
}

function openTag(style: TelegramStyle): string {
  switch (style.type) {
    case 'bold':
      return '<b>';
    case 'italic':
      return '<i>';
    case 'strikethrough':
      return '<s>';
    case 'spoiler':
      return '<tg-spoiler>';
    case 'code':
      return '<code>';
    case 'pre':
      return style.language === undefined
        ? '<pre>'
        : `<pre><code class="language-${escapeAttribute(style.language)}">`;
    case 'link':
      return `<a href="${escapeAttribute(style.href)}">`;
    case 'blockquote':
      return '<blockquote>';
  }
}

function closeTag(style: TelegramStyle): string {
  switch (style.type) {
    case 'bold':
      return '</b>';
    case 'italic':
      return '</i>';
    case 'strikethrough':
      return '</s>';
    case 'spoiler':
      return '</tg-spoiler>';
    case 'code':
      return '</code>';
    case 'pre':
      return style.language === undefined ? '</pre>' : '</code></pre>';
    case 'link':
      return '</a>';
    case 'blockquote':
      return '</blockquote>';
  }
}

/** Renders spans as Telegram HTML. Every tag opened is closed, properly nested. */
export function renderSpans(spans: readonly StyledSpan[]): string {
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

/** The text the user sees: the spans without their styles. */
export function spansText(spans: readonly StyledSpan[]): string {
  return spans.map((span) => span.text).join('');
}

function mergeSpans(spans: readonly StyledSpan[]): StyledSpan[] {
  const merged: StyledSpan[] = [];
  for (const span of spans) {
    if (span.text === '') continue;
    const last = merged.at(-1);
    if (last !== undefined && sameStyles(last.styles, span.styles)) {
      merged[merged.length - 1] = { text: last.text + span.text, styles: last.styles };
    } else {
      merged.push(span);
    }
  }
  return merged;
}

function sameStyles(left: readonly TelegramStyle[], right: readonly TelegramStyle[]): boolean {
  return left.length === right.length && left.every((style, index) => style === right[index]);
}

// ---------------------------------------------------------------------------------------
// Splitting
// ---------------------------------------------------------------------------------------

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Where to cut `text` so that the piece from `start` has at most `limit` characters, and
 * how many separator characters to drop after the cut.
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
export function splitSpans(spans: readonly StyledSpan[], limit: number): StyledSpan[][] {
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
export function truncateSpans(spans: readonly StyledSpan[], limit: number): StyledSpan[] {
  const text = spansText(spans);
  if (text.length <= limit) return spans.slice();
  let cut = limit - 1;
  if (isHighSurrogate(text.charCodeAt(cut - 1))) cut -= 1;
  return [...sliceSpans(spans, 0, cut), { text: '…', styles: [] }];
}

/**
 * Renders Markdown as Telegram HTML, split into messages of at most `limit` visible
 * characters (default 4,096). Whitespace-only pieces are left out, so an empty or blank
 * input gives no chunks.
 */
export function markdownToTelegramHtml(
  markdown: string,
  limit: number = telegramTextLimit,
): TelegramHtmlChunk[] {
  return splitSpans(parseMarkdown(markdown), limit)
    .map((piece) => trimSpans(piece))
    .filter((piece) => piece.length > 0)
    .map((piece) => ({ html: renderSpans(piece), text: spansText(piece) }));
}

/** Drops leading and trailing blank lines (never inside a code block's own indentation). */
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
