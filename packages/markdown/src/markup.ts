// The renderer for platforms whose messages are text with their own markup (Slack mrkdwn,
// WhatsApp): one walk over the mdast tree, the platform's spelling supplied by a dialect.
import type { List, ListItem, Nodes, PhrasingContent, RootContent } from 'mdast';
import {
  blockSeparator,
  indentFollowingLines,
  listItemMarker,
  referencedDefinition,
  tableSourceLines,
  taskBox,
} from './blocks.ts';
import type { MarkdownDocument } from './parse.ts';

/** How a link was written: `[label](url)`, `<url>`, or a bare URL in the text. */
type LinkKind = 'link' | 'autolink' | 'literal';

/**
 * How one platform spells each construct (the seam between the tree walk and a platform).
 * Contract: every method returns text in the platform's markup; `text` makes literal text
 * safe (escaping, or neutralising characters the platform would read as markup); the
 * wrappers receive already rendered, non-empty content.
 */
export interface MarkupDialect {
  /** Literal text: a text node, or raw HTML the model wrote (shown as written). */
  text(value: string): string;
  strong(inner: string): string;
  emphasis(inner: string): string;
  strikethrough(inner: string): string;
  inlineCode(value: string): string;
  /** `label` is rendered markup, `plainLabel` its text without markup. */
  link(url: string, label: string, plainLabel: string, kind: LinkKind): string;
  /** A heading's content, rendered with bold markers suppressed. */
  heading(inner: string, depth: number): string;
  codeBlock(value: string, language: string | undefined): string;
  /** A table's lines as written; platforms without tables show them as a code block. */
  table(lines: readonly string[]): string;
  /** A quote around rendered blocks. */
  quote(inner: string): string;
  readonly rule: string;
  readonly bullet: string;
}

interface InlineContext {
  readonly insideStrong: boolean;
}

/** Renders a parsed document with `dialect`. */
export function renderMarkup(document: MarkdownDocument, dialect: MarkupDialect): string {
  return renderBlocks(document, dialect, document.tree.children);
}

function renderBlocks(
  document: MarkdownDocument,
  dialect: MarkupDialect,
  blocks: readonly RootContent[],
): string {
  let output = '';
  let previous: RootContent | undefined;
  for (const block of blocks) {
    if (block.type === 'definition') continue;
    const rendered = renderBlock(document, dialect, block);
    output += previous === undefined ? rendered : blockSeparator(document, previous, block) + rendered;
    previous = block;
  }
  return output;
}

function renderBlock(document: MarkdownDocument, dialect: MarkupDialect, block: RootContent): string {
  switch (block.type) {
    case 'paragraph':
      return renderInline(document, dialect, block.children, { insideStrong: false });
    case 'heading':
      return dialect.heading(
        renderInline(document, dialect, block.children, { insideStrong: true }),
        block.depth,
      );
    case 'thematicBreak':
      return dialect.rule;
    case 'blockquote':
      return dialect.quote(renderBlocks(document, dialect, block.children));
    case 'list':
      return renderList(document, dialect, block);
    case 'code':
      return dialect.codeBlock(block.value, block.lang ?? undefined);
    case 'html':
      return dialect.text(block.value);
    case 'table':
      return dialect.table(tableSourceLines(document, block));
    case 'footnoteDefinition':
      return `${dialect.text(`[^${block.label ?? block.identifier}]: `)}${renderBlocks(document, dialect, block.children)}`;
    default:
      return renderInline(document, dialect, [block as PhrasingContent], { insideStrong: false });
  }
}

function renderList(document: MarkdownDocument, dialect: MarkupDialect, list: List): string {
  let output = '';
  let previous: ListItem | undefined;
  list.children.forEach((item, index) => {
    const marker = listItemMarker(list, index, dialect.bullet);
    const body = renderBlocks(document, dialect, item.children);
    const rendered =
      `${marker}${taskBox(item)}${indentFollowingLines(body, ' '.repeat(marker.length))}`.trimEnd();
    output += previous === undefined ? rendered : blockSeparator(document, previous, item) + rendered;
    previous = item;
  });
  return output;
}

function renderInline(
  document: MarkdownDocument,
  dialect: MarkupDialect,
  nodes: readonly PhrasingContent[],
  context: InlineContext,
): string {
  let output = '';
  for (const node of nodes) output += renderPhrasing(document, dialect, node, context);
  return output;
}

function renderPhrasing(
  document: MarkdownDocument,
  dialect: MarkupDialect,
  node: PhrasingContent,
  context: InlineContext,
): string {
  const inner = (children: readonly PhrasingContent[], next: InlineContext = context) =>
    renderInline(document, dialect, children, next);
  switch (node.type) {
    case 'text':
    case 'html':
      return dialect.text(node.value);
    case 'strong': {
      if (context.insideStrong) return inner(node.children);
      const content = inner(node.children, { insideStrong: true });
      return content.trim() === '' ? content : dialect.strong(content);
    }
    case 'emphasis': {
      // `***both***` parses as emphasis(strong(…)); written bold-outside, as platforms show it.
      const only = node.children.length === 1 ? node.children[0] : undefined;
      if (only?.type === 'strong' && !context.insideStrong) {
        const content = inner(only.children, { insideStrong: true });
        return content.trim() === '' ? content : dialect.strong(dialect.emphasis(content));
      }
      const content = inner(node.children);
      return content.trim() === '' ? content : dialect.emphasis(content);
    }
    case 'delete': {
      const content = inner(node.children);
      return content.trim() === '' ? content : dialect.strikethrough(content);
    }
    case 'inlineCode':
      return dialect.inlineCode(node.value);
    case 'break':
      return '\n';
    case 'link':
      return dialect.link(node.url, inner(node.children), plainText(node), linkKind(document, node));
    case 'image':
      return dialect.link(node.url, dialect.text(node.alt ?? ''), node.alt ?? '', 'link');
    case 'linkReference': {
      const definition = referencedDefinition(document, node);
      const label = inner(node.children);
      return definition === undefined ? label : dialect.link(definition.url, label, plainText(node), 'link');
    }
    case 'imageReference': {
      const definition = referencedDefinition(document, node);
      const alt = node.alt ?? '';
      return definition === undefined
        ? dialect.text(alt)
        : dialect.link(definition.url, dialect.text(alt), alt, 'link');
    }
    case 'footnoteReference':
      return dialect.text(`[^${node.label ?? node.identifier}]`);
  }
}

/** How a link node was written, read from the character at its start. */
function linkKind(document: MarkdownDocument, node: Nodes): LinkKind {
  const offset = node.position?.start.offset;
  // GFM's autolink literal transform leaves the links it finds (`www.…`) without a position.
  if (offset === undefined) return 'literal';
  const first = document.source[offset];
  if (first === '[') return 'link';
  return first === '<' ? 'autolink' : 'literal';
}

/** The text of a node without any markup (alt text for images). */
function plainText(node: Nodes): string {
  if (node.type === 'image' || node.type === 'imageReference') return node.alt ?? '';
  if ('value' in node) return node.value;
  if (node.type === 'break') return '\n';
  if ('children' in node) return node.children.map((child) => plainText(child)).join('');
  return '';
}
