// A fake Anthropic Messages API on a real HTTP server (127.0.0.1, port 0). The real
// `@anthropic-ai/sdk` talks to it through `baseURL`. It answers scripted turns (a queue, a
// function of the request, or a fallback), records every request, and fails on demand.
//
// Zero-latency answers are written with a single `end()` and no timers, so benches can push
// thousands of turns per second through it.
//
// This module is the public handle and the request path (record, checks, faults, the next
// turn); beside it: `responses.ts` writes the answers, `request-checks.ts` reads bodies and
// options, `turns.ts` compiles turns, `faults.ts` resolves faults, `recorded-request.ts`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { TestkitError } from '../shared/errors.ts';
import { addFaultRule } from '../shared/fault-rule.ts';
import { closeServer, listenOnLoopback, readBody } from '../shared/http-server.ts';
import { type ConditionWaiter, createConditionWaiter } from '../shared/waiter.ts';
import type {
  FakeAnthropicOptions,
  FakeFallback,
  FakeTimers,
  FaultRule,
  FaultRuleOptions,
  TurnSource,
  WaitOptions,
} from './fake-anthropic-types.ts';
import { errorBody, isHttpFault, validateFault } from './faults.ts';
import {
  type FakeEndpoint,
  type MutableRecordedResponse,
  RecordedRequest,
  settleRecordedRequest,
} from './recorded-request.ts';
import {
  checkFallback,
  checkTurnSource,
  isPromiseLike,
  nonNegativeInteger,
  parseBody,
  positiveInteger,
  validateRequestBody,
} from './request-checks.ts';
import { AnthropicResponses, jsonContentType } from './responses.ts';
import { estimateTokens } from './tokens.ts';
import { compileTurn, renderMessageJson, validateLatency, validateTurn } from './turns.ts';
import type { FakeFault, FakeLatency, FakeTurn, MessagesRequestBody } from './types.ts';

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

const noLatency: FakeLatency = {};

export type {
  FakeAnthropicOptions,
  FakeFallback,
  FakeTimers,
  FaultRule,
  FaultRuleOptions,
  TurnFunction,
  TurnSource,
  WaitOptions,
} from './fake-anthropic-types.ts';

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
  readonly #responses: AnthropicResponses;
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
    this.#responses = new AnthropicResponses(this.#timers, this.#countTokens);
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
      this.#responses.reject(
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
      this.#responses.reject(
        outgoing,
        response,
        requestId,
        404,
        'not_found_error',
        `Not found: ${method} ${path}`,
      );
      return;
    }
    if (this.#validateRequests) {
      const problem = validateRequestBody(request, endpoint);
      if (problem !== undefined) {
        this.#responses.reject(outgoing, response, requestId, 400, 'invalid_request_error', problem);
        return;
      }
    }
    if (this.#acceptedCredentials !== undefined) {
      const credential = request.credential;
      if (credential === undefined || !this.#acceptedCredentials.has(credential)) {
        this.#responses.reject(
          outgoing,
          response,
          requestId,
          401,
          'authentication_error',
          'invalid x-api-key',
        );
        return;
      }
    }
    const ruleFault = this.#rules.length === 0 ? undefined : this.#takeRuleFault(request);
    if (ruleFault !== undefined && (isHttpFault(ruleFault) || ruleFault.type === 'hang')) {
      response.source = 'fault';
      this.#responses.sendFault(outgoing, response, request, requestId, ruleFault, this.#latency);
      return;
    }
    const parsedBody = body as MessagesRequestBody;
    if (endpoint === 'count_tokens') {
      const json = `{"input_tokens":${this.#countTokens(parsedBody)}}`;
      response.source = 'count_tokens';
      if (ruleFault !== undefined) {
        response.fault = ruleFault;
        this.#responses.sendBrokenJson(outgoing, response, requestId, ruleFault, json);
        return;
      }
      this.#responses.sendJson(outgoing, response, requestId, json, this.#latency);
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
      this.#responses.sendFault(outgoing, response, request, requestId, fault, latency);
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
      this.#responses.sendStream(outgoing, response, requestId, compiled, latency, fault);
      return;
    }
    const json = renderMessageJson(compiled);
    if (fault !== undefined) {
      this.#responses.sendBrokenJson(outgoing, response, requestId, fault, json);
      return;
    }
    this.#responses.sendJson(outgoing, response, requestId, json, latency);
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
    this.#responses.reject(
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
}

/** Creates a fake Anthropic Messages API. Call `start()` (it resolves with the fake) before use. */
export function createFakeAnthropic(options: FakeAnthropicOptions = {}): FakeAnthropic {
  return new FakeAnthropic(options);
}
