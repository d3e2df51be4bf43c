// The machinery the OpenAI and Ollama fakes share: an HTTP server on 127.0.0.1, recorded
// requests, a queue of scripted turns with a fallback, and fault rules. Each fake renders
// turns and faults in its own wire format.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { TestkitError } from '../shared/errors.ts';
import { addFaultRule, type CountedRule, type FaultRuleHandle } from '../shared/fault-rule.ts';
import { closeServer, listenOnLoopback, readBody } from '../shared/http-server.ts';

/** A tool call a scripted turn makes. */
export interface ScriptedToolCall {
  readonly name: string;
  /** Serialised to JSON and streamed in `argumentChunks` pieces (where the wire format streams them). */
  readonly arguments: unknown;
  /** Defaults to `call_<request sequence>_<position>`. */
  readonly id?: string;
  /** Pieces the JSON is split into, mid-string included. Default 3. */
  readonly argumentChunks?: number;
}

/** Token counts a turn reports; unset fields are estimated (characters / 4) or 0. */
export interface ScriptedUsage {
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  readonly cachedTokens?: number;
}

/**
 * A failure the fake produces. HTTP faults answer with the status and body the server family
 * sends; stream faults break a 200 response after `afterEvents` events (default: half).
 */
export type ScriptedFault =
  | { readonly type: 'rate_limit'; readonly retryAfterSeconds?: number }
  | { readonly type: 'authentication' }
  | { readonly type: 'quota' }
  | { readonly type: 'server'; readonly status?: number }
  | { readonly type: 'overloaded' }
  | { readonly type: 'context_overflow'; readonly tokens?: number; readonly maximum?: number }
  | { readonly type: 'model_not_found' }
  | {
      readonly type: 'http';
      readonly status: number;
      readonly body: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | { readonly type: 'stream_cut'; readonly afterEvents?: number }
  | { readonly type: 'stream_error'; readonly message?: string; readonly afterEvents?: number };

/** What the model answers to one request: reasoning, then text, then tool calls. */
export interface ScriptedTurn {
  /** A string is split into pieces of 8 characters; an array is sent piece by piece. */
  readonly text?: string | readonly string[];
  /** Reasoning (thinking) text, streamed before the answer. */
  readonly reasoning?: string | readonly string[];
  readonly toolCalls?: readonly ScriptedToolCall[];
  /** Overrides the finish reason the wire format would send. */
  readonly finishReason?: string;
  readonly usage?: ScriptedUsage;
  readonly fault?: ScriptedFault;
}

/** One request as the fake received it. */
export interface ScriptedRequest {
  readonly sequence: number;
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  /** The parsed JSON body (`undefined` when there was none or it was not JSON). */
  readonly body: Record<string, unknown> | undefined;
}

/** A turn, or a function that answers a request with one. */
export type ScriptedTurnSource = ScriptedTurn | ((request: ScriptedRequest) => ScriptedTurn);

/** `echo` repeats the last user text; `fail` answers 500; or a turn for every request. */
export type ScriptedFallback = 'echo' | 'fail' | ScriptedTurnSource;

/** Which requests a fault rule applies to. */
export interface ScriptedFaultOptions {
  /** How many requests it fails. Default 1. */
  readonly times?: number;
  /** Only requests with this bearer key. */
  readonly apiKey?: string;
}

export type ScriptedFaultRule = FaultRuleHandle<ScriptedFault>;

interface Rule extends CountedRule<ScriptedFault> {
  readonly apiKey: string | undefined;
}

/** What a concrete fake does with a request. */
export type ScriptedRoute = (
  request: ScriptedRequest,
  response: ServerResponse,
  server: ScriptedServer,
) => void | Promise<void>;

/** Splits text into `size`-character pieces (at least one). */
export function textPieces(text: string | readonly string[] | undefined, size = 8): string[] {
  if (text === undefined) return [];
  if (typeof text !== 'string') return [...text];
  const pieces: string[] = [];
  for (let index = 0; index < text.length; index += size) pieces.push(text.slice(index, index + size));
  return pieces.length === 0 ? [''] : pieces;
}

/** Splits a JSON text into `count` roughly equal pieces, at arbitrary positions. */
export function jsonPieces(json: string, count: number): string[] {
  const pieces: string[] = [];
  const size = Math.max(1, Math.ceil(json.length / Math.max(1, count)));
  for (let index = 0; index < json.length; index += size) pieces.push(json.slice(index, index + size));
  return pieces.length === 0 ? [''] : pieces;
}

/** Estimated tokens of any JSON value: characters of its strings / 4, rounded up, at least 1. */
export function estimateTokenCount(value: unknown): number {
  const count = (node: unknown): number => {
    if (typeof node === 'string') return node.length;
    if (node === null || typeof node !== 'object') return 0;
    let total = 0;
    for (const child of Array.isArray(node) ? node : Object.values(node)) total += count(child);
    return total;
  };
  return Math.max(1, Math.ceil(count(value) / 4));
}

/** The bearer key of a request, if any. */
export function bearerKey(request: ScriptedRequest): string | undefined {
  const header = request.headers.authorization;
  return typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : undefined;
}

/** Options shared by the scripted fakes. */
export interface ScriptedServerOptions {
  readonly turns?: readonly ScriptedTurnSource[];
  /** Default `echo`. */
  readonly fallback?: ScriptedFallback;
  /** Largest request body accepted. Default 32 MiB. */
  readonly maxBodyBytes?: number;
}

/** The server, turn queue, fault rules and request log of a scripted fake. */
export class ScriptedServer {
  readonly #server: Server;
  readonly #queue: ScriptedTurnSource[];
  readonly #rules: Rule[] = [];
  readonly #requests: ScriptedRequest[] = [];
  readonly #maxBodyBytes: number;
  #fallback: ScriptedFallback;
  #sequence = 0;
  #port: number | undefined;
  #closed = false;
  readonly #label: string;

  constructor(label: string, options: ScriptedServerOptions, route: ScriptedRoute) {
    this.#label = label;
    this.#queue = [...(options.turns ?? [])];
    this.#fallback = options.fallback ?? 'echo';
    this.#maxBodyBytes = options.maxBodyBytes ?? 32 * 1024 * 1024;
    this.#server = createServer((incoming, outgoing) => {
      void this.#handle(incoming, outgoing, route);
    });
  }

  async start(): Promise<void> {
    if (this.#closed) throw new TestkitError('TESTKIT_CLOSED', `${this.#label}: start() after close()`);
    if (this.#port === undefined) this.#port = await listenOnLoopback(this.#server);
  }

  get origin(): string {
    if (this.#port === undefined) {
      throw new TestkitError(
        'TESTKIT_NOT_STARTED',
        `${this.#label}: read the address before start() resolved`,
      );
    }
    return `http://127.0.0.1:${this.#port}`;
  }

  get requests(): readonly ScriptedRequest[] {
    return this.#requests;
  }

  enqueue(...turns: ScriptedTurnSource[]): void {
    this.#queue.push(...turns);
  }

  get pendingTurns(): number {
    return this.#queue.length;
  }

  setFallback(fallback: ScriptedFallback): void {
    this.#fallback = fallback;
  }

  injectFault(fault: ScriptedFault, options: ScriptedFaultOptions = {}): ScriptedFaultRule {
    const times = options.times ?? 1;
    if (!Number.isInteger(times) || times < 1) {
      throw new TestkitError(
        'TESTKIT_INVALID_OPTIONS',
        `${this.#label}: injectFault times must be an integer >= 1, got ${String(times)}`,
      );
    }
    return addFaultRule(this.#rules, { fault, hits: 0, remaining: times, apiKey: options.apiKey });
  }

  /** The next turn for a model request: a fault rule's fault, the queue, or the fallback. */
  nextTurn(request: ScriptedRequest, lastUserText: string | undefined): ScriptedTurn {
    const key = bearerKey(request);
    for (const rule of this.#rules) {
      if (rule.remaining <= 0 || (rule.apiKey !== undefined && rule.apiKey !== key)) continue;
      rule.remaining -= 1;
      rule.hits += 1;
      return { fault: rule.fault };
    }
    let source = this.#queue.shift();
    if (source === undefined) {
      const fallback = this.#fallback;
      if (fallback === 'fail') {
        throw new TestkitError(
          'TESTKIT_SCRIPT_EXHAUSTED',
          `${this.#label}: request #${request.sequence} arrived with no scripted turn left (fallback "fail")`,
        );
      }
      source = fallback === 'echo' ? { text: lastUserText ?? '' } : fallback;
    }
    return typeof source === 'function' ? source(request) : source;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await closeServer(this.#server);
  }

  async #handle(incoming: IncomingMessage, outgoing: ServerResponse, route: ScriptedRoute): Promise<void> {
    const read = await readBody(incoming, this.#maxBodyBytes);
    if (read.type === 'aborted') return;
    const url = incoming.url ?? '/';
    const queryStart = url.indexOf('?');
    let body: Record<string, unknown> | undefined;
    if (read.type === 'body' && read.text !== '') {
      try {
        const parsed: unknown = JSON.parse(read.text);
        if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
          body = parsed as Record<string, unknown>;
      } catch {
        body = undefined;
      }
    }
    const request: ScriptedRequest = {
      sequence: ++this.#sequence,
      method: incoming.method ?? 'GET',
      path: queryStart === -1 ? url : url.slice(0, queryStart),
      headers: incoming.headers,
      body,
    };
    this.#requests.push(request);
    try {
      await route(request, outgoing, this);
    } catch (error) {
      if (!outgoing.headersSent) {
        outgoing.writeHead(500, { 'content-type': 'application/json' });
        outgoing.end(JSON.stringify({ error: { message: (error as Error).message, type: 'testkit_error' } }));
      } else outgoing.destroy();
    }
  }
}
