// Platforms without escapes (Slack, WhatsApp) would read a literal `*a*` or `~a~` in text as
// bold or strikethrough. Where a pair would form, the characters are replaced by look-alikes
// (∗ U+2217, ∼ U+223C), which read the same and format nothing. A lone `*` (`2 * 3`) stays.

const lookalikes: Readonly<Record<string, string>> = { '*': '∗', '~': '∼' };

const pairs: readonly RegExp[] = [/\*(?=\S)([^*\n]*?\S)?\*/g, /~(?=\S)([^~\n]*?\S)?~/g];

/** Replaces `*` and `~` that would pair into markup with their look-alikes. */
export function neutralisePairs(text: string): string {
  let result = text;
  for (const pattern of pairs) {
    result = result.replace(pattern, (pair) => {
      const replacement = lookalikes[pair[0]!]!;
      return `${replacement}${pair.slice(1, -1)}${replacement}`;
    });
  }
  return result;
}

/** Maps look-alikes back to the characters they stand for (for comparing visible text). */
export function restoreLookalikes(text: string): string {
  return text.replace(/∗/g, '*').replace(/∼/g, '~');
}
