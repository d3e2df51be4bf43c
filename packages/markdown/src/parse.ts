// The one Markdown parse: CommonMark plus GitHub's extensions (tables, strikethrough, task
// list items, autolink literals, footnotes), as an mdast tree. Every renderer of this
// package reads this tree; none of them reads the Markdown text again, except to copy a
// table's own lines (a table is shown as written, in monospace).
import type { Definition, Nodes, Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

/** A parsed Markdown text: the source (line endings normalised) and its tree. */
export interface MarkdownDocument {
  /** The Markdown text the tree was parsed from, with `\r\n` and `\r` turned into `\n`. */
  readonly source: string;
  /** The mdast tree; every node carries its `position` in `source`. */
  readonly tree: Root;
  /** Link reference definitions by normalised identifier, for `[label][id]` links. */
  readonly definitions: ReadonlyMap<string, Definition>;
}

/**
 * Parses Markdown (CommonMark + GFM) once. Single tildes are not strikethrough (`~50` stays
 * literal, as models write it); `~~gone~~` is.
 */
export function parseMarkdown(markdown: string): MarkdownDocument {
  const source = markdown.replace(/\r\n?/g, '\n');
  const tree = parseTree(source);
  const definitions = new Map<string, Definition>();
  collectDefinitions(tree, definitions);
  return { source, tree, definitions };
}

/** The mdast tree of `text` as written (offsets are offsets of `text`). */
function parseTree(text: string): Root {
  return fromMarkdown(text, {
    extensions: [gfm({ singleTilde: false })],
    mdastExtensions: [gfmFromMarkdown()],
  });
}

/** The inline constructs a block-only parse leaves out (their text stays plain text). */
const inlineConstructs: string[] = [
  'attention',
  'autolink',
  'characterEscape',
  'characterReference',
  'codeText',
  'hardBreakEscape',
  'htmlText',
  'labelEnd',
  'labelStartImage',
  'labelStartLink',
];

/**
 * The block structure of `text` (paragraphs, lists, quotes, code, HTML blocks), without
 * reading inline Markdown, which never changes where a block starts or ends: for the
 * chunkers, which parse on every streamed delta and only need the code blocks.
 */
export function parseBlocks(text: string): Root {
  return fromMarkdown(text, { extensions: [{ disable: { null: inlineConstructs } }] });
}

function collectDefinitions(node: Nodes, into: Map<string, Definition>): void {
  if (node.type === 'definition') {
    if (!into.has(node.identifier)) into.set(node.identifier, node);
    return;
  }
  if ('children' in node) for (const child of node.children) collectDefinitions(child, into);
}
