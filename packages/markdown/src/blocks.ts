// Helpers every renderer shares: how far apart two sibling blocks were written (the blank
// lines between paragraphs are kept), a table's own lines, a list item's marker, and the
// URL behind a link reference.
import type { Definition, LinkReference, List, ListItem, Node, Table } from 'mdast';
import type { MarkdownDocument } from './parse.ts';

/**
 * The separator between two sibling blocks: as many newlines as the source had between them
 * (at least one), so `one\n\n\ntwo` keeps its two blank lines.
 */
export function blockSeparator(document: MarkdownDocument, previous: Node, next: Node): string {
  const from = previous.position?.end.offset;
  const to = next.position?.start.offset;
  if (from === undefined || to === undefined || to <= from) return '\n';
  let newlines = 0;
  for (let index = from; index < to; index += 1) if (document.source.charCodeAt(index) === 10) newlines += 1;
  return '\n'.repeat(Math.max(1, newlines));
}

/**
 * A table's lines as written (header, delimiter row, body), without the container prefix
 * (`> ` of a quote, a list item's indent) that precedes each line in the source.
 */
export function tableSourceLines(document: MarkdownDocument, table: Table): string[] {
  const start = table.position?.start;
  const end = table.position?.end;
  if (start?.offset === undefined || end?.offset === undefined) return [];
  const lineStart = document.source.lastIndexOf('\n', start.offset - 1) + 1;
  const prefixLength = start.offset - lineStart;
  return document.source
    .slice(lineStart, end.offset)
    .split('\n')
    .map((line) => (prefixLength === 0 ? line : line.replace(containerPrefix(prefixLength), '')).trim());
}

function containerPrefix(length: number): RegExp {
  return new RegExp(`^[ \\t>]{0,${length}}`);
}

/** The marker of a list item as shown: `start + index.` for ordered lists, `bullet` otherwise. */
export function listItemMarker(list: List, index: number, bullet: string): string {
  return list.ordered === true ? `${(list.start ?? 1) + index}. ` : bullet;
}

/** A task list item's box (`☐ ` / `☑ `), or nothing for an ordinary item. */
export function taskBox(item: ListItem): string {
  if (item.checked === true) return '☑ ';
  if (item.checked === false) return '☐ ';
  return '';
}

/** The definition a `[label][id]` reference points at, if the text defines it. */
export function referencedDefinition(
  document: MarkdownDocument,
  reference: Pick<LinkReference, 'identifier'>,
): Definition | undefined {
  return document.definitions.get(reference.identifier);
}

/** Indents every line after the first by `indent` (blank lines stay empty). */
export function indentFollowingLines(text: string, indent: string): string {
  return text.replace(/\n(?=[^\n])/g, `\n${indent}`);
}
