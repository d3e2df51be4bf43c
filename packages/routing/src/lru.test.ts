import { describe, expect, it } from 'vitest';
import { type LruEntry, LruPool } from './lru.ts';

interface Item extends LruEntry {
  readonly name: string;
}

function item(name: string): Item {
  return { name, lastUsed: 0, slot: -1 };
}

function names(pool: LruPool<Item>): string[] {
  return pool.newestFirst().map((entry) => entry.name);
}

describe('LruPool', () => {
  it('evicts the least recently used entry, counting uses, not insertion order', () => {
    const evicted: string[] = [];
    const pool = new LruPool<Item>(2);
    const a = item('a');
    const b = item('b');
    pool.add(a, (entry) => evicted.push(entry.name));
    pool.add(b, (entry) => evicted.push(entry.name));
    pool.use(a);
    pool.add(item('c'), (entry) => evicted.push(entry.name));
    expect(evicted).toEqual(['b']);
    expect(names(pool)).toEqual(['c', 'a']);
    expect(b.slot).toBe(-1);
  });

  it('with larger capacities evicts exactly the least recently used eighth in one pass', () => {
    const evicted: string[] = [];
    const pool = new LruPool<Item>(16);
    const items = Array.from({ length: 16 }, (_, index) => item(`i${index}`));
    for (const entry of items) pool.add(entry, () => {});
    // Use the even items again, oldest first: the odd ones are now the least recently used.
    for (let index = 0; index < 16; index += 2) pool.use(items[index] as Item);
    pool.add(item('new'), (entry) => evicted.push(entry.name));
    expect(evicted.sort()).toEqual(['i1', 'i3', 'i5']);
    expect(pool.size).toBe(14);
    expect(names(pool).slice(0, 3)).toEqual(['new', 'i14', 'i12']);
  });

  it('removes entries, keeping the others reachable', () => {
    const pool = new LruPool<Item>(4);
    const entries = ['a', 'b', 'c'].map(item);
    for (const entry of entries) pool.add(entry, () => {});
    pool.remove(entries[0] as Item);
    pool.remove(entries[0] as Item);
    expect(pool.size).toBe(2);
    expect(names(pool)).toEqual(['c', 'b']);
    pool.add(item('d'), () => {});
    pool.add(item('e'), () => {});
    expect(pool.size).toBe(4);
  });

  it('never holds more than its capacity, whatever the traffic', () => {
    const pool = new LruPool<Item>(100);
    let evictions = 0;
    for (let index = 0; index < 10_000; index += 1) {
      pool.add(item(`k${index}`), () => {
        evictions += 1;
      });
      expect(pool.size).toBeLessThanOrEqual(100);
    }
    expect(evictions).toBe(10_000 - pool.size);
  });

  it('rejects capacities that are not positive integers', () => {
    expect(() => new LruPool(0)).toThrow(RangeError);
    expect(() => new LruPool(1.5)).toThrow(/positive integer/);
  });
});
