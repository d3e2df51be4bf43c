// @switchboard/memory: long-term memory for agents. Markdown files the agent writes with its
// normal file tools (MEMORY.md, memory/YYYY-MM-DD.md), an incremental SQLite FTS5 + vector
// index in the state directory, hybrid search and the memory_search / memory_get tools.
//
// The curated public API. Chunking, ranking, the database and the vector set are internals:
// this package's tests and bench import their module files.

// For the gateway: settings (from `memory.search`) and their defaults.
export { type ChunkingSettings, defaultChunkingSettings } from './chunker.ts';
// Embeddings providers.
export {
  createOllamaEmbeddings,
  createOpenAiCompatibleEmbeddings,
  type EmbeddingsProvider,
  type OllamaEmbeddingsOptions,
  type OpenAiCompatibleEmbeddingsOptions,
} from './embeddings.ts';
// Errors.
export { MemoryError, type MemoryErrorCode, memoryErrorCodes } from './errors.ts';
// For the gateway: one index per agent, its tools and its prompt text.
export {
  type MemoryExcerpt,
  type MemoryIndex,
  type MemoryIndexOptions,
  type MemorySearchOptions,
  type MemorySearchResponse,
  type MemorySearchResult,
  type MemoryStatus,
  openMemoryIndex,
  type SyncReport,
} from './memory-index.ts';
export {
  defaultSearchSettings,
  type HybridSettings,
  type MmrSettings,
  type SearchSettings,
  type TemporalDecaySettings,
} from './ranking.ts';
export { memoryRecallText, renderSessionMemory, type SessionMemoryOptions } from './session-memory.ts';
export { createMemoryTools } from './tools.ts';
