// Small pure helpers over the agent's messages, shared by the run modules and `chat.history`.
import { type Agent, type AgentMessage, ModelError, toModelError } from '@switchboard/core-loop';
import type { AssistantMessage, Message, Usage } from '@switchboard/hooks';
import { isSilentReplyText, stripReasoningTags, stripSilentTokens } from '../../delivery/index.ts';

export const zeroUsage: Usage = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

export function assistantText(message: AssistantMessage): string {
  let text = '';
  for (const block of message.content) if (block.type === 'text') text += block.text;
  return text;
}

/** What the user sees of a reply: no reasoning tags, no silent token. */
export function visibleText(text: string): string {
  const stripped = stripReasoningTags(text).trim();
  return isSilentReplyText(stripped) ? '' : stripSilentTokens(stripped).trim();
}

/** The normalized error of a failed assistant message. */
export function errorOf(message: AssistantMessage): ModelError {
  return (
    ModelError.fromAssistantMessage(message) ??
    toModelError(new Error(message.errorMessage ?? 'the model call failed'))
  );
}

export function lastAssistant(messages: readonly AgentMessage[]): AssistantMessage | undefined {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role === 'assistant') return message as AssistantMessage;
  }
  return undefined;
}

/** Removes a failed assistant message at the end of the history (core-loop's continue() refuses it). */
export function dropFailedTail(agent: Agent): void {
  const messages = agent.state.messages;
  const tail = messages[messages.length - 1];
  if (
    tail?.role === 'assistant' &&
    ((tail as AssistantMessage).stopReason === 'error' || (tail as AssistantMessage).stopReason === 'aborted')
  ) {
    agent.replaceMessages(messages.slice(0, -1));
  }
}

export function isModelMessage(message: AgentMessage): message is Message {
  return message.role === 'user' || message.role === 'assistant' || message.role === 'toolResult';
}

/**
 * The note a stopped turn leaves in the transcript. Replay drops an aborted answer, so
 * without it the stopped prompt and the next one reach the model as one request and it
 * answers the question the user stopped; with it, the model sees that answer as ended.
 */
export function stoppedTurnNote(
  why: 'user' | 'timeout',
  model: { readonly provider: string; readonly id: string },
  timestamp: number,
): AssistantMessage {
  return {
    role: 'assistant',
    content: [
      {
        type: 'text',
        text:
          why === 'user'
            ? '[This answer was stopped by the user before it finished. Do not resume it unless asked.]'
            : '[This answer was stopped because it took too long. Do not resume it unless asked.]',
      },
    ],
    provider: model.provider,
    model: model.id,
    usage: zeroUsage,
    stopReason: 'stop',
    timestamp,
  };
}
