import { describe, expect, it } from 'vitest';
import { createVectorSet, normalize } from './vector-set.ts';

describe('createVectorSet', () => {
  it('returns the nearest vectors by cosine, and forgets deleted ones', () => {
    const set = createVectorSet();
    set.set(1, normalize(Float32Array.from([1, 0, 0])));
    set.set(2, normalize(Float32Array.from([1, 1, 0])));
    set.set(3, normalize(Float32Array.from([0, 0, 1])));
    set.set(4, normalize(Float32Array.from([1, 2]))); // another length: ignored
    expect(set.size).toBe(3);
    const query = normalize(Float32Array.from([1, 0.1, 0]));
    expect([...set.nearest(query, 2).keys()]).toEqual([1, 2]);
    set.delete(1);
    expect([...set.nearest(query, 2).keys()]).toEqual([2, 3]);
    set.set(2, normalize(Float32Array.from([0, 0, 1])));
    expect(set.nearest(query, 5).get(2)).toBeCloseTo(0);
    set.clear();
    expect(set.nearest(query, 5).size).toBe(0);
  });
});
