// The mdast tree as Telegram sees it: runs of text, each with the styles it sits in
// (outermost first). HTML is rendered from spans (telegram-html.ts), so every tag opened is
// closed in the same message whatever the input; splitting works on spans too, by visible
// length, which is what Telegram's limits count.
import type { List, ListItem, PhrasingContent, RootContent, Text } from 'mdast';
import { blockSeparator, listItemMarker, referencedDefinition, tableSourceLines, taskBox } from './blocks.ts';
import { type MarkdownDocument, parseMarkdown } from './parse.ts';

/** A style Telegram's HTML can express. Objects are shared by the spans they cover. */
export type TelegramStyle =
  | { readonly type: 'bold' }
  | { readonly type: 'italic' }
  | { readonly type: 'underline' }
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

/** The URL schemes a Telegram link may use; other links show their label only. */
const linkSchemes = /^(https?:\/\/|tg:\/\/|mailto:)/i;
const languagePattern = /^[\w#+.-]{1,40}$/;

const bold: TelegramStyle = { type: 'bold' };

type Styles = readonly TelegramStyle[];

/** The spans of a Markdown text (or an already parsed document). */
export function telegramSpans(markdown: string | MarkdownDocument): StyledSpan[] {
  const document = typeof markdown === 'string' ? parseMarkdown(markdown) : markdown;
  return mergeSpans(blockSpans(document, document.tree.children, []));
}

function blockSpans(
  document: MarkdownDocument,
  blocks: readonly RootContent[],
  styles: Styles,
): StyledSpan[] {
  const spans: StyledSpan[] = [];
  let previous: RootContent | undefined;
  for (const block of blocks) {
    if (block.type === 'definition') continue;
    if (previous !== undefined) spans.push({ text: blockSeparator(document, previous, block), styles });
    spans.push(...oneBlock(document, block, styles));
    previous = block;
  }
  return spans;
}

function oneBlock(document: MarkdownDocument, block: RootContent, styles: Styles): StyledSpan[] {
  switch (block.type) {
    case 'paragraph':
      return inlineSpans(document, block.children, styles);
    case 'heading':
      return inlineSpans(document, block.children, [...styles, bold]);
    case 'thematicBreak':
      return [{ text: '———', styles }];
    case 'blockquote':
      return blockSpans(document, block.children, [...styles, { type: 'blockquote' }]);
    case 'list':
      return listSpans(document, block, styles);
    case 'code': {
      const language = block.lang ?? undefined;
      const pre: TelegramStyle =
        language !== undefined && languagePattern.test(language)
          ? { type: 'pre', language }
          : { type: 'pre' };
      return [{ text: block.value, styles: [...styles, pre] }];
    }
    case 'html':
      return [{ text: block.value, styles }];
    case 'table':
      return [{ text: tableSourceLines(document, block).join('\n'), styles: [...styles, { type: 'pre' }] }];
    case 'footnoteDefinition':
      return [
        { text: `[^${block.label ?? block.identifier}]: `, styles },
        ...blockSpans(document, block.children, styles),
      ];
    default:
      return inlineSpans(document, [block as PhrasingContent], styles);
  }
}

function listSpans(document: MarkdownDocument, list: List, styles: Styles): StyledSpan[] {
  const spans: StyledSpan[] = [];
  let previous: ListItem | undefined;
  list.children.forEach((item, index) => {
    if (previous !== undefined) spans.push({ text: blockSeparator(document, previous, item), styles });
    const marker = listItemMarker(list, index, '• ');
    spans.push({ text: `${marker}${taskBox(item)}`, styles });
    spans.push(...indentSpans(blockSpans(document, item.children, styles), ' '.repeat(marker.length)));
    previous = item;
  });
  return spans;
}

/** Indents the lines after the first (not inside code blocks, whose text is kept as written). */
function indentSpans(spans: readonly StyledSpan[], indent: string): StyledSpan[] {
  let atLineStart = false;
  return spans.map((span) => {
    if (span.styles.some((style) => style.type === 'pre')) {
      atLineStart = span.text.endsWith('\n');
      return span;
    }
    let text = '';
    for (const character of span.text) {
      if (atLineStart && character !== '\n') text += indent;
      text += character;
      atLineStart = character === '\n';
    }
    return { text, styles: span.styles };
  });
}

function inlineSpans(
  document: MarkdownDocument,
  nodes: readonly PhrasingContent[],
  styles: Styles,
): StyledSpan[] {
  return nodes.flatMap((node) => phrasingSpans(document, node, styles));
}

function linkSpans(
  document: MarkdownDocument,
  url: string,
  label: readonly PhrasingContent[] | string,
  styles: Styles,
): StyledSpan[] {
  const safe = linkSchemes.test(url);
  const inner: Styles = safe ? [...styles, { type: 'link', href: url }] : styles;
  const spans =
    typeof label === 'string' ? [{ text: label, styles: inner }] : inlineSpans(document, label, inner);
  if (spans.every((span) => span.text.trim() === '')) return [{ text: url, styles: inner }];
  return spans;
}

function phrasingSpans(document: MarkdownDocument, node: PhrasingContent, styles: Styles): StyledSpan[] {
  switch (node.type) {
    case 'text':
      return textSpans(node, styles);
    case 'html':
      return [{ text: node.value, styles }];
    case 'strong':
      return inlineSpans(document, node.children, [...styles, bold]);
    case 'emphasis': {
      // `***both***` parses as emphasis(strong(…)); bold outside, as the other platforms write it.
      const only = node.children.length === 1 ? node.children[0] : undefined;
      if (only?.type === 'strong')
        return inlineSpans(document, only.children, [...styles, bold, { type: 'italic' }]);
      return inlineSpans(document, node.children, [...styles, { type: 'italic' }]);
    }
    case 'delete':
      return inlineSpans(document, node.children, [...styles, { type: 'strikethrough' }]);
    case 'inlineCode':
      return [{ text: node.value, styles: [...styles, { type: 'code' }] }];
    case 'break':
      return [{ text: '\n', styles }];
    case 'link':
      return linkSpans(document, node.url, node.children, styles);
    case 'image':
      return linkSpans(document, node.url, node.alt ?? '', styles);
    case 'linkReference': {
      const definition = referencedDefinition(document, node);
      return definition === undefined
        ? inlineSpans(document, node.children, styles)
        : linkSpans(document, definition.url, node.children, styles);
    }
    case 'imageReference': {
      const definition = referencedDefinition(document, node);
      return definition === undefined
        ? [{ text: node.alt ?? '', styles }]
        : linkSpans(document, definition.url, node.alt ?? '', styles);
    }
    case 'footnoteReference':
      return [{ text: `[^${node.label ?? node.identifier}]`, styles }];
  }
}

/** `||spoiler||` is Telegram's (and Discord's) own syntax, not Markdown's: read in text runs. */
function textSpans(node: Text, styles: Styles): StyledSpan[] {
  const spans: StyledSpan[] = [];
  let last = 0;
  for (const match of node.value.matchAll(/\|\|(?=\S)(.*?\S)\|\|/gs)) {
    if (match.index > last) spans.push({ text: node.value.slice(last, match.index), styles });
    spans.push({ text: match[1]!, styles: [...styles, { type: 'spoiler' }] });
    last = match.index + match[0].length;
  }
  if (last < node.value.length) spans.push({ text: node.value.slice(last), styles });
  return spans;
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

function sameStyles(left: Styles, right: Styles): boolean {
  return left.length === right.length && left.every((style, index) => style === right[index]);
}
