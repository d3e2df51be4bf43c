// A line scanner that finds the fenced code blocks of a text the way micromark's block parse
// does, for the texts it can model: fences at the top level, between paragraphs, headings,
// rules, definitions and indented code. Anything that could put a fence inside a container
// or hide it in an HTML block makes it give up ("unsupported"), and the caller parses with
// mdast instead. It is a left-to-right machine over lines whose state after a line depends
// only on the lines before it, so a text that grows at its end (a streamed reply) is scanned
// once, line by line, and only its last, unfinished line is looked at again.
//
// What it models, and why that is exact:
// - Outside a fence, a line with at most three spaces (no tab) before a run of three or more
//   backticks or tildes opens a fence (a backtick fence's info string holds no backtick). A
//   fence interrupts a paragraph, and at the top level nothing else can claim the line.
// - Inside a fence every line is code until a closing line: at most three spaces, a run of the
//   same character at least as long as the opening one, then only spaces or tabs. A tab before
//   the run moves it to column four or more, so such a line is code.
// - Indentation of four or more columns (indented code, a paragraph's continuation) never
//   opens a fence; link reference definitions end where a fence interrupts them.
//
// What makes it give up (the text is then parsed):
// - a carriage return (other line endings), a byte order mark at the start;
// - a line that may start an HTML block (after at most three spaces; see `mayStartHtmlBlock`):
//   HTML blocks swallow fence lines until their end condition;
// - a fence that might be inside a container. A line starting like a list item or a block
//   quote (after any spaces or tabs: `>`, `-`/`+`/`*` then a space, a tab or the line end,
//   digits then `.` or `)`) begins a *container context*. In it, a run of three backticks or
//   tildes anywhere but at the very start of a line (an opening line at column zero, which
//   closes every container: a fence cannot be a lazy continuation) gives up, and so does a
//   container line holding such a run. The context ends at a line that starts at column zero
//   after a blank line (nothing can continue a list item or a quote there), or at such an
//   opening line.

import { htmlBlockNames, htmlRawNames } from 'micromark-util-html-tag-name';

/** A fenced code block as the parse's node spans it: from its marker to its end offset. */
export interface FenceBlock {
  /** Offset of the first marker character of the opening line. */
  readonly markerStart: number;
  /** Offset just past the closing line (newline excluded), or the text length when unclosed. */
  readonly end: number;
}

interface OpenFence {
  readonly markerStart: number;
  /** The marker's character code: a backtick or a tilde. */
  readonly character: number;
  /** The opening run's length; a closing run is at least as long. */
  readonly length: number;
}

/** Where a scan stands after the lines it has read. */
export interface FenceScanState {
  /** Offset of the first line not yet read. */
  position: number;
  /** The fences closed so far. */
  readonly blocks: FenceBlock[];
  /** The fence open at `position`, if any. */
  open: OpenFence | undefined;
  /** A list item or quote may still be open (see the module comment). */
  containerContext: boolean;
  /** The last line read was blank (spaces and tabs only). */
  previousBlank: boolean;
  /** The text has a construct this scanner does not model: parse it instead. */
  unsupported: boolean;
}

const tab = 9;
const newline = 10;
const space = 32;
const exclamation = 33;
const doubleQuote = 34;
const singleQuote = 39;
const plus = 43;
const asterisk = 42;
const rightParenthesis = 41;
const minus = 45;
const period = 46;
const slash = 47;
const zero = 48;
const nine = 57;
const lessThan = 60;
const greaterThan = 62;
const question = 63;
const backtick = 96;
const tilde = 126;
const byteOrderMark = 0xfeff;

/** A scan at the start of a text. */
export function createFenceScanState(): FenceScanState {
  return {
    position: 0,
    blocks: [],
    open: undefined,
    containerContext: false,
    previousBlank: true,
    unsupported: false,
  };
}

/**
 * Reads the complete lines of `text` from `state.position` up to `until` (the start of a line,
 * at most the start of the text's last line), updating `state`. Returns how many it read.
 */
export function scanCompleteLines(text: string, state: FenceScanState, until: number): number {
  if (state.unsupported || until <= state.position) return 0;
  if (!supportedCharacters(text, state.position, until)) {
    state.unsupported = true;
    return 0;
  }
  const runs = createRunFinder(text);
  let lines = 0;
  let start = state.position;
  while (start < until && !state.unsupported) {
    const end = text.indexOf('\n', start);
    scanLine(text, start, end, state, runs);
    lines++;
    start = end + 1;
  }
  state.position = until;
  return lines;
}

/**
 * The fences of the whole `text`, whose complete lines up to `state.position` have been read
 * into `state`: reads the rest (the last line, finished or not) without changing `state`.
 * Returns undefined when the text has a construct the scanner does not model.
 */
export function finishFenceScan(text: string, state: FenceScanState): FenceBlock[] | undefined {
  if (state.unsupported) return undefined;
  const last: FenceScanState = { ...state, blocks: state.blocks.slice() };
  const lastLineStart = text.lastIndexOf('\n') + 1;
  if (lastLineStart > last.position) scanCompleteLines(text, last, lastLineStart);
  if (last.unsupported) return undefined;
  if (last.position < text.length) {
    if (!supportedCharacters(text, last.position, text.length)) return undefined;
    scanLine(text, last.position, text.length, last, createRunFinder(text));
    if (last.unsupported) return undefined;
  }
  if (last.open !== undefined) last.blocks.push({ markerStart: last.open.markerStart, end: text.length });
  return last.blocks;
}

/** The fences of `text` by the line scan alone, or undefined when it must be parsed. */
export function scanFenceBlocks(text: string): FenceBlock[] | undefined {
  return finishFenceScan(text, createFenceScanState());
}

function supportedCharacters(text: string, from: number, to: number): boolean {
  if (from === 0 && text.charCodeAt(0) === byteOrderMark) return false;
  const carriageReturn = text.indexOf('\r', from);
  return carriageReturn === -1 || carriageReturn >= to;
}

interface RunFinder {
  /** True when text[start, end) holds three backticks or three tildes in a row. */
  within(start: number, end: number): boolean;
}

/** Finds runs of three backticks or tildes with two forward-only cursors (lines are read in order). */
function createRunFinder(text: string): RunFinder {
  let backticks = -2;
  let tildes = -2;
  return {
    within(start: number, end: number): boolean {
      if (backticks !== -1 && backticks < start) backticks = text.indexOf('```', start);
      if (tildes !== -1 && tildes < start) tildes = text.indexOf('~~~', start);
      return (backticks !== -1 && backticks + 3 <= end) || (tildes !== -1 && tildes + 3 <= end);
    },
  };
}

function onlySpacesOrTabs(text: string, from: number, to: number): boolean {
  for (let index = from; index < to; index++) {
    const character = text.charCodeAt(index);
    if (character !== space && character !== tab) return false;
  }
  return true;
}

function runEnd(text: string, from: number, to: number, character: number): number {
  let index = from;
  while (index < to && text.charCodeAt(index) === character) index++;
  return index;
}

/** Reads one line, text[start, end) (its newline excluded). */
function scanLine(text: string, start: number, end: number, state: FenceScanState, runs: RunFinder): void {
  let index = start;
  while (index < end && text.charCodeAt(index) === space) index++;
  const indent = index - start;
  const first = index < end ? text.charCodeAt(index) : -1;

  const open = state.open;
  if (open !== undefined) {
    if (indent <= 3 && first === open.character) {
      const after = runEnd(text, index, end, first);
      if (after - index >= open.length && onlySpacesOrTabs(text, after, end)) {
        state.blocks.push({ markerStart: open.markerStart, end });
        state.open = undefined;
      }
    }
    return;
  }

  if (onlySpacesOrTabs(text, index, end)) {
    state.previousBlank = true;
    return;
  }
  const previousBlank = state.previousBlank;
  state.previousBlank = false;

  if (indent <= 3 && (first === backtick || first === tilde)) {
    const after = runEnd(text, index, end, first);
    if (after - index >= 3 && (first === tilde || !hasBacktick(text, after, end))) {
      if (state.containerContext) {
        if (indent > 0) {
          state.unsupported = true;
          return;
        }
        state.containerContext = false;
      }
      state.open = { markerStart: index, character: first, length: after - index };
      return;
    }
  }
  if (indent <= 3 && first === lessThan && mayStartHtmlBlock(text, index, end)) {
    state.unsupported = true;
    return;
  }
  const hasRun = runs.within(start, end);
  if (isContainerLine(text, index, end)) {
    state.containerContext = true;
    if (hasRun) state.unsupported = true;
    return;
  }
  if (state.containerContext) {
    if (hasRun) state.unsupported = true;
    else if (indent === 0 && first !== tab && previousBlank) state.containerContext = false;
  }
}

function hasBacktick(text: string, from: number, to: number): boolean {
  const index = text.indexOf('`', from);
  return index !== -1 && index < to;
}

/**
 * True when the line, whose text from `from` starts with `<`, may start one of CommonMark's
 * seven kinds of HTML block. Generous (a false positive only makes the scanner give up): any
 * `<!` or `<?` (comments, declarations, CDATA, processing instructions); a tag named like a raw
 * or block element (`pre`, `div`, …, micromark's own lists); any other tag whose first `>` has
 * only spaces or tabs after it, or is preceded by a quote (a quoted attribute value could hide
 * the tag's real end). So `<think>The plan…</think>` or `<3` on a line of their own do not.
 */
function mayStartHtmlBlock(text: string, from: number, end: number): boolean {
  let index = from + 1;
  const next = text.charCodeAt(index);
  if (next === exclamation || next === question) return true;
  if (next === slash) index++;
  const nameStart = index;
  if (!isAsciiLetter(text.charCodeAt(index))) return false;
  while (index < end && isTagNameCharacter(text.charCodeAt(index))) index++;
  const name = text.slice(nameStart, index).toLowerCase();
  if (htmlRawNames.includes(name) || htmlBlockNames.includes(name)) return true;
  const close = text.indexOf('>', index);
  if (close === -1 || close >= end) return false;
  for (let probe = index; probe < close; probe++) {
    const character = text.charCodeAt(probe);
    if (character === doubleQuote || character === singleQuote) return true;
  }
  return onlySpacesOrTabs(text, close + 1, end);
}

function isAsciiLetter(character: number): boolean {
  return (character >= 65 && character <= 90) || (character >= 97 && character <= 122);
}

function isTagNameCharacter(character: number): boolean {
  return isAsciiLetter(character) || (character >= zero && character <= nine) || character === minus;
}

/**
 * True when the line, after any spaces and tabs, starts like a block quote or a list item.
 * Generous on purpose (any indent, any number of digits, thematic breaks like `* * *`): a
 * false positive only makes the scanner give up sooner.
 */
function isContainerLine(text: string, from: number, end: number): boolean {
  let index = from;
  while (index < end && (text.charCodeAt(index) === space || text.charCodeAt(index) === tab)) index++;
  const character = text.charCodeAt(index);
  if (character === greaterThan) return true;
  if (character === minus || character === plus || character === asterisk)
    return followedBySpace(text, index + 1, end);
  if (character >= zero && character <= nine) {
    let after = index + 1;
    while (after < end && text.charCodeAt(after) >= zero && text.charCodeAt(after) <= nine) after++;
    const delimiter = text.charCodeAt(after);
    return (delimiter === period || delimiter === rightParenthesis) && followedBySpace(text, after + 1, end);
  }
  return false;
}

function followedBySpace(text: string, index: number, end: number): boolean {
  if (index >= end) return true;
  const character = text.charCodeAt(index);
  return character === space || character === tab || character === newline;
}
