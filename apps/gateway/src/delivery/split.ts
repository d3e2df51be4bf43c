/**
 * The break search shared by the streaming block chunker and the one-shot outbound chunker.
 *
 * Both cut a text into pieces from left to right. The not-yet-emitted remainder is
 * `prefix + text.slice(pos)`: `prefix` is empty, or the reopened opening line of a code fence
 * that an earlier piece had to close. Working on offsets of the original text lets a caller
 * parse the fences once and cut many pieces from one parse.
 */

import { type FenceSpan, fenceAt, isBlank, isSafeBreak } from './fences.ts';

/** Where the chunker prefers to break: blank lines, single newlines, or sentence ends. */
export type BreakPreference = 'paragraph' | 'newline' | 'sentence';

/** The start of the remainder: `prefix + text.slice(pos)`. */
export interface SplitCursor {
  pos: number;
  prefix: string;
}

/** One emitted piece and where the remainder starts after it. */
export interface Piece {
  readonly chunk: string;
  readonly nextPos: number;
  readonly nextPrefix: string;
}

/** Limits on one piece: characters always, lines optionally (Discord's soft line cap). */
export interface PieceLimits {
  readonly maxChars: number;
  readonly maxLines?: number | undefined;
}

const newline = 10;
const carriageReturn = 13;
const space = 32;
const tab = 9;

function isWhitespaceCode(char: number): boolean {
  if (char <= 32) return char === 32 || (char >= 9 && char <= 13);
  return (
    char === 0xa0 ||
    char === 0x1680 ||
    (char >= 0x2000 && char <= 0x200a) ||
    char === 0x2028 ||
    char === 0x2029 ||
    char === 0x202f ||
    char === 0x205f ||
    char === 0x3000 ||
    char === 0xfeff
  );
}

/** True for `.`, `!` and `?`. */
export function isSentencePunctuation(char: number): boolean {
  return char === 46 || char === 33 || char === 63; // . ! ?
}

/** Length of the remainder. */
export function remainingLength(text: string, cursor: SplitCursor): number {
  return cursor.prefix.length + text.length - cursor.pos;
}

/** Offset of the `count`-th newline at or after `from`, or -1. */
function nthNewline(text: string, from: number, count: number): number {
  let index = from - 1;
  for (let seen = 0; seen < count; seen++) {
    index = text.indexOf('\n', index + 1);
    if (index === -1) return -1;
  }
  return index;
}

/** Number of lines of the remainder (a trailing newline does not start a new line). */
function remainingLines(text: string, cursor: SplitCursor, stopAfter: number): number {
  let lines = cursor.prefix === '' ? 1 : 2;
  let index = text.indexOf('\n', cursor.pos);
  while (index !== -1 && index < text.length - 1) {
    lines++;
    if (lines > stopAfter) return lines;
    index = text.indexOf('\n', index + 1);
  }
  return lines;
}

/** True when the whole remainder fits in one piece. */
export function remainderFits(text: string, cursor: SplitCursor, limits: PieceLimits): boolean {
  if (remainingLength(text, cursor) > limits.maxChars) return false;
  if (limits.maxLines === undefined) return true;
  return remainingLines(text, cursor, limits.maxLines) <= limits.maxLines;
}

/**
 * The largest break offset allowed by the limits: the piece `prefix + text[pos, end)` has at
 * most `maxChars` characters and at most `maxLines` lines. Always greater than `pos` while text
 * remains, so cutting always makes progress.
 */
export function windowEnd(text: string, cursor: SplitCursor, limits: PieceLimits): number {
  let end = Math.min(text.length, cursor.pos + limits.maxChars - cursor.prefix.length);
  if (limits.maxLines !== undefined) {
    const newlines = limits.maxLines - (cursor.prefix === '' ? 0 : 1);
    const limitNewline = newlines >= 1 ? nthNewline(text, cursor.pos, newlines) : cursor.pos;
    if (limitNewline !== -1 && limitNewline < end) end = limitNewline;
  }
  if (end <= cursor.pos) end = Math.min(text.length, cursor.pos + 1);
  return end;
}

function lastOccurrence(
  text: string,
  spans: readonly FenceSpan[],
  needle: string,
  minPos: number,
  end: number,
): number {
  let index = text.lastIndexOf(needle, end);
  while (index >= minPos) {
    if (isSafeBreak(spans, index)) return index;
    if (index === 0) return -1;
    index = text.lastIndexOf(needle, index - 1);
  }
  return -1;
}

function lastSentenceEnd(
  text: string,
  spans: readonly FenceSpan[],
  minPos: number,
  end: number,
  atEnd: boolean,
): number {
  for (let index = Math.min(end, text.length) - 1; index >= minPos - 1 && index >= 0; index--) {
    if (!isSentencePunctuation(text.charCodeAt(index))) continue;
    const next = index + 1;
    const ends = next < text.length ? isWhitespaceCode(text.charCodeAt(next)) : atEnd;
    if (ends && next >= minPos && isSafeBreak(spans, next)) return next;
  }
  return -1;
}

function lastWhitespace(text: string, spans: readonly FenceSpan[], minPos: number, end: number): number {
  for (let index = Math.min(end, text.length - 1); index >= minPos; index--) {
    if (isWhitespaceCode(text.charCodeAt(index)) && isSafeBreak(spans, index)) return index;
  }
  return -1;
}

/** The last safe blank-line break ("\n\n") in [minPos, end], or -1. */
export function findLastParagraphBreak(
  text: string,
  spans: readonly FenceSpan[],
  minPos: number,
  end: number,
): number {
  return minPos > end ? -1 : lastOccurrence(text, spans, '\n\n', minPos, end);
}

/**
 * The best soft break in [minPos, end], searched from the end of the window:
 * paragraph → newline → sentence end → whitespace, filtered by the preference
 * (`newline` has no sentence step; `sentence` has no paragraph or newline step).
 * Returns -1 when there is none.
 */
export function findSoftBreak(
  text: string,
  spans: readonly FenceSpan[],
  minPos: number,
  end: number,
  preference: BreakPreference,
  atEnd: boolean,
  allowWhitespace: boolean,
): number {
  if (minPos > end) return -1;
  if (preference === 'paragraph') {
    const paragraph = lastOccurrence(text, spans, '\n\n', minPos, end);
    if (paragraph !== -1) return paragraph;
  }
  if (preference !== 'sentence') {
    const line = lastOccurrence(text, spans, '\n', minPos, end);
    if (line !== -1) return line;
  }
  if (preference !== 'newline') {
    const sentence = lastSentenceEnd(text, spans, minPos, end, atEnd);
    if (sentence !== -1) return sentence;
  }
  return allowWhitespace ? lastWhitespace(text, spans, minPos, end) : -1;
}

/**
 * The first soft break at or after `from` (never at the very end of the text), used to split a
 * forced tail that already fits: paragraph → newline → sentence end, filtered by preference.
 */
export function findFirstSoftBreak(
  text: string,
  spans: readonly FenceSpan[],
  from: number,
  preference: BreakPreference,
): number {
  const limit = text.length;
  const first = (needle: string): number => {
    let index = text.indexOf(needle, from);
    while (index !== -1 && index < limit) {
      if (isSafeBreak(spans, index)) return index;
      index = text.indexOf(needle, index + 1);
    }
    return -1;
  };
  if (preference === 'paragraph') {
    const paragraph = first('\n\n');
    if (paragraph !== -1) return paragraph;
  }
  if (preference !== 'sentence') {
    const line = first('\n');
    if (line !== -1) return line;
  }
  if (preference !== 'newline') {
    for (let index = Math.max(0, from - 1); index < limit - 1; index++) {
      if (
        isSentencePunctuation(text.charCodeAt(index)) &&
        isWhitespaceCode(text.charCodeAt(index + 1)) &&
        index + 1 >= from &&
        isSafeBreak(spans, index + 1)
      ) {
        return index + 1;
      }
    }
  }
  return -1;
}

const paragraphBreakPattern = /\n[ \t]*\n/g;

/** The first safe paragraph break (newline, optional spaces or tabs, newline) starting at or after `from`. */
export function findFirstParagraphBreak(
  text: string,
  spans: readonly FenceSpan[],
  from: number,
): { index: number; end: number } | undefined {
  paragraphBreakPattern.lastIndex = from;
  for (
    let match = paragraphBreakPattern.exec(text);
    match !== null;
    match = paragraphBreakPattern.exec(text)
  ) {
    if (isSafeBreak(spans, match.index)) return { index: match.index, end: match.index + match[0].length };
    paragraphBreakPattern.lastIndex = match.index + 1;
  }
  return undefined;
}

/** Skips whole blank lines (empty or whitespace only) from `index`; keeps the indent of the next line. */
export function skipBlankLines(text: string, index: number): number {
  for (;;) {
    let probe = index;
    while (probe < text.length) {
      const char = text.charCodeAt(probe);
      if (char !== space && char !== tab && char !== carriageReturn) break;
      probe++;
    }
    if (probe >= text.length || text.charCodeAt(probe) !== newline) return index;
    index = probe + 1;
  }
}

/**
 * A cut at a safe `index`: the piece drops its trailing whitespace; the remainder skips one
 * whitespace character at the cut and any blank lines after it.
 */
export function normalPiece(text: string, cursor: SplitCursor, index: number): Piece {
  let end = index;
  while (end > cursor.pos && isWhitespaceCode(text.charCodeAt(end - 1))) end--;
  const chunk = cursor.prefix + text.slice(cursor.pos, end);
  let next = index;
  if (next < text.length && isWhitespaceCode(text.charCodeAt(next))) next++;
  return { chunk, nextPos: skipBlankLines(text, next), nextPrefix: '' };
}

function isHighSurrogate(char: number): boolean {
  return char >= 0xd800 && char <= 0xdbff;
}

/** Moves a raw cut off the middle of a surrogate pair. */
function avoidSurrogateSplit(text: string, index: number, floor: number): number {
  if (index > floor + 1 && index < text.length && isHighSurrogate(text.charCodeAt(index - 1)))
    return index - 1;
  return index;
}

/**
 * The forced cut when no soft break exists and the remainder exceeds the limits: at the window
 * end when that is outside every fence; inside a fence, the piece is closed with the fence's
 * marker and the remainder reopened with its opening line (language tag kept).
 */
export function hardPiece(
  text: string,
  spans: readonly FenceSpan[],
  cursor: SplitCursor,
  minPos: number,
  limits: PieceLimits,
): Piece {
  const end = avoidSurrogateSplit(text, windowEnd(text, cursor, limits), cursor.pos);
  const fence = fenceAt(spans, end);
  if (fence === undefined) return normalPiece(text, cursor, end);
  if (end <= fence.openLineEnd && fence.start > cursor.pos) {
    // The window ends inside the fence's opening line: cut before the fence instead.
    return normalPiece(text, cursor, fence.start);
  }
  const split = fenceSplit(text, cursor, fence, minPos, limits);
  if (split !== undefined) return split;
  // No room for code plus a closing line: cut before the fence when it starts in this piece;
  // otherwise (limits smaller than a fence's own lines) cut raw.
  if (fence.start > cursor.pos) return normalPiece(text, cursor, fence.start);
  return { chunk: cursor.prefix + text.slice(cursor.pos, end), nextPos: end, nextPrefix: '' };
}

/**
 * Splits inside `fence`, reserving room for the closing marker line so the piece never exceeds
 * the limits. Prefers the last line boundary inside the fence; cuts mid-line only when no line
 * fits. When nothing but the closing line would remain, that line is consumed here instead of
 * reopening an empty block. Returns undefined when the limits are too small to hold an opening
 * line, one character of code and a closing line.
 */
function fenceSplit(
  text: string,
  cursor: SplitCursor,
  fence: FenceSpan,
  minPos: number,
  limits: PieceLimits,
): Piece | undefined {
  const closeLine = fence.indent + fence.marker;
  let budgetEnd = Math.min(
    text.length,
    cursor.pos + limits.maxChars - cursor.prefix.length - closeLine.length - 1,
  );
  if (limits.maxLines !== undefined) {
    const newlines = limits.maxLines - 1 - (cursor.prefix === '' ? 0 : 1);
    if (newlines < 1) return undefined;
    const limitNewline = nthNewline(text, cursor.pos, newlines);
    if (limitNewline !== -1 && limitNewline < budgetEnd) budgetEnd = limitNewline;
  }
  const lowest = Math.max(cursor.pos, fence.openLineEnd + 1) + 1;
  if (budgetEnd < lowest) return undefined;
  let cut = text.lastIndexOf('\n', budgetEnd);
  if (cut < Math.max(lowest, minPos)) cut = avoidSurrogateSplit(text, budgetEnd, lowest - 1);
  const body = text.slice(cursor.pos, cut);
  const chunk = `${cursor.prefix}${body}${body.endsWith('\n') ? '' : '\n'}${closeLine}`;
  const restStart = cut < text.length && text.charCodeAt(cut) === newline ? cut + 1 : cut;
  if (fence.closeStart >= 0 && isBlank(text, restStart, fence.closeStart)) {
    return { chunk, nextPos: skipBlankLines(text, fence.end), nextPrefix: '' };
  }
  return { chunk, nextPos: restStart, nextPrefix: `${fence.openLine}\n` };
}
