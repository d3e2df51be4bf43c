// Where the fenced code blocks of a text are, in offsets of that text, read from the same
// parse as the renderers: what a chunker needs to never cut a code block except by closing
// it and reopening it (with its language) in the next piece.
import type { Nodes } from 'mdast';
import {
  createFenceScanState,
  type FenceBlock,
  type FenceScanState,
  finishFenceScan,
  scanCompleteLines,
  scanFenceBlocks,
} from './fence-line-scanner.ts';
import { parseBlocks } from './parse.ts';

/** One fenced code block, in character offsets of the text it was found in. */
export interface CodeFence {
  /** Offset of the first character of the opening line. */
  readonly start: number;
  /** Offset of the newline that ends the opening line (the text length if there is none). */
  readonly openLineEnd: number;
  /**
   * Offset of the first character of the closing line; the block's end when its container
   * (a list item) ended it without one; -1 when it is unclosed at the end of the text.
   */
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

const markerPattern = /^(`{3,}|~{3,})/;

/**
 * The fenced code blocks of `text`, in order: those at the top level and those inside list
 * items whose opening line holds only spaces before the marker (a fence inside a quote is
 * left out: reopening it would need the quote's `>` prefix). Indented code is not fenced.
 *
 * Most texts are read by a line scan (`fence-line-scanner.ts`) that returns exactly what the
 * parse would; a text with a construct the scan does not model near a fence (a quote, a nested
 * list, an HTML block, a carriage return) is parsed with mdast.
 */
export function findCodeFences(text: string): CodeFence[] {
  // A fence needs three backticks or tildes in a row: most chat text has none, and needs no parse.
  if (!text.includes('```') && !text.includes('~~~')) return [];
  const blocks = scanFenceBlocks(text);
  return blocks === undefined ? findCodeFencesByParse(text) : fencesOfBlocks(text, blocks);
}

/** `findCodeFences` by the mdast block parse alone (the reference the line scan must agree with). */
export function findCodeFencesByParse(text: string): CodeFence[] {
  if (!text.includes('```') && !text.includes('~~~')) return [];
  const fences: CodeFence[] = [];
  const visit = (node: Nodes): void => {
    if (node.type === 'code') {
      const markerStart = node.position?.start.offset;
      const end = node.position?.end.offset;
      const fence =
        markerStart === undefined || end === undefined ? undefined : codeFence(text, { markerStart, end });
      if (fence !== undefined) fences.push(fence);
      return;
    }
    if (node.type === 'blockquote') return;
    if ('children' in node) for (const child of node.children) visit(child);
  };
  visit(parseBlocks(text));
  return fences;
}

/**
 * Finds the code fences of a text that grows at its end, such as a streamed reply's buffer.
 * Contract: `fences(text)` returns exactly `findCodeFences(text)`. When `text` extends the text
 * of an earlier call, only the lines added since are read (the last, unfinished line again);
 * any other text starts a new scan. A text the line scan does not model is parsed whole. The
 * returned array may be the one an earlier call returned: read it, do not change it.
 */
export interface CodeFenceTracker {
  fences(text: string): readonly CodeFence[];
  /** How many complete lines the scan has read so far (a growing text's lines are read once). */
  linesRead(): number;
}

const noFences: readonly CodeFence[] = [];

export function createCodeFenceTracker(): CodeFenceTracker {
  let linesRead = 0;
  let state: FenceScanState = createFenceScanState();
  // The text of the lines `state` has read (text[0, state.position)).
  let readPrefix = '';
  // The fences of `state.blocks`, closed on lines already read: they cannot change any more.
  // Replaced, never changed, once returned.
  let closedFences: readonly CodeFence[] = noFences;
  let derivedBlocks = 0;
  let lastText: string | undefined;
  let lastFences: readonly CodeFence[] = noFences;
  const fences = (text: string): readonly CodeFence[] => {
    if (text === lastText) return lastFences;
    lastText = text;
    // (A slice compared with `===` is several times faster than `startsWith` in V8.)
    if (text.length < readPrefix.length || text.slice(0, readPrefix.length) !== readPrefix) {
      state = createFenceScanState();
      readPrefix = '';
      closedFences = noFences;
      derivedBlocks = 0;
    }
    // A fence needs three backticks or tildes in a row; the lines are read once one appears.
    if (!text.includes('```') && !text.includes('~~~')) {
      lastFences = noFences;
      return lastFences;
    }
    const lastLineStart = text.lastIndexOf('\n') + 1;
    if (lastLineStart > state.position) {
      linesRead += scanCompleteLines(text, state, lastLineStart);
      readPrefix = text.slice(0, state.position);
      if (state.blocks.length > derivedBlocks) {
        closedFences = [...closedFences, ...fencesOfBlocks(text, state.blocks.slice(derivedBlocks))];
        derivedBlocks = state.blocks.length;
      }
    }
    const blocks = finishFenceScan(text, state);
    if (blocks === undefined) lastFences = findCodeFencesByParse(text);
    else if (blocks.length === state.blocks.length) lastFences = closedFences;
    else lastFences = [...closedFences, ...fencesOfBlocks(text, blocks.slice(state.blocks.length))];
    return lastFences;
  };
  return { fences, linesRead: () => linesRead };
}

function fencesOfBlocks(text: string, blocks: readonly FenceBlock[]): CodeFence[] {
  const fences: CodeFence[] = [];
  for (const block of blocks) {
    const fence = codeFence(text, block);
    if (fence !== undefined) fences.push(fence);
  }
  return fences;
}

/** The fence of a `code` node spanning text[markerStart, end) (for a fenced block, from its marker). */
function codeFence(text: string, { markerStart, end }: FenceBlock): CodeFence | undefined {
  const start = text.lastIndexOf('\n', markerStart - 1) + 1;
  const indent = text.slice(start, markerStart);
  if (!/^ *$/.test(indent)) return undefined;
  const marker = markerPattern.exec(text.slice(markerStart))?.[1];
  if (marker === undefined) return undefined;
  let openLineEnd = text.indexOf('\n', markerStart);
  if (openLineEnd === -1 || openLineEnd > end) openLineEnd = end;
  const lastLineStart = text.lastIndexOf('\n', end - 1) + 1;
  const lastLine = text.slice(lastLineStart, end).trim();
  const closed =
    lastLineStart > markerStart &&
    lastLine.length >= marker.length &&
    [...lastLine].every((character) => character === marker[0]);
  let closeStart = -1;
  if (closed) closeStart = lastLineStart;
  else if (end < text.length && text.slice(end).trim() !== '') closeStart = end;
  return {
    start,
    openLineEnd,
    closeStart,
    end: closeStart === -1 ? text.length : end,
    openLine: text.slice(start, openLineEnd),
    indent,
    marker,
  };
}
