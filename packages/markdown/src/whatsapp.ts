// WhatsApp renders `*bold*`, `_italic_`, `~strike~`, `` `inline code` ``, ``` ```monospace``` ```,
// `> quotes` and `- lists`. It has no labelled links, no headings and no escapes: links
// become `label (url)`, headings bold lines, and literal `*`/`~` pairs get look-alikes.
import { neutralisePairs } from './lookalikes.ts';
import { type MarkupDialect, renderMarkup } from './markup.ts';
import { type MarkdownDocument, parseMarkdown } from './parse.ts';

/** WhatsApp's inline code: backticks around the value, more of them when it holds one. */
function inlineCode(value: string): string {
  if (value === '') return '';
  const longest = Math.max(0, ...[...value.matchAll(/`+/g)].map((match) => match[0].length));
  const marker = '`'.repeat(longest === 0 ? 1 : longest + 1);
  const padding = value.startsWith('`') || value.endsWith('`') ? ' ' : '';
  return `${marker}${padding}${value}${padding}${marker}`;
}

function codeBlock(value: string): string {
  return `\`\`\`\n${value}\n\`\`\``;
}

const whatsappDialect: MarkupDialect = {
  text: neutralisePairs,
  strong: (inner) => `*${inner}*`,
  emphasis: (inner) => `_${inner}_`,
  strikethrough: (inner) => `~${inner}~`,
  inlineCode,
  link(url, label, plainLabel, kind) {
    if (kind !== 'link') return plainLabel;
    if (plainLabel.trim() === '') return url;
    return plainLabel === url || `mailto:${plainLabel}` === url ? url : `${label} (${url})`;
  },
  heading: (inner) => (inner.trim() === '' ? '' : `*${inner}*`),
  codeBlock: (value) => codeBlock(value),
  table: (lines) => codeBlock(lines.join('\n')),
  quote: (inner) =>
    inner
      .split('\n')
      .map((line) => (line === '' ? '>' : `> ${line}`))
      .join('\n'),
  rule: '───',
  bullet: '- ',
};

/** Renders Markdown (a text or an already parsed document) in WhatsApp's markup. */
export function renderWhatsApp(markdown: string | MarkdownDocument): string {
  return renderMarkup(typeof markdown === 'string' ? parseMarkdown(markdown) : markdown, whatsappDialect);
}
