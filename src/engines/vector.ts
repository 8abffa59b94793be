/**
 * Exact nearest-neighbour search over unit vectors: one contiguous `Float32Array` of rows, cosine similarity as a dot
 * product, the k best kept by `topK` (no full sort). Add, replace and remove follow the item index; a removed row is
 * filled by the last one so the storage stays dense.
 *
 * @example
 * ```ts
 * const index = new VectorIndex(512);
 * index.set("get_weather", vector); // vectors are normalized on the way in
 * index.search(queryVector, 5); // [{ id: "get_weather", score: 0.83 }, …]
 * ```
 */
import { normalize } from "../embeddings/provider.js";
import { type Ranked, topK } from "./top-k.js";

export class VectorIndex {
  readonly dimensions: number;
  private rows: Float32Array;
  private ids: string[] = [];
  private readonly slots = new Map<string, number>();

  constructor(dimensions: number, capacity = 64) {
    this.dimensions = dimensions;
    this.rows = new Float32Array(dimensions * Math.max(1, capacity));
  }

  get size(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.slots.has(id);
  }

  /** Adds or replaces the vector of `id` (copied and scaled to unit length). */
  set(id: string, vector: Float32Array): void {
    if (vector.length !== this.dimensions) throw new Error(`vector of ${vector.length} dimensions in an index of ${this.dimensions}`);
    let slot = this.slots.get(id);
    if (slot === undefined) {
      slot = this.ids.length;
      this.grow(slot + 1);
      this.ids.push(id);
      this.slots.set(id, slot);
    }
    const row = this.rows.subarray(slot * this.dimensions, (slot + 1) * this.dimensions);
    row.set(vector);
    normalize(row);
  }

  /** Removes `id`; returns false when it was not there. */
  remove(id: string): boolean {
    const slot = this.slots.get(id);
    if (slot === undefined) return false;
    const last = this.ids.length - 1;
    if (slot !== last) {
      const movedId = this.ids[last];
      this.rows.copyWithin(slot * this.dimensions, last * this.dimensions, (last + 1) * this.dimensions);
      this.ids[slot] = movedId;
      this.slots.set(movedId, slot);
    }
    this.ids.pop();
    this.slots.delete(id);
    return true;
  }

  /** Cosine similarity of `id` to a unit `query`, or undefined when `id` has no vector. */
  score(id: string, query: Float32Array): number | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : this.dot(slot, query);
  }

  /** The `k` ids most similar to a unit `query`, best first, ties by id; `accept` can leave ids out. */
  search(query: Float32Array, k: number, accept?: (id: string) => boolean): Ranked[] {
    const self = this;
    function* all(): Iterable<Ranked> {
      for (let slot = 0; slot < self.ids.length; slot++) {
        const id = self.ids[slot];
        if (!accept || accept(id)) yield { id, score: self.dot(slot, query) };
      }
    }
    return topK(all(), k);
  }

  private dot(slot: number, query: Float32Array): number {
    const rows = this.rows;
    const base = slot * this.dimensions;
    let sum = 0;
    for (let i = 0; i < this.dimensions; i++) sum += rows[base + i] * query[i];
    return sum;
  }

  private grow(rowsNeeded: number): void {
    if (rowsNeeded * this.dimensions <= this.rows.length) return;
    const bigger = new Float32Array(Math.max(rowsNeeded, (this.rows.length / this.dimensions) * 2) * this.dimensions);
    bigger.set(this.rows);
    this.rows = bigger;
  }
}
