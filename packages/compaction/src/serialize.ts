import type { Message, ToolResultMessage } from '@switchboard/hooks';
import { isFailedAssistant } from './estimate.ts';

/**
 * Turning history into the plain text a summariser reads. The conversation is serialised
 * (`[User]: …`, `[Assistant]: …`, `[Assistant tool call] name: {…}`, `[Tool result] name: …`)
 * so the summary model cannot mistake it for a live chat. Tool result `details` (structured,
 * possibly untrusted payloads) are never included, and tool result text is cut to a few
 * thousand characters: the summary needs what a tool said, not its whole output.
 */

/** Characters of a tool result's text kept for the summariser. */
const toolResultSummaryCharacters = 1500;
/** Characters of a tool call's JSON arguments kept for the summariser. */
const toolArgumentsSummaryCharacters = 500;
/** Characters of an assistant's thinking kept for the summariser. */
const thinkingSummaryCharacters = 800;

/**
 * Cuts `text` to at most about `maxCharacters`, keeping its head and tail and saying how
 * much was removed in between. Returns the text unchanged when it fits.
 */
export function truncateMiddle(text: string, maxCharacters: number): string {
  if (text.length <= maxCharacters) return text;
  const removed = text.length - maxCharacters;
  const marker = `\n[… ${removed} characters truncated …]\n`;
  const room = Math.max(0, maxCharacters - marker.length);
  const head = Math.ceil(room * 0.7);
  const tail = room - head;
  return `${text.slice(0, head)}${marker}${tail > 0 ? text.slice(text.length - tail) : ''}`;
}

function toolResultText(message: ToolResultMessage): string {
  let text = '';
  for (const block of message.content) {
    if (block.type === 'text') text += text === '' ? block.text : `\n${block.text}`;
    else text += `${text === '' ? '' : '\n'}[image: ${block.mediaType}]`;
  }
  return text;
}

/** Limits of one message's serialisation. */
export interface SerializeLimits {
  /** The whole message's text is cut to this (head and tail kept). */
  readonly maxCharacters: number;
  /** A tool result's text is cut to this. */
  readonly toolResultCharacters?: number;
}

/**
 * Serialises one message for the summariser; an empty string for messages that carry
 * nothing to summarise (failed assistant turns, empty content).
 */
export function serializeMessage(message: Message, limits: SerializeLimits): string {
  const lines: string[] = [];
  switch (message.role) {
    case 'user': {
      if (typeof message.content === 'string') lines.push(`[User]: ${message.content}`);
      else {
        const parts = message.content.map((block) =>
          block.type === 'text' ? block.text : `[image: ${block.mediaType}]`,
        );
        lines.push(`[User]: ${parts.join('\n')}`);
      }
      break;
    }
    case 'assistant': {
      if (isFailedAssistant(message)) return '';
      for (const block of message.content) {
        if (block.type === 'text') {
          if (block.text.trim() !== '') lines.push(`[Assistant]: ${block.text}`);
        } else if (block.type === 'thinking') {
          if (block.redacted !== true && block.thinking.trim() !== '') {
            lines.push(`[Assistant thinking]: ${truncateMiddle(block.thinking, thinkingSummaryCharacters)}`);
          }
        } else {
          let json: string;
          try {
            json = JSON.stringify(block.arguments) ?? '{}';
          } catch {
            json = '{}';
          }
          lines.push(
            `[Assistant tool call] ${block.name}: ${truncateMiddle(json, toolArgumentsSummaryCharacters)}`,
          );
        }
      }
      break;
    }
    case 'toolResult': {
      const label = message.isError ? '[Tool error]' : '[Tool result]';
      const text = truncateMiddle(
        toolResultText(message),
        limits.toolResultCharacters ?? toolResultSummaryCharacters,
      );
      lines.push(`${label} ${message.toolName}: ${text}`);
      break;
    }
  }
  if (lines.length === 0) return '';
  return truncateMiddle(lines.join('\n'), limits.maxCharacters);
}
