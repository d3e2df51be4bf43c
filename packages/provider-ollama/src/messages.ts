// Provider-neutral history → Ollama `/api/chat` messages. Ollama has no tool-call ids: a
// result is matched by position and carries `tool_name`. Thinking goes back only to the
// model that produced it (as `thinking`); images travel as base64 on the message.

import { type LlmContext, type Model, prepareReplay } from '@switchboard/core-loop';
import type { ImageContent, Message, TextContent } from '@switchboard/hooks';
import type { Message as OllamaMessage, Tool } from 'ollama';

function split(
  content: string | ReadonlyArray<TextContent | ImageContent>,
  model: Model,
): { text: string; images: string[] } {
  if (typeof content === 'string') return { text: content, images: [] };
  const texts: string[] = [];
  const images: string[] = [];
  for (const block of content) {
    if (block.type === 'text') texts.push(block.text);
    else if (model.input.includes('image')) images.push(block.data);
    else texts.push(`(image omitted: ${model.id} does not accept images)`);
  }
  return { text: texts.join('\n'), images };
}

/** The `messages` of an `/api/chat` request, system prompt first. */
export function toOllamaMessages(context: LlmContext, model: Model): OllamaMessage[] {
  const result: OllamaMessage[] = [];
  if (context.systemPrompt !== undefined && context.systemPrompt !== '') {
    result.push({ role: 'system', content: context.systemPrompt });
  }
  for (const message of prepareReplay(context.messages as Message[])) {
    if (message.role === 'user' || message.role === 'toolResult') {
      const { text, images } = split(message.content, model);
      if (message.role === 'toolResult') {
        result.push({
          role: 'tool',
          content: text === '' ? '(no output)' : text,
          tool_name: message.toolName,
        });
        if (images.length > 0)
          result.push({ role: 'user', content: 'Images returned by the tool call above:', images });
      } else if (text.trim() !== '' || images.length > 0) {
        result.push({ role: 'user', content: text, ...(images.length === 0 ? {} : { images }) });
      }
      continue;
    }
    const sameModel = message.provider === model.provider && message.model === model.id;
    let text = '';
    let thinking = '';
    const toolCalls: NonNullable<OllamaMessage['tool_calls']> = [];
    for (const block of message.content) {
      if (block.type === 'text') text += block.text;
      else if (block.type === 'thinking') {
        if (sameModel && block.redacted !== true) thinking += block.thinking;
      } else toolCalls.push({ function: { name: block.name, arguments: { ...block.arguments } } });
    }
    if (text.trim() === '' && toolCalls.length === 0) continue;
    result.push({
      role: 'assistant',
      content: text,
      ...(thinking === '' ? {} : { thinking }),
      ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
    });
  }
  return result;
}

/** The `tools` of an `/api/chat` request. */
export function toOllamaTools(context: LlmContext): Tool[] | undefined {
  if (context.tools === undefined || context.tools.length === 0) return undefined;
  return context.tools.map((tool) => {
    const { $schema: _ignored, ...parameters } = tool.parameters as Record<string, unknown>;
    return {
      type: 'function',
      function: {
        name: tool.name,
        description: tool.description,
        parameters: parameters as NonNullable<Tool['function']['parameters']>,
      },
    };
  });
}

/** A cheap prompt size estimate (characters / 4), to catch prompts Ollama would truncate. */
export function estimatePromptTokens(
  messages: readonly OllamaMessage[],
  tools: readonly Tool[] | undefined,
): number {
  let characters = 0;
  for (const message of messages) {
    characters += message.content.length + (message.thinking?.length ?? 0);
    for (const call of message.tool_calls ?? []) characters += JSON.stringify(call.function).length;
  }
  if (tools !== undefined) characters += JSON.stringify(tools).length;
  return Math.ceil(characters / 4);
}
