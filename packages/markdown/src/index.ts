// @switchboard/markdown: Markdown is parsed once (mdast, CommonMark + GFM) and rendered per
// chat platform from that tree. Channel packages import their renderer; the gateway's
// chunker imports the code-fence finder.

// Chunkers: where the fenced code blocks are.
export {
  type CodeFence,
  type CodeFenceTracker,
  createCodeFenceTracker,
  findCodeFences,
} from './code-fences.ts';
export { renderDiscordMarkdown } from './discord.ts';
// Errors.
export { MarkdownError, type MarkdownErrorCode, markdownErrorCodes } from './errors.ts';
// The parse.
export { type MarkdownDocument, parseMarkdown } from './parse.ts';
// Slack, WhatsApp and Discord markup.
export { escapeMrkdwn, renderSlackMrkdwn } from './slack-mrkdwn.ts';
export {
  escapeHtml,
  renderTelegramHtml,
  renderTelegramHtmlChunks,
  type TelegramHtmlChunk,
  telegramCaptionLimit,
  telegramTextLimit,
  truncateTelegramSpans,
} from './telegram-html.ts';
// Telegram: styled spans, HTML of only the tags the Bot API accepts, splitting by visible length.
export { type StyledSpan, spansText, type TelegramStyle, telegramSpans } from './telegram-spans.ts';
export { renderWhatsApp } from './whatsapp.ts';
