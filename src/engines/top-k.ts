/** A ranked hit from any engine: an id and its score. */
export interface Ranked {
  id: string;
  score: number;
}

/** Best first; equal scores break by id so that rankings are deterministic. */
export function compareRanked(a: Ranked, b: Ranked): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * The `k` best of `items` in `compareRanked` order, without sorting everything: a bounded heap whose root is the
 * worst hit kept so far.
 */
export function topK(items: Iterable<Ranked>, k: number): Ranked[] {
  if (k <= 0) return [];
  const heap: Ranked[] = [];
  const worse = (i: number, j: number) => compareRanked(heap[i], heap[j]) > 0;
  const swap = (i: number, j: number) => ([heap[i], heap[j]] = [heap[j], heap[i]]);
  const up = (i: number) => {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!worse(i, parent)) return;
      swap(i, parent);
      i = parent;
    }
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < heap.length && worse(l, m)) m = l;
      if (r < heap.length && worse(r, m)) m = r;
      if (m === i) return;
      swap(i, m);
      i = m;
    }
  };
  for (const item of items) {
    if (heap.length < k) {
      heap.push(item);
      up(heap.length - 1);
    } else if (compareRanked(item, heap[0]) < 0) {
      heap[0] = item;
      down(0);
    }
  }
  return heap.sort(compareRanked);
}
