/**
 * The `k` best slots of a score array that only grows, kept up to date as scores are added, so that a search knows
 * the k-th best score at every step without scanning every scored slot (what MaxScore pruning compares against).
 *
 * A min-heap of slot numbers keyed by `scores[slot]`, with each slot's place in the heap, so that a slot already kept
 * whose score rises moves down in place instead of entering twice. Scores may only increase while slots are kept.
 * With `ties`, equal scores are ordered too (`ties(a, b)`: slot a ranks below slot b), so that `ranked()` gives the
 * exact k best of every slot offered, as a search's final selection needs.
 *
 * @example
 * ```ts
 * const scores = new Float64Array(100);
 * const heap = new ScoreHeap(scores, 100);
 * heap.reset(2);
 * scores[7] = 3; heap.offer(7);
 * scores[9] = 1; heap.offer(9);
 * scores[4] = 2; heap.offer(4);
 * heap.floor(); // 2: the second best score so far
 * ```
 */
export class ScoreHeap {
  private slots = new Int32Array(0);
  /** Place of each slot in `slots`, or -1 when not kept. */
  private place: Int32Array;
  private size = 0;
  private k = 0;

  constructor(private readonly scores: Float64Array, capacity: number, private readonly ties?: (a: number, b: number) => boolean) {
    this.place = new Int32Array(capacity).fill(-1);
  }

  /** The slots kept, best first (equal scores in `ties` order, when given). */
  ranked(): number[] {
    return Array.from(this.members()).sort((a, b) => (this.below(a, b) ? 1 : this.below(b, a) ? -1 : 0));
  }

  /** Whether slot a ranks below slot b. */
  private below(a: number, b: number): boolean {
    const { scores } = this;
    return scores[a] < scores[b] || (this.ties !== undefined && scores[a] === scores[b] && this.ties(a, b));
  }

  /** Empties the heap for a search of the `k` best. */
  reset(k: number): void {
    for (let i = 0; i < this.size; i++) this.place[this.slots[i]] = -1;
    this.size = 0;
    this.k = k;
    if (this.slots.length < k) this.slots = new Int32Array(k);
  }

  /** The k-th best score so far, or -Infinity while fewer than k slots have a score (Infinity when k is 0). */
  floor(): number {
    if (this.k === 0) return Infinity;
    return this.size < this.k ? -Infinity : this.scores[this.slots[0]];
  }

  /** The slots kept, in heap order. */
  members(): Int32Array {
    return this.slots.subarray(0, this.size);
  }

  /** Takes account of `slot`'s score, which has just risen (or been set). */
  offer(slot: number): void {
    const at = this.place[slot];
    if (at >= 0) return this.down(at);
    if (this.size < this.k) {
      this.put(this.size++, slot);
      return this.up(this.size - 1);
    }
    if (this.k === 0 || !this.below(this.slots[0], slot)) return;
    this.place[this.slots[0]] = -1;
    this.put(0, slot);
    this.down(0);
  }

  private put(at: number, slot: number): void {
    this.slots[at] = slot;
    this.place[slot] = at;
  }

  private up(at: number): void {
    const { slots } = this;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.below(slots[at], slots[parent])) return;
      this.swap(at, parent);
      at = parent;
    }
  }

  private down(at: number): void {
    const { slots, size } = this;
    for (;;) {
      const l = 2 * at + 1;
      const r = l + 1;
      let m = at;
      if (l < size && this.below(slots[l], slots[m])) m = l;
      if (r < size && this.below(slots[r], slots[m])) m = r;
      if (m === at) return;
      this.swap(at, m);
      at = m;
    }
  }

  private swap(a: number, b: number): void {
    const sa = this.slots[a];
    this.put(a, this.slots[b]);
    this.put(b, sa);
  }
}
