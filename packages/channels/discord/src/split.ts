// A safety net for outbound text. The gateway already splits replies at the channel's
// textLimit on paragraph and code-fence boundaries; Discord renders Markdown itself, so the
// text is sent as it is. Only text that still exceeds Discord's 2,000 characters (a direct
// `send` from a plugin, an edit) is split here: at line breaks, closing an open code fence at
// the end of a piece and reopening it (with its language tag) at the start of the next.

/** The most characters Discord accepts in one message. */
export const discordTextLimit = 2000;

const fenceOpen = /^( {0,3})(`{3,}|~{3,})(.*)$/;

interface OpenFence {
  readonly line: string;
  readonly indent: string;
  readonly marker: string;
}

function closes(line: string, fence: OpenFence): boolean {
  const trimmed = line.trim();
  const char = fence.marker[0]!;
  return (
    trimmed.length >= fence.marker.length && [...trimmed].every((c) => c === char) && line.search(/\S/) <= 3
  );
}

/** Splits `text` into pieces of at most `limit` characters that keep code fences balanced. */
export function splitDiscordText(text: string, limit: number = discordTextLimit): string[] {
  if (text.length <= limit) return text.trim() === '' ? [] : [text];
  const pieces: string[] = [];
  let current = '';
  let fence: OpenFence | undefined;

  const closing = (): string => (fence === undefined ? '' : `\n${fence.indent}${fence.marker}`);
  const flush = (): void => {
    const body = current.replace(/\n+$/, '');
    if (body.trim() !== '' && body !== fence?.line) pieces.push(body + closing());
    current = fence === undefined ? '' : `${fence.line}\n`;
  };
  const append = (line: string): void => {
    // Room for the line, its newline and (inside a fence) the closing marker.
    const reserve = () => closing().length;
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

  for (const line of text.split('\n')) {
    if (fence === undefined) {
      const match = fenceOpen.exec(line);
      append(line);
      if (match !== null) fence = { line, indent: match[1]!, marker: match[2]! };
    } else if (closes(line, fence)) {
      append(line);
      fence = undefined;
    } else {
      append(line);
    }
  }
  const last = current.replace(/\n+$/, '');
  if (last.trim() !== '' && last !== fence?.line) pieces.push(last + closing());
  return pieces;
}
