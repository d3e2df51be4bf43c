/**
 * The streaming block chunker: buffers assistant text and cuts it into finished blocks at
 * paragraph, line or sentence boundaries, never inside a fenced code block unless forced to,
 * in which case the block is closed and the remainder reopened with the same opening line.
 */

import { assertInteger, assertOneOf, DeliveryError } from './errors.ts';
import { createFenceSpanTracker, type FenceSpan, isBlank } from './fences.ts';
import {
  type BreakPreference,
  findFirstParagraphBreak,
  findFirstSoftBreak,
  findSoftBreak,
  hardPiece,
  isSentencePunctuation,
  normalPiece,
  type Piece,
  type PieceLimits,
  remainingLength,
  type SplitCursor,
  skipBlankLines,
  windowEnd,
} from './split.ts';

export type { BreakPreference } from './split.ts';

export interface BlockChunkerOptions {
  /** Smallest block emitted by an unforced drain. At least 1. */
  readonly minChars: number;
  /** Largest block ever emitted (a forced fence split reserves room for its closing line). */
  readonly maxChars: number;
  /** Default `paragraph`. */
  readonly breakPreference?: BreakPreference;
  /** Emit each paragraph as soon as it is complete and at least `minChars` long (chunkMode `newline`). */
  readonly flushOnParagraph?: boolean;
  /**
   * The fence finder; replaceable to instrument it (tests count calls). Default: a tracker that
   * reads only the lines appended since the last drain (`createFenceSpanTracker`).
   */
  readonly parseFences?: (text: string) => readonly FenceSpan[];
}

interface DrainOptions {
  /** Flush everything: end of a text block or message, before a tool runs, at run end. */
  readonly force?: boolean;
}

export interface BlockChunker {
  /** Adds streamed text to the buffer. */
  append(text: string): void;
  /** Cuts finished blocks off the buffer (all of it when forced). Never returns blank blocks. */
  drain(options?: DrainOptions): string[];
  hasBuffered(): boolean;
  /** Drops the buffer. */
  reset(): void;
  /** The text still buffered. */
  readonly bufferedText: string;
}

const noChunks: string[] = [];

export function createBlockChunker(options: BlockChunkerOptions): BlockChunker {
  if (typeof options !== 'object' || options === null) {
    throw new DeliveryError('DELIVERY_INVALID_OPTIONS', 'createBlockChunker options must be an object', {
      details: { path: 'options' },
    });
  }
  const minChars = assertInteger(options.minChars, 'chunker.minChars', 1);
  const maxChars = assertInteger(options.maxChars, 'chunker.maxChars', minChars);
  const preference = assertOneOf(options.breakPreference ?? 'paragraph', 'chunker.breakPreference', [
    'paragraph',
    'newline',
    'sentence',
  ] as const);
  const flushOnParagraph = options.flushOnParagraph === true;
  const parseFences = options.parseFences ?? createFenceSpanTracker();
  const limits: PieceLimits = { maxChars };
  let buffer = '';

  function cutWindow(
    text: string,
    spans: readonly FenceSpan[],
    cursor: SplitCursor,
    floor: number,
    forced: boolean,
  ): Piece | undefined {
    const remaining = remainingLength(text, cursor);
    // Mid-stream, a buffer ending in "." may be a sentence end or "3." of "3.14": the next
    // delta decides, so wait for it rather than cutting at an earlier space.
    if (!forced && remaining < maxChars && isSentencePunctuation(text.charCodeAt(text.length - 1)))
      return undefined;
    const end = windowEnd(text, cursor, limits);
    const minPos = cursor.pos + Math.max(1, floor - cursor.prefix.length);
    const allowWhitespace = preference !== 'newline' || remaining >= maxChars;
    const index = findSoftBreak(text, spans, minPos, end, preference, forced, allowWhitespace);
    if (index !== -1) return normalPiece(text, cursor, index);
    if (remaining >= maxChars) return hardPiece(text, spans, cursor, minPos, limits);
    return undefined;
  }

  function drain(drainOptions: DrainOptions = {}): string[] {
    const force = drainOptions.force === true;
    const length = buffer.length;
    if (length === 0) return noChunks;
    if (!force && length < minChars) return noChunks;
    if (force && length <= maxChars) {
      const whole = buffer;
      buffer = '';
      return isBlank(whole, 0, whole.length) ? noChunks : [whole];
    }

    const text = buffer;
    const spans = parseFences(text);
    const cursor: SplitCursor = { pos: 0, prefix: '' };
    const chunks: string[] = [];
    const take = (piece: Piece): void => {
      if (!isBlank(piece.chunk, 0, piece.chunk.length)) chunks.push(piece.chunk);
      cursor.pos = piece.nextPos;
      cursor.prefix = piece.nextPrefix;
    };

    if (force) {
      while (remainingLength(text, cursor) > maxChars) {
        take(
          cutWindow(text, spans, cursor, 1, true) ?? hardPiece(text, spans, cursor, cursor.pos + 1, limits),
        );
      }
      // The tail fits: split it further at its first soft boundaries, else emit it whole.
      while (cursor.pos < text.length) {
        const index = findFirstSoftBreak(text, spans, cursor.pos + 1, preference);
        if (index === -1) {
          take({ chunk: cursor.prefix + text.slice(cursor.pos), nextPos: text.length, nextPrefix: '' });
          break;
        }
        take(normalPiece(text, cursor, index));
      }
      cursor.prefix = '';
    } else if (flushOnParagraph) {
      for (;;) {
        const remaining = remainingLength(text, cursor);
        if (remaining < minChars) break;
        const minPos = cursor.pos + Math.max(1, minChars - cursor.prefix.length);
        const paragraph = findFirstParagraphBreak(text, spans, minPos);
        if (paragraph !== undefined && cursor.prefix.length + paragraph.index - cursor.pos <= maxChars) {
          take({
            chunk: cursor.prefix + text.slice(cursor.pos, paragraph.index),
            nextPos: skipBlankLines(text, paragraph.end),
            nextPrefix: '',
          });
          continue;
        }
        if (remaining < maxChars) break;
        const piece = cutWindow(text, spans, cursor, minChars, false);
        if (piece === undefined) break;
        take(piece);
      }
    } else {
      const first = cutWindow(text, spans, cursor, minChars, false);
      if (first !== undefined) {
        take(first);
        while (remainingLength(text, cursor) >= maxChars) {
          const piece = cutWindow(text, spans, cursor, minChars, false);
          if (piece === undefined) break;
          take(piece);
        }
      }
    }

    buffer = cursor.prefix + text.slice(cursor.pos);
    return chunks;
  }

  return {
    append(text: string): void {
      if (text.length > 0) buffer += text;
    },
    drain,
    hasBuffered(): boolean {
      return buffer.length > 0;
    },
    reset(): void {
      buffer = '';
    },
    get bufferedText(): string {
      return buffer;
    },
  };
}
