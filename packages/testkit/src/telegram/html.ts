// Telegram's HTML parse mode, as the Bot API applies it to `text` and `caption`: the
// supported tags and entities, the nesting rules, and the errors it answers with
// ("Bad Request: can't parse entities: …"). The fake uses it to reject what Telegram
// rejects and to record what the user would see.
import type { TelegramMessageEntity } from './types.ts';

/** The outcome of parsing: the visible text and its entities, or Telegram's error description. */
export type TelegramHtmlParseResult =
  | { readonly ok: true; readonly text: string; readonly entities: TelegramMessageEntity[] }
  | { readonly ok: false; readonly description: string };

interface OpenTag {
  readonly name: string;
  readonly entity: string | undefined;
  readonly start: number;
  readonly url?: string;
  readonly language?: string;
}

const simpleTags: Readonly<Record<string, string>> = {
  b: 'bold',
  strong: 'bold',
  i: 'italic',
  em: 'italic',
  u: 'underline',
  ins: 'underline',
  s: 'strikethrough',
  strike: 'strikethrough',
  del: 'strikethrough',
  'tg-spoiler': 'spoiler',
  code: 'code',
  pre: 'pre',
  blockquote: 'blockquote',
};

const namedEntities: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"' };

function byteOffset(html: string, index: number): number {
  return Buffer.byteLength(html.slice(0, index));
}

function failure(description: string): TelegramHtmlParseResult {
  return { ok: false, description: `Bad Request: can't parse entities: ${description}` };
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, body: string) => {
    if (body.startsWith('#x') || body.startsWith('#X'))
      return String.fromCodePoint(Number.parseInt(body.slice(2), 16));
    if (body.startsWith('#')) return String.fromCodePoint(Number.parseInt(body.slice(1), 10));
    return namedEntities[body.toLowerCase()] ?? whole;
  });
}

function parseAttributes(source: string): Map<string, string> | undefined {
  const attributes = new Map<string, string>();
  const pattern = /\s*([a-z-]+)\s*(?:=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/giy;
  let index = 0;
  while (index < source.length) {
    pattern.lastIndex = index;
    const match = pattern.exec(source);
    if (match === null || match[0] === '') {
      if (source.slice(index).trim() === '') break;
      return undefined;
    }
    attributes.set(match[1]!.toLowerCase(), decodeEntities(match[2] ?? match[3] ?? match[4] ?? ''));
    index = pattern.lastIndex;
  }
  return attributes;
}

/**
 * Parses Telegram HTML. Offsets and lengths of the entities are in UTF-16 code units of the
 * visible text, as the Bot API reports them.
 */
export function parseTelegramHtml(html: string): TelegramHtmlParseResult {
  let text = '';
  const entities: TelegramMessageEntity[] = [];
  const stack: OpenTag[] = [];
  let index = 0;
  while (index < html.length) {
    const character = html[index]!;
    if (character === '&') {
      const match = /^&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/i.exec(html.slice(index, index + 12));
      if (match !== null) {
        text += decodeEntities(match[0]);
        index += match[0].length;
        continue;
      }
      text += '&';
      index += 1;
      continue;
    }
    if (character !== '<') {
      text += character;
      index += 1;
      continue;
    }
    const end = html.indexOf('>', index);
    if (end === -1) return failure(`Unclosed start tag at byte offset ${byteOffset(html, index)}`);
    const inside = html.slice(index + 1, end);
    if (inside.startsWith('/')) {
      const name = inside.slice(1).trim().toLowerCase();
      const open = stack.pop();
      if (open === undefined) {
        return failure(`Unexpected end tag at byte offset ${byteOffset(html, index)}`);
      }
      if (open.name !== name) {
        return failure(
          `Unmatched end tag at byte offset ${byteOffset(html, index)}, expected "</${open.name}>", found "</${name}>"`,
        );
      }
      if (open.entity !== undefined && text.length > open.start) {
        const entity: TelegramMessageEntity = {
          type: open.entity,
          offset: open.start,
          length: text.length - open.start,
          url: open.url,
          language: open.language,
        };
        entities.push(entity);
      }
      index = end + 1;
      continue;
    }
    const nameMatch = /^([a-z][a-z0-9-]*)/i.exec(inside);
    if (nameMatch === null) {
      return failure(
        `Unsupported start tag "${inside.slice(0, 20)}" at byte offset ${byteOffset(html, index)}`,
      );
    }
    const name = nameMatch[1]!.toLowerCase();
    const attributes = parseAttributes(inside.slice(nameMatch[0].length));
    if (attributes === undefined) {
      return failure(`Empty attribute name in the tag "${name}" at byte offset ${byteOffset(html, index)}`);
    }
    const parent = stack.at(-1);
    if (parent !== undefined && (parent.name === 'code' || (parent.name === 'pre' && name !== 'code'))) {
      return failure(
        `Can't use a "${name}" tag inside a "${parent.name}" tag at byte offset ${byteOffset(html, index)}`,
      );
    }
    let open: OpenTag;
    if (name === 'a') {
      if (stack.some((tag) => tag.name === 'a')) {
        return failure(`Nested "a" tags are not allowed at byte offset ${byteOffset(html, index)}`);
      }
      const href = attributes.get('href');
      if (href === undefined || href === '') {
        open = { name, entity: undefined, start: text.length };
      } else {
        open = { name, entity: 'text_link', start: text.length, url: href };
      }
    } else if (name === 'span') {
      if (attributes.get('class') !== 'tg-spoiler') {
        return failure(`Tag "span" must have class "tg-spoiler" at byte offset ${byteOffset(html, index)}`);
      }
      open = { name, entity: 'spoiler', start: text.length };
    } else if (name === 'tg-emoji') {
      open = { name, entity: 'custom_emoji', start: text.length };
    } else if (name === 'code' && parent?.name === 'pre') {
      // <pre><code class="language-x">: the language goes on the pre entity.
      const language = /^language-(.+)$/.exec(attributes.get('class') ?? '')?.[1];
      stack.pop();
      // Kept (decision 0028, rule 1): written over the open tag `parent`.
      stack.push({ ...parent, ...(language === undefined ? {} : { language }) });
      open = { name, entity: undefined, start: text.length };
    } else if (name === 'blockquote') {
      if (stack.some((tag) => tag.name === 'blockquote')) {
        return failure(`Nested "blockquote" tags are not allowed at byte offset ${byteOffset(html, index)}`);
      }
      open = {
        name,
        entity: attributes.has('expandable') ? 'expandable_blockquote' : 'blockquote',
        start: text.length,
      };
    } else {
      const entity = simpleTags[name];
      if (entity === undefined) {
        return failure(`Unsupported start tag "${name}" at byte offset ${byteOffset(html, index)}`);
      }
      open = { name, entity, start: text.length };
    }
    stack.push(open);
    index = end + 1;
  }
  const unclosed = stack.at(-1);
  if (unclosed !== undefined) {
    return failure(`Can't find end tag corresponding to start tag "${unclosed.name}"`);
  }
  entities.sort((left, right) => left.offset - right.offset || right.length - left.length);
  return { ok: true, text, entities };
}
