// A fake embeddings server on 127.0.0.1 speaking both wire protocols memory search uses:
// OpenAI's `POST /v1/embeddings` (float or base64 vectors, as the `openai` SDK asks) and
// Ollama's native `POST /api/embed`. Vectors are deterministic: a hashed bag of words (function
// words left out), so texts that share words are similar; `concepts` maps several words to one (synonyms), so a test can
// show vector search finding a note that shares no keyword with the query.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { TestkitError } from '../shared/errors.ts';
import { closeServer, listenOnLoopback, readBody } from '../shared/http-server.ts';

export interface FakeEmbeddingsOptions {
  /** Vector length (default 64). */
  readonly dimensions?: number;
  /** Models the server knows; another model name gets a 404 (default: any model). */
  readonly models?: readonly string[];
  /** Word → concept: every word of a concept lands on the same component (lower-case words). */
  readonly concepts?: Readonly<Record<string, string>>;
}

/** One embeddings request the fake answered (or refused). */
export interface EmbeddingsRequestRecord {
  readonly protocol: 'openai' | 'ollama';
  readonly model: string;
  readonly inputs: readonly string[];
  readonly status: number;
}

export interface FakeEmbeddings {
  start(): Promise<void>;
  close(): Promise<void>;
  /** `http://127.0.0.1:<port>`; the OpenAI-compatible API is under `/v1`. */
  readonly baseURL: string;
  readonly requests: readonly EmbeddingsRequestRecord[];
  /** Total texts embedded (every input of every answered request). */
  readonly embeddedTexts: number;
  /** While true every request fails with HTTP 503 (a server that is down or loading). */
  failing: boolean;
  /** The vector the fake gives a text (unit length), to compute expected similarities. */
  vectorOf(text: string): number[];
}

let segmenter: Intl.Segmenter | undefined;

/** Function words carry no meaning a real embeddings model would weigh; the fake skips them. */
const functionWords = new Set(
  'a an and are as at be by do does for from has have how i in is it its of on or s that the this to was we were what when where which who why with you your'.split(
    ' ',
  ),
);

function wordsOf(text: string): string[] {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'word' });
  const found: string[] = [];
  for (const segment of segmenter.segment(text)) {
    if (segment.isWordLike !== true) continue;
    // "Alice's" counts as "alice", as a tokenizer with subwords would see it.
    const word = segment.segment.toLowerCase().replace(/['’]s$/, '');
    if (!functionWords.has(word)) found.push(word);
  }
  return found;
}

export function createFakeEmbeddings(options: FakeEmbeddingsOptions = {}): FakeEmbeddings {
  const dimensions = options.dimensions ?? 64;
  if (!Number.isInteger(dimensions) || dimensions < 2 || dimensions > 4096)
    throw new TestkitError(
      'TESTKIT_INVALID_OPTIONS',
      'fake embeddings: dimensions must be an integer from 2 to 4096',
    );
  const concepts = options.concepts ?? {};
  const requests: EmbeddingsRequestRecord[] = [];
  let embeddedTexts = 0;
  let port: number | undefined;
  let closed = false;

  function vectorOf(text: string): number[] {
    const vector = new Array<number>(dimensions).fill(0);
    for (const word of wordsOf(text)) {
      const key = concepts[word] ?? word;
      const digest = createHash('sha256').update(key).digest();
      const slot = digest.readUInt32BE(0) % dimensions;
      vector[slot]! += digest[4]! & 1 ? 1 : -1;
    }
    const length = Math.hypot(...vector);
    return length === 0 ? vector : vector.map((value) => value / length);
  }

  function send(response: ServerResponse, status: number, body: unknown): void {
    const text = JSON.stringify(body);
    response.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    response.end(text);
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const protocol = path === '/v1/embeddings' ? 'openai' : path === '/api/embed' ? 'ollama' : undefined;
    if (request.method !== 'POST' || protocol === undefined) {
      send(response, 404, { error: `fake embeddings: no route ${request.method} ${path}` });
      return;
    }
    const body = await readBody(request, 10 * 1024 * 1024);
    if (body.type !== 'body') {
      send(response, 413, { error: 'fake embeddings: body too large or aborted' });
      return;
    }
    let parsed: { model?: unknown; input?: unknown; encoding_format?: unknown };
    try {
      parsed = JSON.parse(body.text) as typeof parsed;
    } catch {
      send(response, 400, { error: 'fake embeddings: the body is not JSON' });
      return;
    }
    const model = typeof parsed.model === 'string' ? parsed.model : '';
    const inputs =
      typeof parsed.input === 'string' ? [parsed.input] : Array.isArray(parsed.input) ? parsed.input : [];
    const record = (status: number): void => {
      requests.push({ protocol, model, inputs: inputs.map(String), status });
    };
    if (service.failing) {
      record(503);
      send(
        response,
        503,
        protocol === 'openai'
          ? { error: { message: 'fake embeddings: unavailable', type: 'server_error' } }
          : { error: 'fake embeddings: unavailable' },
      );
      return;
    }
    if (model === '' || (options.models !== undefined && !options.models.includes(model))) {
      record(404);
      const message = `model "${model}" not found`;
      send(
        response,
        404,
        protocol === 'openai'
          ? { error: { message, type: 'invalid_request_error', code: 'model_not_found' } }
          : { error: `${message}, try pulling it first` },
      );
      return;
    }
    if (inputs.length === 0 || inputs.some((input) => typeof input !== 'string')) {
      record(400);
      send(
        response,
        400,
        protocol === 'openai'
          ? {
              error: {
                message: 'input must be a string or an array of strings',
                type: 'invalid_request_error',
              },
            }
          : { error: 'input must be a string or an array of strings' },
      );
      return;
    }
    record(200);
    embeddedTexts += inputs.length;
    const vectors = (inputs as string[]).map(vectorOf);
    if (protocol === 'ollama') {
      send(response, 200, {
        model,
        embeddings: vectors,
        total_duration: 1,
        load_duration: 0,
        prompt_eval_count: inputs.length,
      });
      return;
    }
    const base64 = parsed.encoding_format === 'base64';
    send(response, 200, {
      object: 'list',
      model,
      data: vectors.map((vector, index) => ({
        object: 'embedding',
        index,
        embedding: base64 ? Buffer.from(Float32Array.from(vector).buffer).toString('base64') : vector,
      })),
      usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
    });
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, { error: String(error) });
      else response.destroy();
    });
  });

  const service: FakeEmbeddings = {
    failing: false,
    async start() {
      if (closed) throw new TestkitError('TESTKIT_CLOSED', 'fake embeddings: start() after close()');
      port = await listenOnLoopback(server);
    },
    async close() {
      closed = true;
      await closeServer(server);
    },
    get baseURL() {
      if (port === undefined)
        throw new TestkitError(
          'TESTKIT_NOT_STARTED',
          'fake embeddings: baseURL read before start() resolved',
        );
      return `http://127.0.0.1:${port}`;
    },
    get requests() {
      return requests;
    },
    get embeddedTexts() {
      return embeddedTexts;
    },
    vectorOf,
  };
  return service;
}
