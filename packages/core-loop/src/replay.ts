import type { Message, ToolResultMessage } from '@switchboard/hooks';
import type { AgentMessage } from './types.ts';

/** Text of the synthetic result given to a tool call that has none. */
export const missingToolResultText = 'No result provided';

/**
 * The default `convertToLlm`: keeps user, assistant and tool-result messages, drops every
 * custom kind. Apps that add kinds (compaction summaries, notifications) pass their own
 * converter, usually wrapping this one.
 */
export function defaultConvertToLlm(messages: readonly AgentMessage[]): Message[] {
  const result: Message[] = [];
  for (const message of messages) {
    const role = (message as { role?: unknown }).role;
    if (role === 'user' || role === 'assistant' || role === 'toolResult') result.push(message as Message);
  }
  return result;
}

/**
 * Makes a history safe to send again (replay hygiene), for every provider:
 * - assistant messages that ended in `error` or `aborted` are dropped (they stay in the
 *   history for display; the model never sees them);
 * - a tool call left without a result before the next user or assistant message (or at the
 *   end) gets a synthetic error result "No result provided";
 * - a tool result whose call is not in the preceding assistant message is dropped.
 * The input is not changed; the result shares the unchanged messages.
 */
export function prepareReplay(messages: readonly Message[], now: () => number = Date.now): Message[] {
  const result: Message[] = [];
  let pending = new Map<string, string>();
  const flush = (): void => {
    if (pending.size === 0) return;
    const timestamp = now();
    for (const [toolCallId, toolName] of pending) {
      const synthetic: ToolResultMessage = {
        role: 'toolResult',
        toolCallId,
        toolName,
        content: [{ type: 'text', text: missingToolResultText }],
        isError: true,
        timestamp,
      };
      result.push(synthetic);
    }
    pending = new Map();
  };
  for (const message of messages) {
    if (message.role === 'toolResult') {
      if (!pending.has(message.toolCallId)) continue;
      pending.delete(message.toolCallId);
      result.push(message);
      continue;
    }
    if (
      message.role === 'assistant' &&
      (message.stopReason === 'error' || message.stopReason === 'aborted')
    ) {
      continue;
    }
    flush();
    result.push(message);
    if (message.role === 'assistant') {
      for (const block of message.content) {
        if (block.type === 'toolCall') pending.set(block.id, block.name);
      }
    }
  }
  flush();
  return result;
}
