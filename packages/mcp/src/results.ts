// An MCP tool result as a core-loop tool result: text, images, structured content, isError,
// within the server's output caps.
import type { ImageContent, TextContent, ToolResult } from '@switchboard/hooks';

/** The content blocks of an MCP `CallToolResult` this mapping reads (MCP 2025-06-18). */
type McpContentBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly data: string; readonly mimeType: string }
  | { readonly type: 'audio'; readonly data: string; readonly mimeType: string }
  | {
      readonly type: 'resource_link';
      readonly uri: string;
      readonly name: string;
      readonly description?: string;
      readonly mimeType?: string;
    }
  | {
      readonly type: 'resource';
      readonly resource: {
        readonly uri: string;
        readonly mimeType?: string;
        readonly text?: string;
        readonly blob?: string;
      };
    };

/** The part of an MCP `CallToolResult` this mapping reads. */
export interface McpCallResult {
  readonly content?: readonly unknown[];
  readonly structuredContent?: Readonly<Record<string, unknown>>;
  readonly isError?: boolean;
}

/** What a mapped result keeps for programs (the transcript), not sent to the model. */
export interface McpToolResultDetails {
  readonly server: string;
  /** The tool's name on its server. */
  readonly tool: string;
  readonly structuredContent?: Readonly<Record<string, unknown>>;
  /** Set when text was cut or blocks were replaced by notes to respect the caps. */
  readonly truncated?: {
    readonly originalChars: number;
    readonly keptChars: number;
    readonly droppedBlocks: number;
  };
}

/** The caps a result is held to. */
export interface ResultLimits {
  readonly maxOutputChars: number;
  readonly maxImageBytes: number;
}

/** Image types every model provider accepts. */
const supportedImageTypes = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

function decodedBytes(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

/** A block as model content: text, an image, or a text note saying what it was. */
function blockContent(block: McpContentBlock, limits: ResultLimits): TextContent | ImageContent {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image': {
      const bytes = decodedBytes(block.data);
      if (!supportedImageTypes.has(block.mimeType)) {
        return {
          type: 'text',
          text: `[image omitted: type ${block.mimeType} is not supported by the model]`,
        };
      }
      if (bytes > limits.maxImageBytes) {
        return {
          type: 'text',
          text: `[image omitted: ${bytes} bytes is over the ${limits.maxImageBytes}-byte limit (maxImageBytes)]`,
        };
      }
      return { type: 'image', mediaType: block.mimeType, data: block.data };
    }
    case 'audio':
      return { type: 'text', text: `[audio omitted: ${block.mimeType}, ${decodedBytes(block.data)} bytes]` };
    case 'resource_link':
      return {
        type: 'text',
        text: `[resource link] ${block.name}: ${block.uri}${block.mimeType === undefined ? '' : ` (${block.mimeType})`}${block.description === undefined ? '' : ` — ${block.description}`}`,
      };
    case 'resource': {
      const resource = block.resource;
      if (typeof resource.text === 'string')
        return { type: 'text', text: `[resource ${resource.uri}]\n${resource.text}` };
      const size = typeof resource.blob === 'string' ? `, ${decodedBytes(resource.blob)} bytes` : '';
      return {
        type: 'text',
        text: `[binary resource omitted: ${resource.uri} (${resource.mimeType ?? 'unknown type'}${size})]`,
      };
    }
  }
}

function isBlock(value: unknown): value is McpContentBlock {
  if (typeof value !== 'object' || value === null) return false;
  const block = value as Record<string, unknown>;
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string';
    case 'image':
    case 'audio':
      return typeof block.data === 'string' && typeof block.mimeType === 'string';
    case 'resource_link':
      return typeof block.uri === 'string' && typeof block.name === 'string';
    case 'resource':
      return typeof block.resource === 'object' && block.resource !== null;
    default:
      return false;
  }
}

/**
 * Maps an MCP tool result onto a tool result. Text, images (supported types within
 * `maxImageBytes`) and notes for everything else, in order; `structuredContent` as JSON text
 * when the server sent no text (servers should send both), and in `details` always;
 * `isError` kept, so the model sees the failure as an error result. The total text is cut at
 * `maxOutputChars` with a note saying how much was dropped.
 */
export function mapCallResult(
  result: McpCallResult,
  identity: { readonly server: string; readonly tool: string },
  limits: ResultLimits,
): ToolResult<McpToolResultDetails> {
  const blocks: Array<TextContent | ImageContent> = [];
  for (const raw of result.content ?? []) {
    blocks.push(
      isBlock(raw)
        ? blockContent(raw, limits)
        : {
            type: 'text',
            text: `[unknown content block omitted: ${JSON.stringify((raw as { type?: unknown })?.type)}]`,
          },
    );
  }
  if (result.structuredContent !== undefined && !blocks.some((block) => block.type === 'text')) {
    blocks.push({ type: 'text', text: JSON.stringify(result.structuredContent, null, 2) });
  }
  if (blocks.length === 0)
    blocks.push({ type: 'text', text: result.isError === true ? '(error, no message)' : '(no output)' });

  const originalChars = blocks.reduce(
    (sum, block) => sum + (block.type === 'text' ? block.text.length : 0),
    0,
  );
  let remaining = limits.maxOutputChars;
  let droppedBlocks = 0;
  const content: Array<TextContent | ImageContent> = [];
  for (const block of blocks) {
    if (block.type !== 'text') {
      content.push(block);
      continue;
    }
    if (remaining <= 0) {
      droppedBlocks += 1;
      continue;
    }
    if (block.text.length <= remaining) {
      content.push(block);
      remaining -= block.text.length;
      continue;
    }
    content.push({ type: 'text', text: block.text.slice(0, remaining) });
    remaining = 0;
  }
  const keptChars = limits.maxOutputChars - remaining;
  const truncated = keptChars < originalChars;
  if (truncated) {
    content.push({
      type: 'text',
      text: `\n[output truncated: ${keptChars} of ${originalChars} characters shown (maxOutputChars ${limits.maxOutputChars})]`,
    });
  }
  const details: McpToolResultDetails = {
    server: identity.server,
    tool: identity.tool,
    structuredContent: result.structuredContent,
    ...(truncated ? { truncated: { originalChars, keptChars, droppedBlocks } } : {}),
  };
  return { content, details, ...(result.isError === true ? { isError: true } : {}) };
}
