// The vectors of the chunks embedded under the current model, held in memory as unit-length
// rows of one contiguous Float32Array, so cosine similarity is a dot product over adjacent
// memory. Loaded once from SQLite when the index opens and kept current as chunks and
// embeddings change, so a query never reads vectors from the database.

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
  /** Adds or replaces a chunk's vector. A vector of another length than the first one is ignored. */
  set(id: number, unitVector: Float32Array): void;
  delete(id: number): void;
  clear(): void;
  /** The `limit` most similar chunks to a unit query vector, as id → cosine. */
  nearest(query: Float32Array, limit: number): Map<number, number>;
}

export function createVectorSet(): VectorSet {
  let dimensions = 0;
  let matrix = new Float32Array(0);
  let ids: number[] = [];
  const rowOf = new Map<number, number>();

  function grow(rows: number): void {
    if (rows * dimensions <= matrix.length) return;
    const next = new Float32Array(
      Math.max(rows, 64, Math.ceil((matrix.length / Math.max(dimensions, 1)) * 1.5)) * dimensions,
    );
    next.set(matrix);
    matrix = next;
  }

  return {
    get size() {
      return ids.length;
    },
    set(id, unitVector) {
      if (ids.length === 0 && dimensions !== unitVector.length) {
        dimensions = unitVector.length;
        matrix = new Float32Array(0);
      }
      if (unitVector.length !== dimensions || dimensions === 0) return;
      let row = rowOf.get(id);
      if (row === undefined) {
        row = ids.length;
        grow(row + 1);
        ids.push(id);
        rowOf.set(id, row);
      }
      matrix.set(unitVector, row * dimensions);
    },
    delete(id) {
      const row = rowOf.get(id);
      if (row === undefined) return;
      // Move the last row into the gap.
      const last = ids.length - 1;
      if (row !== last) {
        matrix.copyWithin(row * dimensions, last * dimensions, (last + 1) * dimensions);
        const movedId = ids[last]!;
        ids[row] = movedId;
        rowOf.set(movedId, row);
      }
      ids.pop();
      rowOf.delete(id);
    },
    clear() {
      ids = [];
      rowOf.clear();
      matrix = new Float32Array(0);
      dimensions = 0;
    },
    nearest(query, limit) {
      const result = new Map<number, number>();
      if (query.length !== dimensions || limit < 1) return result;
      // A bounded list kept sorted by score (descending); limit is small (tens).
      const bestScores: number[] = [];
      const bestRows: number[] = [];
      const count = ids.length;
      for (let row = 0; row < count; row++) {
        const offset = row * dimensions;
        let score = 0;
        for (let index = 0; index < dimensions; index++) score += matrix[offset + index]! * query[index]!;
        if (bestScores.length === limit && score <= bestScores[limit - 1]!) continue;
        let position = bestScores.length;
        while (position > 0 && bestScores[position - 1]! < score) position--;
        bestScores.splice(position, 0, score);
        bestRows.splice(position, 0, row);
        if (bestScores.length > limit) {
          bestScores.pop();
          bestRows.pop();
        }
      }
      bestRows.forEach((row, index) => {
        result.set(ids[row]!, bestScores[index]!);
      });
      return result;
    },
  };
}
