// Slack mrkdwn: *bold* _italic_ ~strike~ `code` ```blocks``` >quotes <url|label>. Slack wants
// `&`, `<` and `>` escaped everywhere except in its own tokens (<@U…>, <#C…>, <!here>), which
// the model may write and which pass unchanged.
import { neutralisePairs } from './lookalikes.ts';
import { type MarkupDialect, renderMarkup } from './markup.ts';
import { type MarkdownDocument, parseMarkdown } from './parse.ts';

/** Escapes the three characters Slack reserves for its tokens. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const slackToken = /<[@#!][^<>\s]*>/g;

/** Escapes text, keeping Slack's own tokens (mentions, channels, `<!here>`) as written. */
function escapeKeepingTokens(text: string): string {
  let output = '';
  let last = 0;
  for (const match of text.matchAll(slackToken)) {
    output += escapeMrkdwn(neutralisePairs(text.slice(last, match.index)));
    output += match[0];
    last = match.index + match[0].length;
  }
  return output + escapeMrkdwn(neutralisePairs(text.slice(last)));
}

function codeBlock(lines: string): string {
  return `\`\`\`\n${escapeMrkdwn(lines)}\n\`\`\``;
}

const slackDialect: MarkupDialect = {
  text: escapeKeepingTokens,
  strong: (inner) => `*${inner}*`,
  emphasis: (inner) => `_${inner}_`,
  strikethrough: (inner) => `~${inner}~`,
  // Slack code spans cannot contain a backtick: a look-alike (ˋ) stands in.
  inlineCode: (value) => (value === '' ? '' : `\`${escapeMrkdwn(value.replace(/`/g, 'ˋ'))}\``),
  link(url, _label, plainLabel, kind) {
    if (kind === 'literal') return escapeMrkdwn(plainLabel);
    const safeUrl = url.replace(/\|/g, '%7C').replace(/>/g, '%3E').replace(/&/g, '&amp;');
    // A label is one line (a quote's prefix must not land inside the token) without a `|`.
    const safeLabel = escapeMrkdwn(plainLabel.replace(/\|/g, '/').replace(/\s+/g, ' ')).trim();
    return safeLabel === '' || safeLabel === safeUrl || plainLabel === url
      ? `<${safeUrl}>`
      : `<${safeUrl}|${safeLabel}>`;
  },
  heading: (inner) => (inner.trim() === '' ? '' : `*${inner}*`),
  codeBlock: (value) => codeBlock(value),
  table: (lines) => codeBlock(lines.join('\n')),
  quote: (inner) =>
    inner
      .split('\n')
      .map((line) => (line === '' ? '>' : `> ${line}`))
      .join('\n'),
  rule: '──────────',
  bullet: '• ',
};

/**
 * Renders Markdown (a text or an already parsed document) as Slack mrkdwn: `**b**` → `*b*`,
 * `*i*` → `_i_`, `~~s~~` → `~s~`, links and images → `<url|label>`, headings → bold lines,
 * bullets → `•`, task items → ☐/☑, fenced code → plain ``` blocks (Slack has no language
 * tags), tables → a code block of their lines.
 */
export function renderSlackMrkdwn(markdown: string | MarkdownDocument): string {
  return renderMarkup(typeof markdown === 'string' ? parseMarkdown(markdown) : markdown, slackDialect);
}
