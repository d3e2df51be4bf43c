// A small Markdown reader for WebChat. It turns model output into a tree of plain objects
// ({ tag, attrs, children } or strings); the page builds DOM nodes from that tree with
// createElement and text nodes, so nothing in a reply is ever parsed as HTML. Tags and
// attribute names come from this file only; link targets are limited to http(s) and mailto.
//
// Covered: fenced code (an unclosed fence runs to the end, which suits streaming), ATX
// headings, rules, block quotes, nested lists, pipe tables, paragraphs with line breaks;
// inline code, bold, italic, strike-through, links, autolinks, backslash escapes.
// Images are shown as links: a reply never makes the browser fetch anything.

/** @typedef {{ tag: string, attrs?: Record<string, string>, children: MarkdownNode[] }} MarkdownElement */
/** @typedef {MarkdownElement | string} MarkdownNode */

const fence = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const heading = /^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$/;
const rule = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const quote = /^ {0,3}> ?(.*)$/;
const listItem = /^( {0,12})([-*+]|\d{1,9}[.)])(\s+|$)(.*)$/;
const tableSeparator = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
const blank = /^\s*$/;

/**
 * @param {string} tag
 * @param {MarkdownNode[]} children
 * @param {Record<string, string>} [attrs]
 * @returns {MarkdownElement}
 */
function element(tag, children, attrs) {
  return attrs === undefined ? { tag, children } : { tag, attrs, children };
}

/**
 * Parses Markdown text into block nodes.
 * @param {string} source
 * @returns {MarkdownNode[]}
 */
export function parseMarkdown(source) {
  const lines = String(source).replace(/\r\n?/g, '\n').split('\n');
  return parseBlocks(lines, 0);
}

/**
 * @param {string[]} lines
 * @param {number} depth
 * @returns {MarkdownNode[]}
 */
function parseBlocks(lines, depth) {
  /** @type {MarkdownNode[]} */
  const blocks = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] ?? '';
    if (blank.test(line)) {
      index += 1;
      continue;
    }
    const fenceMatch = fence.exec(line);
    if (fenceMatch !== null) {
      const marker = fenceMatch[1] ?? '```';
      const language = (fenceMatch[2] ?? '').replace(/[^\w+#.-]/g, '').slice(0, 32);
      const body = [];
      index += 1;
      while (index < lines.length) {
        const current = lines[index] ?? '';
        const closing = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(current)?.[1];
        if (closing !== undefined && closing[0] === marker[0] && closing.length >= marker.length) {
          index += 1;
          break;
        }
        body.push(current);
        index += 1;
      }
      blocks.push(codeBlock(body.join('\n'), language));
      continue;
    }
    const headingMatch = heading.exec(line);
    if (headingMatch !== null) {
      const level = (headingMatch[1] ?? '#').length;
      blocks.push(element(`h${level}`, parseInline(headingMatch[2] ?? '')));
      index += 1;
      continue;
    }
    if (rule.test(line)) {
      blocks.push(element('hr', []));
      index += 1;
      continue;
    }
    if (quote.test(line)) {
      const inner = [];
      while (index < lines.length && !blank.test(lines[index] ?? '')) {
        const current = lines[index] ?? '';
        const match = quote.exec(current);
        inner.push(match === null ? current : (match[1] ?? ''));
        index += 1;
      }
      blocks.push(element('blockquote', depth > 8 ? [inner.join('\n')] : parseBlocks(inner, depth + 1)));
      continue;
    }
    const itemMatch = listItem.exec(line);
    if (itemMatch !== null && depth <= 8) {
      index = parseList(lines, index, depth, blocks);
      continue;
    }
    if (
      line.includes('|') &&
      tableSeparator.test(lines[index + 1] ?? '') &&
      (lines[index + 1] ?? '').includes('-')
    ) {
      index = parseTable(lines, index, blocks);
      continue;
    }
    const paragraph = [];
    while (index < lines.length) {
      const current = lines[index] ?? '';
      if (blank.test(current)) break;
      if (paragraph.length > 0 && startsBlock(current, lines[index + 1])) break;
      paragraph.push(current.trim());
      index += 1;
    }
    blocks.push(element('p', withBreaks(paragraph)));
  }
  return blocks;
}

/**
 * Whether a line inside a paragraph starts a new block.
 * @param {string} line
 * @param {string | undefined} next
 */
function startsBlock(line, next) {
  return (
    fence.test(line) ||
    heading.test(line) ||
    rule.test(line) ||
    quote.test(line) ||
    /^ {0,3}([-*+]|\d{1,9}[.)])\s+\S/.test(line) ||
    (line.includes('|') && next !== undefined && tableSeparator.test(next) && next.includes('-'))
  );
}

/**
 * @param {string[]} lines
 * @returns {MarkdownNode[]}
 */
function withBreaks(lines) {
  /** @type {MarkdownNode[]} */
  const children = [];
  lines.forEach((line, position) => {
    if (position > 0) children.push(element('br', []));
    children.push(...parseInline(line));
  });
  return children;
}

/**
 * @param {string} code
 * @param {string} language
 * @returns {MarkdownElement}
 */
function codeBlock(code, language) {
  const attrs = language === '' ? undefined : { 'data-language': language };
  return element('pre', [element('code', [code], attrs)], attrs);
}

/**
 * @param {string} line
 * @returns {number}
 */
function indentOf(line) {
  return /^ */.exec(line.replace(/\t/g, '    '))?.[0].length ?? 0;
}

/**
 * Reads a list starting at `start` and pushes it onto `blocks`; returns the next line index.
 * @param {string[]} lines
 * @param {number} start
 * @param {number} depth
 * @param {MarkdownNode[]} blocks
 */
function parseList(lines, start, depth, blocks) {
  const first = listItem.exec(lines[start] ?? '');
  const ordered = /\d/.test(first?.[2] ?? '');
  const baseIndent = indentOf(lines[start] ?? '');
  /** @type {MarkdownNode[]} */
  const items = [];
  let index = start;
  /** @type {string[] | undefined} */
  let current;
  let contentIndent = 0;
  const finish = () => {
    if (current === undefined) return;
    const children = parseBlocks(current, depth + 1);
    // A tight item's single paragraph is shown without the paragraph box.
    const only = children.length === 1 ? children[0] : undefined;
    items.push(element('li', typeof only === 'object' && only.tag === 'p' ? only.children : children));
  };
  while (index < lines.length) {
    const line = lines[index] ?? '';
    const match = listItem.exec(line);
    const indent = indentOf(line);
    if (match !== null && indent >= baseIndent && indent < baseIndent + 2) {
      const isOrdered = /\d/.test(match[2] ?? '');
      if (isOrdered !== ordered) break;
      finish();
      current = [match[4] ?? ''];
      contentIndent = indent + (match[2] ?? '').length + Math.max(1, Math.min((match[3] ?? ' ').length, 4));
      index += 1;
      continue;
    }
    if (blank.test(line)) {
      const next = lines[index + 1];
      if (next === undefined || (indentOf(next) < contentIndent && listItem.exec(next) === null)) break;
      if (listItem.exec(next) !== null && indentOf(next) < baseIndent) break;
      current?.push('');
      index += 1;
      continue;
    }
    if (indent >= Math.min(contentIndent, baseIndent + 2)) {
      current?.push(line.slice(Math.min(indent, contentIndent)));
      index += 1;
      continue;
    }
    if (match === null && !startsBlock(line, lines[index + 1])) {
      // A lazy continuation line of the item's paragraph.
      current?.push(line.trim());
      index += 1;
      continue;
    }
    break;
  }
  finish();
  const startNumber = ordered ? Number.parseInt(first?.[2] ?? '1', 10) : 1;
  blocks.push(
    element(
      ordered ? 'ol' : 'ul',
      items,
      ordered && startNumber !== 1 ? { start: String(startNumber) } : undefined,
    ),
  );
  return index;
}

/**
 * @param {string} line
 * @returns {string[]}
 */
function tableCells(line) {
  let text = line.trim();
  if (text.startsWith('|')) text = text.slice(1);
  if (text.endsWith('|') && !text.endsWith('\\|')) text = text.slice(0, -1);
  const cells = [];
  let cell = '';
  for (let position = 0; position < text.length; position += 1) {
    const character = text[position];
    if (character === '\\' && text[position + 1] === '|') {
      cell += '|';
      position += 1;
    } else if (character === '|') {
      cells.push(cell.trim());
      cell = '';
    } else {
      cell += character;
    }
  }
  cells.push(cell.trim());
  return cells;
}

/**
 * @param {string[]} lines
 * @param {number} start
 * @param {MarkdownNode[]} blocks
 */
function parseTable(lines, start, blocks) {
  const header = tableCells(lines[start] ?? '');
  const alignments = tableCells(lines[start + 1] ?? '').map((cell) =>
    cell.startsWith(':') && cell.endsWith(':')
      ? 'center'
      : cell.endsWith(':')
        ? 'right'
        : cell.startsWith(':')
          ? 'left'
          : '',
  );
  /** @param {number} column */
  const align = (column) => {
    const value = alignments[column] ?? '';
    return value === '' ? undefined : { 'data-align': value };
  };
  const head = element('thead', [
    element(
      'tr',
      header.map((cell, column) => element('th', parseInline(cell), align(column))),
    ),
  ]);
  /** @type {MarkdownNode[]} */
  const rows = [];
  let index = start + 2;
  while (index < lines.length) {
    const line = lines[index] ?? '';
    if (blank.test(line) || !line.includes('|')) break;
    const cells = tableCells(line);
    rows.push(
      element(
        'tr',
        header.map((_, column) => element('td', parseInline(cells[column] ?? ''), align(column))),
      ),
    );
    index += 1;
  }
  blocks.push(element('div', [element('table', [head, element('tbody', rows)])], { class: 'table-wrap' }));
  return index;
}

/**
 * A link target the page may use, or undefined: http(s) and mailto only.
 * @param {string} target
 * @returns {string | undefined}
 */
export function safeUrl(target) {
  const trimmed = target.trim().replace(/^<|>$/g, '');
  if (!/^(https?:\/\/|mailto:)/i.test(trimmed)) return undefined;
  try {
    const url = new URL(trimmed);
    if (url.protocol !== 'http:' && url.protocol !== 'https:' && url.protocol !== 'mailto:') return undefined;
    return url.href;
  } catch {
    return undefined;
  }
}

/**
 * @param {string} href
 * @param {MarkdownNode[]} children
 * @returns {MarkdownElement}
 */
function link(href, children) {
  return element('a', children, { href, rel: 'noopener noreferrer nofollow', target: '_blank' });
}

/** Inline spans (emphasis, code, links) longer than this are not looked for: keeps parsing linear. */
const maxSpan = 4000;

const emphasisMarkers = [
  { marker: '**', tag: 'strong' },
  { marker: '__', tag: 'strong' },
  { marker: '~~', tag: 'del' },
  { marker: '*', tag: 'em' },
  { marker: '_', tag: 'em' },
];

/**
 * Parses inline Markdown into nodes.
 * @param {string} text
 * @param {number} [depth]
 * @returns {MarkdownNode[]}
 */
export function parseInline(text, depth = 0) {
  /** @type {MarkdownNode[]} */
  const out = [];
  let plain = '';
  const flush = () => {
    if (plain !== '') out.push(plain);
    plain = '';
  };
  let index = 0;
  while (index < text.length) {
    const character = text[index] ?? '';
    const rest = text.slice(index);
    if (character === '\\' && /^[\\`*_{}[\]()#+\-.!|~<>]/.test(text[index + 1] ?? '')) {
      plain += text[index + 1];
      index += 2;
      continue;
    }
    if (character === '`') {
      const run = /^`+/.exec(rest)?.[0] ?? '`';
      const close = text.indexOf(run, index + run.length);
      if (close !== -1 && close - index <= maxSpan) {
        flush();
        let code = text.slice(index + run.length, close);
        if (code.startsWith(' ') && code.endsWith(' ') && code.trim() !== '') code = code.slice(1, -1);
        out.push(element('code', [code]));
        index = close + run.length;
        continue;
      }
      plain += run;
      index += run.length;
      continue;
    }
    if (character === '!' && text[index + 1] === '[') {
      const parsed = linkAt(text, index + 1);
      if (parsed !== undefined) {
        flush();
        const href = safeUrl(parsed.target);
        const label = parsed.label === '' ? 'image' : parsed.label;
        out.push(href === undefined ? `[${label}]` : link(href, [`🖼 ${label}`]));
        index = parsed.end;
        continue;
      }
    }
    if (character === '[') {
      const parsed = linkAt(text, index);
      if (parsed !== undefined) {
        flush();
        const href = safeUrl(parsed.target);
        const children = depth > 6 ? [parsed.label] : parseInline(parsed.label, depth + 1);
        if (href === undefined) out.push(...children);
        else out.push(link(href, children));
        index = parsed.end;
        continue;
      }
    }
    if (character === '<') {
      const auto = /^<((?:https?:\/\/|mailto:)[^\s<>]+)>/i.exec(rest);
      const href = auto === null ? undefined : safeUrl(auto[1] ?? '');
      if (auto !== null && href !== undefined) {
        flush();
        out.push(link(href, [auto[1] ?? '']));
        index += auto[0].length;
        continue;
      }
    }
    if ((character === 'h' || character === 'H') && /^https?:\/\//i.test(rest) && !/[\w/]$/.test(plain)) {
      const bare = /^https?:\/\/[^\s<>"'`]+/i.exec(rest)?.[0] ?? '';
      const trimmed = bare.replace(/[.,;:!?)\]}'"]+$/, '');
      const href = safeUrl(trimmed);
      if (href !== undefined && trimmed.length > 8) {
        flush();
        out.push(link(href, [trimmed]));
        index += trimmed.length;
        continue;
      }
    }
    const emphasis = depth > 6 ? undefined : emphasisAt(text, index);
    if (emphasis !== undefined) {
      flush();
      out.push(element(emphasis.tag, parseInline(emphasis.inner, depth + 1)));
      index = emphasis.end;
      continue;
    }
    plain += character;
    index += 1;
  }
  flush();
  return out;
}

/**
 * `[label](target)` starting at `start` (the `[`), or undefined.
 * @param {string} text
 * @param {number} start
 * @returns {{ label: string, target: string, end: number } | undefined}
 */
function linkAt(text, start) {
  let level = 0;
  let position = start;
  const labelEnd = Math.min(text.length, start + 500);
  for (; position < labelEnd; position += 1) {
    const character = text[position];
    if (character === '\\') {
      position += 1;
      continue;
    }
    if (character === '[') level += 1;
    else if (character === ']') {
      level -= 1;
      if (level === 0) break;
    }
  }
  if (level !== 0 || text[position + 1] !== '(') return undefined;
  // The target may hold balanced parentheses (wiki links, `javascript:alert(1)`).
  let depth = 0;
  let close = -1;
  const targetEnd = Math.min(text.length, position + 2 + 1000);
  for (let scan = position + 2; scan < targetEnd; scan += 1) {
    const character = text[scan];
    if (character === '\\') scan += 1;
    else if (character === '(') depth += 1;
    else if (character === ')') {
      if (depth === 0) {
        close = scan;
        break;
      }
      depth -= 1;
    } else if (character === '\n') break;
  }
  if (close === -1) return undefined;
  const inside = text.slice(position + 2, close).trim();
  const target = /^(\S+)(?:\s+["'(].*)?$/.exec(inside)?.[1] ?? '';
  if (target === '') return undefined;
  return { label: text.slice(start + 1, position), target, end: close + 1 };
}

/**
 * An emphasis span starting at `start`, or undefined.
 * @param {string} text
 * @param {number} start
 * @returns {{ tag: string, inner: string, end: number } | undefined}
 */
function emphasisAt(text, start) {
  for (const { marker, tag } of emphasisMarkers) {
    if (!text.startsWith(marker, start)) continue;
    const after = text[start + marker.length] ?? '';
    if (after === '' || /\s/.test(after) || after === marker[0]) continue;
    const before = text[start - 1] ?? '';
    // Intraword underscores (snake_case) are not emphasis.
    if (marker[0] === '_' && /\w/.test(before)) continue;
    let search = start + marker.length + 1;
    const limit = start + maxSpan;
    for (let candidates = 0; candidates < 16 && search <= limit; candidates += 1) {
      const close = text.indexOf(marker, search);
      if (close === -1 || close > limit) break;
      const inner = text.slice(start + marker.length, close);
      const closeBefore = text[close - 1] ?? '';
      const closeAfter = text[close + marker.length] ?? '';
      const codeTicks = (inner.match(/`/g) ?? []).length;
      if (
        !/\s/.test(closeBefore) &&
        closeAfter !== marker[0] &&
        !(marker[0] === '_' && /\w/.test(closeAfter)) &&
        codeTicks % 2 === 0
      ) {
        return { tag, inner, end: close + marker.length };
      }
      search = close + 1;
    }
  }
  return undefined;
}

/**
 * The plain text of a node tree (for copy buttons and tests).
 * @param {MarkdownNode[]} nodes
 * @returns {string}
 */
export function textOf(nodes) {
  return nodes.map((node) => (typeof node === 'string' ? node : textOf(node.children))).join('');
}
