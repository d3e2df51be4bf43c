// Discord renders Markdown itself (bold, italic, strikethrough, spoilers, code with language,
// quotes, lists, headings # to ###, masked links), so its rendering is the text as written,
// except for what Discord does not draw: a table becomes a code block of its lines, and a
// heading deeper than ### becomes a bold line.
import type { RootContent } from 'mdast';
import { tableSourceLines } from './blocks.ts';
import { type MarkdownDocument, parseMarkdown } from './parse.ts';

function replacement(document: MarkdownDocument, block: RootContent): string | undefined {
  if (block.type === 'table') return `\`\`\`\n${tableSourceLines(document, block).join('\n')}\n\`\`\``;
  if (block.type === 'heading' && block.depth > 3) {
    const start = block.position?.start.offset;
    const end = block.position?.end.offset;
    if (start === undefined || end === undefined) return undefined;
    const content = document.source
      .slice(start, end)
      .replace(/^ {0,3}#{4,6}[ \t]*/, '')
      .replace(/[ \t]+#+[ \t]*$/, '')
      .trim();
    return content === '' ? '' : `**${content}**`;
  }
  return undefined;
}

/** Renders Markdown (a text or an already parsed document) for Discord. */
export function renderDiscordMarkdown(markdown: string | MarkdownDocument): string {
  const document = typeof markdown === 'string' ? parseMarkdown(markdown) : markdown;
  let output = '';
  let last = 0;
  for (const block of document.tree.children) {
    const start = block.position?.start.offset;
    const end = block.position?.end.offset;
    const replaced = replacement(document, block);
    if (replaced === undefined || start === undefined || end === undefined) continue;
    output += document.source.slice(last, start) + replaced;
    last = end;
  }
  return output + document.source.slice(last);
}
