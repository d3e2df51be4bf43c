// The vectors of the chunks embedded under the current model, held in memory as unit-length
// Float32Arrays so cosine similarity is one dot product. Loaded once from SQLite when the
// index opens and kept current as chunks and embeddings change, so a query never reads
// vectors from the database.

/** Scales a vector to unit length (a zero vector stays zero). */
export function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let index = 0; index < vector.length; index++) sum += vector[index]! * vector[index]!;
  const length = Math.sqrt(sum);
  if (length === 0) return vector;
  const unit = new Float32Array(vector.length);
  for (let index = 0; index < vector.length; index++) unit[index] = vector[index]! / length;
  return unit;
}

/** Chunk id → unit vector, with a top-k cosine search. */
export interface VectorSet {
  readonly size: number;
  set(id: number, unitVector: Float32Array): void;
  delete(id: number): void;
  clear(): void;
  /** The `limit` most similar chunks to a unit query vector, as id → cosine. */
  nearest(query: Float32Array, limit: number): Map<number, number>;
}

export function createVectorSet(): VectorSet {
  const vectors = new Map<number, Float32Array>();
  return {
    get size() {
      return vectors.size;
    },
    set: (id, unitVector) => void vectors.set(id, unitVector),
    delete: (id) => void vectors.delete(id),
    clear: () => vectors.clear(),
    nearest(query, limit) {
      // A bounded list kept sorted by score (descending); limit is small (tens).
      const best: Array<{ id: number; score: number }> = [];
      for (const [id, vector] of vectors) {
        if (vector.length !== query.length) continue;
        let score = 0;
        for (let index = 0; index < vector.length; index++) score += vector[index]! * query[index]!;
        if (best.length === limit && score <= best[best.length - 1]!.score) continue;
        let position = best.length;
        while (position > 0 && best[position - 1]!.score < score) position--;
        best.splice(position, 0, { id, score });
        if (best.length > limit) best.pop();
      }
      return new Map(best.map((entry) => [entry.id, entry.score]));
    },
  };
}
