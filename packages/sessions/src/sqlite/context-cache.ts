import type { TranscriptEntry } from '../types.ts';

/**
 * The decoded context entries of recently used transcripts, so building a context reads and
 * decodes only what was appended since the last build instead of the whole tail again.
 *
 * Entries are append-only, so a cached run of entries stays true while the transcript's
 * latest compaction is the same one. Anything else (another compaction, a transcript that
 * went away, a group commit that rolled back after a read saw its rows) drops the entry or
 * the whole cache. Bounded by entry count, least recently used first out — except the most
 * recently used run, which stays whatever its size: a session whose context alone exceeds the
 * bound (a long uncompacted session on a large-window model) would otherwise be read and
 * decoded whole on every turn (about 40 ms at 10,000 entries) instead of only its new
 * entries. So the cache holds at most the bound plus that one context, and the large run goes
 * as soon as another session's run is used and the total is over the bound.
 */
export interface CachedContext {
  readonly sessionId: string;
  /** `last_compaction_sequence` when these entries were read (null: never compacted). */
  readonly compactionSequence: number | null;
  /** The decoded entry at that sequence, if any. */
  readonly compaction: TranscriptEntry | undefined;
  /** Every entry from the context's start through `lastSequence`, in order. */
  readonly entries: TranscriptEntry[];
  lastSequence: number;
}

export interface ContextCache {
  /** The cached run for a transcript, if it still belongs to that session and compaction. */
  get(transcriptId: number, sessionId: string, compactionSequence: number | null): CachedContext | undefined;
  set(transcriptId: number, value: CachedContext): void;
  /** Counts entries appended to a cached run (for the size bound). */
  grew(transcriptId: number, added: number): void;
  /**
   * Entries were just written at `firstSequence` onwards: a cached run that ends right before
   * them takes them (`decode` gives them as a read would), so the next build reads nothing. A
   * run the write made stale (a compaction was written) is dropped.
   */
  appended(
    transcriptId: number,
    firstSequence: number,
    compacted: boolean,
    decode: () => readonly TranscriptEntry[],
  ): void;
  clear(): void;
}

export function createContextCache(maxEntries: number): ContextCache {
  const cached = new Map<number, CachedContext>();
  let size = 0;
  /** The transcript of the most recently used run: never dropped by `trim`. */
  let newest: number | undefined;

  function drop(transcriptId: number): void {
    const value = cached.get(transcriptId);
    if (value === undefined) return;
    size -= value.entries.length;
    cached.delete(transcriptId);
  }

  function trim(): void {
    for (const transcriptId of cached.keys()) {
      if (size <= maxEntries) return;
      if (transcriptId !== newest) drop(transcriptId);
    }
  }

  return {
    get(transcriptId, sessionId, compactionSequence) {
      const value = cached.get(transcriptId);
      if (value === undefined) return undefined;
      if (value.sessionId !== sessionId || value.compactionSequence !== compactionSequence) {
        drop(transcriptId);
        return undefined;
      }
      // Most recently used last: Map keeps insertion order.
      cached.delete(transcriptId);
      cached.set(transcriptId, value);
      newest = transcriptId;
      return value;
    },
    set(transcriptId, value) {
      drop(transcriptId);
      cached.set(transcriptId, value);
      newest = transcriptId;
      size += value.entries.length;
      trim();
    },
    grew(transcriptId, added) {
      if (!cached.has(transcriptId)) return;
      size += added;
      trim();
    },
    appended(transcriptId, firstSequence, compacted, decode) {
      const value = cached.get(transcriptId);
      if (value === undefined) return;
      if (compacted) {
        drop(transcriptId);
        return;
      }
      // A gap (entries written elsewhere since the run was read) is left to the next build's read.
      if (value.lastSequence !== firstSequence - 1) return;
      const added = decode();
      for (const entry of added) value.entries.push(entry);
      value.lastSequence += added.length;
      size += added.length;
      trim();
    },
    clear() {
      cached.clear();
      size = 0;
      newest = undefined;
    },
  };
}
