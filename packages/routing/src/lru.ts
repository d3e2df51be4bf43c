/**
 * A bounded least-recently-used pool. Each entry carries the tick of its last use, so a
 * hit is one number written into an object the caller already holds: no list splicing,
 * no writes to neighbouring entries (which cost cache misses on the hot path). When the
 * pool grows past its capacity, the least recently used entries are evicted in one pass,
 * down to capacity minus an eighth, so eviction work is amortized over the following
 * inserts. The entries evicted are always exactly the least recently used ones.
 */

/** An entry the pool can hold: the owner's object with two bookkeeping fields. */
export interface LruEntry {
  /** The tick of the last use; written by the pool. */
  lastUsed: number;
  /** The entry's position in the pool; -1 when it is not in one. */
  slot: number;
}

export class LruPool<Entry extends LruEntry> {
  readonly capacity: number;
  readonly #entries: Entry[] = [];
  readonly #slack: number;
  #tick = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`LRU capacity must be a positive integer, got ${capacity}`);
    }
    this.capacity = capacity;
    this.#slack = Math.floor(capacity / 8);
  }

  get size(): number {
    return this.#entries.length;
  }

  /** Marks an entry as the most recently used. */
  use(entry: Entry): void {
    this.#tick += 1;
    entry.lastUsed = this.#tick;
  }

  /**
   * Adds an entry as the most recently used. When that takes the pool past its capacity,
   * the least recently used entries are removed and passed to `onEvict`.
   */
  add(entry: Entry, onEvict: (evicted: Entry) => void): void {
    this.#tick += 1;
    entry.lastUsed = this.#tick;
    entry.slot = this.#entries.length;
    this.#entries.push(entry);
    if (this.#entries.length > this.capacity) this.#evict(onEvict);
  }

  /** Removes an entry of this pool. */
  remove(entry: Entry): void {
    const slot = entry.slot;
    if (slot < 0 || this.#entries[slot] !== entry) return;
    const last = this.#entries.pop() as Entry;
    if (last !== entry) {
      this.#entries[slot] = last;
      last.slot = slot;
    }
    entry.slot = -1;
  }

  /** Entries from the most to the least recently used. */
  newestFirst(): Entry[] {
    return [...this.#entries].sort((left, right) => right.lastUsed - left.lastUsed);
  }

  #evict(onEvict: (evicted: Entry) => void): void {
    const entries = this.#entries;
    const count = entries.length - (this.capacity - this.#slack);
    // Ticks are unique, so the count-th smallest tick splits off exactly `count` entries.
    const ticks = new Float64Array(entries.length);
    for (let index = 0; index < entries.length; index += 1) ticks[index] = (entries[index] as Entry).lastUsed;
    const threshold = selectSmallest(ticks, count - 1);
    let kept = 0;
    const evicted: Entry[] = [];
    for (let index = 0; index < entries.length; index += 1) {
      const entry = entries[index] as Entry;
      if (entry.lastUsed <= threshold) {
        entry.slot = -1;
        evicted.push(entry);
      } else {
        entry.slot = kept;
        entries[kept] = entry;
        kept += 1;
      }
    }
    entries.length = kept;
    for (const entry of evicted) onEvict(entry);
  }
}

/** The k-th smallest value (0-based) of `values`, which it reorders (Hoare's quickselect). */
function selectSmallest(values: Float64Array, k: number): number {
  let low = 0;
  let high = values.length - 1;
  while (low < high) {
    const pivot = values[(low + high) >>> 1] as number;
    let left = low;
    let right = high;
    while (left <= right) {
      while ((values[left] as number) < pivot) left += 1;
      while ((values[right] as number) > pivot) right -= 1;
      if (left <= right) {
        const swap = values[left] as number;
        values[left] = values[right] as number;
        values[right] = swap;
        left += 1;
        right -= 1;
      }
    }
    if (k <= right) high = right;
    else if (k >= left) low = left;
    else return values[k] as number;
  }
  return values[k] as number;
}
