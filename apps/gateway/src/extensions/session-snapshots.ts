// A bounded per-session memo for prompt sections: what a section renders at a session's first
// turn stays the session's text (byte-identical prompt, no file reads per turn) until the
// inputs it depends on change (a new date, another workspace or budget) or the session resets
// (a new session id).

/**
 * Contract: `get` returns the value computed for `sessionId` when it was computed for the same
 * `inputs`, else computes, keeps and returns a new one; a failed computation is not kept. At
 * most `capacity` sessions are kept, the least recently used dropped first.
 */
export interface SessionSnapshots<Value> {
  get(sessionId: string, inputs: string, compute: () => Promise<Value>): Promise<Value>;
  readonly size: number;
}

export function createSessionSnapshots<Value>(capacity = 1000): SessionSnapshots<Value> {
  const entries = new Map<string, { readonly inputs: string; readonly value: Promise<Value> }>();
  return {
    get(sessionId, inputs, compute) {
      const existing = entries.get(sessionId);
      if (existing !== undefined && existing.inputs === inputs) {
        // Re-insert: Map order is the recency order.
        entries.delete(sessionId);
        entries.set(sessionId, existing);
        return existing.value;
      }
      const value = compute();
      const entry = { inputs, value };
      entries.delete(sessionId);
      entries.set(sessionId, entry);
      value.catch(() => {
        if (entries.get(sessionId) === entry) entries.delete(sessionId);
      });
      while (entries.size > capacity) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        entries.delete(oldest);
      }
      return value;
    },
    get size() {
      return entries.size;
    },
  };
}
