// Types of markdown.js (plain JavaScript served to the browser as is), for the tests.
export interface MarkdownElement {
  readonly tag: string;
  readonly attrs?: Readonly<Record<string, string>>;
  readonly children: MarkdownNode[];
}
export type MarkdownNode = MarkdownElement | string;

export declare function parseMarkdown(source: string): MarkdownNode[];
export declare function parseInline(text: string, depth?: number): MarkdownNode[];
export declare function safeUrl(target: string): string | undefined;
export declare function textOf(nodes: readonly MarkdownNode[]): string;
