// Embeddings clients. Two wire protocols cover the servers people run: the OpenAI-compatible
// `POST /v1/embeddings` (OpenAI, LM Studio, vLLM, llama.cpp, Ollama's /v1) through the
// official `openai` SDK, and Ollama's native `POST /api/embed` through the official `ollama`
// library. Both SDKs are imported on first use, so a gateway without embeddings never loads them.
import type { Ollama } from 'ollama';
import type { OpenAI } from 'openai';
import { MemoryError } from './errors.ts';

/**
 * A source of text embeddings. Contract: `embed` returns one vector per input text, in
 * order, all of the same length; it throws `MEMORY_EMBEDDINGS_FAILED` (or any error, which
 * the index treats the same) when the provider fails. `id` and `model` name the vector
 * space: vectors made under another id or model are never compared with these.
 */
export interface EmbeddingsProvider {
  /** The provider kind, for status lines (`openai`, `ollama`, …). */
  readonly id: string;
  readonly model: string;
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

export interface OpenAiCompatibleEmbeddingsOptions {
  readonly model: string;
  /** The API root including `/v1` (default `https://api.openai.com/v1`). */
  readonly baseUrl?: string;
  /** The bearer key; local servers usually accept any value (default `"none"`). */
  readonly apiKey?: string;
  /** Asks the server for shorter vectors (OpenAI text-embedding-3 models). */
  readonly dimensions?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** Per-request timeout (default 60 s). */
  readonly timeoutMs?: number;
  /** Retries of a failed request by the SDK (default 2). */
  readonly maxRetries?: number;
}

function failure(provider: string, model: string, error: unknown): MemoryError {
  if (error instanceof MemoryError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new MemoryError(
    'MEMORY_EMBEDDINGS_FAILED',
    `The ${provider} embeddings provider failed for model "${model}": ${reason}`,
    { cause: error, details: { provider, model } },
  );
}

function checkVectors(
  provider: string,
  model: string,
  count: number,
  vectors: Float32Array[],
): Float32Array[] {
  if (vectors.length !== count) {
    throw new MemoryError(
      'MEMORY_EMBEDDINGS_FAILED',
      `The ${provider} embeddings provider returned ${vectors.length} vectors for ${count} texts (model "${model}").`,
      { details: { provider, model } },
    );
  }
  const size = vectors[0]?.length ?? 0;
  if (vectors.some((vector) => vector.length !== size || vector.length === 0)) {
    throw new MemoryError(
      'MEMORY_EMBEDDINGS_FAILED',
      `The ${provider} embeddings provider returned empty vectors or vectors of different sizes (model "${model}").`,
      { details: { provider, model } },
    );
  }
  return vectors;
}

/** Embeddings through an OpenAI-compatible `/v1/embeddings` endpoint (the `openai` SDK). */
export function createOpenAiCompatibleEmbeddings(
  options: OpenAiCompatibleEmbeddingsOptions,
): EmbeddingsProvider {
  if (options.model.trim() === '')
    throw new MemoryError(
      'MEMORY_INVALID_SETTINGS',
      'memory.search.model: an embeddings model name is required.',
    );
  let clientPromise: Promise<OpenAI> | undefined;
  const client = (): Promise<OpenAI> => {
    clientPromise ??= import('openai').then(
      (module) =>
        new module.OpenAI({
          apiKey: options.apiKey ?? 'none',
          baseURL: options.baseUrl ?? 'https://api.openai.com/v1',
          timeout: options.timeoutMs ?? 60_000,
          maxRetries: options.maxRetries ?? 2,
          defaultHeaders: options.headers === undefined ? undefined : { ...options.headers },
        }),
    );
    return clientPromise;
  };
  return {
    id: 'openai',
    model: options.model,
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      try {
        const response = await (await client()).embeddings.create(
          {
            model: options.model,
            input: [...texts],
            dimensions: options.dimensions,
          },
          signal === undefined ? {} : { signal },
        );
        const ordered = [...response.data].sort((left, right) => left.index - right.index);
        return checkVectors(
          'openai',
          options.model,
          texts.length,
          ordered.map((item) => Float32Array.from(item.embedding)),
        );
      } catch (error) {
        throw failure('openai', options.model, error);
      }
    },
  };
}

export interface OllamaEmbeddingsOptions {
  readonly model: string;
  /** The Ollama server (default `http://127.0.0.1:11434`); a trailing `/v1` or `/api` is dropped. */
  readonly baseUrl?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Asks the server for shorter vectors (models that support it). */
  readonly dimensions?: number;
}

/** Embeddings through Ollama's native `/api/embed` (the `ollama` library). */
export function createOllamaEmbeddings(options: OllamaEmbeddingsOptions): EmbeddingsProvider {
  if (options.model.trim() === '')
    throw new MemoryError(
      'MEMORY_INVALID_SETTINGS',
      'memory.search.model: an embeddings model name is required.',
    );
  const host = (options.baseUrl ?? 'http://127.0.0.1:11434').replace(/\/+$/, '').replace(/\/(v1|api)$/, '');
  let clientPromise: Promise<Ollama> | undefined;
  const client = (): Promise<Ollama> => {
    clientPromise ??= import('ollama').then(
      (module) =>
        new module.Ollama({
          host,
          headers: options.headers === undefined ? undefined : { ...options.headers },
        }),
    );
    return clientPromise;
  };
  return {
    id: 'ollama',
    model: options.model,
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      signal?.throwIfAborted();
      try {
        const response = await (await client()).embed({
          model: options.model,
          input: [...texts],
          dimensions: options.dimensions,
        });
        return checkVectors(
          'ollama',
          options.model,
          texts.length,
          response.embeddings.map((vector) => Float32Array.from(vector)),
        );
      } catch (error) {
        throw failure('ollama', options.model, error);
      }
    },
  };
}
