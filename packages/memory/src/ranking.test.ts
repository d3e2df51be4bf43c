import { describe, expect, it } from 'vitest';
import { coverage, keywordScore, mergeCandidates, mmrRerank, recencyFactor } from './ranking.ts';

describe('ranking', () => {
  it('halves a dated note every half-life and leaves future dates alone', () => {
    const day = 86_400_000;
    expect(recencyFactor(0, 30 * day, 30)).toBeCloseTo(0.5);
    expect(recencyFactor(0, 60 * day, 30)).toBeCloseTo(0.25);
    expect(recencyFactor(10 * day, 0, 30)).toBe(1);
  });

  it('weights vector and keyword scores 0.7 / 0.3, and uses keyword alone without vectors', () => {
    const hybrid = { vectorWeight: 0.7, textWeight: 0.3, candidateMultiplier: 4 };
    const merged = mergeCandidates(
      new Map([[1, 0.5]]),
      new Map([
        [1, 1],
        [2, 0.8],
      ]),
      hybrid,
      () => 1,
    );
    expect(merged.map((candidate) => [candidate.id, Number(candidate.score.toFixed(3))])).toEqual([
      [1, 0.85],
      [2, 0.56],
    ]);
    const keywordOnly = mergeCandidates(new Map([[1, 0.5]]), undefined, hybrid, () => 0.5);
    expect(keywordOnly[0]!.score).toBeCloseTo(0.25);
  });

  it('scores keyword matches by corpus-normalised BM25 or coverage, whichever is larger', () => {
    expect(keywordScore(-10, 1000, 0)).toBeGreaterThan(keywordScore(-2, 1000, 0));
    expect(keywordScore(-0.000001, 1, 1)).toBeCloseTo(0.8);
    expect(coverage(new Set(['alice', 'birthday']), new Set(['alice', 'is', 'here']))).toBe(0.5);
  });

  it('MMR puts a different note before a near-duplicate of the best one', () => {
    const candidates = [
      { id: 1, score: 0.9, text: 'the deploy key rotates every month on the first' },
      { id: 2, score: 0.88, text: 'the deploy key rotates every month on the first day' },
      { id: 3, score: 0.7, text: 'alice owns the billing dashboard' },
    ];
    const plain = [...candidates]
      .sort((left, right) => right.score - left.score)
      .map((candidate) => candidate.id);
    expect(plain).toEqual([1, 2, 3]);
    const reranked = mmrRerank(candidates, (candidate) => candidate.text, 0.7, 3).map(
      (candidate) => candidate.id,
    );
    expect(reranked).toEqual([1, 3, 2]);
    expect(mmrRerank(candidates, (candidate) => candidate.text, 0.7, 2)).toHaveLength(2);
  });
});
