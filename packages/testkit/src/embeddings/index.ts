// @switchboard/testkit/embeddings: a fake embeddings server (OpenAI-compatible /v1/embeddings
// and Ollama's /api/embed) for memory search tests and benches, driven by the real `openai`
// and `ollama` client libraries through their base URL.

export {
  createFakeEmbeddings,
  type EmbeddingsRequestRecord,
  type FakeEmbeddings,
  type FakeEmbeddingsOptions,
} from './fake-embeddings.ts';
