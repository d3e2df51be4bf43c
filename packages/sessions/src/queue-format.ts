/** Text shapes the queue produces for the model: overflow summaries and collected turns. */

/** Messages dropped by the `summarize` policy, carried into the next turn. */
export interface OverflowSummary {
  /** How many messages were dropped in total. */
  readonly dropped: number;
  /** One line per dropped message, the newest `cap` kept. */
  readonly lines: readonly string[];
  /** The ids of every dropped message (so the gateway can settle their journal records). */
  readonly messageIds: readonly string[];
}

const summaryLineLimit = 160;

/** One dropped message as a single line: whitespace collapsed, at most 160 characters. */
export function summarizeLine(text: string): string {
  const collapsed = text.replace(/\s+/g, ' ').trim();
  if (collapsed.length <= summaryLineLimit) return collapsed;
  return `${collapsed.slice(0, summaryLineLimit - 1).trimEnd()}…`;
}

/** The overflow block: a title with the dropped count, then a `Summary:` bullet list. */
export function formatOverflowSummary(summary: OverflowSummary): string {
  const lines = [`[Queue overflow] Dropped ${summary.dropped} message(s) due to cap.`];
  if (summary.lines.length > 0) {
    lines.push('Summary:');
    for (const line of summary.lines) lines.push(`- ${line}`);
  }
  return lines.join('\n');
}

/**
 * One turn made of several queued messages: a title, the overflow block if any, then each
 * message under `---` and `Queued #i`.
 */
export function formatCollectPrompt(texts: readonly string[], overflow: OverflowSummary | undefined): string {
  const parts = ['[Queued messages while agent was busy]'];
  if (overflow !== undefined) parts.push(formatOverflowSummary(overflow));
  for (const [index, text] of texts.entries()) parts.push(`---\nQueued #${index + 1}\n${text}`);
  return parts.join('\n\n');
}
