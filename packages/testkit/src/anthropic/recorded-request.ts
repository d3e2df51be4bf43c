// What the fake saw: one object per HTTP request, with the parsed body and the headers,
// plus what the fake answered, so tests assert exactly what the model was sent.
import type { IncomingHttpHeaders } from 'node:http';
import type { TestkitError } from '../shared/errors.ts';
import type { FakeFault, MessagesRequestBody, RequestMessage, RequestTool } from './types.ts';

/** Which API route a request hit. */
export type FakeEndpoint = 'messages' | 'count_tokens' | 'unknown';

/** What the fake answered to one request; updated while the answer is being written. */
export interface RecordedResponse {
  /** HTTP status sent, or undefined while no headers have gone out (pending, `hang`). */
  readonly status: number | undefined;
  /** The fault applied to this request, if any (a turn's own fault or an injected one). */
  readonly fault: FakeFault | undefined;
  /**
   * Where the answer came from: the script (`queue`), the `fallback`, an injected `fault`,
   * a rejection by the fake itself (`rejected`: validation, credentials, script failure,
   * unknown route), or `count_tokens`. Undefined until decided.
   */
  readonly source: 'queue' | 'fallback' | 'fault' | 'rejected' | 'count_tokens' | undefined;
  /** SSE events written so far (streaming answers only). */
  readonly eventsSent: number;
  /** True once the fake has written the whole answer (false for cut streams). */
  readonly finished: boolean;
  /** True when the client went away before the answer was complete (an abort, a timeout). */
  readonly clientClosedEarly: boolean;
  /** Set when a turn function failed or the script was exhausted with fallback "fail". */
  readonly error: TestkitError | undefined;
  /** True once the answer is complete, cut, or abandoned by the client. */
  readonly settled: boolean;
}

/** The mutable view the fake keeps of a {@link RecordedResponse}. */
export type MutableRecordedResponse = { -readonly [Key in keyof RecordedResponse]: RecordedResponse[Key] };

export interface RecordedRequestInit {
  readonly sequence: number;
  readonly method: string;
  readonly path: string;
  readonly endpoint: FakeEndpoint;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: string;
  readonly body: MessagesRequestBody | undefined;
  readonly receivedAt: number;
}

/** One request the fake received. */
export class RecordedRequest {
  /** 1-based position among every request this fake received. */
  readonly sequence: number;
  readonly method: string;
  /** The path without the query string, e.g. `/v1/messages`. */
  readonly path: string;
  readonly endpoint: FakeEndpoint;
  /** Request headers, lower-cased names, as Node parsed them. */
  readonly headers: IncomingHttpHeaders;
  /** The body exactly as received. */
  readonly rawBody: string;
  /** The parsed body, or undefined when it was not a JSON object. */
  readonly body: MessagesRequestBody | undefined;
  /** When the whole body had arrived, from the fake's `now()`. */
  readonly receivedAt: number;
  /** What the fake answered; fields change until the answer settles. */
  readonly response: RecordedResponse;

  constructor(init: RecordedRequestInit, response: RecordedResponse) {
    this.sequence = init.sequence;
    this.method = init.method;
    this.path = init.path;
    this.endpoint = init.endpoint;
    this.headers = init.headers;
    this.rawBody = init.rawBody;
    this.body = init.body;
    this.receivedAt = init.receivedAt;
    this.response = response;
  }

  /** The `x-api-key` header. */
  get apiKey(): string | undefined {
    return headerValue(this.headers['x-api-key']);
  }

  /** The token of an `Authorization: Bearer <token>` header. */
  get bearerToken(): string | undefined {
    const authorization = headerValue(this.headers.authorization);
    if (authorization === undefined) return undefined;
    return /^bearer\s+/i.test(authorization) ? authorization.replace(/^bearer\s+/i, '') : undefined;
  }

  /** The credential the request carried: the API key, else the bearer token. */
  get credential(): string | undefined {
    return this.apiKey ?? this.bearerToken;
  }

  /** The `anthropic-version` header. */
  get anthropicVersion(): string | undefined {
    return headerValue(this.headers['anthropic-version']);
  }

  /** The `anthropic-beta` header, split on commas. */
  get betas(): string[] {
    const beta = headerValue(this.headers['anthropic-beta']);
    if (beta === undefined || beta === '') return [];
    return beta.split(',').map((name) => name.trim());
  }

  get model(): string | undefined {
    return this.body?.model;
  }

  get maxTokens(): number | undefined {
    return this.body?.max_tokens;
  }

  get stream(): boolean {
    return this.body?.stream === true;
  }

  get system(): MessagesRequestBody['system'] {
    return this.body?.system;
  }

  /** The system prompt as one string (text blocks joined with blank lines). */
  get systemText(): string {
    const system = this.body?.system;
    if (system === undefined) return '';
    if (typeof system === 'string') return system;
    return system
      .map((block) => (typeof block.text === 'string' ? block.text : ''))
      .filter((text) => text !== '')
      .join('\n\n');
  }

  get messages(): readonly RequestMessage[] {
    return this.body?.messages ?? [];
  }

  get tools(): readonly RequestTool[] {
    return this.body?.tools ?? [];
  }

  get toolNames(): string[] {
    return this.tools.map((tool) => tool.name);
  }

  get thinking(): MessagesRequestBody['thinking'] {
    return this.body?.thinking;
  }

  /** The text of the last user message (text blocks joined), or undefined when there is none. */
  get lastUserText(): string | undefined {
    const messages = this.body?.messages;
    if (!Array.isArray(messages)) return undefined;
    for (let index = messages.length - 1; index >= 0; index -= 1) {
      const message = messages[index]!;
      if (message.role !== 'user') continue;
      return messageText(message);
    }
    return undefined;
  }

  /** Resolves once the answer is complete, cut, or abandoned by the client. */
  settled(): Promise<RecordedResponse> {
    if (this.response.settled) return Promise.resolve(this.response);
    return new Promise((resolve) => {
      const listeners = settledListeners.get(this);
      if (listeners === undefined) settledListeners.set(this, [resolve]);
      else listeners.push(resolve);
    });
  }

  /** A compact summary, handy in assertion messages. */
  toJSON(): Record<string, unknown> {
    return {
      sequence: this.sequence,
      method: this.method,
      path: this.path,
      body: this.body ?? this.rawBody,
      status: this.response.status,
    };
  }
}

const settledListeners = new WeakMap<RecordedRequest, Array<(response: RecordedResponse) => void>>();

/** Marks a request's answer settled and wakes whoever awaits `settled()`. For the fake only. */
export function settleRecordedRequest(request: RecordedRequest, response: MutableRecordedResponse): void {
  if (response.settled) return;
  response.settled = true;
  const listeners = settledListeners.get(request);
  if (listeners === undefined) return;
  settledListeners.delete(request);
  for (const listener of listeners) listener(response);
}

/** The text of a message: the string content, or its text blocks joined. */
export function messageText(message: RequestMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const block of content)
    if (block.type === 'text' && typeof block.text === 'string') text += block.text;
  return text;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  if (Array.isArray(value)) return value.join(', ');
  return value;
}
