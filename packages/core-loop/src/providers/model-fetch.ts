/**
 * The `fetch` the model SDKs use by default (Anthropic here, OpenAI-compatible and Ollama in
 * their packages): HTTP/1.1 over `node:http` and `node:https` with keep-alive agents, instead
 * of Node's built-in fetch. The built-in one is undici's WHATWG fetch: its request algorithm,
 * its WebAssembly HTTP parser and the web streams around the body cost about 300 µs of CPU
 * per streamed model request here, more than everything else the gateway does for a message
 * together (decision 0025). Node's own HTTP client parses with native llhttp.
 *
 * Contract: behaves as `fetch` for what the SDKs send — a URL string or `URL`, a method,
 * headers (a `Headers`, pairs or a record), a string or byte body, a signal. It resolves with
 * a `Response` once the headers arrive; its `body` is the response stream (a Node `Readable`:
 * async-iterable, which is how the SDKs read it, or through `getReader()`; decompressed when the
 * server compressed it),
 * with `text()`, `json()` and `arrayBuffer()`. It rejects with the signal's reason (an
 * `AbortError` by default) when aborted, before or during the body, and with
 * `TypeError('fetch failed', { cause })` when the connection fails. A request on a reused
 * keep-alive connection that the server reset before answering is sent once more on a new one
 * (the server closed it idle without reading the request). Anything else — a `Request` object,
 * a streamed or form body, another protocol, or an HTTP proxy in the environment
 * (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`) — goes to the built-in fetch unchanged.
 */
import type { Agent as HttpAgent, IncomingMessage } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

type Fetch = typeof globalThis.fetch;

/** `node:http` and `node:https` without the ES module facade (which reads every export at import). */
const http = process.getBuiltinModule('node:http');
const https = process.getBuiltinModule('node:https');

export interface ModelFetchOptions {
  /** Where requests this fetch does not handle go. Default `globalThis.fetch`. */
  readonly fallback?: Fetch;
  /** Read for proxy variables. Default `process.env`. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
}

const proxyVariables = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy'];

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

function requestHeaders(given: RequestInit['headers']): Record<string, string> {
  const headers: Record<string, string> = {};
  if (given === undefined) return headers;
  if (given instanceof Headers) {
    given.forEach((value, key) => {
      headers[key] = value;
    });
  } else if (Array.isArray(given)) {
    for (const [key, value] of given) if (key !== undefined && value !== undefined) headers[key] = value;
  } else {
    Object.assign(headers, given);
  }
  return headers;
}

/** The body as something `request.end` takes, or undefined when this fetch cannot send it. */
function requestBody(body: RequestInit['body']): string | Uint8Array | null | undefined {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (body instanceof URLSearchParams) return body.toString();
  return undefined;
}

function responseHeaders(response: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) headers.append(raw[index]!, raw[index + 1]!);
  return headers;
}

function decoded(response: IncomingMessage): Readable {
  switch (response.headers['content-encoding']?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return response.pipe(createGunzip());
    case 'deflate':
      return response.pipe(createInflate());
    case 'br':
      return response.pipe(createBrotliDecompress());
    default:
      return response;
  }
}

async function readAll(body: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The agents a fetch keeps its connections in. */
interface Agents {
  readonly http: HttpAgent;
  readonly https: HttpsAgent;
}

/**
 * The response body the SDKs iterate: the stream's chunks, its failures as the built-in fetch
 * reports them — the abort reason when aborted, otherwise `TypeError('terminated', { cause })`
 * (a connection cut mid-body), which the model error classifier reads as a network failure.
 */
async function* bodyOf(stream: Readable, signal: AbortSignal | null | undefined): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of stream) yield chunk as Buffer;
  } catch (error) {
    if (signal?.aborted === true) throw abortReason(signal);
    throw new TypeError('terminated', { cause: error });
  }
}

/**
 * The body: async-iterable (how the Anthropic and OpenAI SDKs read it), with the small part of
 * a web stream's reader API some clients use instead (Ollama's `getReader().read()`), and
 * `cancel()`. Each chunk is read once, whichever way.
 */
class ResponseBody implements AsyncIterable<Buffer> {
  readonly #chunks: AsyncGenerator<Buffer>;

  constructor(chunks: AsyncGenerator<Buffer>) {
    this.#chunks = chunks;
  }

  [Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    return this.#chunks;
  }

  getReader(): {
    read(): Promise<{ done: true; value: undefined } | { done: false; value: Buffer }>;
    cancel(): Promise<void>;
    releaseLock(): void;
  } {
    return {
      read: async () => {
        const next = await this.#chunks.next();
        return next.done === true ? { done: true, value: undefined } : { done: false, value: next.value };
      },
      cancel: () => this.cancel(),
      releaseLock: () => undefined,
    };
  }

  async cancel(): Promise<void> {
    await this.#chunks.return(undefined);
  }
}

/** What the SDKs read of a response; built on the Node stream, without web streams. */
class ModelResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly url: string;
  readonly redirected = false;
  readonly type = 'basic';
  readonly body: ResponseBody;
  #used = false;

  constructor(url: string, response: IncomingMessage, body: ResponseBody) {
    this.status = response.statusCode ?? 0;
    this.ok = this.status >= 200 && this.status < 300;
    this.statusText = response.statusMessage ?? '';
    this.headers = responseHeaders(response);
    this.url = url;
    this.body = body;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.#bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return (await this.#bytes()).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  clone(): never {
    throw new TypeError('A model response cannot be cloned; read it once.');
  }

  #bytes(): Promise<Buffer> {
    if (this.#used) return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
    this.#used = true;
    return readAll(this.body);
  }
}

function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | Uint8Array | null,
  signal: AbortSignal | null | undefined,
  agents: Agents,
  retried: boolean,
): Promise<ModelResponse> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(abortReason(signal));
      return;
    }
    const secure = url.protocol === 'https:';
    const request = (secure ? https : http).request(url, {
      method,
      headers,
      agent: secure ? agents.https : agents.http,
    });
    let response: IncomingMessage | undefined;
    let stream: Readable | undefined;
    let settled = false;
    const onAbort = (): void => {
      const reason = abortReason(signal!);
      if (response === undefined) {
        settled = true;
        reject(reason);
      }
      const error =
        reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
      request.destroy(error);
      response?.destroy(error);
      stream?.destroy(error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = (): void => signal?.removeEventListener('abort', onAbort);
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      done();
      // The server closed a kept-alive connection just as it was reused, without reading the
      // request: the one case sending again is certain not to repeat it.
      if (!retried && request.reusedSocket && error.code === 'ECONNRESET' && response === undefined) {
        send(url, method, headers, body, signal, agents, true).then(resolve, reject);
        return;
      }
      reject(new TypeError('fetch failed', { cause: error }));
    });
    request.on('response', (incoming) => {
      response = incoming;
      settled = true;
      stream = decoded(incoming);
      stream.once('close', done);
      resolve(new ModelResponse(url.href, incoming, new ResponseBody(bodyOf(stream, signal))));
    });
    request.end(body ?? undefined);
  });
}

export function createModelFetch(options: ModelFetchOptions = {}): Fetch {
  const fallback = options.fallback ?? ((input, init) => globalThis.fetch(input, init));
  const environment = options.environment ?? process.env;
  let agents: Agents | undefined;
  const modelFetch = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    if (typeof input !== 'string' && !(input instanceof URL)) return fallback(input, init);
    const url = typeof input === 'string' ? new URL(input) : input;
    const body = requestBody(init.body);
    if (
      body === undefined ||
      (url.protocol !== 'http:' && url.protocol !== 'https:') ||
      proxyVariables.some((name) => (environment[name] ?? '') !== '')
    ) {
      return fallback(input, init);
    }
    agents ??= {
      http: new http.Agent({ keepAlive: true, scheduling: 'lifo' }),
      https: new https.Agent({ keepAlive: true, scheduling: 'lifo' }),
    };
    const method = (init.method ?? 'GET').toUpperCase();
    // The structural type is what the SDKs read (see the contract above).
    return send(
      url,
      method,
      requestHeaders(init.headers),
      body,
      init.signal,
      agents,
      false,
    ) as unknown as Promise<Response>;
  };
  return modelFetch as Fetch;
}

let shared: Fetch | undefined;
/**
 * The fetch every model client without its own uses (the Anthropic provider, the OpenAI and
 * Ollama providers): one pool of kept-alive connections per process.
 */
export function defaultModelFetch(): Fetch {
  shared ??= createModelFetch();
  return shared;
}
