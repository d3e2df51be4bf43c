// Outbound text: Markdown as the model writes it → WhatsApp's own markup, and a safe split
// when the rendered text is still longer than one message may be.
//
// WhatsApp renders `*bold*`, `_italic_`, `~strike~`, `` `inline code` ``, ``` ```monospace``` ```,
// `> quotes` and `- lists`. It has no links with labels, no headings and no escapes, so
// links become `label (url)`, headings become bold lines and Markdown escapes are dropped.

const fenceLine = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const bold = '\uE001';
const italic = '\uE002';
const escapeMark = '\uE003';

/** Converts Markdown to WhatsApp markup. Code blocks and code spans are kept verbatim. */
export function markdownToWhatsApp(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of lines) {
    if (fence !== undefined) {
      const closing = fenceLine.exec(line);
      if (closing !== null && closing[1]!.startsWith(fence) && closing[2]!.trim() === '') {
        out.push('```');
        fence = undefined;
      } else {
        out.push(line);
      }
      continue;
    }
    const opening = fenceLine.exec(line);
    if (opening !== null) {
      fence = opening[1]!;
      out.push('```');
      continue;
    }
    out.push(convertLine(line));
  }
  // An unclosed fence would swallow the rest of the chat message's formatting: close it.
  if (fence !== undefined) out.push('```');
  return out.join('\n');
}

function convertLine(line: string): string {
  const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
  if (heading !== null) {
    const title = convertInline(heading[1] ?? '').replaceAll('*', '');
    return title === '' ? '' : `*${title}*`;
  }
  if (/^ {0,3}([*_-])(\s*\1){2,}\s*$/.test(line)) return '───';
  const bullet = /^(\s*)[*+-]\s+(.*)$/.exec(line);
  if (bullet !== null) return `${bullet[1]}- ${convertInline(bullet[2] ?? '')}`;
  const quote = /^(\s*(?:>\s?)+)(.*)$/.exec(line);
  if (quote !== null) return `${quote[1]}${convertInline(quote[2] ?? '')}`;
  return convertInline(line);
}

/** Inline Markdown → WhatsApp, outside code spans. */
function convertInline(text: string): string {
  const parts: string[] = [];
  let index = 0;
  while (index < text.length) {
    const tick = text.indexOf('`', index);
    if (tick === -1) {
      parts.push(convertPlain(text.slice(index)));
      break;
    }
    parts.push(convertPlain(text.slice(index, tick)));
    let run = 1;
    while (text[tick + run] === '`') run += 1;
    const marker = '`'.repeat(run);
    const close = text.indexOf(marker, tick + run);
    if (close === -1) {
      parts.push(convertPlain(text.slice(tick)));
      break;
    }
    const code = text.slice(tick + run, close);
    // WhatsApp's inline code is one backtick on each side.
    parts.push(code.includes('`') ? marker + code + marker : `\`${code}\``);
    index = close + run;
  }
  return parts.join('');
}

function convertPlain(text: string): string {
  if (text === '') return text;
  const escaped: string[] = [];
  let result = text.replace(/\\([!-/:-@[-`{-~])/g, (_match, character: string) => {
    escaped.push(character);
    return `${escapeMark}${escaped.length - 1}${escapeMark}`;
  });
  result = result
    // Images and links: `![alt](url)`, `[label](url "title")`, `<https://…>`.
    .replace(/!\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g, (_match, alt: string, url: string) =>
      alt.trim() === '' ? url : `${alt} (${url})`,
    )
    .replace(/\[([^\]]+)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g, (_match, label: string, url: string) =>
      label === url || `mailto:${label}` === url ? url : `${label} (${url})`,
    )
    .replace(/<((?:https?|mailto):[^>\s]+)>/g, '$1')
    // Bold first, so its asterisks are not read as italics.
    .replace(/\*\*\*(?=\S)([\s\S]*?\S)\*\*\*/g, `${bold}${italic}$1${italic}${bold}`)
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, `${bold}$1${bold}`)
    .replace(/(?<![\w_])__(?=\S)([\s\S]*?\S)__(?![\w_])/g, `${bold}$1${bold}`)
    .replace(/(?<![\w*])\*(?=[^\s*])([\s\S]*?[^\s*])\*(?![\w*])/g, `${italic}$1${italic}`)
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '~$1~')
    .replaceAll(bold, '*')
    .replaceAll(italic, '_');
  return result.replace(
    new RegExp(`${escapeMark}(\\d+)${escapeMark}`, 'g'),
    (_match, position: string) => escaped[Number(position)] ?? '',
  );
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
