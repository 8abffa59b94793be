/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transpositions, the commonest typo), computed only
 * up to `max`: returns `max + 1` as soon as the distance is known to exceed it.
 */
export function boundedEditDistance(a: string, b: string, max: number): number {
  const la = a.length, lb = b.length;
  if (Math.abs(la - lb) > max) return max + 1;
  // Three reused rows: a typo lookup computes this for thousands of candidates, and allocating rows for each
  // candidate cost more than the distances themselves.
  if (rows[0].length <= lb) rows = [0, 1, 2].map(() => new Int32Array(2 * (lb + 1)));
  let [prevPrev, prev, row] = rows;
  for (let j = 0; j <= lb; j++) prev[j] = j;
  for (let i = 1; i <= la; i++) {
    row[0] = i;
    let rowMin = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= lb; j++) {
      const cb = b.charCodeAt(j - 1);
      let d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca === cb ? 0 : 1));
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) d = Math.min(d, prevPrev[j - 2] + 1);
      row[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    const spare = prevPrev;
    prevPrev = prev;
    prev = row;
    row = spare;
  }
  return prev[lb];
}

let rows = [0, 1, 2].map(() => new Int32Array(64));
