// A safety net for outbound text. The gateway already splits replies at the channel's
// textLimit on paragraph and code-fence boundaries; Discord renders Markdown itself, so the
// text is sent nearly as it is (`renderDiscordMarkdown`: tables become code blocks). Only
// text that still exceeds Discord's 2,000 characters (a direct `send` from a plugin, a table
// grown by its fences) is split here: at line breaks, closing an open code fence at
// the end of a piece and reopening it (with its language tag) at the start of the next.

import { type CodeFence, findCodeFences } from '@switchboard/markdown';

/** The most characters Discord accepts in one message. */
export const discordTextLimit = 2000;

/** Splits `text` into pieces of at most `limit` characters that keep code fences balanced. */
export function splitDiscordText(text: string, limit: number = discordTextLimit): string[] {
  if (text.length <= limit) return text.trim() === '' ? [] : [text];
  // The fences come from the same Markdown parse the renderers use: opening and closing lines by offset.
  const fences = findCodeFences(text);
  const opening = new Map(fences.map((fence) => [fence.start, fence]));
  const closing = new Set(fences.map((fence) => fence.closeStart));
  const pieces: string[] = [];
  let current = '';
  let fence: CodeFence | undefined;

  const closingLine = (): string => (fence === undefined ? '' : `\n${fence.indent}${fence.marker}`);
  const flush = (): void => {
    const body = current.replace(/\n+$/, '');
    if (body.trim() !== '' && body !== fence?.openLine) pieces.push(body + closingLine());
    current = fence === undefined ? '' : `${fence.openLine}\n`;
  };
  const append = (line: string): void => {
    // Room for the line, its newline and (inside a fence) the closing marker.
    const reserve = () => closingLine().length;
    if (current.length + line.length + 1 + reserve() > limit && current.length > 0) flush();
    let rest = line;
    while (current.length + rest.length + reserve() > limit) {
      const room = Math.max(1, limit - current.length - reserve());
      current += rest.slice(0, room);
      rest = rest.slice(room);
      flush();
    }
    current += `${rest}\n`;
  };

  let lineStart = 0;
  for (const line of text.split('\n')) {
    // A fence its list item ended without a closing line is over.
    if (fence !== undefined && fence.closeStart >= 0 && lineStart >= fence.end) fence = undefined;
    const opened = fence === undefined ? opening.get(lineStart) : undefined;
    append(line);
    if (opened !== undefined) fence = opened;
    else if (fence !== undefined && closing.has(lineStart)) fence = undefined;
    lineStart += line.length + 1;
  }
  const last = current.replace(/\n+$/, '');
  if (last.trim() !== '' && last !== fence?.openLine) pieces.push(last + closingLine());
  return pieces;
}
