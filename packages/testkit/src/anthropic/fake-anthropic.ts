// A fake Anthropic Messages API on a real HTTP server (127.0.0.1, port 0). The real
// `@anthropic-ai/sdk` talks to it through `baseURL`. It answers scripted turns (a queue, a
// function of the request, or a fallback), records every request, and fails on demand.
//
// Zero-latency answers are written with a single `end()` and no timers, so benches can push
// thousands of turns per second through it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { TestkitError } from '../shared/errors.ts';
import { addFaultRule, type FaultRuleHandle } from '../shared/fault-rule.ts';
import { closeServer, listenOnLoopback, readBody } from '../shared/http-server.ts';
import { type ConditionWaiter, createConditionWaiter } from '../shared/waiter.ts';
import {
  errorBody,
  isHttpFault,
  type ResolvedHttpFault,
  resolveHttpFault,
  statusForErrorType,
  validateFault,
} from './faults.ts';
import {
  type FakeEndpoint,
  type MutableRecordedResponse,
  RecordedRequest,
  settleRecordedRequest,
} from './recorded-request.ts';
import { estimateTokens } from './tokens.ts';
import {
  type CompiledTurn,
  compileTurn,
  malformedEvent,
  renderErrorEvent,
  renderMessageJson,
  renderStreamEvents,
  validateLatency,
  validateTurn,
} from './turns.ts';
import type { FakeFault, FakeLatency, FakeTurn, MessagesRequestBody, StreamFault } from './types.ts';

/** A turn computed from the request, for tests that branch on what was sent. */
export type TurnFunction = (request: RecordedRequest) => FakeTurn | Promise<FakeTurn>;

/** One entry of the script: a fixed turn or a function of the request. */
export type TurnSource = FakeTurn | TurnFunction;

/**
 * What answers a `/v1/messages` request when the queue is empty: `echo` (the text of the
 * last user message), `fail` (HTTP 500 and a `TESTKIT_SCRIPT_EXHAUSTED` entry in
 * `errors`), or a turn / turn function used for every such request.
 */
export type FakeFallback = 'echo' | 'fail' | TurnSource;

/** The timer functions the fake uses for latency and wait timeouts (injectable). */
export interface FakeTimers {
  setTimeout(callback: () => void, milliseconds: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface FakeAnthropicOptions {
  /** The initial script, answered in order (one entry per `/v1/messages` request). */
  readonly turns?: readonly TurnSource[];
  /** What answers once the script is used up. Default `echo`. */
  readonly fallback?: FakeFallback;
  /** Fake-wide timing; a turn's own `latency` replaces it. Default zero (no timers at all). */
  readonly latency?: FakeLatency;
  /** Characters per `text_delta`/`thinking_delta` when a text is given as one string. Default 16. */
  readonly textChunkSize?: number;
  /** Characters per `input_json_delta` piece by default. Default 12. */
  readonly jsonChunkSize?: number;
  /**
   * When set, only these credentials (x-api-key or bearer token) are accepted; any other,
   * or none, gets 401 authentication_error.
   */
  readonly acceptedCredentials?: readonly string[];
  /** Every request carrying this credential (x-api-key or bearer token) gets this fault. */
  readonly faultsByCredential?: Readonly<Record<string, FakeFault>>;
  /**
   * Reject what the real API rejects with 400 invalid_request_error: a missing
   * `anthropic-version` header, a body that is not a JSON object, a missing `model`,
   * `messages` or (for /v1/messages) `max_tokens`. Default true.
   */
  readonly validateRequests?: boolean;
  /** How many requests `requests` keeps (oldest dropped first). Default unlimited. */
  readonly recordLimit?: number;
  /** Input-token count of a request body; default {@link estimateTokens}. */
  readonly countTokens?: (body: MessagesRequestBody) => number;
  /** Clock for `receivedAt`. Default `Date.now`. */
  readonly now?: () => number;
  /** Timers for latency and wait timeouts. Default the global ones. */
  readonly timers?: FakeTimers;
  /** Default timeout of `nextRequest` and `waitForRequests`. Default 5000 ms. */
  readonly waitTimeoutMs?: number;
  /** Largest accepted body; larger gets 413 request_too_large. Default 32 MiB (the API's limit). */
  readonly maxBodyBytes?: number;
}

/** Which requests an injected fault applies to. */
export interface FaultRuleOptions {
  /** How many matching requests fail. Default 1; `Infinity` for all of them. */
  readonly times?: number;
  /** Only requests carrying this credential (x-api-key or bearer token). */
  readonly credential?: string;
  /** Only requests for which this returns true. */
  readonly match?: (request: RecordedRequest) => boolean;
  /** Only this route. Default `messages`; `any` for every route. */
  readonly endpoint?: FakeEndpoint | 'any';
}

/** A fault injected with `injectFault`. */
export type FaultRule = FaultRuleHandle<FakeFault>;

/** Options of `nextRequest` and `waitForRequests`. */
export interface WaitOptions {
  /** Only count requests to this route. Default any route. */
  readonly endpoint?: FakeEndpoint;
  /** Default the fake's `waitTimeoutMs`. */
  readonly timeoutMs?: number;
}

interface MutableFaultRule {
  readonly fault: FakeFault;
  hits: number;
  remaining: number;
  readonly credential: string | undefined;
  readonly match: ((request: RecordedRequest) => boolean) | undefined;
  readonly endpoint: FakeEndpoint | 'any';
}

const defaultTimers: FakeTimers = {
  // Unref'd: a pending latency or wait timer never keeps a test process alive on its own.
  setTimeout: (callback, milliseconds) => setTimeout(callback, milliseconds).unref(),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

const sseContentType = 'text/event-stream; charset=utf-8';
const jsonContentType = 'application/json';
const noLatency: FakeLatency = {};

/** The fake Anthropic Messages API. Create it with {@link createFakeAnthropic}. */
export class FakeAnthropic implements AsyncDisposable {
  readonly #server: Server;
  readonly #queue: TurnSource[] = [];
  readonly #rules: MutableFaultRule[] = [];
  readonly #requests: RecordedRequest[] = [];
  readonly #errors: TestkitError[] = [];
  readonly #waiter: ConditionWaiter;
  /** The newest request of each endpoint (and of any), which a `nextRequest` wait resolves with. */
  readonly #lastRecorded: Partial<Record<FakeEndpoint | 'any', RecordedRequest>> = {};
  readonly #counts: Record<FakeEndpoint | 'any', number> = {
    messages: 0,
    count_tokens: 0,
    unknown: 0,
    any: 0,
  };
  readonly #textChunkSize: number;
  readonly #jsonChunkSize: number;
  readonly #acceptedCredentials: ReadonlySet<string> | undefined;
  readonly #validateRequests: boolean;
  readonly #recordLimit: number;
  readonly #countTokens: (body: MessagesRequestBody) => number;
  readonly #now: () => number;
  readonly #timers: FakeTimers;
  readonly #waitTimeoutMs: number;
  readonly #maxBodyBytes: number;
  #fallback: FakeFallback;
  #latency: FakeLatency;
  #sequence = 0;
  #port: number | undefined;
  #starting: Promise<FakeAnthropic> | undefined;
  #closed = false;

  constructor(options: FakeAnthropicOptions = {}) {
    this.#textChunkSize = positiveInteger(options.textChunkSize, 'textChunkSize', 16);
    this.#jsonChunkSize = positiveInteger(options.jsonChunkSize, 'jsonChunkSize', 12);
    this.#latency =
      options.latency === undefined
        ? noLatency
        : validateLatency(options.latency, 'options.latency', 'TESTKIT_INVALID_OPTIONS');
    this.#fallback = checkFallback(options.fallback ?? 'echo', 'options.fallback');
    if (options.acceptedCredentials !== undefined) {
      if (
        !Array.isArray(options.acceptedCredentials) ||
        !options.acceptedCredentials.every((key) => typeof key === 'string')
      ) {
        throw new TestkitError(
          'TESTKIT_INVALID_OPTIONS',
          'options.acceptedCredentials must be an array of strings',
          {
            details: { path: 'options.acceptedCredentials' },
          },
        );
      }
      this.#acceptedCredentials = new Set(options.acceptedCredentials);
    }
    this.#validateRequests = options.validateRequests ?? true;
    this.#recordLimit =
      options.recordLimit === undefined
        ? Number.POSITIVE_INFINITY
        : nonNegativeInteger(options.recordLimit, 'recordLimit');
    this.#countTokens = options.countTokens ?? estimateTokens;
    this.#now = options.now ?? Date.now;
    this.#timers = options.timers ?? defaultTimers;
    this.#waitTimeoutMs = positiveInteger(options.waitTimeoutMs, 'waitTimeoutMs', 5000);
    this.#waiter = createConditionWaiter({
      subject: 'fake Anthropic API',
      defaultTimeoutMs: this.#waitTimeoutMs,
      timers: this.#timers,
    });
    this.#maxBodyBytes = positiveInteger(options.maxBodyBytes, 'maxBodyBytes', 32 * 1024 * 1024);
    if (options.turns !== undefined) {
      if (!Array.isArray(options.turns)) {
        throw new TestkitError('TESTKIT_INVALID_OPTIONS', 'options.turns must be an array of turns', {
          details: { path: 'options.turns' },
        });
      }
      options.turns.forEach((turn, index) => {
        this.#queue.push(checkTurnSource(turn, `options.turns[${index}]`, 'TESTKIT_INVALID_OPTIONS'));
      });
    }
    if (options.faultsByCredential !== undefined) {
      for (const [credential, fault] of Object.entries(options.faultsByCredential)) {
        this.injectFault(
          validateFault(
            fault,
            `options.faultsByCredential[${JSON.stringify(credential)}]`,
            'TESTKIT_INVALID_OPTIONS',
          ),
          {
            credential,
            times: Number.POSITIVE_INFINITY,
            endpoint: 'any',
          },
        );
      }
    }
    this.#server = createServer({ keepAliveTimeout: 10_000 }, (request, response) => {
      this.#handle(request, response).catch((error: unknown) => this.#internalFailure(response, error));
    });
  }

  /** Starts listening on 127.0.0.1 with an OS-assigned port. Resolves with the fake itself. */
  start(): Promise<FakeAnthropic> {
    if (this.#closed) {
      return Promise.reject(new TestkitError('TESTKIT_CLOSED', 'fake Anthropic API: start() after close()'));
    }
    this.#starting ??= listenOnLoopback(this.#server).then((port) => {
      this.#port = port;
      return this;
    });
    return this.#starting;
  }

  /** Stops the server, destroying open connections, and rejects pending waits. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#waiter.close();
    await closeServer(this.#server);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** The port, once started. */
  get port(): number {
    if (this.#port === undefined) {
      throw new TestkitError('TESTKIT_NOT_STARTED', 'fake Anthropic API: port read before start() resolved');
    }
    return this.#port;
  }

  /** `http://127.0.0.1:<port>`: pass it as `baseURL` to `new Anthropic({ baseURL, apiKey })`. */
  get baseURL(): string {
    if (this.#port === undefined) {
      throw new TestkitError(
        'TESTKIT_NOT_STARTED',
        'fake Anthropic API: baseURL read before start() resolved',
      );
    }
    return `http://127.0.0.1:${this.#port}`;
  }

  /** Every request received, oldest first (bounded by `recordLimit`). */
  get requests(): readonly RecordedRequest[] {
    return this.#requests;
  }

  /** The `/v1/messages` requests received, oldest first. */
  get messageRequests(): RecordedRequest[] {
    return this.#requests.filter((request) => request.endpoint === 'messages');
  }

  get lastRequest(): RecordedRequest | undefined {
    return this.#requests.at(-1);
  }

  /** Scripted turns not answered yet. */
  get pendingTurns(): number {
    return this.#queue.length;
  }

  /** Script failures (a turn function threw, the script ran out with fallback `fail`). */
  get errors(): readonly TestkitError[] {
    return this.#errors;
  }

  /** Appends turns to the script. Fixed turns are validated now, functions when they run. */
  enqueue(...turns: TurnSource[]): void {
    const start = this.#queue.length;
    const checked = turns.map((turn, index) =>
      checkTurnSource(turn, `enqueue(…)[${index}]`, 'TESTKIT_INVALID_TURN'),
    );
    this.#queue.splice(start, 0, ...checked);
  }

  /** Replaces what answers once the script is used up. */
  setFallback(fallback: FakeFallback): void {
    this.#fallback = checkFallback(fallback, 'setFallback(…)');
  }

  /** Replaces the fake-wide timing (turns with their own `latency` keep it). */
  setLatency(latency: FakeLatency): void {
    this.#latency = validateLatency(latency, 'setLatency(…)', 'TESTKIT_INVALID_OPTIONS');
  }

  /**
   * Fails the next matching requests with `fault`, before the script is consulted. HTTP
   * faults and `hang` leave the script untouched (a retry gets the next scripted turn);
   * stream faults cut, break or interrupt the turn that would have been sent, which is
   * used up.
   */
  injectFault(fault: FakeFault, options: FaultRuleOptions = {}): FaultRule {
    validateFault(fault, 'injectFault(fault)', 'TESTKIT_INVALID_OPTIONS');
    const times = options.times ?? 1;
    if (!(times === Number.POSITIVE_INFINITY || (Number.isInteger(times) && times >= 1))) {
      throw new TestkitError(
        'TESTKIT_INVALID_OPTIONS',
        'injectFault options.times must be an integer >= 1 or Infinity',
        {
          details: { path: 'times' },
        },
      );
    }
    const endpoint = options.endpoint ?? 'messages';
    if (!['messages', 'count_tokens', 'unknown', 'any'].includes(endpoint)) {
      throw new TestkitError(
        'TESTKIT_INVALID_OPTIONS',
        `injectFault options.endpoint must be messages, count_tokens, unknown or any (got ${JSON.stringify(endpoint)})`,
        { details: { path: 'endpoint' } },
      );
    }
    const rule: MutableFaultRule = {
      fault,
      hits: 0,
      remaining: times,
      credential: options.credential,
      match: options.match,
      endpoint,
    };
    return addFaultRule(this.#rules, rule);
  }

  /** Removes every injected fault (including `faultsByCredential`). */
  clearFaults(): void {
    this.#rules.length = 0;
  }

  /** Forgets recorded requests, script, injected faults and errors (the fallback and latency stay). */
  reset(): void {
    this.#requests.length = 0;
    this.#queue.length = 0;
    this.#rules.length = 0;
    this.#errors.length = 0;
    const counts = this.#counts;
    counts.messages = 0;
    counts.count_tokens = 0;
    counts.unknown = 0;
    counts.any = 0;
  }

  /** Resolves with the first matching request recorded after this call. */
  async nextRequest(options: WaitOptions = {}): Promise<RecordedRequest> {
    const target = this.#counts[options.endpoint ?? 'any'] + 1;
    const request = await this.#wait('next', target, options);
    return request!;
  }

  /**
   * Resolves once `count` matching requests have been recorded in total (since creation or
   * `reset()`), with the recorded requests that match.
   */
  async waitForRequests(count: number, options: WaitOptions = {}): Promise<RecordedRequest[]> {
    await this.#wait('count', count, options);
    const endpoint = options.endpoint;
    return endpoint === undefined
      ? [...this.#requests]
      : this.#requests.filter((request) => request.endpoint === endpoint);
  }

  /** Waits until `target` matching requests were recorded; resolves with the newest one. */
  async #wait(
    kind: 'next' | 'count',
    target: number,
    options: WaitOptions,
  ): Promise<RecordedRequest | undefined> {
    if (this.#closed) {
      throw new TestkitError('TESTKIT_CLOSED', 'fake Anthropic API: wait for a request after close()');
    }
    const key = options.endpoint ?? 'any';
    const what = options.endpoint === undefined ? 'requests' : `${options.endpoint} requests`;
    const found = await this.#waiter.until({
      check: () => (this.#counts[key] >= target ? { request: this.#lastRecorded[key] } : undefined),
      awaited: kind === 'next' ? `the next of the ${what}` : `${target} ${what}`,
      arrived: () => (kind === 'next' ? `${this.#counts[key]} so far` : `${this.#counts[key]} arrived`),
      details: () => ({ target, seen: this.#counts[key] }),
      timeoutMs: options.timeoutMs,
    });
    return found.request;
  }

  #record(request: RecordedRequest): void {
    if (this.#recordLimit > 0) {
      this.#requests.push(request);
      if (this.#requests.length > this.#recordLimit) this.#requests.shift();
    }
    this.#counts.any += 1;
    this.#counts[request.endpoint] += 1;
    this.#lastRecorded.any = request;
    this.#lastRecorded[request.endpoint] = request;
    this.#waiter.notify();
  }

  async #handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const sequence = ++this.#sequence;
    const requestId = `req_fake_${sequence}`;
    const read = await readBody(incoming, this.#maxBodyBytes);
    if (read.type === 'aborted') return;
    const url = incoming.url ?? '/';
    const queryStart = url.indexOf('?');
    const path = queryStart === -1 ? url : url.slice(0, queryStart);
    const method = incoming.method ?? 'GET';
    let endpoint: FakeEndpoint = 'unknown';
    if (method === 'POST' && path === '/v1/messages') endpoint = 'messages';
    else if (method === 'POST' && path === '/v1/messages/count_tokens') endpoint = 'count_tokens';
    const rawBody = read.type === 'body' ? read.text : '';
    const body = parseBody(rawBody);
    const response: MutableRecordedResponse = {
      status: undefined,
      fault: undefined,
      source: undefined,
      eventsSent: 0,
      finished: false,
      clientClosedEarly: false,
      error: undefined,
      settled: false,
    };
    const request = new RecordedRequest(
      { sequence, method, path, endpoint, headers: incoming.headers, rawBody, body, receivedAt: this.#now() },
      response,
    );
    outgoing.on('close', () => {
      if (!outgoing.writableFinished && !response.finished && response.fault?.type !== 'stream_cut') {
        response.clientClosedEarly = true;
      }
      settleRecordedRequest(request, response);
    });
    this.#record(request);

    if (read.type === 'too_large') {
      this.#reject(
        outgoing,
        response,
        requestId,
        413,
        'request_too_large',
        `Request exceeds the maximum allowed number of bytes (${this.#maxBodyBytes}).`,
      );
      return;
    }
    if (endpoint === 'unknown') {
      this.#reject(outgoing, response, requestId, 404, 'not_found_error', `Not found: ${method} ${path}`);
      return;
    }
    if (this.#validateRequests) {
      const problem = validateRequestBody(request, endpoint);
      if (problem !== undefined) {
        this.#reject(outgoing, response, requestId, 400, 'invalid_request_error', problem);
        return;
      }
    }
    if (this.#acceptedCredentials !== undefined) {
      const credential = request.credential;
      if (credential === undefined || !this.#acceptedCredentials.has(credential)) {
        this.#reject(outgoing, response, requestId, 401, 'authentication_error', 'invalid x-api-key');
        return;
      }
    }
    const ruleFault = this.#rules.length === 0 ? undefined : this.#takeRuleFault(request);
    if (ruleFault !== undefined && (isHttpFault(ruleFault) || ruleFault.type === 'hang')) {
      response.source = 'fault';
      this.#sendFault(outgoing, response, request, requestId, ruleFault, this.#latency);
      return;
    }
    const parsedBody = body as MessagesRequestBody;
    if (endpoint === 'count_tokens') {
      const json = `{"input_tokens":${this.#countTokens(parsedBody)}}`;
      response.source = 'count_tokens';
      if (ruleFault !== undefined) {
        response.fault = ruleFault;
        this.#sendBrokenJson(outgoing, response, requestId, ruleFault, json);
        return;
      }
      this.#sendJson(outgoing, response, requestId, json, this.#latency);
      return;
    }

    // /v1/messages: the next turn.
    let source = this.#queue.shift();
    response.source = 'queue';
    if (source === undefined) {
      response.source = 'fallback';
      const fallback = this.#fallback;
      if (fallback === 'fail') {
        const error = new TestkitError(
          'TESTKIT_SCRIPT_EXHAUSTED',
          `fake Anthropic API: request #${sequence} arrived with no scripted turn left (fallback "fail")`,
          { details: { sequence } },
        );
        this.#scriptFailure(outgoing, response, requestId, error);
        return;
      }
      source = fallback === 'echo' ? { text: request.lastUserText ?? '' } : fallback;
    }
    let turn: FakeTurn;
    if (typeof source === 'function') {
      try {
        const produced = source(request);
        const value = isPromiseLike(produced) ? await produced : produced;
        turn = validateTurn(value, `turn function (request #${sequence})`, 'TESTKIT_SCRIPT_FAILED');
      } catch (cause) {
        const error = TestkitError.isInstance(cause)
          ? (cause as TestkitError)
          : new TestkitError(
              'TESTKIT_SCRIPT_FAILED',
              `fake Anthropic API: the turn function for request #${sequence} threw: ${cause instanceof Error ? cause.message : String(cause)}`,
              { cause, details: { sequence } },
            );
        this.#scriptFailure(outgoing, response, requestId, error);
        return;
      }
    } else turn = source;

    const fault = ruleFault ?? turn.fault;
    const latency = turn.latency ?? this.#latency;
    if (fault !== undefined && (isHttpFault(fault) || fault.type === 'hang')) {
      this.#sendFault(outgoing, response, request, requestId, fault, latency);
      return;
    }
    const compiled = compileTurn(turn, {
      sequence,
      model: parsedBody.model,
      estimatedInputTokens: this.#countTokens(parsedBody),
      textChunkSize: this.#textChunkSize,
      jsonChunkSize: this.#jsonChunkSize,
    });
    if (fault !== undefined) response.fault = fault;
    if (parsedBody.stream === true) {
      this.#sendStream(outgoing, response, requestId, compiled, latency, fault);
      return;
    }
    const json = renderMessageJson(compiled);
    if (fault !== undefined) {
      this.#sendBrokenJson(outgoing, response, requestId, fault, json);
      return;
    }
    this.#sendJson(outgoing, response, requestId, json, latency);
  }

  #takeRuleFault(request: RecordedRequest): FakeFault | undefined {
    const rules = this.#rules;
    for (let index = 0; index < rules.length; index += 1) {
      const rule = rules[index]!;
      if (rule.remaining <= 0) continue;
      if (rule.endpoint !== 'any' && rule.endpoint !== request.endpoint) continue;
      if (rule.credential !== undefined && rule.credential !== request.credential) continue;
      if (rule.match !== undefined && !rule.match(request)) continue;
      rule.hits += 1;
      rule.remaining -= 1;
      if (rule.remaining <= 0) rules.splice(index, 1);
      return rule.fault;
    }
    return undefined;
  }

  #sendFault(
    outgoing: ServerResponse,
    response: MutableRecordedResponse,
    request: RecordedRequest,
    requestId: string,
    fault: FakeFault,
    latency: FakeLatency,
  ): void {
    response.fault = fault;
    if (fault.type === 'hang') return;
    if (!isHttpFault(fault)) return;
    const parsedBody = request.body;
    const resolved: ResolvedHttpFault = resolveHttpFault(fault, {
      model: parsedBody?.model,
      estimatedTokens: parsedBody === undefined ? 0 : this.#countTokens(parsedBody),
    });
    const headers: Record<string, string> = {
      ...resolved.headers,
      'content-type': jsonContentType,
      'request-id': requestId,
    };
    this.#afterFirstByteDelay(outgoing, latency, () => {
      response.status = resolved.status;
      outgoing.writeHead(resolved.status, headers);
      outgoing.end(errorBody(resolved.errorType, resolved.message, requestId));
      response.finished = true;
    });
  }

  #reject(
    outgoing: ServerResponse,
    response: MutableRecordedResponse,
    requestId: string,
    status: number,
    errorType: string,
    message: string,
    extraHeaders?: Readonly<Record<string, string>>,
  ): void {
    response.source ??= 'rejected';
    response.status = status;
    outgoing.writeHead(status, { ...extraHeaders, 'content-type': jsonContentType, 'request-id': requestId });
    outgoing.end(errorBody(errorType, message, requestId));
    response.finished = true;
  }

  #scriptFailure(
    outgoing: ServerResponse,
    response: MutableRecordedResponse,
    requestId: string,
    error: TestkitError,
  ): void {
    this.#errors.push(error);
    response.error = error;
    response.source = 'rejected';
    // x-should-retry: false, so the SDK surfaces the failure at once instead of retrying it.
    this.#reject(
      outgoing,
      response,
      requestId,
      500,
      'api_error',
      `[fake Anthropic API] ${error.code}: ${error.message}`,
      {
        'x-should-retry': 'false',
      },
    );
  }

  #internalFailure(outgoing: ServerResponse, cause: unknown): void {
    const error = new TestkitError(
      'TESTKIT_SCRIPT_FAILED',
      `fake Anthropic API: internal failure: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.#errors.push(error);
    if (!outgoing.headersSent) {
      outgoing.writeHead(500, { 'content-type': jsonContentType, 'x-should-retry': 'false' });
      outgoing.end(errorBody('api_error', error.message, 'req_fake_internal'));
    } else outgoing.destroy();
  }

  #sendJson(
    outgoing: ServerResponse,
    response: MutableRecordedResponse,
    requestId: string,
    json: string,
    latency: FakeLatency,
  ): void {
    this.#afterFirstByteDelay(outgoing, latency, () => {
      response.status = 200;
      outgoing.writeHead(200, { 'content-type': jsonContentType, 'request-id': requestId });
      outgoing.end(json);
      response.finished = true;
    });
  }

  /** A stream fault hitting a non-streaming answer: cut or garble the JSON, or answer the HTTP equivalent. */
  #sendBrokenJson(
    outgoing: ServerResponse,
    response: MutableRecordedResponse,
    requestId: string,
    fault: StreamFault,
    json: string,
  ): void {
    if (fault.type === 'stream_error') {
      const errorType = fault.errorType ?? 'overloaded_error';
      this.#reject(
        outgoing,
        response,
        requestId,
        statusForErrorType(errorType),
        errorType,
        fault.message ?? 'Overloaded',
      );
      return;
    }
    const half = json.slice(0, Math.floor(json.length / 2));
    response.status = 200;
    if (fault.type === 'stream_cut' && (fault.mode ?? 'destroy') === 'destroy') {
      // Promise the whole body, send half, then reset the connection.
      outgoing.writeHead(200, {
        'content-type': jsonContentType,
        'request-id': requestId,
        'content-length': String(Buffer.byteLength(json)),
      });
      outgoing.write(half, () => outgoing.destroy());
      return;
    }
    // malformed_json, or a clean early end: a complete response whose body does not parse.
    outgoing.writeHead(200, { 'content-type': jsonContentType, 'request-id': requestId });
    outgoing.end(half);
    response.finished = true;
  }

  #sendStream(
    outgoing: ServerResponse,
    response: MutableRecordedResponse,
    requestId: string,
    turn: CompiledTurn,
    latency: FakeLatency,
    fault: StreamFault | undefined,
  ): void {
    let events = renderStreamEvents(turn);
    let destroyAtEnd = false;
    if (fault !== undefined) {
      const after = Math.min(fault.afterEvents ?? Math.floor(events.length / 2), events.length);
      events = events.slice(0, after);
      if (fault.type === 'stream_error') {
        events.push(
          renderErrorEvent(fault.errorType ?? 'overloaded_error', fault.message ?? 'Overloaded', requestId),
        );
      } else if (fault.type === 'malformed_json') events.push(malformedEvent);
      else destroyAtEnd = (fault.mode ?? 'destroy') === 'destroy';
    }
    const headers = { 'content-type': sseContentType, 'cache-control': 'no-cache', 'request-id': requestId };
    const chunkMs = latency.chunkMs ?? 0;
    this.#afterFirstByteDelay(outgoing, latency, () => {
      response.status = 200;
      outgoing.writeHead(200, headers);
      if (chunkMs === 0) {
        response.eventsSent = events.length;
        const payload = events.length === 1 ? events[0]! : events.join('');
        if (destroyAtEnd) {
          outgoing.flushHeaders();
          outgoing.write(payload, () => outgoing.destroy());
        } else {
          outgoing.end(payload);
          response.finished = fault === undefined;
        }
        return;
      }
      outgoing.flushHeaders();
      let index = 0;
      const writeNext = (): void => {
        if (outgoing.destroyed) return;
        const event = events[index]!;
        index += 1;
        response.eventsSent = index;
        if (index < events.length) {
          outgoing.write(event);
          this.#timers.setTimeout(writeNext, chunkMs);
        } else if (destroyAtEnd) outgoing.write(event, () => outgoing.destroy());
        else {
          outgoing.end(event);
          response.finished = fault === undefined;
        }
      };
      if (events.length === 0) {
        if (destroyAtEnd) outgoing.destroy();
        else outgoing.end();
        return;
      }
      writeNext();
    });
  }

  #afterFirstByteDelay(outgoing: ServerResponse, latency: FakeLatency, send: () => void): void {
    const delay = latency.firstByteMs ?? 0;
    if (delay === 0) {
      send();
      return;
    }
    this.#timers.setTimeout(() => {
      if (!outgoing.destroyed) send();
    }, delay);
  }
}

/** Creates a fake Anthropic Messages API. Call `start()` (it resolves with the fake) before use. */
export function createFakeAnthropic(options: FakeAnthropicOptions = {}): FakeAnthropic {
  return new FakeAnthropic(options);
}

function parseBody(rawBody: string): MessagesRequestBody | undefined {
  if (rawBody === '') return undefined;
  try {
    const value: unknown = JSON.parse(rawBody);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as MessagesRequestBody)
      : undefined;
  } catch {
    return undefined;
  }
}

/** What the real API would reject with 400, in its own wording; undefined when fine. */
function validateRequestBody(request: RecordedRequest, endpoint: FakeEndpoint): string | undefined {
  if (request.anthropicVersion === undefined) return 'anthropic-version: header is required';
  const body = request.body;
  if (body === undefined)
    return 'There was an issue with the format of your request: the body is not a JSON object';
  if (typeof body.model !== 'string' || body.model === '') return 'model: Field required';
  if (!Array.isArray(body.messages)) return 'messages: Field required';
  if (endpoint === 'messages') {
    if (body.max_tokens === undefined) return 'max_tokens: Field required';
    if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) {
      return 'max_tokens: Input should be a positive integer';
    }
  }
  return undefined;
}

function checkTurnSource(
  source: unknown,
  path: string,
  code: 'TESTKIT_INVALID_TURN' | 'TESTKIT_INVALID_OPTIONS',
): TurnSource {
  if (typeof source === 'function') return source as TurnFunction;
  return validateTurn(source, path, code);
}

function checkFallback(fallback: unknown, path: string): FakeFallback {
  if (fallback === 'echo' || fallback === 'fail') return fallback;
  if (typeof fallback === 'string') {
    throw new TestkitError(
      'TESTKIT_INVALID_OPTIONS',
      `${path} must be "echo", "fail", a turn or a turn function (got ${JSON.stringify(fallback)})`,
      {
        details: { path },
      },
    );
  }
  return checkTurnSource(fallback, path, 'TESTKIT_INVALID_OPTIONS');
}

function positiveInteger(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new TestkitError(
      'TESTKIT_INVALID_OPTIONS',
      `options.${name} must be an integer >= 1 (got ${value})`,
      {
        details: { path: `options.${name}` },
      },
    );
  }
  return value;
}

function nonNegativeInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 0) {
    throw new TestkitError(
      'TESTKIT_INVALID_OPTIONS',
      `options.${name} must be an integer >= 0 (got ${value})`,
      {
        details: { path: `options.${name}` },
      },
    );
  }
  return value;
}

function isPromiseLike(value: unknown): value is PromiseLike<FakeTurn> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
