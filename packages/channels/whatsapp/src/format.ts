// Outbound text: Markdown as the model writes it → WhatsApp's own markup (the renderer of
// @switchboard/markdown, on the one mdast parse every platform shares), and a safe split
// when the rendered text is still longer than one message may be.
import { renderWhatsApp } from '@switchboard/markdown';

/** Converts Markdown to WhatsApp markup. Code blocks and code spans are kept verbatim. */
export function markdownToWhatsApp(markdown: string): string {
  return renderWhatsApp(markdown);
}

/**
 * Splits rendered WhatsApp text into messages of at most `limit` characters: between
 * paragraphs first, then between lines, then between words. A code block cut in two is
 * closed at the end of one message and opened again at the start of the next, so every
 * message renders on its own.
 */
export function splitWhatsAppText(text: string, limit: number): string[] {
  if (limit < 16) throw new RangeError(`the text limit must be at least 16 characters, got ${limit}`);
  const trimmed = text.replace(/\s+$/, '');
  if (trimmed.length <= limit) return trimmed === '' ? [] : [trimmed];
  const chunks: string[] = [];
  let current = '';
  const flush = () => {
    const value = current.replace(/\s+$/, '');
    if (value.trim() !== '') chunks.push(value);
    current = '';
  };
  for (const block of splitBlocks(trimmed)) {
    const joined = current === '' ? block : `${current}\n\n${block}`;
    if (joined.length <= limit) {
      current = joined;
      continue;
    }
    flush();
    if (block.length <= limit) {
      current = block;
      continue;
    }
    for (const piece of splitBlock(block, limit)) {
      const next = current === '' ? piece : `${current}\n${piece}`;
      if (next.length <= limit) current = next;
      else {
        flush();
        current = piece;
      }
    }
  }
  flush();
  return chunks;
}

/** Paragraphs (separated by blank lines) and whole code blocks. */
function splitBlocks(text: string): string[] {
  const blocks: string[] = [];
  let lines: string[] = [];
  let inFence = false;
  for (const line of text.split('\n')) {
    if (/^ {0,3}(```|~~~)/.test(line)) inFence = !inFence;
    if (!inFence && line.trim() === '' && !/^ {0,3}(```|~~~)/.test(line)) {
      if (lines.length > 0) blocks.push(lines.join('\n'));
      lines = [];
      continue;
    }
    lines.push(line);
  }
  if (lines.length > 0) blocks.push(lines.join('\n'));
  return blocks;
}

/** A block longer than the limit, as pieces that each fit, with code fences balanced per piece. */
function splitBlock(block: string, limit: number): string[] {
  const closing = '```';
  const pieces: string[] = [];
  let current: string[] = [];
  let length = 0;
  let inFence = false;
  const add = (line: string) => {
    length += (current.length === 0 ? 0 : 1) + line.length;
    current.push(line);
  };
  const onlyReopened = () => current.length === 1 && current[0] === closing && inFence;
  const flush = () => {
    if (current.length === 0 || onlyReopened()) return;
    pieces.push(inFence ? `${current.join('\n')}\n${closing}` : current.join('\n'));
    current = [];
    length = 0;
    if (inFence) add(closing);
  };
  // Room for a reopened fence, the line and a closing fence in an otherwise empty message.
  const width = limit - 2 * (closing.length + 1);
  const lines = block
    .split('\n')
    .flatMap((line) => (line.length > width ? splitLongLine(line, width) : [line]));
  for (const line of lines) {
    const isFence = /^ {0,3}(```|~~~)/.test(line);
    const insideAfter: boolean = isFence ? !inFence : inFence;
    const needed =
      length + (current.length === 0 ? 0 : 1) + line.length + (insideAfter ? closing.length + 1 : 0);
    if (needed > limit) flush();
    if (isFence && onlyReopened()) {
      // The block's own closing fence right after a reopened one: nothing left inside it.
      current = [];
      length = 0;
      inFence = false;
      continue;
    }
    add(line);
    inFence = insideAfter;
  }
  if (current.length > 0 && !onlyReopened()) {
    pieces.push(inFence ? `${current.join('\n')}\n${closing}` : current.join('\n'));
  }
  return pieces;
}

function splitLongLine(line: string, width: number): string[] {
  const parts: string[] = [];
  let rest = line;
  while (rest.length > width) {
    let cut = rest.lastIndexOf(' ', width);
    if (cut < width / 2) cut = width;
    parts.push(rest.slice(0, cut).replace(/\s+$/, ''));
    rest = rest.slice(cut).replace(/^\s+/, '');
  }
  if (rest !== '') parts.push(rest);
  return parts;
}

/** Renders Markdown for WhatsApp and splits it to the limit: what a send delivers, in order. */
export function renderWhatsAppMessages(markdown: string, limit: number): string[] {
  return splitWhatsAppText(markdownToWhatsApp(markdown), limit);
}
