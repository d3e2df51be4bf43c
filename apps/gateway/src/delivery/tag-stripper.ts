/**
 * Strips reasoning tags from streamed assistant text, statefully across chunk boundaries.
 *
 * - `<think>`, `<thinking>`, `<thought>`, `<antthinking>` (any case, spaces inside the
 *   brackets, attributes allowed): the tags and everything between an opening and a closing
 *   tag are removed. An unclosed opening tag hides everything after it, in later chunks too.
 * - `<final>`: by default only the tags are removed and their content is kept. In enforced
 *   mode only text inside `<final>…</final>` is delivered; before the first `<final>` nothing is.
 * - Tags inside inline code spans or fenced code blocks are text, not tags. The code-span
 *   tracker carries its state across chunks, so a fence opened in one delta still protects
 *   a `<think>` written three deltas later.
 * - A partial tag at the end of a chunk (`<thi`) is held back until the next chunk decides it.
 */

export interface TagStripperOptions {
  /** Deliver only text inside `<final>…</final>` (providers that emit reasoning as tagged text). */
  readonly enforceFinal?: boolean;
}

export interface TagStripper {
  /** Feeds raw text; returns the visible text that can be released now. */
  push(text: string): string;
  /** Releases a held partial tag as plain text (end of a text block or message). Keeps all other state. */
  flush(): string;
  /** Forgets everything (start of a new assistant message). */
  reset(): void;
  /** True while inside an unclosed thinking tag. */
  readonly insideThinking: boolean;
  /** True once a `<final>` opening tag has been seen since the last reset. */
  readonly seenFinal: boolean;
}

const tagPattern = /<\s*(\/?)\s*(antthinking|thinking|thought|think|final)\b[^<>]*>/iy;
const closingThinkPattern = /<\s*\/\s*(?:antthinking|thinking|thought|think)\b[^<>]*>/iy;
const tagNames = ['antthinking', 'thinking', 'thought', 'think', 'final'] as const;
const partialNamePattern = /^<\s*\/?\s*([a-z]*)$/i;
const partialAttributesPattern = /^<\s*\/?\s*(?:antthinking|thinking|thought|think|final)\b[^<>]*$/i;
const longestPartialTag = 200;

const lessThan = 60;
const backtick = 96;
const tilde = 126;
const lineFeed = 10;
const space = 32;

// Line phases of the code-span tracker.
const indentPhase = 0;
const runPhase = 1;
const restPhase = 2;

/** True when `text` from `index` to its end could still become a recognised tag. */
function couldBecomeTag(text: string, index: number): boolean {
  if (text.length - index > longestPartialTag) return false;
  const tail = text.slice(index);
  const name = partialNamePattern.exec(tail);
  if (name !== null) {
    const letters = (name[1] ?? '').toLowerCase();
    return tagNames.some((tagName) => tagName.startsWith(letters));
  }
  return partialAttributesPattern.test(tail);
}

export function createTagStripper(options: TagStripperOptions = {}): TagStripper {
  const enforceFinal = options.enforceFinal === true;

  let held = '';
  let thinking = false;
  let insideFinal = false;
  let seenFinal = false;
  // Code-span tracker.
  let fenceChar = 0;
  let fenceLength = 0;
  let inlineLength = 0;
  let phase = indentPhase;
  let indent = 0;
  let runChar = 0;
  let runLength = 0;
  let runAtLineStart = false;
  let lineBlank = true;
  let closeCandidate = false;

  function resetCode(): void {
    fenceChar = 0;
    fenceLength = 0;
    inlineLength = 0;
    phase = indentPhase;
    indent = 0;
    runChar = 0;
    runLength = 0;
    runAtLineStart = false;
    lineBlank = true;
    closeCandidate = false;
  }

  function endRun(): void {
    phase = restPhase;
    if (fenceChar !== 0) {
      if (runAtLineStart && runChar === fenceChar && runLength >= fenceLength) closeCandidate = true;
    } else if (runAtLineStart && runLength >= 3 && inlineLength === 0) {
      fenceChar = runChar;
      fenceLength = runLength;
    } else if (runChar === backtick) {
      if (inlineLength === 0) inlineLength = runLength;
      else if (inlineLength === runLength) inlineLength = 0;
    }
  }

  /** Updates the line state for a chunk with no `<`, backtick or tilde while outside all code. */
  function trackPlain(text: string): void {
    const lastNewline = text.lastIndexOf('\n');
    let from = 0;
    if (lastNewline !== -1) {
      phase = indentPhase;
      indent = 0;
      from = lastNewline + 1;
    }
    let blank = lastNewline !== -1 || lineBlank;
    for (let index = from; index < text.length; index++) {
      const char = text.charCodeAt(index);
      if (phase === indentPhase) {
        if (char === space && indent < 3) indent++;
        else phase = restPhase;
      }
      if (char !== space && char !== 9 && char !== 13) {
        blank = false;
        if (phase !== indentPhase) break;
      }
    }
    lineBlank = blank;
  }

  function visible(): boolean {
    return !thinking && (!enforceFinal || insideFinal);
  }

  function process(input: string, atEnd: boolean): string {
    const text = held.length === 0 ? input : held + input;
    held = '';
    const length = text.length;
    if (length === 0) return '';

    // Fast path: plain prose outside code and tags.
    if (
      !thinking &&
      !enforceFinal &&
      fenceChar === 0 &&
      inlineLength === 0 &&
      phase !== runPhase &&
      text.indexOf('<') === -1 &&
      text.indexOf('`') === -1 &&
      text.indexOf('~') === -1
    ) {
      trackPlain(text);
      return text;
    }

    let out = '';
    let segmentStart = 0;
    let index = 0;
    while (index < length) {
      if (thinking) {
        const open = text.indexOf('<', index);
        if (open === -1) {
          index = length;
          segmentStart = length;
          break;
        }
        closingThinkPattern.lastIndex = open;
        const match = closingThinkPattern.exec(text);
        if (match !== null) {
          thinking = false;
          index = open + match[0].length;
          segmentStart = index;
          continue;
        }
        if (!atEnd && couldBecomeTag(text, open)) {
          held = text.slice(open);
          return out;
        }
        index = open + 1;
        segmentStart = index;
        continue;
      }

      const trackCode = !enforceFinal || insideFinal;
      if (!trackCode) {
        // Outside <final> in enforced mode: text is dropped; only tags matter.
        const open = text.indexOf('<', index);
        if (open === -1) {
          index = length;
          segmentStart = length;
          break;
        }
        index = open;
        segmentStart = open;
      }

      const char = text.charCodeAt(index);
      if (trackCode && phase === runPhase && char !== runChar) endRun();

      if (char === lessThan && (!trackCode || (fenceChar === 0 && inlineLength === 0))) {
        tagPattern.lastIndex = index;
        const match = tagPattern.exec(text);
        if (match !== null) {
          if (visible()) out += text.slice(segmentStart, index);
          const closing = match[1] === '/';
          const name = (match[2] ?? '').toLowerCase();
          if (name === 'final') {
            if (closing) {
              insideFinal = false;
            } else {
              if (enforceFinal && !insideFinal) resetCode();
              insideFinal = true;
              seenFinal = true;
            }
          } else if (!closing) {
            thinking = true;
          }
          index += match[0].length;
          segmentStart = index;
          continue;
        }
        if (!atEnd && couldBecomeTag(text, index)) {
          if (visible()) out += text.slice(segmentStart, index);
          held = text.slice(index);
          return out;
        }
        if (!trackCode) {
          index++;
          segmentStart = index;
          continue;
        }
      }

      if (!trackCode) {
        index++;
        continue;
      }
      if (phase === runPhase) {
        // char === runChar here: the run goes on.
        runLength++;
        index++;
        continue;
      }
      if (char === lineFeed) {
        if (fenceChar !== 0 && closeCandidate) {
          fenceChar = 0;
          fenceLength = 0;
        } else if (fenceChar === 0 && lineBlank) {
          inlineLength = 0; // a blank line ends the paragraph, and any unclosed code span with it
        }
        phase = indentPhase;
        indent = 0;
        lineBlank = true;
        closeCandidate = false;
        index++;
        continue;
      }
      if (char === backtick || char === tilde) {
        runAtLineStart = phase === indentPhase;
        runChar = char;
        runLength = 1;
        phase = runPhase;
        lineBlank = false;
        closeCandidate = false;
        index++;
        continue;
      }
      if (phase === indentPhase) {
        if (char === space && indent < 3) {
          indent++;
          index++;
          continue;
        }
        phase = restPhase;
      }
      if (char !== space && char !== 9 && char !== 13) {
        lineBlank = false;
        closeCandidate = false;
      }
      index++;
    }
    if (visible() && segmentStart < length) out += text.slice(segmentStart, length);
    return out;
  }

  return {
    push(text: string): string {
      return process(text, false);
    },
    flush(): string {
      if (held.length === 0) return '';
      return process('', true);
    },
    reset(): void {
      held = '';
      thinking = false;
      insideFinal = false;
      seenFinal = false;
      resetCode();
    },
    get insideThinking(): boolean {
      return thinking;
    },
    get seenFinal(): boolean {
      return seenFinal;
    },
  };
}

/** One-shot tag stripping of a whole text (see `createTagStripper`). */
export function stripReasoningTags(text: string, options: TagStripperOptions = {}): string {
  const stripper = createTagStripper(options);
  return stripper.push(text) + stripper.flush();
}

const downgradedToolCallPattern = /\[Tool Call: [^\]\n]*\](?:[ \t]*\n[ \t]*Arguments:[^\n]*)?/g;
const historicalContextPattern = /\[Historical context: [^\]\n]*\]/g;
const excessBlankLines = /\n{3,}/g;

/**
 * Removes downgraded tool-call artefacts of cross-provider replay ("[Tool Call: name (ID: …)]"
 * with its "Arguments: …" line, "[Historical context: …]") from a finished block.
 */
export function stripDowngradedToolCallText(text: string): string {
  if (text.indexOf('[Tool Call: ') === -1 && text.indexOf('[Historical context: ') === -1) return text;
  return text
    .replace(downgradedToolCallPattern, '')
    .replace(historicalContextPattern, '')
    .replace(excessBlankLines, '\n\n')
    .trim();
}
