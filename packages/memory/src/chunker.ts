// Markdown chunking. The lexer (marked's block lexer, loaded on first use) finds the
// blocks — headings, paragraphs, lists, code fences, tables — with their line ranges, so a
// chunk never ends inside a code block or a table row unless that block alone is larger
// than a chunk. Blocks are packed into chunks of about `tokens` tokens; a heading starts a
// new chunk, and every chunk remembers the headings above it (its trail), which is indexed
// with its text. Chunks cut for size repeat the last `overlap` tokens of the previous one.
import { createHash } from 'node:crypto';
import { estimateTokens } from './text.ts';

/** One chunk of a Markdown file: a contiguous line range (1-based, inclusive). */
export interface Chunk {
  readonly startLine: number;
  readonly endLine: number;
  /** The headings above the chunk, outermost first, joined with " › " ("" when none). */
  readonly heading: string;
  readonly text: string;
  /** sha256 of heading and text: the key of the embedding cache. */
  readonly hash: string;
}

export interface ChunkingSettings {
  /** Target size of a chunk in estimated tokens. */
  readonly tokens: number;
  /** Tokens repeated from the end of a chunk at the start of the next one when cut for size. */
  readonly overlap: number;
}

export const defaultChunkingSettings: ChunkingSettings = { tokens: 400, overlap: 80 };

/** The part of a marked block token the chunker reads. */
interface BlockToken {
  readonly type: string;
  readonly raw: string;
  readonly depth?: number;
  readonly text?: string;
  readonly items?: ReadonlyArray<{ readonly raw: string }>;
}

type LexBlocks = (text: string) => readonly BlockToken[];

let lexerPromise: Promise<LexBlocks> | undefined;

function loadLexer(): Promise<LexBlocks> {
  // Block tokens only: the inline pass (emphasis, links…) is not needed to find boundaries.
  lexerPromise ??= import('marked').then(
    (module) => (text: string) => new module.Lexer().blockTokens(text, []) as readonly BlockToken[],
  );
  return lexerPromise;
}

/** A run of lines the packer places as a whole (a heading carries its depth and text). */
interface Unit {
  readonly start: number;
  readonly end: number;
  readonly heading?: { readonly depth: number; readonly text: string };
}

function newlines(text: string): number {
  let count = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count++;
  return count;
}

/** The last line a raw block starting at `start` covers (trailing newlines do not count). */
function lastLine(start: number, raw: string): number {
  return start + newlines(raw.replace(/\n+$/, ''));
}

/** A Markdown chunker with its parser loaded. */
export type Chunker = (text: string) => Chunk[];

/** Loads the Markdown lexer and returns a chunker with the given settings. */
export async function loadChunker(settings: ChunkingSettings = defaultChunkingSettings): Promise<Chunker> {
  const lex = await loadLexer();
  return (text) => chunkMarkdown(text, settings, lex);
}

function chunkMarkdown(source: string, settings: ChunkingSettings, lex: LexBlocks): Chunk[] {
  const text = source.replace(/\r\n|\r/g, '\n');
  const lines = text.split('\n');
  // prefix[i] = estimated tokens of lines 1..i (a newline counts toward its line).
  const prefix = new Float64Array(lines.length + 1);
  for (let index = 0; index < lines.length; index++)
    prefix[index + 1] = prefix[index]! + estimateTokens(lines[index]!) + 0.25;
  const rangeTokens = (start: number, end: number): number => prefix[end]! - prefix[start - 1]!;

  const units: Unit[] = [];
  const addLineWindows = (start: number, end: number): void => {
    // A block larger than a chunk with no smaller parts: cut it by lines.
    let windowStart = start;
    for (let line = start; line <= end; line++) {
      if (line > windowStart && rangeTokens(windowStart, line) > settings.tokens) {
        units.push({ start: windowStart, end: line - 1 });
        windowStart = line;
      }
    }
    units.push({ start: windowStart, end });
  };
  let line = 1;
  for (const token of lex(text)) {
    const start = line;
    line += newlines(token.raw);
    if (token.type === 'space' || token.raw.trim() === '') continue;
    const end = Math.min(lastLine(start, token.raw), lines.length);
    if (token.type === 'heading') {
      units.push({ start, end, heading: { depth: token.depth ?? 1, text: (token.text ?? '').trim() } });
    } else if (rangeTokens(start, end) <= settings.tokens) {
      units.push({ start, end });
    } else if (token.type === 'list' && token.items !== undefined && token.items.length > 1) {
      // A long list splits between its items.
      let cursor = 0;
      let itemLine = start;
      for (const item of token.items) {
        const at = token.raw.indexOf(item.raw, cursor);
        if (at === -1) break;
        itemLine += newlines(token.raw.slice(cursor, at));
        const itemEnd = Math.min(lastLine(itemLine, item.raw), end);
        if (rangeTokens(itemLine, itemEnd) <= settings.tokens) units.push({ start: itemLine, end: itemEnd });
        else addLineWindows(itemLine, itemEnd);
        itemLine += newlines(item.raw);
        cursor = at + item.raw.length;
      }
    } else addLineWindows(start, end);
  }

  const chunks: Chunk[] = [];
  const trail: string[] = [];
  let current: { start: number; end: number; heading: string; hasBody: boolean } | undefined;
  const flush = (): void => {
    if (current === undefined) return;
    const body = lines
      .slice(current.start - 1, current.end)
      .join('\n')
      .trim();
    if (body.length > 0) {
      const hash = createHash('sha256').update(current.heading).update('\n').update(body).digest('hex');
      chunks.push({
        startLine: current.start,
        endLine: current.end,
        heading: current.heading,
        text: body,
        hash,
      });
    }
    current = undefined;
  };
  const trailText = (): string => trail.filter((part) => part.length > 0).join(' › ');

  for (const unit of units) {
    if (unit.heading !== undefined) {
      if (current?.hasBody === true) flush();
      trail.length = Math.min(trail.length, unit.heading.depth - 1);
      while (trail.length < unit.heading.depth - 1) trail.push('');
      trail.push(unit.heading.text);
    }
    if (current?.hasBody === true && rangeTokens(current.start, unit.end) > settings.tokens) {
      // Cut for size: the next chunk repeats the tail of this one, up to `overlap` tokens.
      const previousEnd = current.end;
      const previousStart = current.start;
      flush();
      let overlapStart = previousEnd + 1;
      while (
        overlapStart - 1 > previousStart &&
        overlapStart - 1 <= previousEnd &&
        rangeTokens(overlapStart - 1, previousEnd) <= settings.overlap
      )
        overlapStart--;
      current =
        overlapStart <= previousEnd
          ? { start: overlapStart, end: previousEnd, heading: trailText(), hasBody: true }
          : undefined;
    }
    if (current === undefined)
      current = { start: unit.start, end: unit.end, heading: trailText(), hasBody: false };
    else {
      current.end = unit.end;
      if (unit.heading !== undefined && !current.hasBody) current.heading = trailText();
    }
    if (unit.heading === undefined) current.hasBody = true;
  }
  flush();
  return chunks;
}
