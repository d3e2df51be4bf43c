// A fake Ollama server: the native `/api/chat` streamed as NDJSON, `/api/tags` and
// `/api/show` for discovery, driven by the real `ollama` library through `host`. Like the
// real server it truncates an oversized prompt silently (the reported prompt_eval_count is
// capped at num_ctx) and answers errors as `{ "error": "…" }`.
import type { ServerResponse } from 'node:http';
import {
  estimateTokenCount,
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
} from '../openai/scripted-server.ts';

/** A model the fake lists and describes. */
export interface FakeOllamaModel {
  readonly name: string;
  /** Reported as `<family>.context_length`. Default 131072. */
  readonly contextLength?: number;
  /** Default `['completion', 'tools']`. */
  readonly capabilities?: readonly string[];
  /** Default `llama`. */
  readonly family?: string;
  readonly parameterSize?: string;
}

export interface FakeOllamaOptions extends ScriptedServerOptions {
  /** What `/api/tags` lists. Default one `llama3.2:latest` with tools. */
  readonly models?: readonly FakeOllamaModel[];
}

/** The error words the real server sends for each fault (status, `error`). */
const faultAnswers: Readonly<Record<string, { status: number; error: (model: string) => string }>> = {
  model_not_found: { status: 404, error: (model) => `model "${model}" not found, try pulling it first` },
  server: { status: 500, error: () => 'llama runner process has terminated: exit status 2' },
  overloaded: {
    status: 503,
    error: () => 'server busy, please try again.  maximum pending requests exceeded',
  },
  rate_limit: { status: 429, error: () => 'too many requests' },
  quota: { status: 402, error: () => 'payment required: insufficient credits' },
  authentication: { status: 401, error: () => 'unauthorized' },
};

/** The fake Ollama server; `host` is what the library and the provider take. */
export class FakeOllama {
  readonly #server: ScriptedServer;
  readonly #models: readonly FakeOllamaModel[];

  constructor(options: FakeOllamaOptions = {}) {
    this.#models = options.models ?? [{ name: 'llama3.2:latest' }];
    this.#server = new ScriptedServer('fake Ollama', options, (request, response) =>
      this.#route(request, response),
    );
  }

  async start(): Promise<FakeOllama> {
    await this.#server.start();
    return this;
  }

  /** `http://127.0.0.1:<port>` */
  get host(): string {
    return this.#server.origin;
  }

  get requests(): readonly ScriptedRequest[] {
    return this.#server.requests;
  }

  /** The `/api/chat` requests. */
  get chatRequests(): ScriptedRequest[] {
    return this.#server.requests.filter((request) => request.path === '/api/chat');
  }

  enqueue(...turns: ScriptedTurnSource[]): void {
    this.#server.enqueue(...turns);
  }

  setFallback(fallback: ScriptedFallback): void {
    this.#server.setFallback(fallback);
  }

  /** Fails the next `times` chat requests with `fault` (`context_overflow` is not one: Ollama truncates). */
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
    const body = request.body ?? {};
    if (method === 'GET' && (path === '/' || path === '')) {
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('Ollama is running');
      return;
    }
    if (method === 'GET' && path === '/api/version') {
      sendJson(response, 200, { version: '0.12.0' });
      return;
    }
    if (method === 'GET' && path === '/api/tags') {
      sendJson(response, 200, {
        models: this.#models.map((model) => ({
          name: model.name,
          model: model.name,
          modified_at: '2026-01-01T00:00:00Z',
          size: 2_000_000_000,
          digest: 'sha256:fake',
          details: {
            format: 'gguf',
            family: model.family ?? 'llama',
            families: [model.family ?? 'llama'],
            parameter_size: model.parameterSize ?? '3B',
            quantization_level: 'Q4_K_M',
          },
        })),
      });
      return;
    }
    if (method === 'POST' && path === '/api/show') {
      const name = String(body.model ?? body.name ?? '');
      const model = this.#models.find((entry) => entry.name === name || entry.name === `${name}:latest`);
      if (model === undefined) {
        sendJson(response, 404, { error: `model '${name}' not found` });
        return;
      }
      const family = model.family ?? 'llama';
      sendJson(response, 200, {
        modelfile: '',
        parameters: '',
        template: '',
        details: {
          format: 'gguf',
          family,
          families: [family],
          parameter_size: model.parameterSize ?? '3B',
          quantization_level: 'Q4_K_M',
        },
        model_info: {
          'general.architecture': family,
          [`${family}.context_length`]: model.contextLength ?? 131_072,
        },
        capabilities: model.capabilities ?? ['completion', 'tools'],
        modified_at: '2026-01-01T00:00:00Z',
      });
      return;
    }
    if (method !== 'POST' || path !== '/api/chat') {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('404 page not found');
      return;
    }
    const model = String(body.model ?? '');
    const messages = Array.isArray(body.messages)
      ? (body.messages as Array<{ role?: string; content?: string }>)
      : [];
    const lastUser = [...messages].reverse().find((message) => message.role === 'user')?.content;
    const turn = this.#server.nextTurn(request, lastUser);
    const fault = turn.fault;
    if (
      fault !== undefined &&
      fault.type !== 'stream_cut' &&
      fault.type !== 'stream_error' &&
      fault.type !== 'context_overflow'
    ) {
      if (fault.type === 'http') {
        response.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
        response.end(fault.body);
        return;
      }
      const answer = faultAnswers[fault.type] as { status: number; error: (model: string) => string };
      const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
      if (fault.type === 'rate_limit') headers['retry-after'] = String(fault.retryAfterSeconds ?? 1);
      response.writeHead(answer.status, headers);
      response.end(JSON.stringify({ error: answer.error(model) }));
      return;
    }
    const options = (body.options ?? {}) as { num_ctx?: unknown };
    const numCtx = typeof options.num_ctx === 'number' ? options.num_ctx : 4096;
    const lines = chatLines(
      turn,
      model,
      Math.min(turn.usage?.promptTokens ?? estimateTokenCount([messages, body.tools]), numCtx),
    );
    if (body.stream === false) {
      const text = lines.map((line) => (line.message as { content: string }).content).join('');
      sendJson(response, 200, { ...lines.at(-1), message: { role: 'assistant', content: text } });
      return;
    }
    response.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const stopAt =
      fault?.type === 'stream_cut' || fault?.type === 'stream_error'
        ? Math.min(fault.afterEvents ?? Math.floor(lines.length / 2), lines.length)
        : lines.length;
    let text = '';
    for (const line of lines.slice(0, stopAt)) text += `${JSON.stringify(line)}\n`;
    if (fault?.type === 'stream_cut') {
      response.write(text, () => response.destroy());
      return;
    }
    if (fault?.type === 'stream_error')
      text += `${JSON.stringify({ error: fault.message ?? 'an error was encountered while running the model: unexpected EOF' })}\n`;
    response.end(text);
  }
}

function chatLines(turn: ScriptedTurn, model: string, promptTokens: number): Array<Record<string, unknown>> {
  const line = (message: Record<string, unknown>): Record<string, unknown> => ({
    model,
    created_at: '2026-01-01T00:00:00Z',
    message: { role: 'assistant', content: '', ...message },
    done: false,
  });
  const lines: Array<Record<string, unknown>> = [];
  for (const piece of textPieces(turn.reasoning)) lines.push(line({ thinking: piece }));
  for (const piece of textPieces(turn.text)) lines.push(line({ content: piece }));
  const calls = turn.toolCalls ?? [];
  if (calls.length > 0) {
    // Ollama sends each call whole (arguments as an object), all in one line.
    lines.push(
      line({
        tool_calls: calls.map((call, index) => ({
          function: { index, name: call.name, arguments: call.arguments ?? {} },
        })),
      }),
    );
  }
  const output = [turn.reasoning, turn.text, ...calls.map((call) => JSON.stringify(call.arguments))];
  lines.push({
    ...line({}),
    done: true,
    done_reason: turn.finishReason ?? 'stop',
    total_duration: 1_000_000,
    load_duration: 1000,
    prompt_eval_count: promptTokens,
    prompt_eval_duration: 1000,
    eval_count: turn.usage?.completionTokens ?? estimateTokenCount(output),
    eval_duration: 1000,
  });
  return lines;
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

/** Creates the fake (call `start()` before use). */
export function createFakeOllama(options: FakeOllamaOptions = {}): FakeOllama {
  return new FakeOllama(options);
}
