import { describe, expect, it } from 'vitest';
import type { TranscriptEntry } from '../types.ts';
import { type CachedContext, createContextCache } from './context-cache.ts';

function run(sessionId: string, count: number, compactionSequence: number | null = null): CachedContext {
  const entries: TranscriptEntry[] = Array.from({ length: count }, (_, index) => ({
    type: 'custom',
    sessionId,
    sequence: index + 1,
    timestamp: 1,
    customType: 'test',
    data: index,
  }));
  return { sessionId, compactionSequence, compaction: undefined, entries, lastSequence: count };
}

describe('context cache', () => {
  it('returns a run only for the same session and compaction', () => {
    const cache = createContextCache(100);
    cache.set(1, run('session-a', 3));
    expect(cache.get(1, 'session-a', null)?.lastSequence).toBe(3);
    // Another session now owns transcript id 1 (ids can be reused after a delete).
    expect(cache.get(1, 'session-b', null)).toBeUndefined();
    cache.set(1, run('session-a', 3));
    // A new compaction makes the cached run stale, and it is dropped.
    expect(cache.get(1, 'session-a', 7)).toBeUndefined();
    expect(cache.get(1, 'session-a', null)).toBeUndefined();
  });

  it('keeps at most the bound of entries, dropping the least recently used first', () => {
    const cache = createContextCache(10);
    cache.set(1, run('one', 4));
    cache.set(2, run('two', 4));
    expect(cache.get(1, 'one', null)).toBeDefined(); // 1 is now the most recently used
    cache.set(3, run('three', 4)); // 12 > 10: the oldest (2) goes
    expect(cache.get(2, 'two', null)).toBeUndefined();
    expect(cache.get(1, 'one', null)).toBeDefined();
    expect(cache.get(3, 'three', null)).toBeDefined();
    // Growing a run counts against the bound too.
    const three = cache.get(3, 'three', null)!;
    three.entries.push(...run('three', 3).entries);
    cache.grew(3, 3); // 4 + 7 = 11 > 10: the oldest (1) goes
    expect(cache.get(1, 'one', null)).toBeUndefined();
    expect(cache.get(3, 'three', null)?.entries).toHaveLength(7);
    cache.clear();
    expect(cache.get(3, 'three', null)).toBeUndefined();
  });

  it('keeps the most recently used run even when it alone exceeds the bound, until another is used', () => {
    const cache = createContextCache(10);
    cache.set(1, run('small', 3));
    cache.set(2, run('large', 25)); // over the bound alone: the small one goes, the large one stays
    expect(cache.get(1, 'small', null)).toBeUndefined();
    const large = cache.get(2, 'large', null)!;
    expect(large.entries).toHaveLength(25);
    // It keeps growing turn by turn and stays cached.
    large.entries.push(...run('large', 2).entries);
    cache.grew(2, 2);
    expect(cache.get(2, 'large', null)?.entries).toHaveLength(27);
    // Another session's turn: the large run is now the least recently used and over the bound.
    cache.set(3, run('next', 4));
    expect(cache.get(2, 'large', null)).toBeUndefined();
    expect(cache.get(3, 'next', null)?.entries).toHaveLength(4);
  });

  it('takes entries written right after a cached run, leaves a gap to the next read, drops a run a compaction made stale', () => {
    const cache = createContextCache(100);
    cache.set(1, run('session-a', 3));
    let decoded = 0;
    const decode = (from: number, count: number) => () => {
      decoded += 1;
      return run('session-a', from + count - 1).entries.slice(from - 1);
    };
    cache.appended(1, 4, false, decode(4, 2));
    const grown = cache.get(1, 'session-a', null)!;
    expect(grown.lastSequence).toBe(5);
    expect(grown.entries.map((entry) => entry.sequence)).toEqual([1, 2, 3, 4, 5]);
    // Written after a gap (entries 6 and 7 came from elsewhere): not taken, not decoded.
    cache.appended(1, 8, false, decode(8, 1));
    expect(cache.get(1, 'session-a', null)?.lastSequence).toBe(5);
    expect(decoded).toBe(1);
    // No cached run: nothing to do.
    cache.appended(2, 1, false, decode(1, 1));
    expect(decoded).toBe(1);
    // A compaction written: the run no longer matches the transcript's context and goes.
    cache.appended(1, 6, true, decode(6, 1));
    expect(cache.get(1, 'session-a', null)).toBeUndefined();
    expect(decoded).toBe(1);
  });

  it('counts written entries against the bound', () => {
    const cache = createContextCache(10);
    cache.set(1, run('one', 4));
    cache.set(2, run('two', 4));
    cache.appended(2, 5, false, () => run('two', 7).entries.slice(4)); // 4 + 7 = 11 > 10: one goes
    expect(cache.get(1, 'one', null)).toBeUndefined();
    expect(cache.get(2, 'two', null)?.entries).toHaveLength(7);
  });
});
