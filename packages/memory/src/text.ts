// Text measures shared by the chunker, the keyword index and the re-ranker: a token estimate
// that counts CJK characters as tokens, and word segmentation (ICU, through Intl.Segmenter)
// so that Chinese and Japanese text, written without spaces, splits into words that FTS5's
// unicode61 tokenizer can index and BM25 can weigh.

const cjkPattern = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/u;
const cjkGlobalPattern = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/gu;

/** True when the text holds Chinese, Japanese or Korean characters. */
function hasCjk(text: string): boolean {
  return cjkPattern.test(text);
}

/**
 * A rough token count: one token per CJK character, one per four other characters
 * (the usual estimate for English-like text). Used to size chunks, not to bill.
 */
export function estimateTokens(text: string): number {
  const cjk = text.match(cjkGlobalPattern)?.length ?? 0;
  return cjk + Math.ceil((text.length - cjk) / 4);
}

let segmenter: Intl.Segmenter | undefined;
const latinWordPattern = /[\p{L}\p{N}_]+(?:['’][\p{L}\p{N}_]+)*/gu;

/**
 * The words of a text, lower-cased. Text with CJK characters goes through ICU word
 * boundaries (Intl.Segmenter), which split Chinese and Japanese into words; other text is
 * split on non-word characters, which gives the same words much faster.
 */
export function words(text: string): string[] {
  if (!hasCjk(text)) return (text.toLowerCase().match(latinWordPattern) ?? []) as string[];
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'word' });
  const found: string[] = [];
  for (const segment of segmenter.segment(text)) {
    if (segment.isWordLike === true) found.push(segment.segment.toLowerCase());
  }
  return found;
}

/**
 * Words too common to help a keyword search (English function words). Dropped from queries
 * only, never from the index, and only when the query has other words: matching them would
 * make FTS5 rank nearly every chunk.
 */
const stopWords = new Set(
  (
    'a an and are as at be but by can could did do does for from had has have how i if in into is it its ' +
    'me my no not of on or our she he so that the their them then there these they this to was we were ' +
    'what when where which who whom why will with would you your about after before'
  ).split(' '),
);

/**
 * The text as the keyword index stores it. Text without CJK characters is kept as it is
 * (unicode61 splits it on its own); text with CJK characters is rewritten as its words
 * joined by spaces, so a two-character word such as 记忆 is a token of its own.
 */
export function keywordText(text: string): string {
  return hasCjk(text) ? words(text).join(' ') : text;
}

/**
 * The FTS5 query for a search: the query's distinct words but stop words, each quoted (so FTS5 syntax in
 * the query is inert), joined with OR and ranked by BM25, which weighs rare words up. An
 * AND of every word would return nothing for most natural-language questions. Returns
 * undefined when the query has no word at all.
 */
export function keywordQuery(query: string, maxWords = 32): string | undefined {
  const all = [...new Set(words(query))];
  const meaningful = all.filter((word) => !stopWords.has(word));
  const distinct = (meaningful.length > 0 ? meaningful : all).slice(0, maxWords);
  if (distinct.length === 0) return undefined;
  return distinct.map((word) => `"${word.replaceAll('"', '""')}"`).join(' OR ');
}
