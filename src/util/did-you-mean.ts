// "did you mean …?" for a name ralph does not know (a config key, a front-matter key, a signal
// name): one edit distance and one rule for the whole program (docs/config.md, docs/plans.md).

/**
 * Levenshtein distance of a and b, or `limit` when it is at least that. Strings whose lengths
 * differ by `limit` or more are never compared letter by letter, so a hostile long token costs
 * nothing against a short name.
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  // One row of the table, updated in place; `diagonal` holds the cell above-left.
  const row = new Int32Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) row[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      const d = Math.min(above + 1, row[j - 1]! + 1, diagonal + (a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1));
      row[j] = d;
      diagonal = above;
      if (d < least) least = d;
    }
    if (least >= limit) return limit;
  }
  return Math.min(row[b.length]!, limit);
}

/** Edits away from a known name that still read as a typo of it. */
const MAX_EDITS = 2;

/**
 * The known key `key` was meant to be: the same key in snake_case (maxIterations, max-iterations),
 * else the closest known key at most two edits away (the first of equals), for keys of three
 * letters or more.
 */
export function didYouMean(key: string, known: readonly string[]): string | undefined {
  const normal = key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/-/g, '_').toLowerCase();
  if (known.includes(normal)) return normal;
  if (normal.length < 3) return undefined;
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(normal, candidate, MAX_EDITS + 1);
    if (distance <= MAX_EDITS && (best === undefined || distance < best.distance)) best = { key: candidate, distance };
  }
  return best?.key;
}
