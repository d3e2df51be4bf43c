// A fake OpenAI API: Chat Completions and Responses, streamed over SSE exactly as the real
// API frames them, driven by the real `openai` SDK through `baseURL`. It also imitates the
// error answers of vLLM and llama.cpp (`family`), so one fake covers the compatible servers.
import type { ServerResponse } from 'node:http';
import { type HttpAnswer, httpAnswer, type ServerFamily } from './faults.ts';
import {
  bearerKey,
  estimateTokenCount,
  jsonPieces,
  type ScriptedFallback,
  type ScriptedFault,
  type ScriptedFaultOptions,
  type ScriptedFaultRule,
  type ScriptedRequest,
  ScriptedServer,
  type ScriptedServerOptions,
  type ScriptedTurn,
  type ScriptedTurnSource,
  textPieces,
} from './scripted-server.ts';

/** Options of the fake OpenAI API. */
export interface FakeOpenAIOptions extends ScriptedServerOptions {
  /** Whose error answers to imitate. Default `openai`. */
  readonly family?: ServerFamily;
  /** The delta field reasoning streams in: DeepSeek/vLLM `reasoning_content` (default) or `reasoning`. */
  readonly reasoningField?: 'reasoning_content' | 'reasoning';
  /** Keys accepted; other keys (or none) get the family's 401. Default: any key, or none. */
  readonly acceptedKeys?: readonly string[];
  /** Ids `GET /v1/models` lists. Default `['gpt-fake']`. */
  readonly models?: readonly string[];
}

type Frame = { readonly event?: string; readonly data: unknown };

/** The fake OpenAI API; `baseURL` ends in `/v1`, as the SDK expects. */
export class FakeOpenAI {
  readonly #server: ScriptedServer;
  readonly #family: ServerFamily;
  readonly #reasoningField: 'reasoning_content' | 'reasoning';
  readonly #acceptedKeys: ReadonlySet<string> | undefined;
  readonly #models: readonly string[];

  constructor(options: FakeOpenAIOptions = {}) {
    this.#family = options.family ?? 'openai';
    this.#reasoningField = options.reasoningField ?? 'reasoning_content';
    this.#acceptedKeys = options.acceptedKeys === undefined ? undefined : new Set(options.acceptedKeys);
    this.#models = options.models ?? ['gpt-fake'];
    this.#server = new ScriptedServer('fake OpenAI API', options, (request, response) =>
      this.#route(request, response),
    );
  }

  async start(): Promise<FakeOpenAI> {
    await this.#server.start();
    return this;
  }

  /** `http://127.0.0.1:<port>/v1` */
  get baseURL(): string {
    return `${this.#server.origin}/v1`;
  }

  /** Every request received, in order. */
  get requests(): readonly ScriptedRequest[] {
    return this.#server.requests;
  }

  /** Requests to the two model endpoints. */
  get modelRequests(): ScriptedRequest[] {
    return this.#server.requests.filter((request) => request.method === 'POST');
  }

  get pendingTurns(): number {
    return this.#server.pendingTurns;
  }

  enqueue(...turns: ScriptedTurnSource[]): void {
    this.#server.enqueue(...turns);
  }

  setFallback(fallback: ScriptedFallback): void {
    this.#server.setFallback(fallback);
  }

  /** Fails the next `times` model requests (optionally only those with `apiKey`) with `fault`. */
  injectFault(fault: ScriptedFault, options?: ScriptedFaultOptions): ScriptedFaultRule {
    return this.#server.injectFault(fault, options);
  }

  close(): Promise<void> {
    return this.#server.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #route(request: ScriptedRequest, response: ServerResponse): void {
    const { method, path } = request;
    if (method === 'GET' && path === '/v1/models') {
      sendJson(response, 200, {
        object: 'list',
        data: this.#models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })),
      });
      return;
    }
    const api =
      method === 'POST' && path === '/v1/chat/completions'
        ? 'completions'
        : method === 'POST' && path === '/v1/responses'
          ? 'responses'
          : undefined;
    if (api === undefined) {
      sendJson(response, 404, {
        error: { message: `Not found: ${method} ${path}`, type: 'invalid_request_error' },
      });
      return;
    }
    const body = request.body ?? {};
    const model = typeof body.model === 'string' ? body.model : 'unknown';
    const estimated = estimateTokenCount(
      api === 'completions' ? body.messages : [body.instructions, body.input],
    );
    if (this.#acceptedKeys !== undefined) {
      const key = bearerKey(request);
      if (key === undefined || !this.#acceptedKeys.has(key)) {
        sendAnswer(response, httpAnswer(this.#family, { type: 'authentication' }, model, estimated));
        return;
      }
    }
    const turn = this.#server.nextTurn(
      request,
      lastUserText(api === 'completions' ? body.messages : body.input),
    );
    const fault = turn.fault;
    if (fault !== undefined && fault.type !== 'stream_cut' && fault.type !== 'stream_error') {
      sendAnswer(response, httpAnswer(this.#family, fault, model, estimated));
      return;
    }
    if (body.stream !== true) {
      sendJson(response, 400, {
        error: {
          message: 'The fake OpenAI API answers streaming requests only (stream: true).',
          type: 'invalid_request_error',
        },
      });
      return;
    }
    const frames =
      api === 'completions'
        ? this.#completionFrames(turn, request.sequence, model, estimated, body)
        : responseFrames(turn, request.sequence, model, estimated);
    writeStream(response, frames, fault, api === 'completions');
  }

  #completionFrames(
    turn: ScriptedTurn,
    sequence: number,
    model: string,
    estimated: number,
    body: Record<string, unknown>,
  ): Frame[] {
    const id = `chatcmpl-fake-${sequence}`;
    const chunk = (delta: unknown, finishReason: string | null = null): Frame => ({
      data: {
        id,
        object: 'chat.completion.chunk',
        created: 0,
        model,
        choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
      },
    });
    const frames: Frame[] = [chunk({ role: 'assistant', content: '' })];
    for (const piece of textPieces(turn.reasoning)) frames.push(chunk({ [this.#reasoningField]: piece }));
    for (const piece of textPieces(turn.text)) frames.push(chunk({ content: piece }));
    const calls = turn.toolCalls ?? [];
    calls.forEach((call, position) => {
      const json = JSON.stringify(call.arguments ?? {});
      frames.push(
        chunk({
          tool_calls: [
            {
              index: position,
              id: call.id ?? `call_${sequence}_${position}`,
              type: 'function',
              function: { name: call.name, arguments: '' },
            },
          ],
        }),
      );
      for (const piece of jsonPieces(json, call.argumentChunks ?? 3)) {
        frames.push(chunk({ tool_calls: [{ index: position, function: { arguments: piece } }] }));
      }
    });
    frames.push(chunk({}, turn.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop')));
    const streamOptions = body.stream_options as { include_usage?: unknown } | undefined;
    if (streamOptions?.include_usage === true) {
      const usage = usageOf(turn, estimated);
      frames.push({
        data: {
          id,
          object: 'chat.completion.chunk',
          created: 0,
          model,
          choices: [],
          usage: {
            prompt_tokens: usage.prompt,
            completion_tokens: usage.completion,
            total_tokens: usage.prompt + usage.completion,
            prompt_tokens_details: { cached_tokens: usage.cached },
          },
        },
      });
    }
    return frames;
  }
}

function usageOf(
  turn: ScriptedTurn,
  estimated: number,
): { prompt: number; completion: number; cached: number } {
  const output = [
    turn.reasoning,
    turn.text,
    ...(turn.toolCalls ?? []).map((call) => JSON.stringify(call.arguments)),
  ];
  return {
    prompt: turn.usage?.promptTokens ?? estimated,
    completion: turn.usage?.completionTokens ?? estimateTokenCount(output),
    cached: turn.usage?.cachedTokens ?? 0,
  };
}

function responseFrames(turn: ScriptedTurn, sequence: number, model: string, estimated: number): Frame[] {
  const responseId = `resp_fake_${sequence}`;
  const base = {
    id: responseId,
    object: 'response',
    created_at: 0,
    model,
    output: [] as unknown[],
    error: null,
    incomplete_details: null,
  };
  const frames: Frame[] = [];
  let sequenceNumber = 0;
  const emit = (data: Record<string, unknown>): void => {
    frames.push({ event: data.type as string, data: { ...data, sequence_number: sequenceNumber++ } });
  };
  emit({ type: 'response.created', response: { ...base, status: 'in_progress' } });
  const output: unknown[] = [];
  let outputIndex = 0;
  if (turn.reasoning !== undefined) {
    const itemId = `rs_fake_${sequence}`;
    emit({
      type: 'response.output_item.added',
      output_index: outputIndex,
      item: { type: 'reasoning', id: itemId, summary: [] },
    });
    const pieces = textPieces(turn.reasoning);
    for (const delta of pieces) {
      emit({
        type: 'response.reasoning_summary_text.delta',
        item_id: itemId,
        output_index: outputIndex,
        summary_index: 0,
        delta,
      });
    }
    const item = {
      type: 'reasoning',
      id: itemId,
      summary: [{ type: 'summary_text', text: pieces.join('') }],
      encrypted_content: `enc_fake_${sequence}`,
    };
    emit({ type: 'response.output_item.done', output_index: outputIndex, item });
    output.push(item);
    outputIndex += 1;
  }
  if (turn.text !== undefined) {
    const itemId = `msg_fake_${sequence}`;
    emit({
      type: 'response.output_item.added',
      output_index: outputIndex,
      item: { type: 'message', id: itemId, role: 'assistant', status: 'in_progress', content: [] },
    });
    const pieces = textPieces(turn.text);
    for (const delta of pieces) {
      emit({
        type: 'response.output_text.delta',
        item_id: itemId,
        output_index: outputIndex,
        content_index: 0,
        delta,
        logprobs: [],
      });
    }
    const item = {
      type: 'message',
      id: itemId,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: pieces.join(''), annotations: [] }],
    };
    emit({ type: 'response.output_item.done', output_index: outputIndex, item });
    output.push(item);
    outputIndex += 1;
  }
  (turn.toolCalls ?? []).forEach((call, position) => {
    const itemId = `fc_fake_${sequence}_${position}`;
    const callId = call.id ?? `call_${sequence}_${position}`;
    const json = JSON.stringify(call.arguments ?? {});
    emit({
      type: 'response.output_item.added',
      output_index: outputIndex,
      item: {
        type: 'function_call',
        id: itemId,
        call_id: callId,
        name: call.name,
        arguments: '',
        status: 'in_progress',
      },
    });
    for (const delta of jsonPieces(json, call.argumentChunks ?? 3)) {
      emit({
        type: 'response.function_call_arguments.delta',
        item_id: itemId,
        output_index: outputIndex,
        delta,
      });
    }
    const item = {
      type: 'function_call',
      id: itemId,
      call_id: callId,
      name: call.name,
      arguments: json,
      status: 'completed',
    };
    emit({ type: 'response.output_item.done', output_index: outputIndex, item });
    output.push(item);
    outputIndex += 1;
  });
  const usage = usageOf(turn, estimated);
  const incomplete = turn.finishReason === 'max_output_tokens' || turn.finishReason === 'content_filter';
  emit({
    type: incomplete ? 'response.incomplete' : 'response.completed',
    response: {
      ...base,
      status: incomplete ? 'incomplete' : 'completed',
      incomplete_details: incomplete ? { reason: turn.finishReason } : null,
      output,
      usage: {
        input_tokens: usage.prompt,
        input_tokens_details: { cached_tokens: usage.cached },
        output_tokens: usage.completion,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.prompt + usage.completion,
      },
    },
  });
  return frames;
}

function lastUserText(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return typeof messages === 'string' ? messages : undefined;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index] as { role?: unknown; content?: unknown };
    if (message.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    if (Array.isArray(message.content)) {
      return message.content
        .map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : ''))
        .join('');
    }
  }
  return undefined;
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function sendAnswer(response: ServerResponse, answer: HttpAnswer): void {
  response.writeHead(answer.status, answer.headers);
  response.end(answer.body);
}

function writeStream(
  response: ServerResponse,
  frames: readonly Frame[],
  fault: ScriptedFault | undefined,
  doneSentinel: boolean,
): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const stopAt =
    fault !== undefined && (fault.type === 'stream_cut' || fault.type === 'stream_error')
      ? Math.min(fault.afterEvents ?? Math.floor(frames.length / 2), frames.length)
      : frames.length;
  let text = '';
  for (const frame of frames.slice(0, stopAt)) {
    text += `${frame.event === undefined ? '' : `event: ${frame.event}\n`}data: ${JSON.stringify(frame.data)}\n\n`;
  }
  if (fault?.type === 'stream_cut') {
    // Flush what was sent, then reset the connection mid-stream.
    response.write(text, () => response.destroy());
    return;
  }
  if (fault?.type === 'stream_error') {
    const error = {
      message: fault.message ?? 'The server had an error while processing your request.',
      type: 'server_error',
      code: null,
    };
    text += doneSentinel
      ? `data: ${JSON.stringify({ error })}\n\n`
      : `event: error\ndata: ${JSON.stringify({ ...error, type: 'error', code: 'server_error' })}\n\n`;
    response.end(text);
    return;
  }
  if (doneSentinel) text += 'data: [DONE]\n\n';
  response.end(text);
}

/** Creates the fake (call `start()` before use). */
export function createFakeOpenAI(options: FakeOpenAIOptions = {}): FakeOpenAI {
  return new FakeOpenAI(options);
}
