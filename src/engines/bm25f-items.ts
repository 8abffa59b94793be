/**
 * The ids a BM25F index ranks, by slot: each id's field lengths (`fields` integers per slot, one flat array), their
 * totals per field, and the slots freed by removals for reuse. After `fromState` the lengths are a view of the
 * snapshot's bytes, copied on the first change.
 */
import { grown } from "./bm25f-postings.js";

export class ItemTable {
  /** Id per slot; undefined for a free slot. */
  ids: (string | undefined)[] = [];
  readonly slotOf = new Map<string, number>();
  /** Field lengths, `fields` per slot. */
  lengths: Int32Array = new Int32Array(0);
  readonly totalLengths: number[];
  /** Per field, how many ids have it non-empty (what its average length is taken over: see `Scorer.norms`). */
  readonly filled: number[];
  private freeSlots: number[] = [];
  private owned = true;

  constructor(readonly fields: number) {
    this.totalLengths = new Array<number>(fields).fill(0);
    this.filled = new Array<number>(fields).fill(0);
  }

  /** A table of saved ids (null for a free slot) and lengths; the lengths are kept as given (a view). */
  static of(fields: number, ids: readonly (string | null)[], lengths: Int32Array): ItemTable {
    const table = new ItemTable(fields);
    table.ids = new Array(ids.length);
    table.lengths = lengths;
    table.owned = false;
    for (let slot = 0; slot < ids.length; slot++) {
      const id = ids[slot];
      if (id === null) {
        table.freeSlots.push(slot);
        continue;
      }
      table.ids[slot] = id;
      table.slotOf.set(id, slot);
      for (let f = 0; f < fields; f++) table.count(f, lengths[slot * fields + f], 1);
    }
    return table;
  }

  /** Number of slots, free ones included. */
  get slots(): number {
    return this.ids.length;
  }

  /** Number of ids. */
  get size(): number {
    return this.slotOf.size;
  }

  /**
   * Bytes of its own lengths (a snapshot's view is counted with the snapshot) and the slots of its id list and free
   * list (the id strings are counted by the caller).
   */
  get bytes(): number {
    return (this.owned ? this.lengths.byteLength : 0) + 8 * (this.ids.length + this.freeSlots.length);
  }

  length(slot: number, field: number): number {
    return this.lengths[slot * this.fields + field];
  }

  /**
   * Gives `id` a slot (a freed one first), its field lengths taken from the ends of its fields' runs (see
   * `Bm25fIndex.addTermRuns`); returns the slot and whether it was reused.
   */
  place(id: string, ends: ArrayLike<number>): { slot: number; reused: boolean } {
    const reused = this.freeSlots.length > 0;
    const slot = this.freeSlots.pop() ?? this.ids.length;
    this.ids[slot] = id;
    this.slotOf.set(id, slot);
    const n = this.fields;
    if (!this.owned || (slot + 1) * n > this.lengths.length) {
      this.lengths = grown(this.lengths, Math.max(64, 2 * (slot + 1) * n, this.lengths.length));
      this.owned = true;
    }
    for (let f = 0; f < n; f++) {
      const length = ends[f] - (f === 0 ? 0 : ends[f - 1]);
      this.lengths[slot * n + f] = length;
      this.count(f, length, 1);
    }
    return { slot, reused };
  }

  /** Frees `id`'s slot; returns it, or undefined when the id is not here. */
  free(id: string): number | undefined {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return undefined;
    const n = this.fields;
    for (let f = 0; f < n; f++) this.count(f, this.lengths[slot * n + f], -1);
    this.slotOf.delete(id);
    this.ids[slot] = undefined;
    this.freeSlots.push(slot);
    return slot;
  }

  /** Adds (`sign` 1) or removes (-1) one id's `length` in field `f` to the totals. */
  private count(f: number, length: number, sign: 1 | -1): void {
    this.totalLengths[f] += sign * length;
    if (length > 0) this.filled[f] += sign;
  }

  /** The lengths of the slots in use, as a state keeps them (trailing room dropped). */
  savedLengths(): Int32Array {
    return this.lengths.slice(0, this.ids.length * this.fields);
  }
}
