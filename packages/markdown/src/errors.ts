import { type ErrorCodeTable, SwitchboardError, type SwitchboardErrorOptions } from '@switchboard/hooks';

/** Codes of the errors this package throws. */
export type MarkdownErrorCode = 'MARKDOWN_INVALID_LIMIT';

/** Every `MarkdownError` code with the sentence that documents it. */
export const markdownErrorCodes: ErrorCodeTable & Readonly<Record<MarkdownErrorCode, string>> = {
  MARKDOWN_INVALID_LIMIT:
    'A split or truncation was asked for with a character limit that is not an integer, or too small to hold a piece (the message names the function and the limit).',
};

/** An error of `@switchboard/markdown`. */
export class MarkdownError extends SwitchboardError<MarkdownErrorCode> {
  constructor(code: MarkdownErrorCode, message: string, options: SwitchboardErrorOptions = {}) {
    super(code, message, options);
  }
}
