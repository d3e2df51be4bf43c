import { type ErrorCodeTable, SwitchboardError, type SwitchboardErrorOptions } from '@switchboard/hooks';

/** Codes of the errors this package throws. */
export type MemoryErrorCode =
  | 'MEMORY_INVALID_SETTINGS'
  | 'MEMORY_INVALID_ARGUMENT'
  | 'MEMORY_PATH_REFUSED'
  | 'MEMORY_FILE_NOT_FOUND'
  | 'MEMORY_EMBEDDINGS_FAILED'
  | 'MEMORY_INDEX_CLOSED';

/** Every `MemoryError` code with the sentence that documents it. */
export const memoryErrorCodes: ErrorCodeTable & Readonly<Record<MemoryErrorCode, string>> = {
  MEMORY_INVALID_SETTINGS:
    'A memory setting is out of range or inconsistent (chunk size, weights, half-life, an embeddings provider without a model, …). The message names the key path.',
  MEMORY_INVALID_ARGUMENT:
    'A memory_search or memory_get argument is malformed (an empty query, a line number below 1, …). The message names the argument.',
  MEMORY_PATH_REFUSED:
    'memory_get was asked for a path that is not a memory file: outside the workspace, through a symbolic link out of it, or not MEMORY.md, memory/**/*.md or a configured extra path.',
  MEMORY_FILE_NOT_FOUND: 'memory_get was asked for a memory file that does not exist.',
  MEMORY_EMBEDDINGS_FAILED:
    'The embeddings provider answered with an error, a malformed body or vectors of the wrong count or size. Search falls back to keyword-only and says so; indexing retries on the next sync.',
  MEMORY_INDEX_CLOSED: 'The memory index was used after close().',
};

/** An error of `@switchboard/memory`. */
export class MemoryError extends SwitchboardError<MemoryErrorCode> {
  constructor(code: MemoryErrorCode, message: string, options: SwitchboardErrorOptions = {}) {
    super(code, message, options);
  }
}
