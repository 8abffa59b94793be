/**
 * Postings of new ids not yet in their lists: a build appends (term, slot, frequencies) here in add order, and the
 * first read moves them into the lists in one pass (`PostingStore.append`), instead of growing tens of thousands of
 * small lists entry by entry. `last[term]` is the term's latest entry, so that a term repeated within one id is
 * counted in place.
 */

import { type FieldPacking, grown } from "./bm25f-postings.js";

/** Above this many entries, pending buffers are a bulk's, dropped once flushed. */
const SMALL_PENDING = 4096;

export class PendingPostings {
  terms = new Int32Array(64);
  slots = new Int32Array(64);
  tfs = new Int32Array(64);
  size = 0;
  /** Per term id, the index of its latest entry, or -1. */
  last = new Int32Array(0);

  /**
   * Adds a new slot's terms (ids per field, as runs of `ids` ending at `ends[f]`): the slot is the largest there is,
   * so each term's latest entry is this slot's when the term repeats, and is counted in place, with no per-slot table
   * of counts (the bulk of a build's work). Returns the slot's distinct terms when `listTerms`.
   */
  addSlot(slot: number, ids: Int32Array, ends: ArrayLike<number>, packing: FieldPacking, listTerms: boolean): number[] | undefined {
    const terms: number[] | undefined = listTerms ? [] : undefined;
    for (let f = 0, i = 0; f < ends.length; f++) {
      for (; i < ends[f]; i++) {
        const term = ids[i];
        const last = this.last[term];
        if (last >= 0 && this.slots[last] === slot) {
          this.tfs[last] = packing.increment(this.tfs[last], f);
          continue;
        }
        this.push(term, slot, packing.increment(0, f));
        terms?.push(term);
      }
    }
    return terms;
  }

  /** Bytes of its buffers. */
  get bytes(): number {
    return this.terms.byteLength + this.slots.byteLength + this.tfs.byteLength + this.last.byteLength;
  }

  /** Makes room in `last` for term ids below `count`. */
  reserveTerms(count: number): void {
    if (this.last.length >= count) return;
    const last = new Int32Array(Math.max(1024, count, 2 * this.last.length)).fill(-1);
    last.set(this.last);
    this.last = last;
  }

  /** Empties it: a bulk's buffers are dropped, a few entries' are kept for the next. */
  clear(): void {
    if (this.terms.length > SMALL_PENDING) {
      this.terms = new Int32Array(64);
      this.slots = new Int32Array(64);
      this.tfs = new Int32Array(64);
      this.last = new Int32Array(0);
    } else {
      for (let i = 0; i < this.size; i++) this.last[this.terms[i]] = -1;
    }
    this.size = 0;
  }

  push(term: number, slot: number, tf: number): void {
    if (this.size === this.terms.length) {
      const capacity = 2 * this.terms.length;
      this.terms = grown(this.terms, capacity);
      this.slots = grown(this.slots, capacity);
      this.tfs = grown(this.tfs, capacity);
    }
    this.terms[this.size] = term;
    this.slots[this.size] = slot;
    this.tfs[this.size] = tf;
    this.last[term] = this.size++;
  }
}
