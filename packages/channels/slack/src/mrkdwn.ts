// Markdown (what the model writes) to Slack mrkdwn (what Slack renders), and back again for
// inbound text. The Markdown side is @switchboard/markdown's renderer (one mdast parse for
// every platform); this module splits rendered mrkdwn into messages and reads Slack's text.
//
// mrkdwn: *bold* _italic_ ~strike~ `code` ```blocks``` >quotes <url|label>. Slack wants
// `&`, `<` and `>` escaped everywhere, except in its own tokens (<@U…>, <#C…>, <!here>,
// <https://…|…>), which are kept as they are.

export { escapeMrkdwn, renderSlackMrkdwn as markdownToMrkdwn } from '@switchboard/markdown';

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
