// Markdown (as models write it) to Telegram HTML (`parse_mode: 'HTML'`). The parse and the
// renderer are @switchboard/markdown's (one mdast tree for every platform); this module names
// what the channel uses: spans (styled runs of text) for edits and captions, chunks of HTML
// plus the plain text each chunk shows (sent instead when Telegram rejects the HTML).
export {
  escapeHtml,
  renderTelegramHtml as renderSpans,
  renderTelegramHtmlChunks as markdownToTelegramHtml,
  spansText,
  type TelegramHtmlChunk,
  telegramCaptionLimit,
  telegramSpans as parseMarkdown,
  telegramTextLimit,
  truncateTelegramSpans as truncateSpans,
} from '@switchboard/markdown';
