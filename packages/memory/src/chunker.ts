// Markdown chunking. The parser (mdast-util-from-markdown, loaded on first use) finds the
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

/** The part of an mdast node the chunker reads. */
interface MarkdownNode {
  readonly type: string;
  readonly depth?: number;
  readonly value?: string;
  readonly position?: { readonly start: { readonly line: number }; readonly end: { readonly line: number } };
  readonly children?: readonly MarkdownNode[];
}

type ParseMarkdown = (text: string) => MarkdownNode;

let parserPromise: Promise<ParseMarkdown> | undefined;

function loadParser(): Promise<ParseMarkdown> {
  parserPromise ??= import('mdast-util-from-markdown').then(
    (module) => (text: string) => module.fromMarkdown(text) as MarkdownNode,
  );
  return parserPromise;
}

/** A run of lines the packer places as a whole (a heading carries its depth and text). */
interface Unit {
  readonly start: number;
  readonly end: number;
  readonly heading?: { readonly depth: number; readonly text: string };
}

function plainText(node: MarkdownNode): string {
  if (node.value !== undefined) return node.value;
  return (node.children ?? []).map(plainText).join('');
}

/** A Markdown chunker with its parser loaded. */
export type Chunker = (text: string) => Chunk[];

/** Loads the Markdown parser and returns a chunker with the given settings. */
export async function loadChunker(settings: ChunkingSettings = defaultChunkingSettings): Promise<Chunker> {
  const parse = await loadParser();
  return (text) => chunkMarkdown(text, settings, parse);
}

function chunkMarkdown(source: string, settings: ChunkingSettings, parse: ParseMarkdown): Chunk[] {
  const text = source.replaceAll('\r\n', '\n');
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
  const addNode = (node: MarkdownNode): void => {
    if (node.position === undefined) return;
    const { start, end } = { start: node.position.start.line, end: node.position.end.line };
    if (node.type === 'heading') {
      units.push({ start, end, heading: { depth: node.depth ?? 1, text: plainText(node).trim() } });
      return;
    }
    if (rangeTokens(start, end) <= settings.tokens) {
      units.push({ start, end });
      return;
    }
    const parts = (node.children ?? []).filter((child) => child.position !== undefined);
    if (parts.length > 1 && node.type !== 'code' && node.type !== 'paragraph') parts.forEach(addNode);
    else addLineWindows(start, end);
  };
  for (const node of parse(text).children ?? []) addNode(node);

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
