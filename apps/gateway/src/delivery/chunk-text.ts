/**
 * One-shot outbound chunking of a whole reply at a channel's text limit (and, for Discord,
 * its soft line cap). Fence-aware with the same model as the block chunker: a code block is
 * never split except by closing it and reopening it (language tag kept) in the next piece.
 */

import { assertInteger, assertOneOf, DeliveryError } from './errors.ts';
import { isBlank, parseFenceSpans } from './fences.ts';
import {
  findLastParagraphBreak,
  findSoftBreak,
  hardPiece,
  normalPiece,
  type Piece,
  type PieceLimits,
  remainderFits,
  type SplitCursor,
  windowEnd,
} from './split.ts';

/** `length`: split only when over the limit; `newline`: pack whole paragraphs, split at blank lines first. */
export type ChunkMode = 'length' | 'newline';

export interface ChunkTextOptions {
  /** The channel's text limit in characters; no piece is longer. */
  readonly limit: number;
  /** Default `length`. */
  readonly mode?: ChunkMode;
  /** A soft cap on lines per piece (Discord: 17). */
  readonly maxLines?: number;
}

function fitsWhole(text: string, limit: number, maxLines: number | undefined): boolean {
  if (text.length > limit) return false;
  if (maxLines === undefined) return true;
  let lines = 1;
  let index = text.indexOf('\n');
  while (index !== -1 && index < text.length - 1) {
    if (++lines > maxLines) return false;
    index = text.indexOf('\n', index + 1);
  }
  return true;
}

/**
 * Splits `text` into pieces of at most `limit` characters (and `maxLines` lines). Text that
 * already fits comes back as one piece; blank text yields no pieces.
 */
export function chunkText(text: string, options: ChunkTextOptions): string[] {
  if (typeof text !== 'string') {
    throw new DeliveryError(
      'DELIVERY_INVALID_OPTIONS',
      `chunkText text must be a string, got ${typeof text}`,
      {
        details: { path: 'text' },
      },
    );
  }
  const limit = assertInteger(options.limit, 'chunkText.limit', 1);
  const mode = assertOneOf(options.mode ?? 'length', 'chunkText.mode', ['length', 'newline'] as const);
  const maxLines =
    options.maxLines === undefined ? undefined : assertInteger(options.maxLines, 'chunkText.maxLines', 1);

  if (isBlank(text, 0, text.length)) return [];
  if (fitsWhole(text, limit, maxLines)) return [text];

  const spans = parseFenceSpans(text);
  const limits: PieceLimits = { maxChars: limit, maxLines };
  const cursor: SplitCursor = { pos: 0, prefix: '' };
  const pieces: string[] = [];
  while (cursor.pos < text.length) {
    if (remainderFits(text, cursor, limits)) {
      const last = cursor.prefix + text.slice(cursor.pos);
      if (!isBlank(last, 0, last.length)) pieces.push(last);
      break;
    }
    const end = windowEnd(text, cursor, limits);
    const firstPos = cursor.pos + 1;
    let index = -1;
    if (mode === 'newline') index = findLastParagraphBreak(text, spans, firstPos, end);
    if (index === -1) {
      // Prefer a break in the second half of the window so pieces stay large, then any break.
      const halfPos = cursor.pos + Math.max(1, Math.floor((end - cursor.pos) / 2));
      index = findSoftBreak(text, spans, halfPos, end, 'paragraph', true, true);
      if (index === -1) index = findSoftBreak(text, spans, firstPos, end, 'paragraph', true, true);
    }
    const piece: Piece =
      index === -1 ? hardPiece(text, spans, cursor, firstPos, limits) : normalPiece(text, cursor, index);
    if (!isBlank(piece.chunk, 0, piece.chunk.length)) pieces.push(piece.chunk);
    cursor.pos = piece.nextPos;
    cursor.prefix = piece.nextPrefix;
  }
  return pieces;
}
