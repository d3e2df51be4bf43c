import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeEmbeddings, type FakeEmbeddings } from '@switchboard/testkit/embeddings';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createOllamaEmbeddings,
  createOpenAiCompatibleEmbeddings,
  type EmbeddingsProvider,
} from '../src/embeddings.ts';
import { type MemoryIndex, openMemoryIndex } from '../src/memory-index.ts';

let root: string;
let workspace: string;
let fake: FakeEmbeddings;
const opened: MemoryIndex[] = [];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'memory-embeddings-'));
  workspace = join(root, 'workspace');
  await mkdir(join(workspace, 'memory'), { recursive: true });
  fake = createFakeEmbeddings({
    dimensions: 128,
    models: ['nomic-embed-text', 'text-embedding-3-small', 'mxbai-embed-large'],
    concepts: { car: 'vehicle', automobile: 'vehicle', vehicle: 'vehicle', sedan: 'vehicle' },
  });
  await fake.start();
});

afterEach(async () => {
  for (const index of opened.splice(0)) await index.close();
  await fake.close();
  await rm(root, { recursive: true, force: true });
});

async function open(embeddings: EmbeddingsProvider): Promise<MemoryIndex> {
  const index = await openMemoryIndex({
    workspaceDir: workspace,
    databasePath: join(root, 'state', 'memory.sqlite'),
    watch: false,
    embeddings,
    embeddingBatchSize: 4,
  });
  opened.push(index);
  return index;
}

async function writeNotes(): Promise<void> {
  await writeFile(
    join(workspace, 'MEMORY.md'),
    '# Garage\n\nThe blue sedan needs new tyres before winter.\n',
  );
  for (let day = 1; day <= 9; day++)
    await writeFile(
      join(workspace, 'memory', `2026-11-0${day}.md`),
      `# Day ${day}\n\nNotes about the garden, bed ${day}.\n`,
    );
}

describe('hybrid search with embeddings', () => {
  it('finds a note by meaning through the openai SDK (OpenAI-compatible /v1/embeddings)', async () => {
    await writeNotes();
    const index = await open(
      createOpenAiCompatibleEmbeddings({
        baseUrl: `${fake.baseURL}/v1`,
        model: 'text-embedding-3-small',
        maxRetries: 0,
      }),
    );
    await index.whenIdle();
    expect(index.status()).toMatchObject({
      mode: 'hybrid',
      embeddings: { embeddedChunks: 10, pendingChunks: 0 },
    });
    // Batched: 10 chunks in requests of at most 4 texts.
    expect(
      fake.requests
        .filter((request) => request.inputs.length > 1)
        .every((request) => request.inputs.length <= 4),
    ).toBe(true);
    // "automobile" shares no word with the note; the vectors (car ~ sedan ~ automobile) find it.
    const response = await index.search('automobile', { minScore: 0.2 });
    expect(response.mode).toBe('hybrid');
    expect(response.results[0]?.path).toBe('MEMORY.md');
    expect(response.results[0]?.vectorScore).toBeGreaterThan(0);
    expect(response.results[0]?.textScore).toBe(0);
  });

  it('works with Ollama native /api/embed, even when the base URL ends in /v1', async () => {
    await writeNotes();
    const index = await open(
      createOllamaEmbeddings({ baseUrl: `${fake.baseURL}/v1`, model: 'nomic-embed-text' }),
    );
    await index.whenIdle();
    expect(fake.requests.every((request) => request.protocol === 'ollama' && request.status === 200)).toBe(
      true,
    );
    expect((await index.search('automobile', { minScore: 0.2 })).results[0]?.path).toBe('MEMORY.md');
  });

  it('embeds only changed chunks (cache by content hash) and re-embeds everything for a new model', async () => {
    await writeNotes();
    const first = await open(createOllamaEmbeddings({ baseUrl: fake.baseURL, model: 'nomic-embed-text' }));
    await first.whenIdle();
    expect(fake.embeddedTexts).toBe(10);
    await first.close();

    await writeFile(
      join(workspace, 'memory', '2026-11-03.md'),
      '# Day 3\n\nThe car is booked for service on Friday.\n',
    );
    const second = await open(createOllamaEmbeddings({ baseUrl: fake.baseURL, model: 'nomic-embed-text' }));
    await second.whenIdle();
    expect(fake.embeddedTexts).toBe(11);
    await second.close();

    const third = await open(createOllamaEmbeddings({ baseUrl: fake.baseURL, model: 'mxbai-embed-large' }));
    await third.whenIdle();
    expect(fake.embeddedTexts).toBe(21);
    expect(fake.requests.at(-1)?.model).toBe('mxbai-embed-large');
    expect(third.status()).toMatchObject({
      embeddings: { model: 'mxbai-embed-large', embeddedChunks: 10, pendingChunks: 0 },
    });
  });

  it('falls back to keyword-only and says why when the provider fails', async () => {
    await writeNotes();
    fake.failing = true;
    const index = await open(
      createOpenAiCompatibleEmbeddings({
        baseUrl: `${fake.baseURL}/v1`,
        model: 'text-embedding-3-small',
        maxRetries: 0,
      }),
    );
    await index.whenIdle();
    const status = index.status();
    expect(status.mode).toBe('keyword');
    expect(status.embeddings?.lastError).toMatch(/openai embeddings provider failed/);
    const response = await index.search('sedan tyres');
    expect(response).toMatchObject({ mode: 'keyword', note: expect.stringContaining('keyword-only') });
    expect(response.results[0]?.path).toBe('MEMORY.md');
  });

  it('reports an unknown model as MEMORY_EMBEDDINGS_FAILED naming the model', async () => {
    const provider = createOllamaEmbeddings({ baseUrl: fake.baseURL, model: 'no-such-model' });
    await expect(provider.embed(['x'])).rejects.toMatchObject({
      code: 'MEMORY_EMBEDDINGS_FAILED',
      message: expect.stringContaining('no-such-model'),
    });
  });
});
