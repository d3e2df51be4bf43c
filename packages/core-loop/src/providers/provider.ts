import type { AssistantMessage } from '@switchboard/hooks';
import { emptyUsage } from '@switchboard/hooks';
import { CoreLoopError } from '../errors.ts';
import { type AssistantMessageEventStream, createAssistantMessageEventStream } from '../event-stream.ts';
import type { LlmContext, Model, StreamFunction, StreamOptions } from '../types.ts';

/**
 * A model provider: one implementation of a wire API (`anthropic-messages`, later
 * `openai-completions`, …). `stream` follows the `StreamFunction` contract: it never throws
 * and always ends its stream with one `done` or `error` event.
 */
export interface ModelProvider {
  /** The `Model.api` values this provider serves. */
  readonly api: string;
  stream(model: Model, context: LlmContext, options: StreamOptions): AssistantMessageEventStream;
}

/**
 * A stream function that sends each call to the provider registered for `model.api`. A
 * model with no provider gets an error message (`CORE_LOOP_NO_PROVIDER`), not a throw.
 * Throws `CORE_LOOP_INVALID_CONFIG` when two providers claim the same api.
 */
export function createStreamFunction(providers: readonly ModelProvider[]): StreamFunction {
  const byApi = new Map<string, ModelProvider>();
  for (const provider of providers) {
    if (byApi.has(provider.api)) {
      throw new CoreLoopError(
        'CORE_LOOP_INVALID_CONFIG',
        `Two model providers serve the api "${provider.api}"; register one per api.`,
        { details: { api: provider.api } },
      );
    }
    byApi.set(provider.api, provider);
  }
  return (model, context, options) => {
    const provider = byApi.get(model.api);
    if (provider !== undefined) return provider.stream(model, context, options);
    const stream = createAssistantMessageEventStream();
    const message: AssistantMessage = {
      role: 'assistant',
      content: [],
      provider: model.provider,
      model: model.id,
      usage: emptyUsage,
      stopReason: 'error',
      errorMessage: `No model provider for api "${model.api}" (model ${model.provider}/${model.id}); registered: ${[...byApi.keys()].join(', ') || 'none'}.`,
      errorCode: 'CORE_LOOP_NO_PROVIDER',
      timestamp: Date.now(),
    };
    stream.push({ type: 'error', reason: 'error', error: message });
    return stream;
  };
}
