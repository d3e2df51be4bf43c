// What the requester's agent reads when a child ends: an internal message, marked as not
// from the user, with the runtime's status and a stats line.
import type { SubagentRunRecord } from './run-record.ts';

/** A child that answers exactly this has nothing to report; nothing is announced. */
export const announceSkipToken = 'ANNOUNCE_SKIP';

function statsLine(record: SubagentRunRecord): string | undefined {
  const stats = record.stats;
  if (stats === undefined) return undefined;
  const seconds = (stats.durationMs / 1000).toFixed(1);
  const cost = stats.cost > 0 ? `, $${stats.cost.toFixed(4)}` : '';
  return `Stats: ${seconds} s, ${stats.inputTokens} tokens in, ${stats.outputTokens} out${cost}.`;
}

export function announcementText(record: SubagentRunRecord): string {
  const task = record.label ?? (record.task.length > 200 ? `${record.task.slice(0, 200)}…` : record.task);
  const status =
    record.outcome === 'ok'
      ? 'finished'
      : record.outcome === 'timeout'
        ? 'timed out before finishing'
        : `failed: ${record.errorText ?? 'unknown error'}`;
  const lines = [
    `[Subagent result: internal, not from the user. Run ${record.runId}.]`,
    `Task: ${task}`,
    `Status: ${status}`,
  ];
  if (record.resultText !== undefined && record.resultText.trim() !== '')
    lines.push('Result:', record.resultText.trim());
  const stats = statsLine(record);
  if (stats !== undefined) lines.push(stats);
  lines.push(
    'Tell the user what this means for them, in your own words. If nothing is worth saying, reply with exactly NO_REPLY.',
  );
  return lines.join('\n');
}
