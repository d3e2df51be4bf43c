// What a channel reports about a message it chose not to pass on (its own admission rules):
// a not-answered entry and a log line, so the operator sees why it was not answered.
import type { IgnoredMessageReport, Logger } from '@switchboard/hooks';
import { type NotAnsweredLog, recordNotAnswered } from './not-answered.ts';

/** A channel's reason must be a short kebab-case word: it becomes a count key in `status`. */
const reportedReason = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** A reported id or note, bounded (the report comes from plugin code). */
function reportedText(value: unknown, limit: number): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  return value.length > limit ? `${value.slice(0, limit - 1)}…` : value;
}

/**
 * Turns a channel's `reportIgnored` into a not-answered entry (reason `admission`, the
 * channel's reason as the detail) and its log line. Contract: never throws, whatever the
 * channel passes; a reason that is not a short kebab-case word is recorded as `unknown`.
 */
export function reportIgnoredMessage(
  notAnswered: NotAnsweredLog,
  logger: Logger,
  account: { readonly channel: string; readonly accountId: string },
  report: IgnoredMessageReport,
): void {
  try {
    const reason: unknown = report?.reason;
    const valid = typeof reason === 'string' && reportedReason.test(reason);
    if (!valid)
      logger.debug('a channel reported an ignored message without a valid reason; recorded as unknown', {
        channel: account.channel,
        reason: reportedText(reason, 64) ?? String(reason),
      });
    const chatId = reportedText(report?.chatId, 200);
    const senderId = reportedText(report?.senderId, 200);
    const messageId = reportedText(report?.messageId, 200);
    const note = reportedText(report?.note, 300);
    recordNotAnswered(notAnswered, logger, {
      reason: 'admission',
      detail: valid ? reason : 'unknown',
      channel: account.channel,
      accountId: account.accountId,
      chatId,
      senderId,
      messageId,
      note,
    });
  } catch {
    // A report is diagnostics: it never breaks the channel's message path.
  }
}
