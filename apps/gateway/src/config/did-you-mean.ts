/**
 * "Did you mean …?" for unknown config keys: the known key at the same level that is
 * closest by edit distance, when it is close enough to be a typo.
 */

/**
 * Optimal string alignment distance: Levenshtein (insert, delete, substitute) plus the
 * swap of two adjacent characters, each costing 1. Case-insensitive, so `timezone` is 0
 * from `timeZone`.
 */
export function editDistance(left: string, right: string): number {
  const a = left.toLowerCase();
  const b = right.toLowerCase();
  // rows[i][j]: the distance between the first i characters of a and the first j of b.
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const row = rows[i]!;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
      }
    }
  }
  return rows[a.length]![b.length]!;
}

/** How many edits a key of this length may be from a known key and still count as a typo. */
function maximumDistance(length: number): number {
  if (length < 4) return 1;
  if (length < 8) return 2;
  return 3;
}

/**
 * The known key closest to `key` (the first one on a tie), or undefined when none is within
 * a typo's reach: 1 edit for keys shorter than 4 characters, 2 below 8, 3 from 8 on.
 */
export function closestKey(key: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = maximumDistance(key.length) + 1;
  for (const candidate of known) {
    if (candidate === key) continue;
    const distance = editDistance(key, candidate);
    if (distance < bestDistance && distance < Math.max(key.length, candidate.length)) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
