// The memory index of one agent: keeps the SQLite index in step with the Markdown files
// (start-up sync of what changed, then a file watcher with a debounce), embeds new chunks in
// the background when a provider is configured, and answers hybrid searches and bounded reads.
//
// A query never scans the files: it syncs only the paths the watcher reported since the last
// sync (usually none), runs one FTS5 MATCH and one in-memory cosine pass over the vectors.
import { createHash } from 'node:crypto';
import { type FSWatcher, watch } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, sep } from 'node:path';
import { type Logger, noopLogger } from '@switchboard/hooks';
import { type Chunker, type ChunkingSettings, defaultChunkingSettings, loadChunker } from './chunker.ts';
import type { EmbeddingsProvider } from './embeddings.ts';
import { MemoryError } from './errors.ts';
import { type IndexDatabase, openIndexDatabase } from './index-database.ts';
import {
  absolutePath,
  displayPath,
  isMemoryFile,
  listMarkdownFiles,
  type MemoryLocations,
  memoryDirectoryName,
  memoryFileName,
  memoryRoots,
  noteDate,
  resolveLocations,
} from './memory-files.ts';
import {
  coverage,
  defaultSearchSettings,
  keywordScore,
  mergeCandidates,
  mmrRerank,
  recencyFactor,
  type SearchSettings,
} from './ranking.ts';
import { keywordQuery, words } from './text.ts';
import { createVectorSet, normalize } from './vector-set.ts';

export interface MemoryIndexOptions {
  /** The agent workspace holding MEMORY.md and memory/. */
  readonly workspaceDir: string;
  /** The SQLite file of this agent's index (in the state directory, never the workspace). */
  readonly databasePath: string;
  /** Extra Markdown files or folders to index (relative to the workspace, or absolute). */
  readonly extraPaths?: readonly string[];
  readonly chunking?: ChunkingSettings;
  readonly search?: SearchSettings;
  /** Vectors for hybrid search; without it search is keyword-only and says so. */
  readonly embeddings?: EmbeddingsProvider;
  /** Texts per embeddings request (default 64). */
  readonly embeddingBatchSize?: number;
  /** Watch the files and re-index changes (default true). */
  readonly watch?: boolean;
  /**
   * How long a search waits for chunks being embedded right now (default 3000 ms): the first
   * search after a change or a start-up finds the new notes by meaning too. Past it the search
   * goes on with the vectors it has and says how many chunks are still pending.
   */
  readonly embeddingWaitMs?: number;
  /** Quiet time after a change before the watcher re-indexes (default 1500 ms). */
  readonly watchDebounceMs?: number;
  readonly now?: () => number;
  readonly logger?: Logger;
}

/** What one sync did. */
export interface SyncReport {
  /** Files looked at (stat). */
  readonly checked: number;
  /** Files read and re-chunked because their content changed. */
  readonly indexed: number;
  /** Files removed from the index because they are gone. */
  readonly removed: number;
  readonly durationMs: number;
}

export interface MemorySearchOptions {
  readonly maxResults?: number;
  readonly minScore?: number;
  readonly signal?: AbortSignal;
}

export interface MemorySearchResult {
  /** `path#start-end`, what the agent cites and passes to memory_get. */
  readonly citation: string;
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly heading: string;
  readonly snippet: string;
  /** The final score (weighted, decayed). */
  readonly score: number;
  readonly textScore: number;
  readonly vectorScore: number;
}

export interface MemorySearchResponse {
  readonly results: readonly MemorySearchResult[];
  readonly mode: 'hybrid' | 'keyword';
  /** Why the search was keyword-only, or what it could not use yet, when that happened. */
  readonly note?: string;
}

export interface MemoryExcerpt {
  readonly path: string;
  readonly from: number;
  readonly to: number;
  readonly totalLines: number;
  readonly text: string;
  readonly truncated: boolean;
}

export interface MemoryStatus {
  readonly workspaceDir: string;
  readonly databasePath: string;
  readonly files: number;
  readonly chunks: number;
  readonly mode: 'hybrid' | 'keyword';
  /** Why search is keyword-only, when it is. */
  readonly note?: string;
  readonly embeddings?: {
    readonly provider: string;
    readonly model: string;
    readonly embeddedChunks: number;
    readonly pendingChunks: number;
    readonly lastError?: string;
  };
  readonly watching: boolean;
  readonly lastSync?: SyncReport & { readonly at: number };
  /** Cumulative work, for operators and tests: a search with no file change adds no file I/O. */
  readonly counters: {
    readonly syncs: number;
    readonly filesChecked: number;
    readonly filesRead: number;
    readonly searches: number;
  };
}

/**
 * One agent's memory index. Contract: `sync` brings the index in step with the files
 * (only changed files are read); `search` and `read` never throw for a provider failure
 * (search falls back to keyword-only and says so in `note`); both throw `MemoryError` for bad
 * arguments; after `close` every call throws `MEMORY_INDEX_CLOSED`.
 */
export interface MemoryIndex {
  readonly workspaceDir: string;
  /** A full sync: every memory file is checked (stat) and read only when it changed. */
  sync(): Promise<SyncReport>;
  /** Drops every file record and re-chunks every file (embeddings stay cached by hash). */
  reindex(): Promise<SyncReport>;
  search(query: string, options?: MemorySearchOptions): Promise<MemorySearchResponse>;
  /** A bounded excerpt of a memory file: `from` (1-based, default 1), `lines` (default 60, at most 300). */
  read(path: string, options?: { readonly from?: number; readonly lines?: number }): Promise<MemoryExcerpt>;
  status(): MemoryStatus;
  /** Resolves when no sync or background embedding is running or scheduled. */
  whenIdle(): Promise<void>;
  close(): Promise<void>;
}

const maxExcerptLines = 300;
const maxExcerptChars = 16_000;
const snippetChars = 700;
/** Files inspected in parallel, and written in one transaction, during a sync. */
const syncBatchSize = 32;

/** Opens (creating if needed) the index, syncs what changed since last time and starts watching. */
export async function openMemoryIndex(options: MemoryIndexOptions): Promise<MemoryIndex> {
  const chunking = options.chunking ?? defaultChunkingSettings;
  const settings = options.search ?? defaultSearchSettings;
  validate(chunking, settings);
  const locations: MemoryLocations = resolveLocations(options.workspaceDir, options.extraPaths);
  const now = options.now ?? Date.now;
  const logger = options.logger ?? noopLogger;
  const provider = options.embeddings;
  const modelKey = provider === undefined ? undefined : `${provider.id}:${provider.model}`;
  const batchSize = options.embeddingBatchSize ?? 64;
  const chunker: Chunker = await loadChunker(chunking);
  const database: IndexDatabase = await openIndexDatabase(options.databasePath);

  // Chunking settings are part of what a file record means: a change re-chunks everything.
  const chunkingKey = `${chunking.tokens}/${chunking.overlap}`;
  if (database.getMeta('chunking') !== chunkingKey) {
    database.forgetFiles();
    database.setMeta('chunking', chunkingKey);
  }
  if (modelKey !== undefined) {
    const previous = database.getMeta('embedding_model');
    if (previous !== modelKey) {
      if (previous !== undefined)
        logger.info('memory: the embeddings model changed; re-embedding every chunk in the background', {
          workspaceDir: locations.workspaceDir,
          previous,
          current: modelKey,
        });
      database.pruneEmbeddings(modelKey);
      database.setMeta('embedding_model', modelKey);
    }
  }
  const vectors = createVectorSet();
  if (modelKey !== undefined)
    for (const { id, vector } of database.vectors(modelKey)) vectors.set(id, normalize(vector));

  const counters = { syncs: 0, filesChecked: 0, filesRead: 0, searches: 0 };
  /** Chunks in the index, for keyword score normalisation; recounted after a sync that changed something. */
  let chunkCount = database.counts().chunks;
  let lastSync: (SyncReport & { at: number }) | undefined;
  let lastEmbeddingError: string | undefined;
  let closed = false;
  let queue: Promise<unknown> = Promise.resolve();
  let embedding: Promise<void> | undefined;
  const dirty = new Set<string>();
  let debounce: NodeJS.Timeout | undefined;
  const watchers = new Map<string, FSWatcher>();
  const queryVectors = new Map<string, Float32Array>();

  const assertOpen = (): void => {
    if (closed)
      throw new MemoryError(
        'MEMORY_INDEX_CLOSED',
        `The memory index of ${locations.workspaceDir} is closed.`,
      );
  };

  /** Runs work after every queued sync, one at a time. */
  const serial = <Result>(work: () => Promise<Result>): Promise<Result> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  const removeIds = (ids: readonly number[]): void => {
    for (const id of ids) vectors.delete(id);
  };

  /** What a file needs, found without writing: its stat and, when it changed, its text. */
  type Inspection =
    | { readonly kind: 'gone'; readonly path: string }
    | { readonly kind: 'same' }
    | {
        readonly kind: 'changed';
        readonly path: string;
        readonly modifiedMs: number;
        readonly size: number;
        readonly text: string;
      };

  async function inspect(absolute: string): Promise<Inspection> {
    const path = displayPath(locations, absolute);
    counters.filesChecked++;
    const info = await stat(absolute).catch(() => undefined);
    if (info === undefined || !info.isFile()) return { kind: 'gone', path };
    const record = database.file(path);
    if (record !== undefined && record.modifiedMs === info.mtimeMs && record.size === info.size)
      return { kind: 'same' };
    counters.filesRead++;
    const text = await readFile(absolute, 'utf8').catch(() => undefined);
    if (text === undefined) return { kind: 'gone', path };
    return { kind: 'changed', path, modifiedMs: info.mtimeMs, size: info.size, text };
  }

  /** Writes what an inspection found (inside the caller's transaction); returns what it did. */
  function apply(inspection: Inspection): 'unchanged' | 'indexed' | 'removed' | 'skipped' {
    if (inspection.kind === 'same') return 'unchanged';
    const { path } = inspection;
    if (inspection.kind === 'gone') {
      if (database.file(path) === undefined) return 'skipped';
      removeIds(database.removeFile(path));
      return 'removed';
    }
    const record = database.file(path);
    const hash = createHash('sha256').update(inspection.text).digest('hex');
    const file = { path, hash, modifiedMs: inspection.modifiedMs, size: inspection.size };
    if (record !== undefined && record.hash === hash) {
      database.touchFile(file);
      return 'unchanged';
    }
    const chunks = chunker(inspection.text);
    const oldIds = record === undefined ? [] : chunkIdsOf(path);
    const ids = database.replaceFile(file, noteDate(path), chunks, now());
    removeIds(oldIds);
    if (modelKey !== undefined) {
      chunks.forEach((chunk, index) => {
        const cached = database.embedding(modelKey, chunk.hash);
        if (cached !== undefined) vectors.set(ids[index]!, normalize(cached));
      });
    }
    return 'indexed';
  }

  function chunkIdsOf(path: string): number[] {
    return database.database
      .prepare('SELECT id FROM chunks WHERE path = ?')
      .all(path)
      .map((row) => Number(row.id));
  }

  /** Syncs the given absolute paths (files or folders, present or gone), or everything. */
  async function syncPaths(targets: ReadonlySet<string> | 'all'): Promise<SyncReport> {
    const started = performance.now();
    let checked = 0;
    let indexed = 0;
    let removed = 0;
    const files = new Set<string>();
    const gonePrefixes: string[] = [];
    if (targets === 'all') {
      for (const root of memoryRoots(locations))
        for (const file of await listMarkdownFiles(root)) files.add(file);
      for (const path of database.filePaths()) files.add(absolutePath(locations, path));
    } else {
      for (const target of targets) {
        const info = await stat(target).catch(() => undefined);
        if (info?.isDirectory() === true) {
          for (const file of await listMarkdownFiles(target))
            if (isMemoryFile(locations, file)) files.add(file);
          gonePrefixes.push(target + sep);
        } else if (info === undefined) {
          files.add(target);
          gonePrefixes.push(target + sep);
        } else if (isMemoryFile(locations, target)) files.add(target);
      }
      // Files under a folder that was removed, renamed or re-created.
      if (gonePrefixes.length > 0)
        for (const path of database.filePaths()) {
          const absolute = absolutePath(locations, path);
          if (gonePrefixes.some((prefix) => absolute.startsWith(prefix))) files.add(absolute);
        }
    }
    // Files are inspected in parallel batches (stat, and a read when changed), and each
    // batch is written in one transaction.
    const ordered = [...files].filter((file) => isMemoryFile(locations, file)).sort();
    for (let offset = 0; offset < ordered.length && !closed; offset += syncBatchSize) {
      const inspections = await Promise.all(ordered.slice(offset, offset + syncBatchSize).map(inspect));
      if (closed) break;
      const outcomes = database.batch(() => inspections.map(apply));
      checked += outcomes.length;
      indexed += outcomes.filter((outcome) => outcome === 'indexed').length;
      removed += outcomes.filter((outcome) => outcome === 'removed').length;
    }
    counters.syncs++;
    if (indexed + removed > 0) chunkCount = database.counts().chunks;
    const report = { checked, indexed, removed, durationMs: performance.now() - started };
    lastSync = { ...report, at: now() };
    if (indexed + removed > 0)
      logger.debug('memory: index synced', { workspaceDir: locations.workspaceDir, ...report });
    // A full sync also retries embeddings that failed before and catches up after a model change.
    if (indexed + removed > 0 || targets === 'all') scheduleEmbedding();
    return report;
  }

  function scheduleEmbedding(): void {
    if (provider === undefined || modelKey === undefined || embedding !== undefined || closed) return;
    embedding = embedPending(provider, modelKey).finally(() => {
      embedding = undefined;
    });
  }

  async function embedPending(source: EmbeddingsProvider, model: string): Promise<void> {
    for (;;) {
      if (closed) return;
      const batch = database.unembedded(model, batchSize);
      if (batch.length === 0) {
        lastEmbeddingError = undefined;
        return;
      }
      let embedded: Float32Array[];
      try {
        embedded = await source.embed(batch.map((chunk) => embeddingInput(chunk.heading, chunk.text)));
      } catch (error) {
        lastEmbeddingError = error instanceof Error ? error.message : String(error);
        logger.warn(
          'memory: embedding chunks failed; search stays keyword-only for them until the next sync',
          {
            workspaceDir: locations.workspaceDir,
            provider: source.id,
            model: source.model,
            error: lastEmbeddingError,
          },
        );
        return;
      }
      if (closed) return;
      batch.forEach((chunk, index) => {
        const vector = embedded[index]!;
        database.storeEmbedding(model, chunk.hash, vector);
        const unit = normalize(vector);
        for (const id of database.chunkIdsWithHash(chunk.hash)) vectors.set(id, unit);
      });
    }
  }

  function markDirty(absolute: string): void {
    if (closed) return;
    dirty.add(absolute);
    if (debounce !== undefined) clearTimeout(debounce);
    debounce = setTimeout(() => {
      debounce = undefined;
      void flushDirty().catch((error: unknown) =>
        logger.warn('memory: re-indexing changed files failed', {
          workspaceDir: locations.workspaceDir,
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    }, options.watchDebounceMs ?? 1500);
    debounce.unref();
  }

  function flushDirty(): Promise<SyncReport | undefined> {
    if (dirty.size === 0) return serial(async () => undefined);
    const targets = new Set(dirty);
    dirty.clear();
    if (debounce !== undefined) {
      clearTimeout(debounce);
      debounce = undefined;
    }
    return serial(() => syncPaths(targets));
  }

  function watchFolder(folder: string, recursive: boolean, filter?: (name: string) => boolean): void {
    if (watchers.has(folder) || closed) return;
    try {
      const watcher = watch(folder, { recursive, persistent: false }, (_event, name) => {
        if (name === null) {
          // The platform did not say what changed: re-check the memory roots (never the whole workspace).
          for (const root of memoryRoots(locations)) markDirty(root);
          return;
        }
        const entry = String(name);
        if (filter !== undefined && !filter(entry)) return;
        const absolute = join(folder, entry);
        markDirty(absolute);
        if (folder === locations.workspaceDir && entry === memoryDirectoryName) rewatchMemoryFolder();
      });
      watcher.on('error', (error) => {
        watchers.delete(folder);
        watcher.close();
        logger.warn('memory: a file watcher stopped; changes there show after the next sync', {
          folder,
          error: error.message,
        });
        for (const root of memoryRoots(locations)) markDirty(root);
      });
      watchers.set(folder, watcher);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT')
        logger.warn('memory: cannot watch a folder; changes there show after the next sync', {
          folder,
          error: error instanceof Error ? error.message : String(error),
        });
    }
  }

  function rewatchMemoryFolder(): void {
    const folder = join(locations.workspaceDir, memoryDirectoryName);
    watchers.get(folder)?.close();
    watchers.delete(folder);
    watchFolder(folder, true);
  }

  function startWatching(): void {
    watchFolder(
      locations.workspaceDir,
      false,
      (name) => name === memoryFileName || name === memoryDirectoryName,
    );
    rewatchMemoryFolder();
    for (const extra of locations.extraPaths) {
      if (extra.toLowerCase().endsWith('.md')) {
        const name = basename(extra);
        watchFolder(dirname(extra), false, (entry) => entry === name);
      } else watchFolder(extra, true);
    }
  }

  async function embedQuery(
    source: EmbeddingsProvider,
    query: string,
    signal?: AbortSignal,
  ): Promise<Float32Array> {
    const cached = queryVectors.get(query);
    if (cached !== undefined) return cached;
    const [vector] = await source.embed([query], signal);
    const unit = normalize(vector!);
    queryVectors.set(query, unit);
    if (queryVectors.size > 128) queryVectors.delete(queryVectors.keys().next().value!);
    return unit;
  }

  const realWorkspace = await realpath(locations.workspaceDir).catch(() => locations.workspaceDir);

  async function confine(path: string): Promise<{ absolute: string; path: string; from?: number }> {
    if (typeof path !== 'string' || path.trim() === '' || path.includes('\0'))
      throw new MemoryError('MEMORY_INVALID_ARGUMENT', 'memory_get: path must be a non-empty file path.');
    // Accept a citation as given by memory_search: `memory/2026-01-02.md#12-18`.
    const citation = /^(.*)#(\d+)(?:-\d+)?$/.exec(path.trim());
    const cleaned = citation === null ? path.trim() : citation[1]!;
    const absolute = absolutePath(locations, cleaned);
    if (!isMemoryFile(locations, absolute))
      throw new MemoryError(
        'MEMORY_PATH_REFUSED',
        `memory_get: ${cleaned} is not a memory file (MEMORY.md, memory/**/*.md or a configured extra path).`,
        { details: { path: cleaned } },
      );
    const real = await realpath(absolute).catch(() => undefined);
    if (real === undefined)
      throw new MemoryError('MEMORY_FILE_NOT_FOUND', `memory_get: ${cleaned} does not exist.`, {
        details: { path: cleaned },
      });
    const realLocations = { workspaceDir: realWorkspace, extraPaths: locations.extraPaths };
    if (!isMemoryFile(realLocations, real) && !isMemoryFile(locations, real))
      throw new MemoryError(
        'MEMORY_PATH_REFUSED',
        `memory_get: ${cleaned} leads outside the memory files through a symbolic link.`,
        { details: { path: cleaned } },
      );
    return {
      absolute: real,
      path: displayPath(locations, absolute),
      ...(citation === null ? {} : { from: Number(citation[2]) }),
    };
  }

  const index: MemoryIndex = {
    workspaceDir: locations.workspaceDir,
    sync() {
      assertOpen();
      dirty.clear();
      return serial(() => syncPaths('all'));
    },
    reindex() {
      assertOpen();
      dirty.clear();
      return serial(async () => {
        database.forgetFiles();
        return syncPaths('all');
      });
    },
    async search(query, searchOptions = {}) {
      assertOpen();
      if (typeof query !== 'string' || query.trim() === '')
        throw new MemoryError('MEMORY_INVALID_ARGUMENT', 'memory_search: query must be a non-empty string.');
      const maxResults = searchOptions.maxResults ?? settings.maxResults;
      if (!Number.isInteger(maxResults) || maxResults < 1 || maxResults > 50)
        throw new MemoryError(
          'MEMORY_INVALID_ARGUMENT',
          'memory_search: maxResults must be an integer from 1 to 50.',
        );
      const minScore = searchOptions.minScore ?? settings.minScore;
      if (!Number.isFinite(minScore) || minScore < 0 || minScore > 1)
        throw new MemoryError(
          'MEMORY_INVALID_ARGUMENT',
          'memory_search: minScore must be a number from 0 to 1.',
        );
      counters.searches++;
      // Only the paths the watcher reported since the last sync; usually none.
      await flushDirty();
      assertOpen();
      const limit = maxResults * settings.hybrid.candidateMultiplier;
      const ftsQuery = keywordQuery(query);
      const ranks =
        ftsQuery === undefined ? new Map<number, number>() : database.keywordCandidates(ftsQuery, limit);

      let vector: Map<number, number> | undefined;
      let note: string | undefined;
      if (embedding !== undefined) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          embedding,
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, options.embeddingWaitMs ?? 3000);
          }),
        ]);
        clearTimeout(timer);
        assertOpen();
      }
      if (provider === undefined)
        note = 'keyword-only: no embeddings provider is configured (memory.search.provider)';
      else if (vectors.size === 0)
        note = `keyword-only: no chunk is embedded yet with ${provider.id} model ${provider.model}${lastEmbeddingError === undefined ? '' : ` (last error: ${lastEmbeddingError})`}`;
      else {
        try {
          vector = vectors.nearest(await embedQuery(provider, query, searchOptions.signal), limit);
          if (embedding !== undefined && modelKey !== undefined)
            note = `hybrid, but ${database.countUnembedded(modelKey)} chunks are still being embedded`;
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          note = `keyword-only: the embeddings provider failed for this query (${reason})`;
          logger.warn('memory: query embedding failed; searched by keyword only', {
            workspaceDir: locations.workspaceDir,
            error: reason,
          });
        }
      }
      const rows = new Map(
        database
          .chunks([...new Set([...ranks.keys(), ...(vector?.keys() ?? [])])])
          .map((row) => [row.id, row]),
      );
      const queryWords = new Set(words(query));
      const keyword = new Map<number, number>();
      for (const [id, rank] of ranks) {
        const row = rows.get(id);
        if (row === undefined) continue;
        const chunkWords = new Set(words(`${row.heading}\n${row.text}`));
        keyword.set(id, keywordScore(rank, chunkCount, coverage(queryWords, chunkWords)));
      }
      const decay = settings.temporalDecay;
      const current = now();
      const merged = mergeCandidates(keyword, vector, settings.hybrid, (id) => {
        const noteTime = rows.get(id)?.noteTime;
        return decay.enabled && noteTime !== undefined
          ? recencyFactor(noteTime, current, decay.halfLifeDays)
          : 1;
      }).filter((candidate) => candidate.score >= minScore && rows.has(candidate.id));
      const textOf = (candidate: { id: number }): string => rows.get(candidate.id)!.text;
      const ranked = settings.mmr.enabled
        ? mmrRerank(merged, textOf, settings.mmr.lambda, maxResults)
        : merged.slice(0, maxResults);
      const results = ranked.map((candidate) => {
        const row = rows.get(candidate.id)!;
        return {
          citation: `${row.path}#${row.startLine}-${row.endLine}`,
          path: row.path,
          startLine: row.startLine,
          endLine: row.endLine,
          heading: row.heading,
          snippet: row.text.length > snippetChars ? `${row.text.slice(0, snippetChars)}…` : row.text,
          score: round(candidate.score),
          textScore: round(candidate.textScore),
          vectorScore: round(candidate.vectorScore),
        };
      });
      return {
        results,
        mode: vector === undefined ? 'keyword' : 'hybrid',
        note,
      };
    },
    async read(path, readOptions = {}) {
      assertOpen();
      const target = await confine(path);
      const from = readOptions.from ?? target.from ?? 1;
      const count = Math.min(readOptions.lines ?? 60, maxExcerptLines);
      if (!Number.isInteger(from) || from < 1)
        throw new MemoryError(
          'MEMORY_INVALID_ARGUMENT',
          'memory_get: from must be a line number of 1 or more.',
        );
      if (!Number.isInteger(count) || count < 1)
        throw new MemoryError('MEMORY_INVALID_ARGUMENT', 'memory_get: lines must be a positive integer.');
      const text = await readFile(target.absolute, 'utf8');
      const lines = text.replaceAll('\r\n', '\n').split('\n');
      const selected = lines.slice(from - 1, from - 1 + count);
      let excerpt = selected.join('\n');
      let truncated = from - 1 + count < lines.length;
      if (excerpt.length > maxExcerptChars) {
        excerpt = excerpt.slice(0, maxExcerptChars);
        truncated = true;
      }
      const to = Math.min(lines.length, from - 1 + excerpt.split('\n').length);
      return {
        path: target.path,
        from,
        to: Math.max(from, to),
        totalLines: lines.length,
        text: excerpt,
        truncated,
      };
    },
    status() {
      assertOpen();
      const counts = database.counts();
      const note =
        provider === undefined
          ? 'keyword-only: no embeddings provider is configured (memory.search.provider)'
          : vectors.size === 0
            ? `keyword-only until chunks are embedded with ${provider.id} model ${provider.model}`
            : undefined;
      return {
        workspaceDir: locations.workspaceDir,
        databasePath: options.databasePath,
        files: counts.files,
        chunks: counts.chunks,
        mode: note === undefined ? 'hybrid' : 'keyword',
        note,
        ...(provider === undefined || modelKey === undefined
          ? {}
          : {
              embeddings: {
                provider: provider.id,
                model: provider.model,
                embeddedChunks: vectors.size,
                pendingChunks: database.countUnembedded(modelKey),
                lastError: lastEmbeddingError,
              },
            }),
        watching: watchers.size > 0,
        lastSync,
        counters: { ...counters },
      };
    },
    async whenIdle() {
      for (;;) {
        if (dirty.size > 0) await flushDirty();
        await queue;
        if (embedding !== undefined) await embedding;
        if (dirty.size === 0 && embedding === undefined) return;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      if (debounce !== undefined) clearTimeout(debounce);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
      await queue;
      await embedding;
      database.close();
    },
  };

  if (options.watch !== false) startWatching();
  await index.sync();
  return index;
}

function embeddingInput(heading: string, text: string): string {
  return heading.length > 0 ? `${heading}\n${text}` : text;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function validate(chunking: ChunkingSettings, settings: SearchSettings): void {
  const fail = (key: string, expected: string, value: unknown): never => {
    throw new MemoryError(
      'MEMORY_INVALID_SETTINGS',
      `memory.search.${key}: expected ${expected}, got ${JSON.stringify(value)}.`,
      { details: { key } },
    );
  };
  if (!Number.isInteger(chunking.tokens) || chunking.tokens < 32)
    fail('chunking.tokens', 'an integer of 32 or more', chunking.tokens);
  if (!Number.isInteger(chunking.overlap) || chunking.overlap < 0 || chunking.overlap >= chunking.tokens)
    fail('chunking.overlap', 'an integer from 0 to below chunking.tokens', chunking.overlap);
  if (!Number.isInteger(settings.maxResults) || settings.maxResults < 1 || settings.maxResults > 50)
    fail('query.maxResults', 'an integer from 1 to 50', settings.maxResults);
  if (!(settings.minScore >= 0 && settings.minScore <= 1))
    fail('query.minScore', 'a number from 0 to 1', settings.minScore);
  const { vectorWeight, textWeight, candidateMultiplier } = settings.hybrid;
  if (!(vectorWeight >= 0) || !(textWeight >= 0) || vectorWeight + textWeight <= 0)
    fail('query.hybrid.vectorWeight', 'non-negative weights with a positive sum', {
      vectorWeight,
      textWeight,
    });
  if (!Number.isInteger(candidateMultiplier) || candidateMultiplier < 1 || candidateMultiplier > 20)
    fail('query.hybrid.candidateMultiplier', 'an integer from 1 to 20', candidateMultiplier);
  if (!(settings.mmr.lambda >= 0 && settings.mmr.lambda <= 1))
    fail('query.hybrid.mmr.lambda', 'a number from 0 to 1', settings.mmr.lambda);
  if (!(settings.temporalDecay.halfLifeDays > 0))
    fail(
      'query.hybrid.temporalDecay.halfLifeDays',
      'a positive number of days',
      settings.temporalDecay.halfLifeDays,
    );
}
