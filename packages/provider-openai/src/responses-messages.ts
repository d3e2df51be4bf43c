// Provider-neutral history → Responses API input items. Reasoning items of this provider and
// model go back with their encrypted content (the call is stateless: `store: false`), so a
// reasoning model keeps its chain across tool calls; anyone else's thinking is dropped.

import { type LlmContext, type Model, prepareReplay } from '@switchboard/core-loop';
import type { ImageContent, Message, TextContent } from '@switchboard/hooks';
import type {
  ResponseInputContent,
  ResponseInputItem,
  ResponseReasoningItem,
} from 'openai/resources/responses/responses';
import { ToolIdMap } from './tool-ids.ts';

function inputContent(
  content: string | ReadonlyArray<TextContent | ImageContent>,
  model: Model,
): ResponseInputContent[] {
  if (typeof content === 'string')
    return content.trim() === '' ? [] : [{ type: 'input_text', text: content }];
  const parts: ResponseInputContent[] = [];
  for (const block of content) {
    if (block.type === 'text') {
      if (block.text.trim() !== '') parts.push({ type: 'input_text', text: block.text });
    } else if (model.input.includes('image')) {
      parts.push({
        type: 'input_image',
        detail: 'auto',
        image_url: `data:${block.mediaType};base64,${block.data}`,
      });
    } else parts.push({ type: 'input_text', text: `(image omitted: ${model.id} does not accept images)` });
  }
  return parts;
}

/** A reasoning item stored as a thinking block's signature; `undefined` when it is not one. */
function reasoningItemFromSignature(signature: string | undefined): ResponseReasoningItem | undefined {
  if (signature === undefined || !signature.startsWith('{')) return undefined;
  try {
    const item = JSON.parse(signature) as { type?: unknown; id?: unknown };
    return item.type === 'reasoning' && typeof item.id === 'string'
      ? (item as ResponseReasoningItem)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The `input` of a Responses request (the system prompt goes in `instructions`). */
export function toResponsesInput(context: LlmContext, model: Model): ResponseInputItem[] {
  const ids = new ToolIdMap();
  const items: ResponseInputItem[] = [];
  let pendingImages: ImageContent[] = [];
  const flushImages = (): void => {
    if (pendingImages.length === 0) return;
    items.push({
      role: 'user',
      content: inputContent(
        [{ type: 'text', text: 'Images returned by the tool calls above:' }, ...pendingImages],
        model,
      ),
    });
    pendingImages = [];
  };
  for (const message of prepareReplay(context.messages as Message[])) {
    if (message.role !== 'toolResult') flushImages();
    if (message.role === 'user') {
      const content = inputContent(message.content, model);
      if (content.length > 0) items.push({ role: 'user', content });
    } else if (message.role === 'toolResult') {
      const text = message.content
        .filter((block): block is TextContent => block.type === 'text')
        .map((block) => block.text)
        .join('\n');
      pendingImages.push(...message.content.filter((block): block is ImageContent => block.type === 'image'));
      items.push({
        type: 'function_call_output',
        call_id: ids.get(message.toolCallId),
        output: text === '' ? '(no output)' : text,
      });
    } else {
      const sameModel = message.provider === model.provider && message.model === model.id;
      let text = '';
      const flushText = (): void => {
        if (text.trim() !== '') items.push({ role: 'assistant', content: text });
        text = '';
      };
      for (const block of message.content) {
        if (block.type === 'text') text += block.text;
        else if (block.type === 'thinking') {
          const reasoning = sameModel ? reasoningItemFromSignature(block.signature) : undefined;
          if (reasoning !== undefined) {
            flushText();
            items.push(reasoning);
          }
        } else {
          flushText();
          items.push({
            type: 'function_call',
            call_id: ids.get(block.id),
            name: block.name,
            arguments: JSON.stringify(block.arguments),
          });
        }
      }
      flushText();
    }
  }
  flushImages();
  return items;
}
