/**
 * The Markdown code-fence model shared by the block chunker and the outbound chunker.
 *
 * The fences come from @switchboard/markdown's parse (mdast, CommonMark + GFM), the same
 * tree the channel renderers read, so the chunker and the renderers agree on where a code
 * block starts and ends: an info string with a backtick does not open a fence, a fence in a
 * list item ends with its item, a fence that is never closed runs to the end of the text.
 */
import type { CodeFence, CodeFenceTracker } from '@switchboard/markdown';

/** One fenced code block inside a text, in character offsets of that text. */
export type FenceSpan = CodeFence;

let findCodeFences: ((text: string) => CodeFence[]) | undefined;
let createCodeFenceTracker: (() => CodeFenceTracker) | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads the Markdown parser behind the fence finder (@switchboard/markdown and the mdast
 * libraries: about 10 MB resident) when the first reply needs it, not at start. Contract:
 * every path that chunks text awaits this before it chunks (the run before it creates its
 * reply stream, a redelivery, a cron delivery); afterwards it resolves at once.
 */
export function loadFenceParser(): Promise<void> {
  loading ??= import('@switchboard/markdown').then((markdown) => {
    findCodeFences = markdown.findCodeFences;
    createCodeFenceTracker = markdown.createCodeFenceTracker;
  });
  return loading;
}

const space = 32;

/** Finds every fenced code block of `text`, in order. */
export function parseFenceSpans(text: string): FenceSpan[] {
  // A fence needs three backticks or tildes in a row: most chat text has none, and needs no parse.
  if (!text.includes('```') && !text.includes('~~~')) return [];
  if (findCodeFences === undefined) {
    throw new Error('the Markdown fence parser is not loaded: await loadFenceParser() before chunking text');
  }
  return findCodeFences(text);
}

/**
 * The fences of a buffer that grows at its end between cuts (the block chunker's): each call
 * returns `parseFenceSpans(text)`, reading only the lines added since the last call when `text`
 * extends the text of that call (see @switchboard/markdown's `createCodeFenceTracker`).
 */
export function createFenceSpanTracker(): (text: string) => readonly FenceSpan[] {
  let tracker: CodeFenceTracker | undefined;
  return (text) => {
    if (tracker === undefined) {
      if (createCodeFenceTracker === undefined) {
        throw new Error(
          'the Markdown fence parser is not loaded: await loadFenceParser() before chunking text',
        );
      }
      tracker = createCodeFenceTracker();
    }
    return tracker.fences(text);
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
