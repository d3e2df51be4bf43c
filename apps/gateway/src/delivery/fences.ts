/**
 * The Markdown code-fence model shared by the block chunker and the outbound chunker.
 *
 * A line with at most three spaces of indent followed by three or more backticks or tildes
 * opens a fence. The fence is closed by a later line (same indent limit) made of the same
 * marker character, at least as long as the opening run, followed only by whitespace.
 * A fence that is never closed runs to the end of the text.
 */

/** One fenced code block inside a text, in character offsets of that text. */
export interface FenceSpan {
  /** Offset of the first character of the opening line. */
  readonly start: number;
  /** Offset of the newline that ends the opening line (the text length if there is none). */
  readonly openLineEnd: number;
  /** Offset of the first character of the closing line, or -1 when the fence is unclosed. */
  readonly closeStart: number;
  /** Offset just past the closing line (its newline excluded), or the text length when unclosed. */
  readonly end: number;
  /** The opening line verbatim: indent, marker and info string (language tag). */
  readonly openLine: string;
  /** The opening line's indent (spaces only). */
  readonly indent: string;
  /** The opening marker run, for example "```" or "~~~~". */
  readonly marker: string;
}

const backtick = 96;
const tilde = 126;
const space = 32;

/** Finds every fenced code block of `text`, in order. One pass over the text. */
export function parseFenceSpans(text: string): FenceSpan[] {
  const spans: FenceSpan[] = [];
  const length = text.length;
  let open: {
    start: number;
    openLineEnd: number;
    char: number;
    runLength: number;
    markerStart: number;
  } | null = null;
  let lineStart = 0;
  while (lineStart <= length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd === -1) lineEnd = length;
    let index = lineStart;
    while (index < lineEnd && index - lineStart < 4 && text.charCodeAt(index) === space) index++;
    if (index - lineStart <= 3) {
      const char = text.charCodeAt(index);
      if (char === backtick || char === tilde) {
        let runEnd = index;
        while (runEnd < lineEnd && text.charCodeAt(runEnd) === char) runEnd++;
        const runLength = runEnd - index;
        if (runLength >= 3) {
          if (open === null) {
            open = { start: lineStart, openLineEnd: lineEnd, char, runLength, markerStart: index };
          } else if (char === open.char && runLength >= open.runLength && isBlank(text, runEnd, lineEnd)) {
            spans.push(toSpan(text, open, lineStart, lineEnd));
            open = null;
          }
        }
      }
    }
    if (lineEnd === length) break;
    lineStart = lineEnd + 1;
  }
  if (open !== null) spans.push(toSpan(text, open, -1, length));
  return spans;
}

function toSpan(
  text: string,
  open: { start: number; openLineEnd: number; runLength: number; markerStart: number },
  closeStart: number,
  end: number,
): FenceSpan {
  return {
    start: open.start,
    openLineEnd: open.openLineEnd,
    closeStart,
    end,
    openLine: text.slice(open.start, open.openLineEnd),
    indent: text.slice(open.start, open.markerStart),
    marker: text.slice(open.markerStart, open.markerStart + open.runLength),
  };
}

/**
 * The fence strictly containing `position` (start < position < end), if any. An unclosed fence
 * also contains the very end of the text: while streaming, more code is still to come.
 */
export function fenceAt(spans: readonly FenceSpan[], position: number): FenceSpan | undefined {
  for (const span of spans) {
    if (span.start >= position) return undefined;
    if (position < span.end || span.closeStart < 0) return span;
  }
  return undefined;
}

/** True when cutting the text at `position` does not land strictly inside a fence. */
export function isSafeBreak(spans: readonly FenceSpan[], position: number): boolean {
  return fenceAt(spans, position) === undefined;
}

/** True when text[from, to) is only spaces, tabs, carriage returns or newlines. */
export function isBlank(text: string, from: number, to: number): boolean {
  for (let index = from; index < to; index++) {
    const char = text.charCodeAt(index);
    if (char !== space && char !== 9 && char !== 10 && char !== 13) return false;
  }
  return true;
}
