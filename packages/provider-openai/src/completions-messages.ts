// Provider-neutral history → Chat Completions messages: replay hygiene, tool-call ids, images,
// and what to do with another provider's thinking (dropped: no Chat Completions server takes
// reasoning back as input, and sending it as text would make the model repeat it).

import { type LlmContext, type Model, prepareReplay } from '@switchboard/core-loop';
import type { ImageContent, Message, TextContent } from '@switchboard/hooks';
import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { OpenAICompat } from './compat.ts';
import { ToolIdMap } from './tool-ids.ts';

function imageOmitted(model: Model): string {
  return `(image omitted: ${model.id} does not accept images)`;
}

function userParts(
  content: string | ReadonlyArray<TextContent | ImageContent>,
  model: Model,
  compat: OpenAICompat,
): string | ChatCompletionContentPart[] | undefined {
  if (typeof content === 'string') return content.trim() === '' ? undefined : content;
  const acceptsImages = model.input.includes('image') && !compat.requiresStringContent;
  const parts: ChatCompletionContentPart[] = [];
  for (const block of content) {
    if (block.type === 'text') {
      if (block.text.trim() !== '') parts.push({ type: 'text', text: block.text });
    } else if (acceptsImages) {
      parts.push({ type: 'image_url', image_url: { url: `data:${block.mediaType};base64,${block.data}` } });
    } else parts.push({ type: 'text', text: imageOmitted(model) });
  }
  if (parts.length === 0) return undefined;
  if (compat.requiresStringContent || parts.every((part) => part.type === 'text')) {
    return parts.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  }
  return parts;
}

/** The `messages` of a Chat Completions request, system prompt first. */
export function toCompletionsMessages(
  context: LlmContext,
  model: Model,
  compat: OpenAICompat,
): ChatCompletionMessageParam[] {
  const ids = new ToolIdMap();
  const result: ChatCompletionMessageParam[] = [];
  if (context.systemPrompt !== undefined && context.systemPrompt !== '') {
    result.push({
      role: compat.supportsDeveloperRole ? 'developer' : 'system',
      content: context.systemPrompt,
    });
  }
  // Images a tool returned: tool messages carry text only, so they follow as a user message.
  let pendingImages: ImageContent[] = [];
  const flushImages = (): void => {
    if (pendingImages.length === 0) return;
    const content = userParts(
      [{ type: 'text', text: 'Images returned by the tool calls above:' }, ...pendingImages],
      model,
      compat,
    );
    if (content !== undefined) result.push({ role: 'user', content });
    pendingImages = [];
  };
  for (const message of prepareReplay(context.messages as Message[])) {
    if (message.role !== 'toolResult') flushImages();
    if (message.role === 'user') {
      const content = userParts(message.content, model, compat);
      if (content !== undefined) result.push({ role: 'user', content });
    } else if (message.role === 'toolResult') {
      const text = message.content
        .filter((block): block is TextContent => block.type === 'text')
        .map((block) => block.text)
        .join('\n');
      const images = message.content.filter((block): block is ImageContent => block.type === 'image');
      pendingImages.push(...images);
      result.push({
        role: 'tool',
        tool_call_id: ids.get(message.toolCallId),
        content: text === '' ? (images.length > 0 ? '(see the images below)' : '(no output)') : text,
        ...(compat.requiresToolResultName ? { name: message.toolName } : {}),
      } as ChatCompletionMessageParam);
    } else {
      const text = message.content
        .filter((block): block is TextContent => block.type === 'text')
        .map((block) => block.text)
        .join('');
      const toolCalls = message.content.flatMap((block) =>
        block.type === 'toolCall'
          ? [
              {
                id: ids.get(block.id),
                type: 'function' as const,
                function: { name: block.name, arguments: JSON.stringify(block.arguments) },
              },
            ]
          : [],
      );
      if (text.trim() === '' && toolCalls.length === 0) continue;
      result.push({
        role: 'assistant',
        content: text.trim() === '' ? (compat.requiresStringContent ? '' : null) : text,
        ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
      });
    }
  }
  flushImages();
  return result;
}
