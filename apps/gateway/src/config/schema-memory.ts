// Config of long-term memory (`memory`, and OpenClaw's older `agents.defaults.memorySearch`
// as an alias of `memory.search`): @switchboard/memory, decision 0018. Key names follow
// OpenClaw's `memory.search.*`. No defaults in the schema: `resolveMemoryConfig` applies them
// after merging the alias under `memory.search`, so the newer key wins key by key.
import { z } from 'zod';

const hybridSchema = z.strictObject({
  /** Weight of cosine similarity in the merged score (default 0.7). */
  vectorWeight: z.number().min(0).max(1).optional(),
  /** Weight of the keyword (BM25) score (default 0.3). */
  textWeight: z.number().min(0).max(1).optional(),
  /** Each side fetches maxResults × this many candidates (default 4). */
  candidateMultiplier: z.number().int().min(1).max(20).optional(),
  mmr: z
    .strictObject({ enabled: z.boolean().optional(), lambda: z.number().min(0).max(1).optional() })
    .optional(),
  temporalDecay: z
    .strictObject({ enabled: z.boolean().optional(), halfLifeDays: z.number().positive().optional() })
    .optional(),
});

/** `memory.search` (and `agents.defaults.memorySearch`). */
export const memorySearchConfigSchema = z.strictObject({
  /** false removes memory_search, memory_get and the memory prompt section (default true). */
  enabled: z.boolean().optional(),
  /**
   * Embeddings for hybrid search: `none` (default: keyword-only), `openai` (api.openai.com or
   * `remote.baseUrl`), `openai-compatible` (any /v1/embeddings server: LM Studio, vLLM,
   * llama.cpp, Ollama's /v1; needs `remote.baseUrl`) or `ollama` (native /api/embed).
   */
  provider: z.enum(['none', 'openai', 'openai-compatible', 'ollama']).optional(),
  /** The embeddings model (default text-embedding-3-small for openai, nomic-embed-text for ollama). */
  model: z.string().min(1).optional(),
  remote: z
    .strictObject({
      baseUrl: z.url().optional(),
      apiKey: z.string().min(1).optional(),
      headers: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  /** Ask the provider for vectors of this length (models that support it). */
  dimensions: z.number().int().positive().optional(),
  /** Texts per embeddings request (default 64). */
  batchSize: z.number().int().min(1).max(2048).optional(),
  /** More Markdown files or folders to index (relative to the workspace, or absolute). */
  extraPaths: z.array(z.string().min(1)).optional(),
  chunking: z
    .strictObject({
      tokens: z.number().int().min(32).max(8192).optional(),
      overlap: z.number().int().min(0).optional(),
    })
    .optional(),
  query: z
    .strictObject({
      maxResults: z.number().int().min(1).max(50).optional(),
      minScore: z.number().min(0).max(1).optional(),
      hybrid: hybridSchema.optional(),
    })
    .optional(),
  sync: z
    .strictObject({
      /** Watch the memory files and re-index changes (default true). */
      watch: z.boolean().optional(),
      watchDebounceMs: z.number().int().nonnegative().optional(),
    })
    .optional(),
});

/** The `memory` section. */
export const memoryConfigSchema = z.strictObject({
  search: memorySearchConfigSchema.optional(),
  /** Most characters of MEMORY.md put in the system prompt (default 8000; 0 leaves it out). */
  maxPromptChars: z.number().int().nonnegative().optional(),
});

export type MemorySearchConfig = z.infer<typeof memorySearchConfigSchema>;
