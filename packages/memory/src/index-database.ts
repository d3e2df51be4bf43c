// The SQLite side of the memory index (Node's built-in node:sqlite): one database per agent
// in the state directory. Tables: `files` (path, content hash, mtime and size: what makes
// re-indexing incremental), `chunks` (line ranges, heading trail, text, hash), `chunks_fts`
// (contentless FTS5 over the keyword text, rowid = chunk id), `embeddings` (vectors keyed by
// model and chunk hash: the embedding cache) and `meta`.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Chunk } from './chunker.ts';
import { keywordText } from './text.ts';

const schemaVersion = '1';

const schema = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
  path TEXT PRIMARY KEY,
  hash TEXT NOT NULL,
  modified_ms REAL NOT NULL,
  size INTEGER NOT NULL,
  note_time INTEGER,
  indexed_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS chunks (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  heading TEXT NOT NULL,
  text TEXT NOT NULL,
  hash TEXT NOT NULL,
  note_time INTEGER
);
CREATE INDEX IF NOT EXISTS chunks_by_path ON chunks (path);
CREATE INDEX IF NOT EXISTS chunks_by_hash ON chunks (hash);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5 (
  body, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS embeddings (
  model TEXT NOT NULL,
  hash TEXT NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY (model, hash)
) WITHOUT ROWID;
`;

interface FileRecord {
  readonly path: string;
  readonly hash: string;
  readonly modifiedMs: number;
  readonly size: number;
}

interface ChunkRecord {
  readonly id: number;
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly heading: string;
  readonly text: string;
  readonly hash: string;
  readonly noteTime: number | undefined;
}

/** The statements the index runs, prepared once. */
export interface IndexDatabase {
  readonly database: DatabaseSync;
  getMeta(key: string): string | undefined;
  setMeta(key: string, value: string): void;
  file(path: string): FileRecord | undefined;
  filePaths(): string[];
  /** Runs `work` in one transaction (the writes inside it join it). */
  batch<Result>(work: () => Result): Result;
  /** Replaces a file's chunks in one transaction; returns the new chunk ids in chunk order. */
  replaceFile(
    file: FileRecord,
    noteTime: number | undefined,
    chunks: readonly Chunk[],
    now: number,
  ): number[];
  /** Updates the mtime and size of a file whose content did not change. */
  touchFile(file: FileRecord): void;
  /** Removes a file and its chunks; returns the removed chunk ids. */
  removeFile(path: string): number[];
  /** Drops every file record, so the next sync re-chunks every file. */
  forgetFiles(): void;
  keywordCandidates(query: string, limit: number): Map<number, number>;
  chunks(ids: readonly number[]): ChunkRecord[];
  counts(): { files: number; chunks: number };
  /** Chunks with no embedding under `model`: one row per distinct hash. */
  unembedded(model: string, limit: number): Array<{ hash: string; heading: string; text: string }>;
  countUnembedded(model: string): number;
  storeEmbedding(model: string, hash: string, vector: Float32Array): void;
  /** The cached embedding of a chunk hash under `model`, if any. */
  embedding(model: string, hash: string): Float32Array | undefined;
  chunkIdsWithHash(hash: string): number[];
  /** Every (chunk id, vector) embedded under `model`. */
  vectors(model: string): Array<{ id: number; vector: Float32Array }>;
  /** Removes cached embeddings of other models and those no chunk uses any more. */
  pruneEmbeddings(model: string): void;
  close(): void;
}

function toVector(blob: Uint8Array): Float32Array {
  const copy = new Uint8Array(blob);
  return new Float32Array(copy.buffer, 0, copy.byteLength / 4);
}

function ftsBody(chunk: Chunk): string {
  return keywordText(chunk.heading.length > 0 ? `${chunk.heading}\n${chunk.text}` : chunk.text);
}

export async function openIndexDatabase(path: string): Promise<IndexDatabase> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const { DatabaseSync } = await import('node:sqlite');
  const database = new DatabaseSync(path, { timeout: 5000 });
  database.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
  database.exec(schema);
  const statement = (sql: string): StatementSync => database.prepare(sql);
  const getMeta = statement('SELECT value FROM meta WHERE key = ?');
  const setMeta = statement(
    'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  );
  if (getMeta.get('schema_version') === undefined) setMeta.run('schema_version', schemaVersion);

  const selectFile = statement('SELECT path, hash, modified_ms, size FROM files WHERE path = ?');
  const selectFilePaths = statement('SELECT path FROM files ORDER BY path');
  const upsertFile = statement(
    `INSERT INTO files (path, hash, modified_ms, size, note_time, indexed_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (path) DO UPDATE SET hash = excluded.hash, modified_ms = excluded.modified_ms,
       size = excluded.size, note_time = excluded.note_time, indexed_at = excluded.indexed_at`,
  );
  const touchFile = statement('UPDATE files SET modified_ms = ?, size = ? WHERE path = ?');
  const deleteFile = statement('DELETE FROM files WHERE path = ?');
  const chunkIdsOfPath = statement('SELECT id FROM chunks WHERE path = ?');
  const deleteChunksOfPath = statement('DELETE FROM chunks WHERE path = ?');
  const deleteFts = statement('DELETE FROM chunks_fts WHERE rowid = ?');
  const insertChunk = statement(
    `INSERT INTO chunks (path, start_line, end_line, heading, text, hash, note_time) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertFts = statement('INSERT INTO chunks_fts (rowid, body) VALUES (?, ?)');
  const keyword = statement(
    'SELECT rowid AS id, bm25(chunks_fts) AS rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?',
  );
  const countFiles = statement('SELECT count(*) AS count FROM files');
  const countChunks = statement('SELECT count(*) AS count FROM chunks');
  const unembedded = statement(
    `SELECT c.hash AS hash, min(c.heading) AS heading, min(c.text) AS text FROM chunks c
     WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.model = ? AND e.hash = c.hash)
     GROUP BY c.hash LIMIT ?`,
  );
  const countUnembedded = statement(
    `SELECT count(DISTINCT c.hash) AS count FROM chunks c
     WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.model = ? AND e.hash = c.hash)`,
  );
  const insertEmbedding = statement(
    'INSERT OR REPLACE INTO embeddings (model, hash, vector) VALUES (?, ?, ?)',
  );
  const selectEmbedding = statement('SELECT vector FROM embeddings WHERE model = ? AND hash = ?');
  const idsWithHash = statement('SELECT id FROM chunks WHERE hash = ?');
  const vectors = statement(
    'SELECT c.id AS id, e.vector AS vector FROM chunks c JOIN embeddings e ON e.model = ? AND e.hash = c.hash',
  );
  const pruneOther = statement('DELETE FROM embeddings WHERE model <> ?');
  const pruneUnused = statement(
    'DELETE FROM embeddings WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.hash = embeddings.hash)',
  );

  let inTransaction = false;
  const transaction = <Result>(work: () => Result): Result => {
    if (inTransaction) return work();
    database.exec('BEGIN IMMEDIATE');
    inTransaction = true;
    try {
      const result = work();
      database.exec('COMMIT');
      return result;
    } catch (error) {
      database.exec('ROLLBACK');
      throw error;
    } finally {
      inTransaction = false;
    }
  };
  const removeChunks = (path: string): number[] => {
    const ids = chunkIdsOfPath.all(path).map((row) => Number(row.id));
    for (const id of ids) deleteFts.run(id);
    deleteChunksOfPath.run(path);
    return ids;
  };

  return {
    database,
    batch: transaction,
    getMeta: (key) => {
      const row = getMeta.get(key);
      return row === undefined ? undefined : String(row.value);
    },
    setMeta: (key, value) => void setMeta.run(key, value),
    file(path) {
      const row = selectFile.get(path);
      if (row === undefined) return undefined;
      return {
        path: String(row.path),
        hash: String(row.hash),
        modifiedMs: Number(row.modified_ms),
        size: Number(row.size),
      };
    },
    filePaths: () => selectFilePaths.all().map((row) => String(row.path)),
    replaceFile(file, noteTime, chunks, now) {
      return transaction(() => {
        removeChunks(file.path);
        const ids: number[] = [];
        for (const chunk of chunks) {
          const result = insertChunk.run(
            file.path,
            chunk.startLine,
            chunk.endLine,
            chunk.heading,
            chunk.text,
            chunk.hash,
            noteTime ?? null,
          );
          const id = Number(result.lastInsertRowid);
          insertFts.run(id, ftsBody(chunk));
          ids.push(id);
        }
        upsertFile.run(file.path, file.hash, file.modifiedMs, file.size, noteTime ?? null, now);
        return ids;
      });
    },
    touchFile: (file) => void touchFile.run(file.modifiedMs, file.size, file.path),
    removeFile(path) {
      return transaction(() => {
        const ids = removeChunks(path);
        deleteFile.run(path);
        return ids;
      });
    },
    forgetFiles: () => void database.exec('DELETE FROM files'),
    keywordCandidates(query, limit) {
      const rows = keyword.all(query, limit);
      return new Map(rows.map((row) => [Number(row.id), Number(row.rank)]));
    },
    chunks(ids) {
      if (ids.length === 0) return [];
      const rows = database
        .prepare(
          `SELECT id, path, start_line, end_line, heading, text, hash, note_time FROM chunks WHERE id IN (${ids.map(() => '?').join(',')})`,
        )
        .all(...ids);
      return rows.map((row) => ({
        id: Number(row.id),
        path: String(row.path),
        startLine: Number(row.start_line),
        endLine: Number(row.end_line),
        heading: String(row.heading),
        text: String(row.text),
        hash: String(row.hash),
        noteTime: row.note_time === null ? undefined : Number(row.note_time),
      }));
    },
    counts: () => ({
      files: Number(countFiles.get()?.count ?? 0),
      chunks: Number(countChunks.get()?.count ?? 0),
    }),
    unembedded: (model, limit) =>
      unembedded.all(model, limit).map((row) => ({
        hash: String(row.hash),
        heading: String(row.heading),
        text: String(row.text),
      })),
    countUnembedded: (model) => Number(countUnembedded.get(model)?.count ?? 0),
    storeEmbedding: (model, hash, vector) =>
      void insertEmbedding.run(
        model,
        hash,
        new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength),
      ),
    embedding(model, hash) {
      const row = selectEmbedding.get(model, hash);
      return row === undefined ? undefined : toVector(row.vector as Uint8Array);
    },
    chunkIdsWithHash: (hash) => idsWithHash.all(hash).map((row) => Number(row.id)),
    vectors: (model) =>
      vectors.all(model).map((row) => ({ id: Number(row.id), vector: toVector(row.vector as Uint8Array) })),
    pruneEmbeddings(model) {
      pruneOther.run(model);
      pruneUnused.run();
    },
    close: () => database.close(),
  };
}
