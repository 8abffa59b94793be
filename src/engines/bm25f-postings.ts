/**
 * The postings of a BM25F index as a struct of arrays: every term's list of (slot, packed field frequencies) lives in
 * one shared pair of buffers, and a term is three integers by term id (where its region starts, how many entries it
 * holds, how many it has room for). No per-term object exists, so a loaded index costs its bytes and little else:
 * after `fromState` the buffers are views of the snapshot's own bytes, copied only on the first change.
 *
 * A term's entries are sorted by slot (so a list can be probed by binary search). A list that outgrows its region
 * moves to the end of the buffer with room to double; the regions it leaves are reclaimed by a compaction once they
 * are half the buffer.
 */
import type { PendingPostings } from "./bm25f-pending.js";

export class PostingStore {
  /** Per term id: where its region starts in `slots`/`tfs`, its entries, its room. */
  start = new Int32Array(0);
  count = new Int32Array(0);
  private room = new Int32Array(0);
  /** Slot per entry, ascending within a term's region. */
  slots: Int32Array = EMPTY;
  /** Term frequency per field, packed into one integer per entry (see `FieldPacking`). */
  tfs: Int32Array = EMPTY;
  /** Entries of the buffers in use (regions included), and how many of them belong to regions left behind. */
  private used = 0;
  private garbage = 0;
  /** Whether the buffers are this store's own, or views of a snapshot (read-only until copied). */
  private owned = true;
  /** Number of term ids. */
  terms = 0;

  /** Makes room for term ids below `terms` (new ids have empty lists). */
  addTerms(terms: number): void {
    if (terms > this.start.length) {
      const capacity = Math.max(64, terms, 2 * this.start.length);
      this.start = grown(this.start, capacity);
      this.count = grown(this.count, capacity);
      this.room = grown(this.room, capacity);
    }
    this.terms = Math.max(this.terms, terms);
  }

  /** Takes the lists of a saved state: term `t` has `offsets[t + 1] − offsets[t]` entries from `offsets[t]`. */
  static fromLists(offsets: Int32Array, slots: Int32Array, tfs: Int32Array): PostingStore {
    const store = new PostingStore();
    const terms = offsets.length - 1;
    store.addTerms(terms);
    for (let t = 0; t < terms; t++) {
      store.start[t] = offsets[t];
      store.count[t] = store.room[t] = offsets[t + 1] - offsets[t];
    }
    store.slots = slots;
    store.tfs = tfs;
    store.used = slots.length;
    store.owned = false;
    return store;
  }

  /** Entries over all lists. */
  get entries(): number {
    let total = 0;
    for (let t = 0; t < this.terms; t++) total += this.count[t];
    return total;
  }

  /** Bytes it holds: its per-term arrays and its own buffers (views of a snapshot are counted with the snapshot). */
  get bytes(): number {
    return 12 * this.start.length + (this.owned ? this.slots.byteLength + this.tfs.byteLength : 0);
  }

  /** Each slot's term ids (undefined for a slot with no id), in one pass over the lists. */
  termsBySlot(ids: readonly (string | undefined)[]): (number[] | undefined)[] {
    const lists = ids.map((id) => (id === undefined ? undefined : ([] as number[])));
    for (let t = 0; t < this.terms; t++) {
      for (let i = this.start[t]; i < this.start[t] + this.count[t]; i++) lists[this.slots[i]]!.push(t);
    }
    return lists;
  }

  /** The index of `slot` in term `t`'s list, or -1. */
  find(t: number, slot: number): number {
    const start = this.start[t];
    const end = start + this.count[t];
    const at = lowerBound(this.slots, start, end, slot);
    return at < end && this.slots[at] === slot ? at : -1;
  }

  /** Inserts an entry in its place in term `t`'s list (the slot is not listed yet). */
  insert(t: number, slot: number, tf: number): void {
    this.reserve(t, this.count[t] + 1);
    const start = this.start[t];
    const end = start + this.count[t];
    const at = lowerBound(this.slots, start, end, slot);
    this.slots.copyWithin(at + 1, at, end);
    this.tfs.copyWithin(at + 1, at, end);
    this.slots[at] = slot;
    this.tfs[at] = tf;
    this.count[t]++;
  }

  /** Removes `slot` from term `t`'s list; returns whether it was listed. */
  delete(t: number, slot: number): boolean {
    const at = this.find(t, slot);
    if (at < 0) return false;
    this.own();
    const end = this.start[t] + this.count[t];
    this.slots.copyWithin(at, at + 1, end);
    this.tfs.copyWithin(at, at + 1, end);
    this.count[t]--;
    return true;
  }

  /**
   * Moves pending postings (of new slots, each above every slot listed) to their lists' ends: in place for a few, and
   * for a bulk (more than the lists hold) by one counting sort into fresh buffers.
   */
  append(pending: PendingPostings): void {
    const counts = new Int32Array(this.terms);
    for (let i = 0; i < pending.size; i++) counts[pending.terms[i]]++;
    if (pending.size >= this.entries) this.rebuild(counts, pending);
    else {
      for (let t = 0; t < this.terms; t++) if (counts[t] > 0) this.reserve(t, this.count[t] + counts[t]);
      for (let i = 0; i < pending.size; i++) {
        const t = pending.terms[i];
        const at = this.start[t] + this.count[t]++;
        this.slots[at] = pending.slots[i];
        this.tfs[at] = pending.tfs[i];
      }
    }
  }

  /** Gives term `t`'s region room for `size` entries, moving it to the buffer's end with room to double. */
  private reserve(t: number, size: number): void {
    this.own();
    if (this.room[t] >= size) return;
    const room = Math.max(4, size, 2 * this.count[t]);
    if (this.start[t] + this.room[t] === this.used) {
      // The last region grows where it is.
      this.ensure(this.start[t] + room);
      this.used = this.start[t] + room;
    } else {
      if (this.garbage + this.room[t] > this.used / 2 && this.used > 4096) this.compact();
      this.ensure(this.used + room);
      const from = this.start[t];
      this.slots.copyWithin(this.used, from, from + this.count[t]);
      this.tfs.copyWithin(this.used, from, from + this.count[t]);
      this.garbage += this.room[t];
      this.start[t] = this.used;
      this.used += room;
    }
    this.room[t] = room;
  }

  /** Copies a snapshot's views into buffers of its own before the first change. */
  private own(): void {
    if (this.owned) return;
    this.owned = true;
    this.slots = this.slots.slice();
    this.tfs = this.tfs.slice();
  }

  /** Grows the buffers to hold `size` entries. */
  private ensure(size: number): void {
    if (size <= this.slots.length) return;
    const capacity = Math.max(size, 2 * this.slots.length, 256);
    this.slots = grown(this.slots, capacity, this.used);
    this.tfs = grown(this.tfs, capacity, this.used);
  }

  /** Every list packed again, each with the room it had, dropping the regions left behind. */
  private compact(): void {
    const spare = new Int32Array(this.terms);
    for (let t = 0; t < this.terms; t++) spare[t] = this.room[t] - this.count[t];
    this.rebuild(spare);
  }

  /**
   * Every list copied into fresh buffers with room for `counts[t]` more entries, filled with `pending`'s when given
   * (then `counts` are their numbers per term).
   */
  private rebuild(counts: Int32Array, pending?: PendingPostings): void {
    let total = 0;
    for (let t = 0; t < this.terms; t++) total += this.count[t] + counts[t];
    const slots = new Int32Array(total);
    const tfs = new Int32Array(total);
    const fill = new Int32Array(this.terms);
    let at = 0;
    for (let t = 0; t < this.terms; t++) {
      const count = this.count[t];
      if (count > 0) {
        slots.set(this.slots.subarray(this.start[t], this.start[t] + count), at);
        tfs.set(this.tfs.subarray(this.start[t], this.start[t] + count), at);
      }
      this.start[t] = at;
      this.room[t] = count + counts[t];
      fill[t] = at + count;
      at += count + counts[t];
    }
    if (pending) {
      for (let i = 0; i < pending.size; i++) {
        const t = pending.terms[i];
        slots[fill[t]] = pending.slots[i];
        tfs[fill[t]++] = pending.tfs[i];
        this.count[t]++;
      }
    }
    this.slots = slots;
    this.tfs = tfs;
    this.used = total;
    this.garbage = 0;
    this.owned = true;
  }
}

/** The first index in `[from, to)` of a sorted list whose value is ≥ `value`. */
export function lowerBound(list: Int32Array, from: number, to: number, value: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const EMPTY: Int32Array = new Int32Array(0);

/** A copy of `array`'s first `keep` entries (all by default) with room for `capacity`. */
export function grown<T extends Int32Array | Float64Array>(array: T, capacity: number, keep = array.length): T {
  const next = new (array.constructor as { new (length: number): T })(capacity);
  next.set(array.subarray(0, keep));
  return next;
}

/**
 * Field frequencies packed into one 30-bit integer per posting: `bits` bits per field, each capped at `max`.
 * The cap costs nothing in ranking (BM25 saturates long before it) and saves an array per posting.
 */
export class FieldPacking {
  readonly bits: number;
  readonly max: number;
  constructor(fieldCount: number) {
    this.bits = Math.floor(30 / fieldCount);
    if (this.bits < 2) throw new Error("Bm25fIndex supports at most 15 fields");
    this.max = (1 << this.bits) - 1;
  }
  get(packed: number, field: number): number {
    return (packed >>> (field * this.bits)) & this.max;
  }
  increment(packed: number, field: number): number {
    return this.get(packed, field) === this.max ? packed : packed + (1 << (field * this.bits));
  }
}
