// Test-only internals of @switchboard/markdown, for the tests of other packages: not part of
// the public surface (`.`), may change without a changeset.

/** The span splitter under `renderTelegramHtmlChunks` (the Telegram channel's tests check it directly). */
export { splitTelegramSpans } from './telegram-html.ts';
