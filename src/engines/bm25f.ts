/**
 * BM25F over any number of fields: an inverted index of analyzed terms, with a weight and a length normalization per
 * field, and typo-tolerant lookup of terms that are not in the vocabulary. It ranks ids; it knows nothing of tools or
 * documents.
 *
 * Scoring (Robertson & Zaragoza's BM25F): per term, the field frequencies are normalized by field length and summed
 * with the field weights into one pseudo-frequency `tf~`, then saturated once:
 *   score = Σ_t qtf · idf(t) · tf~ (k1 + 1) / (tf~ + k1),   tf~ = Σ_f w_f · tf_f / ((1 − b_f) + b_f · len_f / avglen_f)
 *
 * @example
 * ```ts
 * const index = new Bm25fIndex({ fields: [{ name: "title", weight: 2 }, { name: "body" }] });
 * index.add("a", [["weather"], ["forecast", "rain"]]);
 * index.search(["rain"], 5); // [{ id: "a", score: … }]
 * ```
 */
import { type Expansion, type FuzzyOptions, FuzzyVocabulary } from "./fuzzy.js";
import { ScoreHeap } from "./score-heap.js";
import { compareRanked, type Ranked } from "./top-k.js";

/** One indexed field. */
export interface FieldOptions {
  name: string;
  /** How much a match in this field counts (default 1). */
  weight?: number;
  /** Length normalization, 0 (none) to 1 (full) (default 0.75). */
  b?: number;
}

/** Options of a BM25F index. */
export interface Bm25fOptions {
  fields: FieldOptions[];
  /** Term-frequency saturation (default 1.2). */
  k1?: number;
  /** Typo tolerance for query terms missing from the vocabulary; `false` turns it off. */
  fuzzy?: FuzzyOptions | false;
  /**
   * How much a fuzzy match counts relative to an exact one, per edit (default 0.4: one edit ×0.4, two ×0.16).
   * Kept well below 1 so that an exact match on a term outranks a fuzzy match on an equally rare one.
   */
  fuzzyPenalty?: number;
}

/** One query term's share of an id's score from one field (see `Bm25fIndex.explain`). */
export interface TermContribution {
  /** The vocabulary term that matched. */
  term: string;
  /** The analyzed query term it stands for: the same term, or a misspelling matched to it. */
  queryTerm: string;
  /** Edits between `queryTerm` and `term` when the match is a typo expansion. */
  distance?: number;
  field: string;
  contribution: number;
}

/**
 * The built state of a `Bm25fIndex` in flat arrays, for snapshots: a loaded state answers exactly as the index it
 * came from, with no text analyzed again. Postings are stored term by term: `slots` and `tfs` from `offsets[i]` to
 * `offsets[i + 1]` belong to `terms[i]`.
 */
export interface Bm25fState {
  /** Id per slot; null for a free slot. */
  ids: (string | null)[];
  /** Field lengths, `fields` per slot. */
  lengths: Int32Array;
  terms: string[];
  offsets: Int32Array;
  slots: Int32Array;
  tfs: Int32Array;
}

interface Posting {
  slots: number[];
  /** Term frequency per field, packed into one integer per entry of `slots` (see `FieldPacking`). */
  tfs: number[];
  /** Cached pseudo-frequencies, valid while `version` equals the index's normalization version. */
  pseudo?: Float64Array;
  /** The largest of `pseudo`, made with it. */
  maxPseudo: number;
  version: number;
}

/**
 * Field frequencies packed into one 30-bit integer per posting: `bits` bits per field, each capped at `max`.
 * The cap costs nothing in ranking (BM25 saturates long before it) and saves an array per posting.
 */
class FieldPacking {
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

export class Bm25fIndex {
  private readonly fields: Required<FieldOptions>[];
  private readonly k1: number;
  private readonly fuzzyPenalty: number;
  private readonly packing: FieldPacking;
  private readonly postings = new Map<string, Posting>();
  private readonly vocabulary: FuzzyVocabulary | undefined;
  private readonly slotOf = new Map<string, number>();
  private ids: (string | undefined)[] = [];
  private lengths: number[] = [];
  private termsOf: (string[] | undefined)[] = [];
  private freeSlots: number[] = [];
  /** Set by `fromState` until `undefer` runs. */
  private deferred = false;
  private totalLengths: number[];
  private normVersion = 0;
  private scores = new Float64Array(0);
  private touched = new Int32Array(0);
  private heap = new ScoreHeap(this.scores, 0);

  constructor(options: Bm25fOptions) {
    this.fields = options.fields.map((f) => ({ name: f.name, weight: f.weight ?? 1, b: f.b ?? 0.75 }));
    this.k1 = options.k1 ?? 1.2;
    this.fuzzyPenalty = options.fuzzyPenalty ?? 0.4;
    this.vocabulary = options.fuzzy === false ? undefined : new FuzzyVocabulary(options.fuzzy);
    this.totalLengths = this.fields.map(() => 0);
    this.packing = new FieldPacking(this.fields.length);
  }

  /** Number of indexed ids. */
  get size(): number {
    return this.slotOf.size;
  }

  /**
   * Bytes its postings and per-id tables hold, counted from their entries (8 bytes per array element, as V8 stores
   * them without pointer compression, plus a fixed cost per object and map entry); an estimate, not a heap walk.
   */
  memoryBytes(): number {
    let bytes = this.ids.length * (8 + 8 * this.fields.length + 96);
    for (const [term, posting] of this.postings) bytes += 160 + term.length + 16 * posting.slots.length;
    // Made on first need after `fromState` (see `undefer`): one term pointer per posting entry, plus the typo vocabulary.
    if (!this.deferred) for (const posting of this.postings.values()) bytes += 8 * posting.slots.length + 48;
    return bytes;
  }

  has(id: string): boolean {
    return this.slotOf.has(id);
  }

  /** Whether a term (already analyzed) is in the vocabulary. */
  hasTerm(term: string): boolean {
    return this.postings.has(term);
  }

  /** Number of indexed ids that contain the term. */
  documentFrequency(term: string): number {
    return this.postings.get(term)?.slots.length ?? 0;
  }

  /** Vocabulary terms close to a term, nearest first (for suggestions and typo tolerance). */
  nearTerms(term: string, maxDistance?: number): Expansion[] {
    this.undefer();
    return this.vocabulary?.expand(term, maxDistance) ?? [];
  }

  /** Indexes `id` with one list of analyzed terms per field (in field order). Replaces an existing id. */
  add(id: string, fieldTerms: string[][]): void {
    this.undefer();
    if (fieldTerms.length !== this.fields.length) {
      throw new Error(`Bm25fIndex.add: expected ${this.fields.length} fields, got ${fieldTerms.length}`);
    }
    if (this.slotOf.has(id)) this.remove(id);
    const slot = this.freeSlots.pop() ?? this.ids.length;
    this.ids[slot] = id;
    this.slotOf.set(id, slot);
    const n = this.fields.length;
    const counts = new Map<string, number>();
    fieldTerms.forEach((terms, f) => {
      this.lengths[slot * n + f] = terms.length;
      this.totalLengths[f] += terms.length;
      for (const term of terms) counts.set(term, this.packing.increment(counts.get(term) ?? 0, f));
    });
    for (const [term, tf] of counts) this.addPosting(term, slot, tf);
    this.termsOf[slot] = [...counts.keys()];
    this.normVersion++;
  }

  /** Removes `id`; returns false when it was not indexed. Only the postings of its own terms are touched. */
  remove(id: string): boolean {
    this.undefer();
    const slot = this.slotOf.get(id);
    if (slot === undefined) return false;
    const n = this.fields.length;
    for (const term of this.termsOf[slot] ?? []) this.removePosting(term, slot);
    for (let f = 0; f < n; f++) this.totalLengths[f] -= this.lengths[slot * n + f];
    this.slotOf.delete(id);
    this.ids[slot] = undefined;
    this.termsOf[slot] = undefined;
    this.freeSlots.push(slot);
    this.normVersion++;
    return true;
  }

  /**
   * Ranks ids for analyzed query terms, best first, ties by id. Terms missing from the vocabulary are matched to
   * near terms at a discount.
   *
   * MaxScore pruning: each term's list has a bound, the most it adds to any id (its factor at the list's highest
   * pseudo-frequency). Lists go from the largest factor down; once the k-th best score so far exceeds the bounds of the
   * lists still to come, no id untouched yet can reach the top k, so those lists only add to ids already touched, and
   * an id whose score plus those bounds falls below the k-th best is dropped. The result is the exhaustive one, scores
   * included: every id that can rank receives the same additions in the same order.
   */
  search(queryTerms: string[], limit: number, options: { fuzzy?: boolean; exhaustive?: boolean } = {}): Ranked[] {
    const lists = this.queryLists(queryTerms, options.fuzzy !== false);
    // The order of additions decides the last bits of a score, so it stays by factor (not by bound) as it always was.
    lists.sort((a, b) => b.factor - a.factor);
    const rest = new Float64Array(lists.length + 1);
    for (let i = lists.length - 1; i >= 0; i--) rest[i] = rest[i + 1] + lists[i].bound;
    const run = this.startRun(limit);
    let open = true;
    let restAtDrop = Infinity;
    lists.forEach(({ posting, factor }, i) => {
      if (open) {
        this.accumulate(posting, factor, run);
        open = options.exhaustive === true || !(run.heap.floor() > rest[i + 1] * (1 + SLACK));
        return;
      }
      // A pass over the candidates costs as much as a list, so it is made each time the bounds still to come have
      // halved (a few passes per query) rather than before every list.
      if (rest[i] <= restAtDrop / 2) {
        dropHopeless(run, rest[i]);
        restAtDrop = rest[i];
      }
      this.accumulateCandidates(posting, factor, run);
    });
    const candidates = run.touched.subarray(0, run.count);
    const hits = topSlots(candidates, run.scores, this.ids, limit);
    for (const slot of candidates) run.scores[slot] = 0;
    return hits;
  }

  /** The postings a query reads, with what each adds at most per id (see `search`). */
  private queryLists(queryTerms: string[], fuzzy: boolean): QueryList[] {
    const lists: QueryList[] = [];
    const add = (posting: Posting, weight: number) => {
      const factor = weight * this.idf(posting) * (this.k1 + 1);
      this.pseudoFrequencies(posting); // brings maxPseudo up to date
      const top = posting.maxPseudo;
      lists.push({ posting, factor, bound: ((factor * top) / (top + this.k1)) * (1 + SLACK) });
    };
    for (const [term, count] of countTerms(queryTerms)) {
      const posting = this.postings.get(term);
      if (posting) add(posting, count);
      else if (fuzzy) {
        for (const near of this.nearTerms(term)) add(this.postings.get(near.term)!, count * this.fuzzyPenalty ** near.distance);
      }
    }
    return lists;
  }

  /**
   * Why `id` scores what `search` gives it for these query terms: one entry per matched term and field, whose
   * contributions add up to the score. A term's saturated score is shared among its fields in proportion to each
   * field's part of the pseudo-frequency, the only split under which the parts sum exactly (BM25F saturates once,
   * across fields). A query word missing from the vocabulary shows each near term it was matched to, with its distance.
   */
  explain(queryTerms: string[], id: string, options: { fuzzy?: boolean } = {}): TermContribution[] {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return [];
    const out: TermContribution[] = [];
    for (const [term, count] of countTerms(queryTerms)) {
      const posting = this.postings.get(term);
      if (posting) this.explainPosting(posting, slot, count, { term, queryTerm: term }, out);
      else if (options.fuzzy !== false) {
        for (const near of this.nearTerms(term)) {
          const weight = count * this.fuzzyPenalty ** near.distance;
          this.explainPosting(this.postings.get(near.term)!, slot, weight, { term: near.term, queryTerm: term, distance: near.distance }, out);
        }
      }
    }
    return out;
  }

  private explainPosting(posting: Posting, slot: number, weight: number, match: Omit<TermContribution, "field" | "contribution">, out: TermContribution[]): void {
    const at = posting.slots.indexOf(slot);
    if (at < 0) return;
    const live = this.slotOf.size;
    const df = posting.slots.length;
    const idf = Math.log(1 + (live - df + 0.5) / (df + 0.5));
    const pseudo = this.pseudoFrequencies(posting)[at];
    const total = pseudo > 0 ? (weight * idf * (this.k1 + 1) * pseudo) / (pseudo + this.k1) : 0;
    const n = this.fields.length;
    const avgLive = Math.max(1, live);
    this.fields.forEach((field, f) => {
      const tf = this.packing.get(posting.tfs[at], f);
      if (tf === 0) return;
      const avg = this.totalLengths[f] / avgLive || 1;
      const part = (field.weight * tf) / (1 - field.b + (field.b * this.lengths[slot * n + f]) / avg);
      out.push({ ...match, field: field.name, contribution: pseudo > 0 ? (total * part) / pseudo : 0 });
    });
  }

  /** The built state in flat arrays (see `Bm25fState`); `fromState` with the same options restores it. */
  exportState(): Bm25fState {
    const terms = [...this.postings.keys()];
    const offsets = new Int32Array(terms.length + 1);
    terms.forEach((term, i) => (offsets[i + 1] = offsets[i] + this.postings.get(term)!.slots.length));
    const slots = new Int32Array(offsets[terms.length]);
    const tfs = new Int32Array(offsets[terms.length]);
    terms.forEach((term, i) => {
      const posting = this.postings.get(term)!;
      slots.set(posting.slots, offsets[i]);
      tfs.set(posting.tfs, offsets[i]);
    });
    const lengths = Int32Array.from(this.lengths, (x) => x ?? 0);
    return { ids: this.ids.map((id) => id ?? null), lengths, terms, offsets, slots, tfs };
  }

  /** An index with `options` and a state from `exportState` (of an index with the same fields). */
  static fromState(options: Bm25fOptions, state: Bm25fState): Bm25fIndex {
    const index = new Bm25fIndex(options);
    const n = index.fields.length;
    if (state.lengths.length !== state.ids.length * n || state.offsets.length !== state.terms.length + 1) {
      throw new Error("Bm25fIndex.fromState: the state does not fit these fields");
    }
    index.ids = state.ids.map((id) => id ?? undefined);
    index.lengths = Array.from(state.lengths);
    index.ids.forEach((id, slot) => {
      if (id === undefined) return void index.freeSlots.push(slot);
      index.slotOf.set(id, slot);
      for (let f = 0; f < n; f++) index.totalLengths[f] += state.lengths[slot * n + f];
    });
    state.terms.forEach((term, i) => {
      const slots = Array.from(state.slots.subarray(state.offsets[i], state.offsets[i + 1]));
      index.postings.set(term, { slots, tfs: Array.from(state.tfs.subarray(state.offsets[i], state.offsets[i + 1])), version: -1, maxPseudo: 0 });
    });
    // Searching needs neither: each id's term list (for removal) and the typo vocabulary are made on first need.
    index.deferred = true;
    index.normVersion++;
    return index;
  }

  /** Makes what `fromState` deferred: every id's term list and the typo vocabulary, in one pass over the lists. */
  private undefer(): void {
    if (!this.deferred) return;
    this.deferred = false;
    this.termsOf = this.ids.map((id) => (id === undefined ? undefined : []));
    for (const [term, posting] of this.postings) {
      this.vocabulary?.add(term);
      for (const slot of posting.slots) this.termsOf[slot]!.push(term);
    }
  }

  private idf(posting: Posting): number {
    const df = posting.slots.length;
    return Math.log(1 + (this.slotOf.size - df + 0.5) / (df + 0.5));
  }

  /** The buffers of one search, reused from search to search (a search runs to its end without yielding). */
  private startRun(limit: number): SearchRun {
    if (this.scores.length < this.ids.length) {
      const capacity = Math.max(16, this.ids.length * 2);
      this.scores = new Float64Array(capacity);
      this.touched = new Int32Array(capacity);
      this.heap = new ScoreHeap(this.scores, capacity);
    }
    this.heap.reset(limit);
    return { scores: this.scores, touched: this.touched, count: 0, heap: this.heap };
  }

  /** Adds a term's contribution (at most `factor`) to every id of its list. */
  private accumulate(posting: Posting, factor: number, run: SearchRun): void {
    const pseudo = this.pseudoFrequencies(posting);
    const { scores, touched, heap } = run;
    const k1 = this.k1;
    const slots = posting.slots;
    let floor = heap.floor();
    for (let i = 0; i < slots.length; i++) {
      const tf = pseudo[i];
      // A term found only in fields of weight 0 adds nothing; it must not count as a touch either, or an id first
      // reached that way would be listed twice (a zero score is what marks an id untouched).
      if (tf === 0) continue;
      const slot = slots[i];
      if (scores[slot] === 0) touched[run.count++] = slot;
      const score = (scores[slot] += (factor * tf) / (tf + k1));
      if (score > floor) {
        heap.offer(slot);
        floor = heap.floor();
      }
    }
  }

  /**
   * Like `accumulate`, for the candidates left only: each is looked up in the (sorted) list when that is cheaper than
   * reading the whole list, which is what keeps common words cheap in a large catalog.
   */
  private accumulateCandidates(posting: Posting, factor: number, run: SearchRun): void {
    const pseudo = this.pseudoFrequencies(posting);
    const { scores, touched, heap } = run;
    const k1 = this.k1;
    const slots = posting.slots;
    let floor = heap.floor();
    const addAt = (i: number, slot: number) => {
      const tf = pseudo[i];
      const score = (scores[slot] += (factor * tf) / (tf + k1));
      if (score > floor) {
        heap.offer(slot);
        floor = heap.floor();
      }
    };
    if (run.count * Math.log2(slots.length + 1) < slots.length) {
      for (let c = 0; c < run.count; c++) {
        const slot = touched[c];
        const i = lowerBound(slots, slot);
        if (slots[i] === slot) addAt(i, slot);
      }
      return;
    }
    for (let i = 0; i < slots.length; i++) if (scores[slots[i]] !== 0) addAt(i, slots[i]);
  }

  /** The weighted, length-normalized frequency of the term in each of its ids, cached until lengths change. */
  private pseudoFrequencies(posting: Posting): Float64Array {
    if (posting.pseudo && posting.version === this.normVersion) return posting.pseudo;
    const n = this.fields.length;
    const live = Math.max(1, this.slotOf.size);
    const norms = this.fields.map((f, i) => ({ w: f.weight, b: f.b, avg: this.totalLengths[i] / live || 1 }));
    const pseudo = new Float64Array(posting.slots.length);
    let max = 0;
    for (let i = 0; i < posting.slots.length; i++) {
      const slot = posting.slots[i];
      const packed = posting.tfs[i];
      let sum = 0;
      for (let f = 0; f < n; f++) {
        const tf = this.packing.get(packed, f);
        if (tf === 0) continue;
        const { w, b, avg } = norms[f];
        sum += (w * tf) / (1 - b + (b * this.lengths[slot * n + f]) / avg);
      }
      pseudo[i] = sum;
      if (sum > max) max = sum;
    }
    posting.pseudo = pseudo;
    posting.maxPseudo = max;
    posting.version = this.normVersion;
    return pseudo;
  }

  private addPosting(term: string, slot: number, tf: number): void {
    let posting = this.postings.get(term);
    if (!posting) {
      this.postings.set(term, (posting = { slots: [], tfs: [], version: -1, maxPseudo: 0 }));
      this.vocabulary?.add(term);
    }
    // Slots stay in ascending order (a reused slot is inserted in place), so a list can be probed by binary search.
    const slots = posting.slots;
    if (slots.length === 0 || slots[slots.length - 1] < slot) {
      slots.push(slot);
      posting.tfs.push(tf);
    } else {
      const at = lowerBound(slots, slot);
      slots.splice(at, 0, slot);
      posting.tfs.splice(at, 0, tf);
    }
    posting.pseudo = undefined;
  }

  private removePosting(term: string, slot: number): void {
    const posting = this.postings.get(term);
    if (!posting) return;
    const at = posting.slots.indexOf(slot);
    if (at < 0) return;
    posting.slots.splice(at, 1);
    posting.tfs.splice(at, 1);
    posting.pseudo = undefined;
    if (posting.slots.length === 0) {
      this.postings.delete(term);
      this.vocabulary?.delete(term);
    }
  }
}

/** The first index of a sorted list whose value is ≥ `value`. */
function lowerBound(list: number[], value: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Relative slack on every bound comparison: scores are float sums, whose rounding may exceed the exact sum by a few
 * units in the last place; pruning must never drop an id for that.
 */
const SLACK = 1e-9;

/** A posting as one search reads it: `factor` scales its saturated frequencies, `bound` is the most it adds to an id. */
interface QueryList {
  posting: Posting;
  factor: number;
  bound: number;
}

/** One search's state: scores by slot, the touched slots (`count` of them, in `touched`), the k best so far. */
interface SearchRun {
  scores: Float64Array;
  touched: Int32Array;
  count: number;
  heap: ScoreHeap;
}

/**
 * Drops the candidates that cannot reach the k best even with the most every list still to come (`rest`) can add,
 * and clears their scores (a cleared slot is skipped by the list scans that follow).
 */
function dropHopeless(run: SearchRun, rest: number): void {
  const { scores, touched } = run;
  const floor = run.heap.floor();
  let kept = 0;
  for (let c = 0; c < run.count; c++) {
    const slot = touched[c];
    if ((scores[slot] + rest) * (1 + SLACK) >= floor) touched[kept++] = slot;
    else scores[slot] = 0;
  }
  run.count = kept;
}

function countTerms(terms: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

/**
 * The `k` best of the scored slots, best first, equal scores by id (the order of `compareRanked`). A bounded heap of
 * slot numbers: a slot that cannot enter costs one comparison and no allocation, which matters when a common query
 * word touches most of a 100k-tool catalog. Only the winners become `Ranked` objects.
 */
function topSlots(slots: ArrayLike<number> & Iterable<number>, scores: Float64Array, ids: (string | undefined)[], k: number): Ranked[] {
  if (k <= 0) return [];
  const heap: number[] = [];
  // Whether slot a ranks below slot b; the heap's root is the worst slot kept.
  const worse = (a: number, b: number) => scores[a] < scores[b] || (scores[a] === scores[b] && ids[a]! > ids[b]!);
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(heap[l], heap[m])) m = l;
      if (r < heap.length && worse(heap[r], heap[m])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  for (const slot of slots) {
    if (heap.length < k) {
      heap.push(slot);
      for (let i = heap.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (!worse(heap[i], heap[parent])) break;
        [heap[i], heap[parent]] = [heap[parent], heap[i]];
        i = parent;
      }
    } else {
      // The common case, a slot below the k-th best, costs one comparison of two numbers.
      const score = scores[slot];
      const floor = scores[heap[0]];
      if (score < floor || (score === floor && ids[slot]! > ids[heap[0]]!)) continue;
      heap[0] = slot;
      down(0);
    }
  }
  return heap.map((slot) => ({ id: ids[slot]!, score: scores[slot] })).sort(compareRanked);
}
