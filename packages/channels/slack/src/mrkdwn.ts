// Markdown (what the model writes) to Slack mrkdwn (what Slack renders), and back again for
// inbound text.
//
// mrkdwn: *bold* _italic_ ~strike~ `code` ```blocks``` >quotes <url|label>. Slack wants
// `&`, `<` and `>` escaped everywhere, except in its own tokens (<@U…>, <#C…>, <!here>,
// <https://…|…>), which are kept as they are.

const fencePattern = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const headingPattern = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const rulePattern = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const quotePattern = /^ {0,3}>[ \t]?(.*)$/;
const bulletPattern = /^([ \t]*)[-*+][ \t]+(.*)$/;
const tableSeparatorPattern = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$/;

/** Escapes the three characters Slack reserves for its tokens. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Converts Markdown to Slack mrkdwn: `**b**`/`__b__` → `*b*`, `*i*` → `_i_`, `~~s~~` → `~s~`,
 * `[label](url)` and images → `<url|label>`, headings → bold lines, `-`/`*` bullets → `•`,
 * fenced code → plain ``` blocks (Slack has no language tags), tables → a code block.
 * `& < >` are escaped; Slack tokens (`<@U…>`, `<#C…>`, `<!here>`, `<https://…>`) pass unchanged.
 */
export function markdownToMrkdwn(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const output: string[] = [];
  let fence: { marker: string; length: number } | undefined;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    const fenceMatch = fencePattern.exec(line);
    if (fence !== undefined) {
      if (
        fenceMatch !== null &&
        fenceMatch[1]![0] === fence.marker &&
        fenceMatch[1]!.length >= fence.length &&
        fenceMatch[2]!.trim() === ''
      ) {
        output.push('```');
        fence = undefined;
      } else {
        output.push(escapeMrkdwn(line));
      }
      continue;
    }
    if (fenceMatch !== null && !(fenceMatch[1]![0] === '`' && fenceMatch[2]!.includes('`'))) {
      fence = { marker: fenceMatch[1]![0]!, length: fenceMatch[1]!.length };
      output.push('```');
      continue;
    }
    // A Markdown table (header row, separator row, body rows) becomes a code block: Slack
    // renders no tables, and monospace keeps the columns readable.
    if (line.includes('|') && tableSeparatorPattern.test(lines[index + 1] ?? '')) {
      output.push('```');
      while (
        index < lines.length &&
        (lines[index] ?? '').includes('|') &&
        (lines[index] ?? '').trim() !== ''
      ) {
        output.push(escapeMrkdwn(lines[index]!));
        index += 1;
      }
      index -= 1;
      output.push('```');
      continue;
    }
    output.push(convertLine(line));
  }
  return output.join('\n');
}

function convertLine(line: string): string {
  const heading = headingPattern.exec(line);
  if (heading !== null) {
    const content = heading[1]!.replace(/\*\*|__/g, '');
    return content === '' ? '' : `*${convertInline(content)}*`;
  }
  if (rulePattern.test(line)) return '──────────';
  const quote = quotePattern.exec(line);
  if (quote !== null) return `>${quote[1] === '' ? '' : ` ${convertLine(quote[1]!)}`}`;
  const bullet = bulletPattern.exec(line);
  if (bullet !== null) {
    const rest = bullet[2]!.replace(/^\[ \][ \t]+/, '☐ ').replace(/^\[[xX]\][ \t]+/, '☑ ');
    return `${bullet[1]}• ${convertInline(rest)}`;
  }
  return convertInline(line);
}

// Placeholders for protected spans: private-use characters that never occur in chat text.
const placeholderStart = '\uE000';
const placeholderEnd = '\uE001';
const boldMarker = '\uE002';

const inlineTokenPattern = new RegExp(
  [
    // 1: code span (backtick run), 2: its content
    '(`+)([\\s\\S]*?[^`])\\1(?!`)',
    // 3: Slack tokens and autolinks kept verbatim
    '(<(?:[@#!][^<>\\s]*|(?:https?|mailto):[^<>\\s]*)>)',
    // 4: image alt, 5: image url
    '!\\[([^\\]]*)\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+"[^"]*")?\\s*\\)',
    // 6: link label, 7: link url
    '\\[([^\\]]+)\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+"[^"]*")?\\s*\\)',
    // 8: a bare URL
    '(\\bhttps?:\\/\\/[^\\s<>]*[^\\s<>.,;:!?)\\]}\'"])',
    // 9: a backslash escape
    '\\\\([\\\\`*_{}\\[\\]()#+\\-.!~|>])',
  ].join('|'),
  'g',
);

const escapedLookalikes: Readonly<Record<string, string>> = { '*': '∗', '~': '∼' };

function linkToken(url: string, label: string): string {
  const safeUrl = url.replace(/\|/g, '%7C').replace(/>/g, '%3E').replace(/&/g, '&amp;');
  const safeLabel = escapeMrkdwn(label.replace(/[|]/g, '/')).trim();
  return safeLabel === '' || safeLabel === safeUrl ? `<${safeUrl}>` : `<${safeUrl}|${safeLabel}>`;
}

/** Converts inline Markdown (emphasis, code, links) of one line or paragraph. */
function convertInline(text: string): string {
  const protectedSpans: string[] = [];
  const protect = (value: string) => {
    protectedSpans.push(value);
    return `${placeholderStart}${protectedSpans.length - 1}${placeholderEnd}`;
  };
  let result = '';
  let last = 0;
  for (const match of text.matchAll(inlineTokenPattern)) {
    result += escapeMrkdwn(text.slice(last, match.index));
    last = match.index + match[0].length;
    if (match[2] !== undefined) {
      result += protect(`\`${escapeMrkdwn(match[2].replace(/`/g, 'ˋ'))}\``);
    } else if (match[3] !== undefined) {
      result += protect(match[3]);
    } else if (match[5] !== undefined) {
      result += protect(linkToken(match[5], match[4] ?? ''));
    } else if (match[7] !== undefined) {
      result += protect(linkToken(match[7], stripEmphasis(match[6] ?? '')));
    } else if (match[8] !== undefined) {
      result += protect(match[8].replace(/&/g, '&amp;'));
    } else if (match[9] !== undefined) {
      // Slack has no escapes: a look-alike keeps an escaped * or ~ from pairing into bold/strike.
      result += protect(escapeMrkdwn(escapedLookalikes[match[9]] ?? match[9]));
    }
  }
  result += escapeMrkdwn(text.slice(last));

  result = result
    .replace(/\*\*\*(?=\S)([^*]*?\S)\*\*\*/g, `${boldMarker}_$1_${boldMarker}`)
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, `${boldMarker}$1${boldMarker}`)
    .replace(/(?<![\p{L}\p{N}_])__(?=\S)([\s\S]*?\S)__(?![\p{L}\p{N}_])/gu, `${boldMarker}$1${boldMarker}`)
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '~$1~')
    .replace(/(?<![\p{L}\p{N}*\\])\*(?=[^\s*])([^*\n]*?[^\s*])\*(?![\p{L}\p{N}*])/gu, '_$1_')
    .replace(new RegExp(boldMarker, 'g'), '*');

  return result.replace(
    new RegExp(`${placeholderStart}(\\d+)${placeholderEnd}`, 'g'),
    (_whole, index: string) => protectedSpans[Number(index)] ?? '',
  );
}

function stripEmphasis(label: string): string {
  return label.replace(/\*\*|__|~~|[*_`]/g, '');
}

/**
 * Splits mrkdwn into messages of at most `limit` characters, at line boundaries (blank
 * lines preferred), never inside a code block: a block that must be split is closed with
 * ``` at the end of one message and reopened at the start of the next. A line longer than a
 * message is cut at whitespace (or hard), never inside an `&amp;`-style entity or a `<…>` token.
 */
export function splitMrkdwn(text: string, limit: number): string[] {
  if (!Number.isInteger(limit) || limit < 16)
    throw new RangeError(`splitMrkdwn: limit must be an integer >= 16, got ${limit}`);
  if (text.length <= limit) return text.trim() === '' ? [] : [text];
  const closing = '\n```';
  const chunks: string[] = [];
  let current: string[] = [];
  let length = 0;
  let inFence = false;
  /** Index in `current` after the last blank line outside a fence (a good place to break). */
  let paragraphBreak = -1;
  let paragraphBreakFence = false;

  const emit = (lines: readonly string[], closeFence: boolean) => {
    const body = lines.join('\n');
    if (body.trim() !== '' && body.trim() !== '```') chunks.push(closeFence ? `${body}${closing}` : body);
  };
  const flush = () => {
    // Break at the last paragraph if it keeps at least half the message, else here.
    if (paragraphBreak > 0 && joinedLength(current.slice(0, paragraphBreak)) >= limit / 2) {
      const head = current.slice(0, paragraphBreak);
      const tail = current.slice(paragraphBreak);
      emit(head, paragraphBreakFence);
      current = paragraphBreakFence ? ['```', ...tail] : tail;
    } else {
      emit(current, inFence);
      current = inFence ? ['```'] : [];
    }
    while (current.length > 0 && current[0] === '') current.shift();
    length = joinedLength(current);
    paragraphBreak = -1;
  };

  for (const line of text.split('\n')) {
    const isFence = /^```/.test(line);
    const pieces =
      line.length > limit - closing.length - 4 ? hardSplit(line, limit - closing.length - 4) : [line];
    for (const piece of pieces) {
      const afterFence: boolean = isFence && pieces.length === 1 ? !inFence : inFence;
      const added = (current.length > 0 ? 1 : 0) + piece.length;
      if (current.length > 0 && length + added + (afterFence ? closing.length : 0) > limit) flush();
      if (piece === '' && !inFence && current.length > 0) {
        paragraphBreak = current.length;
        paragraphBreakFence = false;
      }
      length += (current.length > 0 ? 1 : 0) + piece.length;
      current.push(piece);
      inFence = afterFence;
    }
  }
  emit(current, false);
  return chunks;
}

function joinedLength(lines: readonly string[]): number {
  return lines.reduce((total, line) => total + line.length, 0) + Math.max(0, lines.length - 1);
}

function hardSplit(line: string, size: number): string[] {
  const pieces: string[] = [];
  let rest = line;
  while (rest.length > size) {
    let cut = rest.lastIndexOf(' ', size);
    if (cut < size / 2) cut = size;
    // Never cut inside an entity (&amp;) or a <…> token.
    const entity = rest.lastIndexOf('&', cut);
    if (entity !== -1 && entity > cut - 6 && !rest.slice(entity, cut).includes(';')) cut = entity;
    const open = rest.lastIndexOf('<', cut);
    if (open !== -1 && open > 0 && rest.indexOf('>', open) >= cut) cut = open;
    if (cut <= 0) cut = size;
    pieces.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest !== '') pieces.push(rest);
  return pieces;
}

const removedMention = '\uE003';

/** What {@link slackToText} needs to render names. */
export interface SlackTextContext {
  /** The bot's own user id: its mentions are removed. */
  readonly botUserId?: string;
  /** Known user names by id (`U123` → `alice`). */
  readonly userName?: (userId: string) => string | undefined;
}

/**
 * Turns Slack message text into plain text for the model: the bot's own mention is removed,
 * `<@U1|name>` → `@name`, `<#C1|general>` → `#general`, `<!here>` → `@here`,
 * `<https://x|label>` → `label (https://x)`, and `&amp; &lt; &gt;` are unescaped.
 */
export function slackToText(text: string, context: SlackTextContext = {}): string {
  const converted = text.replace(/<([^<>]+)>/g, (whole, inner: string) => {
    const [target = '', label] = splitToken(inner);
    if (target.startsWith('@')) {
      const id = target.slice(1);
      if (id === context.botUserId) return removedMention;
      return `@${label ?? context.userName?.(id) ?? id}`;
    }
    if (target.startsWith('#')) return `#${label ?? target.slice(1)}`;
    if (target.startsWith('!')) {
      const command = target.slice(1);
      if (label !== undefined) return label;
      if (command.startsWith('subteam^')) return `@${command.slice(8)}`;
      return `@${command.split('^')[0]}`;
    }
    if (/^(https?|mailto|tel):/i.test(target)) {
      const url = target.replace(/^mailto:/i, '');
      return label === undefined || label === url || label === target ? url : `${label} (${url})`;
    }
    return whole;
  });
  return converted
    .replace(/^[ \t]*\uE003[ \t]*|[ \t]*\uE003[ \t]*$/gm, '')
    .replace(/[ \t]*\uE003[ \t]*/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();
}

function splitToken(inner: string): [string, string | undefined] {
  const bar = inner.indexOf('|');
  return bar === -1 ? [inner, undefined] : [inner.slice(0, bar), inner.slice(bar + 1)];
}

/** The user ids mentioned in Slack message text (`<@U123>`), in order, without repeats. */
export function slackMentions(text: string): string[] {
  const ids = new Set<string>();
  for (const match of text.matchAll(/<@([A-Z0-9]+)(?:\|[^>]*)?>/g)) ids.add(match[1]!);
  return [...ids];
}
