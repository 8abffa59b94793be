/** Exact nearest-neighbour search over unit vectors; see `VectorIndex`. */
import { normalize } from "../embeddings/provider.js";
import { ENTRY_BYTES } from "./heap-cost.js";
import { type Ranked, topK } from "./top-k.js";
import { VECTOR_KERNEL_BASE64 } from "./vector-kernel.js";

/** Options of a `VectorIndex`. */
export interface VectorIndexOptions {
  /** `"auto"` (default): WebAssembly SIMD when the runtime validates the kernel, else JS. `"js"`: always JS. */
  kernel?: "auto" | "js";
}

/** Exports of vector-kernel.wat; every argument but counts and strides is a byte offset in the memory. */
interface KernelExports {
  dot(query: number, row: number, stride: number): number;
  dots_i8(query: number, rows: number, count: number, stride: number, out: number): void;
  absmax(row: number, stride: number): number;
  quantize(row: number, out: number, stride: number, inverse: number, scale: number, norms: number): void;
}

const PAGE = 65536;
/** Values per row are padded to this: the kernels read 16 values (64 f32 bytes, 16 int8 bytes) per step. */
const LANES = 16;
/** Largest int8 magnitude: symmetric, so −128 is never used. */
const INT8_MAX = 127;
/** Absolute slack on every bound, far above the f64 rounding of computing the bound itself. */
const BOUND_SLACK = 1e-9;

let compiled: WebAssembly.Module | null | undefined;

/** The kernel module, compiled once per process; null where WebAssembly or its SIMD is unavailable. */
function kernelModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    compiled = null;
    try {
      if (typeof WebAssembly === "object") {
        const bytes = Uint8Array.from(atob(VECTOR_KERNEL_BASE64), (c) => c.charCodeAt(0));
        if (WebAssembly.validate(bytes)) compiled = new WebAssembly.Module(bytes);
      }
    } catch {
      compiled = null; // e.g. node --jitless, or a runtime refusing to compile: the JS scan still works
    }
  }
  return compiled;
}

/** Byte offsets of the regions for a capacity; the f32 rows never move, the int8 rows move up when it grows. */
interface Layout {
  queryI16: number;
  /** Two f64 written by the `quantize` kernel. */
  norms: number;
  rowsF32: number;
  rowsI8: number;
  dots: number;
  end: number;
}

/**
 * Exact nearest-neighbour search over unit vectors (cosine similarity as a dot product), scanned with WebAssembly
 * SIMD.
 *
 * Why two passes: at 12k × 512 an f32 scan reads 25 MB per query and waits on memory (1.6–1.8 ms with SIMD, about
 * twice its speed on rows that fit in cache; 6–10 ms in scalar JS). So each row is also kept as int8 (a quarter of
 * the bytes) with its scale, and a search first takes integer dot products of every row with an int16 copy of the
 * query, then rescores in f32 only the rows whose score could still reach the k best. What keeps this exact is a
 * per-row error bound (Cauchy–Schwarz on the quantization residuals, plus f32 rounding): a row is skipped only when
 * its upper bound is below the k-th best lower bound, so it cannot be in the top k, and the rows returned carry their
 * f32 scores, exactly as a full f32 scan would rank them (ties by id). Measured with scripts/bench-vector.ts: 0.34 ms
 * per search at 12,174 × 512, against 6.5 ms for the JS scan.
 *
 * Storage: one `WebAssembly.Memory` holds the query scratch, the f32 rows, the int8 rows and the integer dots, so
 * nothing is copied per search but the query. Rows are zero-padded to a multiple of 16 values (any dimension
 * works). Add, replace and remove follow the item index; a removed row is filled by the last one, so storage stays
 * dense. Where WebAssembly SIMD does not validate (or with `{ kernel: "js" }`), the same layout lives in a plain
 * `ArrayBuffer` and an unrolled JS dot product scans it exactly, with the same results up to float rounding.
 * Limit: 4 GiB of linear memory, about 1.6M rows of 512 dimensions.
 *
 * @example
 * ```ts
 * import { VectorIndex } from "toolsearch";
 * const index = new VectorIndex(3);
 * index.set("get_weather", new Float32Array([1, 0.2, 0])); // copied and normalized on the way in
 * index.set("send_email", new Float32Array([0, 1, 0.1]));
 * index.search(new Float32Array([0.96, 0.28, 0]), 1); // [{ id: "get_weather", score: 0.99… }]
 * index.search(new Float32Array([0.96, 0.28, 0]), 5, (id) => id.startsWith("send_")); // [{ id: "send_email", … }]
 * // One vector per sentence of a request: each id scores by its closest one.
 * index.searchMax([new Float32Array([0.96, 0.28, 0]), new Float32Array([0, 0.995, 0.1])], 2); // both, 0.99–1.0
 * ```
 */
export class VectorIndex {
  readonly dimensions: number;
  /** Which scan runs: `"wasm-simd"` (int8 first pass, exact f32 rescoring) or `"js"` (exact f32 scan). */
  readonly kernel: "wasm-simd" | "js";
  /** Values per stored row: `dimensions` rounded up to a multiple of 16, zero-padded. */
  private readonly stride: number;
  private readonly wasm: { memory: WebAssembly.Memory; exports: KernelExports } | undefined;
  private capacity = 0;
  private layout!: Layout;
  private buffer: ArrayBuffer = new ArrayBuffer(0);
  // Views over the whole buffer, re-taken after every growth (memory.grow detaches the old ArrayBuffer).
  private f32!: Float32Array;
  private i8!: Int8Array;
  private i16!: Int16Array;
  private i32!: Int32Array;
  private f64!: Float64Array;
  /** Per row: the int8 scale, ‖r̂‖ (norm of the dequantized row) and ‖r − r̂‖ (norm of the quantization error). */
  private rowScale = new Float64Array(0);
  private quantNorm = new Float64Array(0);
  private errorNorm = new Float64Array(0);
  /** Per-search scratch: upper and lower bounds of each row's score (equal in the exact JS scan). */
  private upper = new Float64Array(0);
  private lower = new Float64Array(0);
  private ids: string[] = [];
  private readonly slots = new Map<string, number>();

  constructor(dimensions: number, capacity = 64, options: VectorIndexOptions = {}) {
    if (!Number.isInteger(dimensions) || dimensions < 1) throw new Error(`invalid vector dimensions: ${dimensions}`);
    this.dimensions = dimensions;
    this.stride = Math.ceil(dimensions / LANES) * LANES;
    const module = options.kernel === "js" ? null : kernelModule();
    if (module) {
      const memory = new WebAssembly.Memory({ initial: 1 });
      const instance = new WebAssembly.Instance(module, { env: { memory } });
      this.wasm = { memory, exports: instance.exports as unknown as KernelExports };
    }
    this.kernel = this.wasm ? "wasm-simd" : "js";
    this.grow(Math.max(1, capacity));
  }

  get size(): number {
    return this.ids.length;
  }

  /**
   * Bytes it holds: its memory region (f32 rows, int8 rows and scratch, by byte length, so the room kept for growth
   * counts), its per-row numbers, and each id's map entry and string as `Bm25fIndex.memoryBytes` counts them.
   */
  get memoryBytes(): number {
    let bytes = this.buffer.byteLength;
    for (const array of [this.rowScale, this.quantNorm, this.errorNorm, this.upper, this.lower]) bytes += array.byteLength;
    for (const id of this.ids) bytes += ENTRY_BYTES + 2 * id.length;
    return bytes;
  }

  has(id: string): boolean {
    return this.slots.has(id);
  }

  /** Adds or replaces the vector of `id` (copied and scaled to unit length). */
  set(id: string, vector: Float32Array): void {
    this.checkLength(vector);
    let slot = this.slots.get(id);
    if (slot === undefined) {
      slot = this.ids.length;
      this.grow(slot + 1);
      this.ids.push(id);
      this.slots.set(id, slot);
    }
    const start = this.rowStart(slot);
    const row = this.f32.subarray(start, start + this.dimensions);
    row.set(vector);
    normalize(row);
    // The kernels read whole strides: the padding must be zero, and after a growth this space may hold old bytes.
    this.f32.fill(0, start + this.dimensions, start + this.stride);
    if (this.wasm) this.quantize(slot);
  }

  /** Every id with its unit vector (row `i` of `vectors` is `ids[i]`), copied out for snapshots. */
  exportRows(): { ids: string[]; vectors: Float32Array } {
    const d = this.dimensions;
    const vectors = new Float32Array(this.ids.length * d);
    this.ids.forEach((_, slot) => vectors.set(this.f32.subarray(this.rowStart(slot), this.rowStart(slot) + d), slot * d));
    return { ids: [...this.ids], vectors };
  }

  /** Removes `id`; returns false when it was not there. */
  remove(id: string): boolean {
    const slot = this.slots.get(id);
    if (slot === undefined) return false;
    const last = this.ids.length - 1;
    if (slot !== last) {
      const movedId = this.ids[last];
      const s = this.stride;
      this.f32.copyWithin(this.rowStart(slot), this.rowStart(last), this.rowStart(last) + s);
      if (this.wasm) {
        const base = this.layout.rowsI8;
        this.i8.copyWithin(base + slot * s, base + last * s, base + (last + 1) * s);
        this.rowScale[slot] = this.rowScale[last];
        this.quantNorm[slot] = this.quantNorm[last];
        this.errorNorm[slot] = this.errorNorm[last];
      }
      this.ids[slot] = movedId;
      this.slots.set(movedId, slot);
    }
    this.ids.pop();
    this.slots.delete(id);
    return true;
  }

  /** Cosine similarity of `id` to a unit `query`, or undefined when `id` has no vector; the same value `search` gives. */
  score(id: string, query: Float32Array): number | undefined {
    return this.maxScores([id], [query])[0];
  }

  /**
   * Cosine similarity of each of `ids` to the closest of the unit `queries` (undefined for an id with no vector): the
   * score `searchMax` gives. Each query is copied into the kernel's memory once, not once per id.
   */
  maxScores(ids: readonly string[], queries: readonly Float32Array[]): (number | undefined)[] {
    queries.forEach((query) => this.checkLength(query));
    const slots = ids.map((id) => this.slots.get(id));
    const best = slots.map((): number | undefined => undefined);
    for (const query of queries) {
      if (this.wasm) this.f32.set(query, 0);
      slots.forEach((slot, i) => {
        if (slot === undefined) return;
        const score = this.dotAt(slot, query);
        if (best[i] === undefined || score > best[i]) best[i] = score;
      });
    }
    return best;
  }

  /**
   * The mean of the unit vectors of `ids` (those without a vector skipped), or undefined when none has one: the
   * centroid a query is moved toward by pseudo-relevance feedback (`embeddings/feedback.ts`).
   */
  mean(ids: readonly string[]): Float32Array | undefined {
    const d = this.dimensions;
    const sum = new Float32Array(d);
    let count = 0;
    for (const id of ids) {
      const slot = this.slots.get(id);
      if (slot === undefined) continue;
      const start = this.rowStart(slot);
      for (let i = 0; i < d; i++) sum[i] += this.f32[start + i];
      count++;
    }
    if (count === 0) return undefined;
    for (let i = 0; i < d; i++) sum[i] /= count;
    return sum;
  }

  /**
   * Each id's centrality: how close it is to the rest of the index, as its place among the rows (0 the farthest from
   * the others, 1 the closest). A row's mean cosine to every row is its dot product with the rows' mean, so this is
   * one pass over the rows and a sort; ties share the lower place. `accept`: only those ids, among themselves.
   */
  centralities(accept?: (id: string) => boolean): Map<string, number> {
    const slots = [...this.ids.keys()].filter((slot) => !accept || accept(this.ids[slot]));
    const count = slots.length;
    const out = new Map<string, number>();
    if (count === 0) return out;
    const mean = new Float32Array(this.dimensions);
    for (const slot of slots) {
      const base = this.rowStart(slot);
      for (let i = 0; i < this.dimensions; i++) mean[i] += this.f32[base + i] / count;
    }
    const closeness = slots.map((slot) => this.dotJs(slot, mean));
    const order = [...closeness.keys()].sort((a, b) => closeness[a] - closeness[b]);
    let place = 0;
    order.forEach((at, k) => {
      if (k > 0 && closeness[at] > closeness[order[k - 1]]) place = k;
      out.set(this.ids[slots[at]], count > 1 ? place / (count - 1) : 1);
    });
    return out;
  }

  /**
   * The `k` ids most similar to a unit `query`, best first, ties by id; `accept` can leave ids out. It is asked only
   * about rows whose score could still make the k best, so a filter costs little even on a large index.
   */
  search(query: Float32Array, k: number, accept?: (id: string) => boolean): Ranked[] {
    return this.searchMax([query], k, accept);
  }

  /**
   * The `k` ids whose closest unit query (of `queries`, e.g. one per sentence of a request) is most similar, scored
   * by that closest query: best first, ties by id. One pass over the rows per query, then one exact rescoring of the
   * few rows that can still make the k best; `accept` as in `search`.
   */
  searchMax(queries: readonly Float32Array[], k: number, accept?: (id: string) => boolean): Ranked[] {
    queries.forEach((query) => this.checkLength(query));
    const count = this.ids.length;
    if (k <= 0 || count === 0 || queries.length === 0) return [];
    if (!this.wasm) {
      // In JS the dot product is the expensive part: ask `accept` first and score only accepted rows.
      const scores = this.upper;
      for (let slot = 0; slot < count; slot++) {
        let best = -Infinity;
        if (!accept || accept(this.ids[slot])) for (const query of queries) best = Math.max(best, this.dotJs(slot, query));
        scores[slot] = best;
      }
      const kept = this.candidates(count, k, undefined, scores, scores).filter((slot) => scores[slot] !== -Infinity);
      return topK(
        kept.map((slot) => ({ id: this.ids[slot], score: scores[slot] })),
        k,
      );
    }
    // A row's best score lies between the largest of its lower bounds and the largest of its upper bounds.
    queries.forEach((query, i) => this.boundScores(query, count, i > 0));
    const kept = this.candidates(count, k, accept, this.upper, this.lower);
    const scores = this.maxScores(
      kept.map((slot) => this.ids[slot]),
      queries,
    );
    return topK(
      kept.map((slot, i) => ({ id: this.ids[slot], score: scores[i]! })),
      k,
    );
  }

  /**
   * First pass of a WASM search: writes an int16 copy of the query into the scratch area, runs `dots_i8` over all
   * rows and turns each dot into bounds `lower ≤ f32 score ≤ upper`; with `merge`, raises the bounds already there
   * instead (a row's best score over several queries). Rescoring copies the f32 query itself (`maxScores`).
   *
   * With r = r̂ + e (row = dequantized int8 + error) and x = x̂ + d (query likewise), r·x − r̂·x̂ = r̂·d + e·x̂ + e·d,
   * so by Cauchy–Schwarz |r·x − r̂·x̂| ≤ ‖r̂‖‖d‖ + ‖e‖‖x̂‖ + ‖e‖‖d‖. The f32 kernel's own rounding adds at most
   * γₙ·Σ|rᵢxᵢ| ≤ n·2⁻²³·‖x‖·(‖r̂‖ + ‖e‖) for n = stride (its longest chain of roundings is far shorter).
   */
  private boundScores(query: Float32Array, count: number, merge: boolean): void {
    const { exports } = this.wasm!;
    const n = this.dimensions, s = this.stride, i16 = this.i16;
    let max = 0, norm2 = 0;
    for (let i = 0; i < n; i++) {
      const x = query[i];
      max = Math.max(max, Math.abs(x));
      norm2 += x * x;
    }
    // The largest int16 range that keeps every i32 sum of 127 × |q| × stride products exact (32767 up to 512 dimensions).
    const limit = Math.min(32767, Math.floor((2 ** 31 - 1) / (INT8_MAX * s)));
    const queryScale = max / limit;
    const q16 = this.layout.queryI16 >> 1;
    let quant2 = 0, error2 = 0;
    for (let i = 0; i < n; i++) {
      const q = queryScale === 0 ? 0 : Math.max(-limit, Math.min(limit, Math.round(query[i] / queryScale)));
      i16[q16 + i] = q;
      const dequantized = q * queryScale;
      quant2 += dequantized * dequantized;
      error2 += (query[i] - dequantized) ** 2;
    }
    exports.dots_i8(this.layout.queryI16, this.layout.rowsI8, count, s, this.layout.dots);
    const queryError = Math.sqrt(error2);
    const rounding = s * 2 ** -23 * Math.sqrt(norm2);
    // bound = ‖r̂‖·(‖d‖ + rounding) + ‖e‖·(‖x̂‖ + ‖d‖ + rounding) + slack
    const perQuant = queryError + rounding;
    const perError = Math.sqrt(quant2) + queryError + rounding;
    const dots = this.i32, at = this.layout.dots >> 2;
    const { rowScale, quantNorm, errorNorm, upper, lower } = this;
    for (let slot = 0; slot < count; slot++) {
      const approx = dots[at + slot] * rowScale[slot] * queryScale;
      const bound = quantNorm[slot] * perQuant + errorNorm[slot] * perError + BOUND_SLACK;
      if (merge) {
        upper[slot] = Math.max(upper[slot], approx + bound);
        lower[slot] = Math.max(lower[slot], approx - bound);
      } else {
        upper[slot] = approx + bound;
        lower[slot] = approx - bound;
      }
    }
  }

  /**
   * Accepted slots whose `upper` reaches the k-th best `lower` among accepted slots: a superset of the top k. A
   * min-heap keeps the k best lower bounds so far; a row whose upper bound is already below its root can be neither
   * in the top k nor raise the threshold, so it is dropped before `accept` is even asked.
   */
  private candidates(count: number, k: number, accept: ((id: string) => boolean) | undefined, upper: Float64Array, lower: Float64Array): number[] {
    const heap = new Float64Array(k);
    let size = 0;
    const kept: number[] = [];
    for (let slot = 0; slot < count; slot++) {
      if (size === k && upper[slot] < heap[0]) continue;
      if (accept && !accept(this.ids[slot])) continue;
      kept.push(slot);
      const value = lower[slot];
      if (size < k) {
        // Sift up.
        let at = size++;
        while (at > 0) {
          const parent = (at - 1) >> 1;
          if (heap[parent] <= value) break;
          heap[at] = heap[parent];
          at = parent;
        }
        heap[at] = value;
      } else if (value > heap[0]) {
        // Replace the root and sift down.
        let at = 0;
        for (;;) {
          const l = 2 * at + 1;
          if (l >= k) break;
          const child = l + 1 < k && heap[l + 1] < heap[l] ? l + 1 : l;
          if (heap[child] >= value) break;
          heap[at] = heap[child];
          at = child;
        }
        heap[at] = value;
      }
    }
    if (size < k) return kept;
    const threshold = heap[0];
    return kept.filter((slot) => upper[slot] >= threshold);
  }

  /**
   * Stores the int8 copy of a (normalized, zero-padded) row and its error terms. The rounding mode does not matter
   * for exactness: the bounds use the error of the values actually stored. In WebAssembly because the same loop in
   * JS made a 12k-tool start from the cache 0.2–0.4 s slower.
   */
  private quantize(slot: number): void {
    const { exports } = this.wasm!;
    const row = this.rowStart(slot) * 4;
    const max = exports.absmax(row, this.stride);
    const scale = max / INT8_MAX;
    // |row[i]| ≤ max, so row[i] × (127 / max) rounds into [−127, 127].
    exports.quantize(row, this.layout.rowsI8 + slot * this.stride, this.stride, max === 0 ? 0 : INT8_MAX / max, scale, this.layout.norms);
    const norms = this.layout.norms >> 3;
    this.rowScale[slot] = scale;
    this.quantNorm[slot] = Math.sqrt(this.f64[norms]);
    this.errorNorm[slot] = Math.sqrt(this.f64[norms + 1]);
  }

  /** Dot product of a row with `query`; with WebAssembly, `query` must already be in the query scratch area. */
  private dotAt(slot: number, query: Float32Array): number {
    return this.wasm ? this.wasm.exports.dot(0, this.rowStart(slot) * 4, this.stride) : this.dotJs(slot, query);
  }

  /** The JS scan's dot product, unrolled by eight with separate sums: 1.3–1.5× faster than the plain loop in V8. */
  private dotJs(slot: number, query: Float32Array): number {
    const rows = this.f32;
    const n = this.dimensions;
    const base = this.rowStart(slot);
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    let i = 0;
    for (; i + 7 < n; i += 8) {
      const r = base + i;
      s0 += rows[r] * query[i];
      s1 += rows[r + 1] * query[i + 1];
      s2 += rows[r + 2] * query[i + 2];
      s3 += rows[r + 3] * query[i + 3];
      s4 += rows[r + 4] * query[i + 4];
      s5 += rows[r + 5] * query[i + 5];
      s6 += rows[r + 6] * query[i + 6];
      s7 += rows[r + 7] * query[i + 7];
    }
    for (; i < n; i++) s0 += rows[base + i] * query[i];
    return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
  }

  /** Index in `f32` of a row's first value. */
  private rowStart(slot: number): number {
    return (this.layout.rowsF32 >> 2) + slot * this.stride;
  }

  private checkLength(vector: Float32Array): void {
    if (vector.length !== this.dimensions) throw new Error(`vector of ${vector.length} dimensions in an index of ${this.dimensions}`);
  }

  /** Regions for `capacity` rows: query f32, query int16, quantize scratch, f32 rows, then (WASM only) int8 rows and i32 dots. */
  private layoutFor(capacity: number): Layout {
    const s = this.stride;
    const queryI16 = s * 4;
    const norms = queryI16 + s * 2;
    const rowsF32 = norms + 16;
    const rowsI8 = rowsF32 + capacity * s * 4;
    const dots = rowsI8 + (this.wasm ? capacity * s : 0);
    return { queryI16, norms, rowsF32, rowsI8, dots, end: dots + (this.wasm ? capacity * 4 : 0) };
  }

  /** Makes room for `rowsNeeded` rows, doubling, and re-takes every view. */
  private grow(rowsNeeded: number): void {
    if (rowsNeeded <= this.capacity) return;
    const capacity = Math.max(rowsNeeded, this.capacity * 2);
    const next = this.layoutFor(capacity);
    const count = this.ids.length;
    if (this.wasm) {
      const { memory } = this.wasm;
      const pages = Math.ceil(next.end / PAGE) - memory.buffer.byteLength / PAGE;
      if (pages > 0) memory.grow(pages);
      this.buffer = memory.buffer;
    } else {
      const bigger = new ArrayBuffer(next.end);
      new Uint8Array(bigger).set(new Uint8Array(this.buffer));
      this.buffer = bigger;
    }
    this.f32 = new Float32Array(this.buffer);
    this.i8 = new Int8Array(this.buffer);
    this.i16 = new Int16Array(this.buffer);
    this.i32 = new Int32Array(this.buffer);
    this.f64 = new Float64Array(this.buffer);
    // The int8 rows sit after the f32 rows, so they move up; copyWithin handles the overlap like memmove.
    if (this.wasm && this.layout && count > 0) {
      this.i8.copyWithin(next.rowsI8, this.layout.rowsI8, this.layout.rowsI8 + count * this.stride);
    }
    this.layout = next;
    this.capacity = capacity;
    this.rowScale = resized(this.rowScale, capacity);
    this.quantNorm = resized(this.quantNorm, capacity);
    this.errorNorm = resized(this.errorNorm, capacity);
    this.upper = new Float64Array(capacity);
    this.lower = new Float64Array(capacity);
  }
}

function resized(array: Float64Array, length: number): Float64Array<ArrayBuffer> {
  const bigger = new Float64Array(length);
  bigger.set(array.subarray(0, Math.min(array.length, length)));
  return bigger;
}
