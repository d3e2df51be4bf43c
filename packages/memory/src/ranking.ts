// Hybrid ranking, as pure functions: keyword (BM25) and vector (cosine) candidates merged
// with weights, a recency decay for dated notes, a minimum score, and MMR re-ranking for
// diversity (token Jaccard similarity between candidates).
import { words } from './text.ts';

export interface HybridSettings {
  /** Weight of the cosine similarity (default 0.7). */
  readonly vectorWeight: number;
  /** Weight of the keyword score (default 0.3). */
  readonly textWeight: number;
  /** Each side fetches `maxResults × candidateMultiplier` candidates (default 4). */
  readonly candidateMultiplier: number;
}

export interface MmrSettings {
  readonly enabled: boolean;
  /** 1 ranks by relevance alone, 0 by diversity alone (default 0.7). */
  readonly lambda: number;
}

export interface TemporalDecaySettings {
  readonly enabled: boolean;
  /** A dated note's score halves every this many days (default 30). */
  readonly halfLifeDays: number;
}

/** How a search ranks: all under `memory.search.query` in the config. */
export interface SearchSettings {
  readonly maxResults: number;
  readonly minScore: number;
  readonly hybrid: HybridSettings;
  readonly mmr: MmrSettings;
  readonly temporalDecay: TemporalDecaySettings;
}

export const defaultSearchSettings: SearchSettings = {
  maxResults: 6,
  minScore: 0.35,
  hybrid: { vectorWeight: 0.7, textWeight: 0.3, candidateMultiplier: 4 },
  mmr: { enabled: true, lambda: 0.7 },
  temporalDecay: { enabled: true, halfLifeDays: 30 },
};

/**
 * The keyword score of a chunk in [0, 1). Two measures, the larger wins:
 * - BM25 as FTS5 reports it (negative; lower is better), divided by the largest IDF a word can
 *   have in a corpus of `chunkCount` chunks (so a score means the same in 50 chunks and in
 *   50,000), mapped by s / (1 + s). Absolute, not relative to the best hit: a match on common
 *   words alone stays weak and `minScore` means the same for every query.
 * - Coverage: the share of the query's words found in the chunk, times 0.8. BM25's IDF is zero
 *   in a corpus of one or two chunks (a new agent's first note), where coverage still works.
 */
export function keywordScore(bm25: number, chunkCount: number, coverage: number): number {
  const maxIdf = Math.log((chunkCount + 0.5) / 1.5);
  const strength = Math.abs(bm25) / Math.max(1, maxIdf);
  return Math.max(strength / (1 + strength), 0.8 * coverage);
}

/** The share of the query's words that occur among a chunk's words. */
export function coverage(queryWords: ReadonlySet<string>, chunkWords: ReadonlySet<string>): number {
  if (queryWords.size === 0) return 0;
  let found = 0;
  for (const word of queryWords) if (chunkWords.has(word)) found++;
  return found / queryWords.size;
}

/** A candidate after merging: its chunk id and the parts of its score. */
export interface ScoredCandidate {
  readonly id: number;
  readonly textScore: number;
  readonly vectorScore: number;
  /** Weighted score after decay: what `minScore` and MMR see. */
  readonly score: number;
}

/**
 * Merges the two candidate lists. With vectors the score is `vectorWeight·cosine +
 * textWeight·keyword` (weights normalised to sum to 1); keyword-only search uses the keyword
 * score alone. `decayOf` multiplies each score (1 for evergreen files).
 */
export function mergeCandidates(
  keyword: ReadonlyMap<number, number>,
  vector: ReadonlyMap<number, number> | undefined,
  hybrid: HybridSettings,
  decayOf: (id: number) => number,
): ScoredCandidate[] {
  const ids = new Set<number>([...keyword.keys(), ...(vector?.keys() ?? [])]);
  const total = hybrid.vectorWeight + hybrid.textWeight;
  const vectorWeight = vector === undefined ? 0 : hybrid.vectorWeight / total;
  const textWeight = vector === undefined ? 1 : hybrid.textWeight / total;
  const merged: ScoredCandidate[] = [];
  for (const id of ids) {
    const textScore = keyword.get(id) ?? 0;
    const vectorScore = Math.max(0, vector?.get(id) ?? 0);
    const score = (vectorWeight * vectorScore + textWeight * textScore) * decayOf(id);
    merged.push({ id, textScore, vectorScore, score });
  }
  return merged.sort((left, right) => right.score - left.score || left.id - right.id);
}

/** The recency factor of a note dated `noteTime` at `now`: 0.5^(age in days / half-life); 1 for the future. */
export function recencyFactor(noteTime: number, now: number, halfLifeDays: number): number {
  const ageDays = (now - noteTime) / 86_400_000;
  if (ageDays <= 0) return 1;
  return 0.5 ** (ageDays / halfLifeDays);
}

function jaccard(left: ReadonlySet<string>, right: ReadonlySet<string>): number {
  if (left.size === 0 && right.size === 0) return 0;
  let shared = 0;
  const [small, large] = left.size <= right.size ? [left, right] : [right, left];
  for (const token of small) if (large.has(token)) shared++;
  return shared / (left.size + right.size - shared);
}

/**
 * Maximal marginal relevance: repeatedly picks the candidate with the best
 * `λ·score − (1−λ)·max similarity to those already picked`, so near-duplicate chunks (the
 * same fact in three daily notes) do not fill every slot. Returns at most `limit` candidates.
 */
export function mmrRerank<Candidate extends { readonly score: number }>(
  candidates: readonly Candidate[],
  textOf: (candidate: Candidate) => string,
  lambda: number,
  limit: number,
): Candidate[] {
  const remaining = candidates.map((candidate) => ({ candidate, tokens: new Set(words(textOf(candidate))) }));
  const picked: typeof remaining = [];
  while (picked.length < limit && remaining.length > 0) {
    let bestIndex = 0;
    let bestValue = Number.NEGATIVE_INFINITY;
    remaining.forEach((entry, index) => {
      const similarity = picked.reduce(
        (most, chosen) => Math.max(most, jaccard(entry.tokens, chosen.tokens)),
        0,
      );
      const value = lambda * entry.candidate.score - (1 - lambda) * similarity;
      if (value > bestValue) {
        bestValue = value;
        bestIndex = index;
      }
    });
    picked.push(remaining.splice(bestIndex, 1)[0]!);
  }
  return picked.map((entry) => entry.candidate);
}
