// A line scanner that finds the fenced code blocks of a text the way micromark's block parse
// does, for the texts it can model: fences at the top level, between paragraphs, headings,
// rules, definitions and indented code, and fences inside simple list items (numbered steps
// with code, the usual shape of a model's reply). Anything else that could put a fence inside
// a container or hide it in an HTML block makes it give up ("unsupported"), and the caller
// parses with mdast instead. It is a left-to-right machine over lines whose state after a line depends
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
// - A list item at column zero after a blank line (`-`, `+`, `*`, or one to nine digits and
//   `.` or `)`, then one to four spaces and content): its content column is the marker's width
//   plus those spaces. A line indented to that column belongs to the item, and is read like a
//   top-level line with the column as its margin (fences open and close there). A line left
//   of the column ends the item, unless it is a lazy continuation of the item's paragraph; a
//   list item of the same kind at column zero starts the next item. Not after indented code:
//   micromark then reads the item start as interrupting the code (`2.` stays a paragraph).
//   Everything subtler gives up (`scanItemLine`): tabs, nested lists and quotes, HTML, lines
//   that could be rules or setext underlines, a list of another kind, and an item ended while a
//   fence inside it is open (micromark's end offset of that fence depends on what ended it).
//
// What makes it give up (the text is then parsed):
// - a carriage return (other line endings), a byte order mark at the start;
// - a line that may start an HTML block (after at most three spaces; see `mayStartHtmlBlock`):
//   HTML blocks swallow fence lines until their end condition;
// - a fence that might be inside a container the scan does not model. A line starting like a
//   list item (other than the modelled ones above) or a block quote (after any spaces or tabs: `>`, `-`/`+`/`*` then a space, a tab or the line end,
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

/** A list item the scan models: at column zero, its content a paragraph, headings and fences. */
interface ListItem {
  /** The content column: marker width plus the one to four spaces after it. */
  readonly contentIndent: number;
  /** The marker's kind: the bullet character, or the ordered list's delimiter (`.` or `)`). */
  readonly kind: number;
  /** The item's last block is a paragraph (a lazy line may continue it). */
  paragraphOpen: boolean;
  /** A fence open inside the item. */
  fence: OpenFence | undefined;
}

/** Where a scan stands after the lines it has read. */
export interface FenceScanState {
  /** Offset of the first line not yet read. */
  position: number;
  /** The fences closed so far. */
  readonly blocks: FenceBlock[];
  /** The fence open at `position`, if any. */
  open: OpenFence | undefined;
  /** The list item open at `position`, when the scan models it. */
  item: ListItem | undefined;
  /** A list item or quote the scan does not model may still be open (see the module comment). */
  containerContext: boolean;
  /** The last line read was blank (spaces and tabs only). */
  previousBlank: boolean;
  /**
   * The last non-blank line was indented four columns or more: an indented code block may go
   * on past blank lines, and micromark then reads a list item start as interrupting it.
   */
  lastLineDeep: boolean;
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
const hash = 35;
const equals = 61;
const underscore = 95;
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
    item: undefined,
    containerContext: false,
    previousBlank: true,
    lastLineDeep: false,
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
  const last: FenceScanState = {
    ...state,
    blocks: state.blocks.slice(),
    item: state.item === undefined ? undefined : { ...state.item },
  };
  const lastLineStart = text.lastIndexOf('\n') + 1;
  if (lastLineStart > last.position) scanCompleteLines(text, last, lastLineStart);
  if (last.unsupported) return undefined;
  if (last.position < text.length) {
    if (!supportedCharacters(text, last.position, text.length)) return undefined;
    scanLine(text, last.position, text.length, last, createRunFinder(text));
    if (last.unsupported) return undefined;
  }
  const open = last.open ?? last.item?.fence;
  if (open !== undefined) last.blocks.push({ markerStart: open.markerStart, end: text.length });
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
        state.lastLineDeep = false;
      }
    }
    return;
  }

  if (state.item !== undefined && scanItemLine(text, start, end, index, state, state.item)) return;

  if (onlySpacesOrTabs(text, index, end)) {
    state.previousBlank = true;
    return;
  }
  const previousBlank = state.previousBlank;
  const lastLineDeep = state.lastLineDeep;
  state.previousBlank = false;
  state.lastLineDeep = indent >= 4 || first === tab;

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
  if (indent === 0 && previousBlank && !lastLineDeep && !state.containerContext) {
    const item = listItemStart(text, start, end);
    if (item !== undefined) {
      state.item = item;
      return;
    }
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

/**
 * Reads a line while a modelled list item is open. Returns true when the line belonged to the
 * item (or the scan gave up); false when the item ended before it, so the line is read at the
 * top level. What the item does not model makes the scan give up: tabs in the indentation,
 * nested lists and quotes, HTML, lines that could be rules or setext underlines, a list of
 * another kind, and an item that ends while a fence inside it is open (micromark's end offset
 * of such a fence depends on what ended the item).
 */
function scanItemLine(
  text: string,
  start: number,
  end: number,
  index: number,
  state: FenceScanState,
  item: ListItem,
): boolean {
  const indent = index - start;
  const first = index < end ? text.charCodeAt(index) : -1;
  if (onlySpacesOrTabs(text, index, end)) {
    state.previousBlank = true;
    item.paragraphOpen = false;
    return true;
  }
  const previousBlank = state.previousBlank;
  state.previousBlank = false;
  // A tab in the indentation: its width depends on the column, and inside an item a tab can
  // land within three columns of the content (a closing line), unlike at the top level.
  if (first === tab) return giveUp(state);
  const fence = item.fence;
  if (indent >= item.contentIndent) {
    const relative = indent - item.contentIndent;
    if (fence !== undefined) {
      if (relative <= 3 && first === fence.character) {
        const after = runEnd(text, index, end, first);
        if (after - index >= fence.length && onlySpacesOrTabs(text, after, end)) {
          state.blocks.push({ markerStart: fence.markerStart, end });
          item.fence = undefined;
        }
      }
      return true;
    }
    if (relative >= 4) return true; // indented code, or the paragraph's continuation
    const opening = fenceOpening(text, index, end, first);
    if (opening !== undefined) {
      item.fence = opening;
      item.paragraphOpen = false;
      return true;
    }
    return scanItemBlockStart(text, index, end, first, state, item);
  }
  if (fence !== undefined) return giveUp(state);
  if (indent <= 3 && fenceOpening(text, index, end, first) !== undefined) {
    // A fence is never a lazy line: it ends the item and opens at the top level.
    state.item = undefined;
    state.previousBlank = previousBlank;
    return false;
  }
  if (indent === 0) {
    const sibling = listItemStart(text, start, end);
    if (sibling !== undefined) {
      if (sibling.kind !== item.kind) return giveUp(state);
      state.item = sibling;
      return true;
    }
  }
  if (first === tab || isContainerLine(text, index, end) || isRuleLike(text, index, end))
    return giveUp(state);
  if (first === lessThan && mayStartHtmlBlock(text, index, end)) return giveUp(state);
  if (item.paragraphOpen && !isAtxHeading(text, index, end)) return true; // a lazy continuation line
  // Nothing continues the item: the line starts a block at the top level.
  state.item = undefined;
  state.previousBlank = previousBlank;
  return false;
}

/** A block starting on an item's content line (fences are handled by the caller). */
function scanItemBlockStart(
  text: string,
  index: number,
  end: number,
  first: number,
  state: FenceScanState,
  item: ListItem,
): boolean {
  if (isContainerLine(text, index, end) || isRuleLike(text, index, end)) return giveUp(state);
  if (first === lessThan && mayStartHtmlBlock(text, index, end)) return giveUp(state);
  item.paragraphOpen = !isAtxHeading(text, index, end);
  return true;
}

function giveUp(state: FenceScanState): true {
  state.unsupported = true;
  return true;
}

/** The fence a line opens at `index` (its first non-space character), if it is an opening line. */
function fenceOpening(text: string, index: number, end: number, first: number): OpenFence | undefined {
  if (first !== backtick && first !== tilde) return undefined;
  const after = runEnd(text, index, end, first);
  if (after - index < 3 || (first === backtick && hasBacktick(text, after, end))) return undefined;
  return { markerStart: index, character: first, length: after - index };
}

/**
 * The list item a line at column zero starts, when the scan can model it: a bullet (`-`, `+`,
 * `*`) or one to nine digits and `.` or `)`, then one to four spaces and content that is not
 * a fence, a nested list or quote, HTML, or a rule. Anything else is left to the generous
 * container context (or to the parse).
 */
function listItemStart(text: string, start: number, end: number): ListItem | undefined {
  const first = text.charCodeAt(start);
  let markerEnd = start;
  if (first === minus || first === plus || first === asterisk) markerEnd = start + 1;
  else {
    while (markerEnd < end && markerEnd - start < 10 && isDigit(text.charCodeAt(markerEnd))) markerEnd++;
    const digits = markerEnd - start;
    const delimiter = text.charCodeAt(markerEnd);
    if (digits === 0 || digits > 9 || (delimiter !== period && delimiter !== rightParenthesis))
      return undefined;
    markerEnd++;
  }
  let content = markerEnd;
  while (content < end && text.charCodeAt(content) === space) content++;
  const spaces = content - markerEnd;
  if (spaces < 1 || spaces > 4 || content >= end) return undefined;
  const character = text.charCodeAt(content);
  if (character === tab || isRuleLike(text, start, end) || isContainerLine(text, content, end))
    return undefined;
  if (fenceOpening(text, content, end, character) !== undefined) return undefined;
  if (character === backtick || character === tilde) return undefined;
  if (character === lessThan) return undefined;
  return {
    contentIndent: content - start,
    kind: first === minus || first === plus || first === asterisk ? first : text.charCodeAt(markerEnd - 1),
    paragraphOpen: !isAtxHeading(text, content, end),
    fence: undefined,
  };
}

function isDigit(character: number): boolean {
  return character >= zero && character <= nine;
}

/**
 * True for a line that could be a thematic break or a setext underline: only `-`, `*`, `_`,
 * `=`, spaces and tabs after the indent. Generous: such lines make the item scan give up.
 */
function isRuleLike(text: string, from: number, end: number): boolean {
  let marks = 0;
  for (let index = from; index < end; index++) {
    const character = text.charCodeAt(index);
    if (character === minus || character === asterisk || character === underscore || character === equals)
      marks++;
    else if (character !== space && character !== tab) return false;
  }
  return marks > 0;
}

/** An ATX heading: one to six `#`, then a space, a tab or the line end. */
function isAtxHeading(text: string, from: number, end: number): boolean {
  let index = from;
  while (index < end && index - from < 7 && text.charCodeAt(index) === hash) index++;
  const hashes = index - from;
  return hashes >= 1 && hashes <= 6 && followedBySpace(text, index, end);
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
