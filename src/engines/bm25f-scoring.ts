/**
 * BM25F's arithmetic over the stored lists: field weights, length normalization (per field, or once per item), and
 * each term's pseudo-frequencies `tf~` per listed id, cached in one shared buffer for the index's current version.
 *
 *   tf~ = Σ_f w_f · tf_f / ((1 − b_f) + b_f · len_f / avglen_f)
 *
 * With `presenceFloor`, tf~ is at least the frequency that saturates to 1/df of what the raw frequency Σ_f tf_f would.
 */
import type { ItemTable } from "./bm25f-items.js";
import { FieldPacking, grown, type PostingStore } from "./bm25f-postings.js";

/** One indexed field. */
export interface FieldOptions {
  name: string;
  /** How much a match in this field counts (default 1). */
  weight?: number;
  /** Length normalization, 0 (none) to 1 (full) (default 0.75). */
  b?: number;
}

/** What can change without re-indexing (the lists keep raw frequencies per field). */
export interface ScoringOptions {
  fields: Pick<FieldOptions, "weight" | "b">[];
  /** Term-frequency saturation (default 1.2). */
  k1?: number;
  /** Per field (`field`, BM25F, the default), or once over the whole item with one `b` (`{ document: b }`). */
  normalization?: "field" | { document: number };
  /**
   * A floor under each match (default off): a term found in `df` ids counts in each of them at least `1/df` of what
   * its raw frequency would count with no field weight and no length normalization (see `presenceFloor`).
   */
  presenceFloor?: boolean;
}

/** Average length per field and of a whole item, over the live ids (or a subset's). */
export interface Norms {
  /**
   * Per field, its average length over the ids that have it. Over every id, a field most tools leave empty (parameter
   * descriptions in a catalog of mostly parameterless tools) gets a tiny average, and the few tools that fill it are
   * normalized as if they were many times too long: their words there barely count (issue 36: on a catalog of
   * ToolBench tools whose task queries quote parameter examples, this alone cost BM25F 3.4 nDCG@10).
   */
  avg: number[];
  /** Per field, its average over every id, empty or not (what the ranker's per-field features were fitted with). */
  avgAll: number[];
  avgTotal: number;
}

/** What length averages are made of: the number of ids, their total length per field and how many fill each field. */
export interface LengthStats {
  readonly size: number;
  readonly totalLengths: readonly number[];
  readonly filled: readonly number[];
}

/** Where a scorer reads the lists and the items' lengths (the index, whose parts a load replaces). */
export interface Lists {
  readonly store: PostingStore;
  readonly items: ItemTable;
}

export class Scorer {
  fields: Required<FieldOptions>[];
  k1 = 1.2;
  /** The `b` of whole-item length normalization, or undefined for per-field. */
  private documentB: number | undefined;
  private floor = false;
  readonly packing: FieldPacking;
  private readonly cache = new PseudoCache();

  constructor(readonly lists: Lists, fields: FieldOptions[], scoring: Omit<ScoringOptions, "fields">) {
    this.fields = fields.map((f) => ({ name: f.name, weight: f.weight ?? 1, b: f.b ?? 0.75 }));
    this.packing = new FieldPacking(fields.length);
    this.set({ ...scoring, fields });
  }

  /** Changes weights, `b`, `k1` and normalization (the caller bumps its version, which drops the cache). */
  set(scoring: ScoringOptions): void {
    if (scoring.fields.length !== this.fields.length) throw new Error(`Bm25fIndex.rescore: expected ${this.fields.length} fields, got ${scoring.fields.length}`);
    this.fields = this.fields.map((f, i) => ({ name: f.name, weight: scoring.fields[i].weight ?? 1, b: scoring.fields[i].b ?? 0.75 }));
    this.k1 = scoring.k1 ?? 1.2;
    this.documentB = typeof scoring.normalization === "object" ? scoring.normalization.document : undefined;
    this.floor = scoring.presenceFloor === true;
  }

  /** Bytes of its cache. */
  get bytes(): number {
    return this.cache.bytes;
  }

  /** The averages of `stats` (the live ids or a subset). */
  norms({ size, totalLengths, filled }: LengthStats): Norms {
    const n = Math.max(1, size);
    return {
      avg: totalLengths.map((total, f) => total / Math.max(1, filled[f]) || 1),
      avgAll: totalLengths.map((total) => total / n || 1),
      avgTotal: totalLengths.reduce((a, b) => a + b, 0) / n || 1,
    };
  }

  /** The length normalization of field `f` of `slot`: its own (BM25F) or the whole item's. */
  lengthNorm(norms: Norms, slot: number, f: number): number {
    const { items } = this.lists;
    if (this.documentB === undefined) {
      const b = this.fields[f].b;
      return 1 - b + (b * items.length(slot, f)) / norms.avg[f];
    }
    let length = 0;
    for (let g = 0; g < this.fields.length; g++) length += items.length(slot, g);
    return 1 - this.documentB + (this.documentB * length) / norms.avgTotal;
  }

  /** The weighted, normalized frequency of one packed entry in `slot`, floored for a term found in `df` ids. */
  entry(packed: number, slot: number, norms: Norms, df: number): number {
    let sum = 0;
    for (let f = 0; f < this.fields.length; f++) {
      const tf = this.packing.get(packed, f);
      if (tf === 0) continue;
      sum += (this.fields[f].weight * tf) / this.lengthNorm(norms, slot, f);
    }
    return this.floor ? Math.max(sum, this.presenceFloor(packed, df)) : sum;
  }

  /**
   * The pseudo-frequency that saturates to `1/df` of what the entry's raw frequency (every field, no weight, no length
   * normalization) saturates to. Field weights and length normalization tell apart the ids that share a word, trusting
   * a name more than a long parameter description; but a word that only one id has singles it out wherever it is
   * written, and discounting it there only hides that id (issue 36: the one tool whose parameter description lists
   * the example values task queries quote). Shared by `df` ids, the floor falls as `1/df`, so for any common word the
   * weighted frequency decides as before.
   */
  presenceFloor(packed: number, df: number): number {
    let raw = 0;
    for (let f = 0; f < this.fields.length; f++) raw += this.packing.get(packed, f);
    if (df <= 1) return raw;
    const k1 = this.k1;
    const share = (raw * (k1 + 1)) / ((raw + k1) * df);
    return (share * k1) / (k1 + 1 - share);
  }

  /**
   * Each field's share of an entry's pseudo-frequency `pseudo` (for `explain`): its weighted part, or its part of the
   * raw frequency when the floor set the value.
   */
  fieldShares(packed: number, slot: number, norms: Norms, pseudo: number): number[] {
    const parts = this.fields.map((field, f) => {
      const tf = this.packing.get(packed, f);
      return tf === 0 ? 0 : (field.weight * tf) / this.lengthNorm(norms, slot, f);
    });
    let sum = parts.reduce((a, b) => a + b, 0);
    if (sum < pseudo) {
      for (let f = 0; f < parts.length; f++) parts[f] = this.packing.get(packed, f);
      sum = parts.reduce((a, b) => a + b, 0);
    }
    return parts.map((part) => (sum > 0 ? part / sum : 0));
  }

  /** Term `t`'s pseudo-frequencies with `norms` into `out` (0 for slots outside `mask`); returns their maximum. */
  normalize(t: number, norms: Norms, out: Float64Array, mask?: Uint8Array): number {
    const { slots, tfs, start, count } = this.lists.store;
    const from = start[t];
    // The floor's df (the subset's, under a mask); unread without the floor, so not counted then.
    const df = !this.floor ? 0 : mask ? countIn(slots, from, count[t], mask) : count[t];
    let max = 0;
    for (let i = 0; i < count[t]; i++) {
      const slot = slots[from + i];
      if (mask && !mask[slot]) continue;
      const value = this.entry(tfs[from + i], slot, norms, df);
      out[i] = value;
      if (value > max) max = value;
    }
    return max;
  }

  /** Term `t`'s pseudo-frequencies over the whole index, cached while `version` holds; `maxPseudo` gives their maximum. */
  pseudo(t: number, version: number): Float64Array {
    const cached = this.cache.get(t, version);
    if (cached) return cached;
    const { items, store } = this.lists;
    const out = this.cache.room(t, store.count[t], store.terms);
    this.cache.done(t, this.normalize(t, this.norms(items), out));
    return out;
  }

  /** The largest of `pseudo(t)`, valid after it. */
  maxPseudo(t: number): number {
    return this.cache.max[t];
  }
}

/** How many of the `count` slots from `from` are in `mask`. */
function countIn(slots: Int32Array, from: number, count: number, mask: Uint8Array): number {
  let n = 0;
  for (let i = from; i < from + count; i++) if (mask[slots[i]]) n++;
  return n;
}

/**
 * The pseudo-frequencies made so far for one version of the index, term after term in one buffer: per term id, where
 * its values start, the version tag they were made at, and their maximum. A new version empties it (every length
 * average changed) and reuses the buffer.
 */
class PseudoCache {
  private at = new Int32Array(0);
  private counts = new Int32Array(0);
  private tag = new Int32Array(0);
  max = new Float64Array(0);
  private values = new Float64Array(0);
  private used = 0;
  /** The index version the cache holds, and a tag per such version (0: none). */
  private version = -1;
  private epoch = 0;

  get bytes(): number {
    return this.at.byteLength + this.tag.byteLength + this.max.byteLength + this.values.byteLength;
  }

  get(t: number, version: number): Float64Array | undefined {
    if (version !== this.version) {
      this.version = version;
      this.epoch++;
      this.used = 0;
      return undefined;
    }
    if (t >= this.tag.length || this.tag[t] !== this.epoch) return undefined;
    return this.values.subarray(this.at[t], this.at[t] + this.counts[t]);
  }

  /** Room for term `t`'s `count` values (filled by the caller, then `done`), of `terms` term ids. */
  room(t: number, count: number, terms: number): Float64Array {
    if (t >= this.tag.length) {
      const capacity = Math.max(terms, t + 1);
      this.at = grown(this.at, capacity);
      this.tag = grown(this.tag, capacity);
      this.max = grown(this.max, capacity);
      this.counts = grown(this.counts, capacity);
    }
    if (this.used + count > this.values.length) {
      // Values handed out before stay valid: they are views of the old buffer, which they keep.
      this.values = grown(this.values, Math.max(256, this.used + count, 2 * this.values.length), this.used);
    }
    this.at[t] = this.used;
    this.counts[t] = count;
    this.used += count;
    return this.values.subarray(this.at[t], this.used);
  }

  done(t: number, max: number): void {
    this.tag[t] = this.epoch;
    this.max[t] = max;
  }
}
