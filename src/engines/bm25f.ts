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
  /**
   * Where length is normalized: per field (`field`, BM25F, the default), or once over the whole item with one `b`
   * (`{ document: b }`): the fields' weighted frequencies summed, divided by the item's total length against the
   * average. With every weight 1 that is plain BM25 over the bag of all fields, so one index can rank both ways.
   */
  normalization?: "field" | { document: number };
}

/** What `Bm25fIndex.rescore` may change without re-indexing: the postings keep raw frequencies per field. */
export type Bm25fScoring = Pick<Bm25fOptions, "k1" | "normalization"> & { fields: Pick<FieldOptions, "weight" | "b">[] };

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

/** What `Bm25fIndex.termMatches` returns: raw frequencies of exact query terms in one id. */
export interface TermMatches {
  /** The id's length in each field. */
  lengths: number[];
  /** The average length of each field over the live ids (or the subset's); 1 for a field empty everywhere. */
  averages: number[];
  /** The average length of a whole item (all fields). */
  averageLength: number;
  /** Each distinct query term: its count in the query, idf, document frequency and frequency per field in the id. */
  terms: { term: string; count: number; idf: number; df: number; tfs: number[] }[];
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

/**
 * Some of an index's ids, searched as if the others were not indexed at all: document frequencies, the number of ids
 * and average field lengths are those of the subset, so scores, ranks and typo expansions equal those of an index built
 * from the subset alone. Made by `Bm25fIndex.subset`; valid until the index changes (`version`).
 */
export interface Bm25fSubset {
  /** The index's `version` it was made at. */
  readonly version: number;
  /** 1 per slot in the subset. */
  readonly mask: Uint8Array;
  readonly size: number;
  readonly totalLengths: number[];
  /** Per-posting statistics within the subset, made on first use. */
  readonly lists: Map<Posting, SubsetList>;
}

/** A posting as a subset sees it: its pseudo-frequencies with the subset's lengths (0 outside it), and its df. */
interface SubsetList {
  pseudo: Float64Array;
  maxPseudo: number;
  df: number;
}

/**
 * One term's postings: its ids' slots in ascending order and their field frequencies, the first `count` entries of two
 * typed arrays (their length is the capacity, doubled as the list grows). After a bulk build (`flush`) every list is a
 * view of one shared buffer, so a catalog's postings are two allocations, not two per term.
 */
interface Posting {
  slots: Int32Array;
  /** Term frequency per field, packed into one integer per entry of `slots` (see `FieldPacking`). */
  tfs: Int32Array;
  count: number;
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
  private fields: Required<FieldOptions>[];
  private k1: number;
  /** The `b` of whole-item length normalization, or undefined for per-field (see `Bm25fOptions.normalization`). */
  private documentB: number | undefined;
  private readonly fuzzyPenalty: number;
  private readonly packing: FieldPacking;
  /**
   * The vocabulary as dense ids: a term is resolved to its id once (`termId`), and everything after that (postings,
   * per-id term lists) is indexed by id, so a build pays one string lookup per distinct term of a text, not one per
   * occurrence. An id outlives its postings: a term whose last id is removed keeps its id with an empty list.
   */
  private readonly termIds = new Map<string, number>();
  private readonly terms: string[] = [];
  /** Postings by term id; an empty list is a term not (or no longer) in the vocabulary. */
  private readonly postings: Posting[] = [];
  private readonly vocabulary: FuzzyVocabulary | undefined;
  private readonly slotOf = new Map<string, number>();
  private ids: (string | undefined)[] = [];
  private lengths: number[] = [];
  /** Each slot's term ids, for removal. */
  private termsOf: (number[] | undefined)[] = [];
  /**
   * Postings of new ids not yet in their lists: a build appends (term, slot, frequencies) here in add order, and the
   * first read (`flush`) sorts them into the lists by term in two passes over typed arrays, instead of growing tens of
   * thousands of small lists entry by entry. `lastPending[term]` is the term's latest entry, so that a term repeated
   * within one id is counted in place.
   */
  private pending = new PendingPostings();
  private freeSlots: number[] = [];
  /**
   * Whether `termsOf` is still to be made (by `undefer`, from the postings). Only removal needs it, so neither a build
   * nor `fromState` makes it: a first removal pays one pass over the postings instead.
   */
  private deferred = true;
  /**
   * Whether `vocabulary` holds every term. It is filled on the first lookup that needs it (a query word missing from
   * the vocabulary, a suggestion), not term by term during a build: most builds serve queries whose words are known.
   */
  private vocabularyReady = false;
  private totalLengths: number[];
  private normVersion = 0;
  private scores = new Float64Array(0);
  private touched = new Int32Array(0);
  private heap = new ScoreHeap(this.scores, 0);

  constructor(options: Bm25fOptions) {
    this.fields = options.fields.map((f) => ({ name: f.name, weight: f.weight ?? 1, b: f.b ?? 0.75 }));
    this.k1 = options.k1 ?? 1.2;
    this.documentB = documentB(options.normalization);
    this.fuzzyPenalty = options.fuzzyPenalty ?? 0.4;
    this.vocabulary = options.fuzzy === false ? undefined : new FuzzyVocabulary(options.fuzzy);
    this.totalLengths = this.fields.map(() => 0);
    this.packing = new FieldPacking(this.fields.length);
  }

  /**
   * Changes field weights, `b`, `k1` and normalization in place: the postings hold raw frequencies per field, so
   * only the cached pseudo-frequencies are dropped (they are remade per term on next use).
   */
  rescore(scoring: Bm25fScoring): void {
    if (scoring.fields.length !== this.fields.length) throw new Error(`Bm25fIndex.rescore: expected ${this.fields.length} fields, got ${scoring.fields.length}`);
    this.fields = this.fields.map((f, i) => ({ name: f.name, weight: scoring.fields[i].weight ?? 1, b: scoring.fields[i].b ?? 0.75 }));
    this.k1 = scoring.k1 ?? 1.2;
    this.documentB = documentB(scoring.normalization);
    this.normVersion++;
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
    this.flush();
    let bytes = this.ids.length * (8 + 8 * this.fields.length + 96);
    this.postings.forEach((posting, t) => (bytes += TERM_BYTES + this.terms[t].length + 8 * posting.slots.length));
    // Made on first need after `fromState` (see `undefer`): one term id per posting entry, plus the typo vocabulary.
    if (!this.deferred) for (const posting of this.postings) bytes += 8 * posting.count + 48;
    return bytes;
  }

  has(id: string): boolean {
    return this.slotOf.has(id);
  }

  /** Whether a term (already analyzed) is in the vocabulary. */
  hasTerm(term: string): boolean {
    return this.posting(term) !== undefined;
  }

  /**
   * The dense id of a term, made on first sight (see `termIds`). `addTermIds` takes texts as ids, so a caller that
   * meets the same text many times (a catalog build) resolves its terms once.
   */
  termId(term: string): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.termIds.set(term, id);
      this.terms.push(term);
      this.postings.push({ slots: EMPTY, tfs: EMPTY, count: 0, pseudo: undefined, maxPseudo: 0, version: -1 });
    }
    return id;
  }

  /** `termId` of each term. */
  termIdsOf(terms: readonly string[]): Int32Array {
    const ids = new Int32Array(terms.length);
    for (let i = 0; i < terms.length; i++) ids[i] = this.termId(terms[i]);
    return ids;
  }

  /** The term's postings, or undefined when no indexed id has it. */
  private posting(term: string): Posting | undefined {
    this.flush();
    const id = this.termIds.get(term);
    const posting = id === undefined ? undefined : this.postings[id];
    return posting && posting.count > 0 ? posting : undefined;
  }

  /** The terms some indexed id has, in id order. */
  private *liveTerms(): Generator<[string, Posting]> {
    this.flush();
    for (let t = 0; t < this.postings.length; t++) if (this.postings[t].count > 0) yield [this.terms[t], this.postings[t]];
  }

  /** Number of indexed ids that contain the term. */
  documentFrequency(term: string): number {
    return this.posting(term)?.count ?? 0;
  }

  /** Vocabulary terms close to a term, nearest first (for suggestions and typo tolerance); with a subset, its terms. */
  nearTerms(term: string, maxDistance?: number, subset?: Bm25fSubset): Expansion[] {
    if (!this.vocabulary) return [];
    if (!this.vocabularyReady) {
      for (const [known] of this.liveTerms()) this.vocabulary.add(known);
      this.vocabularyReady = true;
    }
    const keep = subset && ((near: string) => this.subsetList(this.posting(near)!, subset).df > 0);
    return this.vocabulary.expand(term, maxDistance, keep);
  }

  /** Changes with every add and remove: a `Bm25fSubset` made at another version is stale. */
  get version(): number {
    return this.normVersion;
  }

  /** The ids `accept` keeps, as a subset to search (see `Bm25fSubset`). Costs one pass over the ids. */
  subset(accept: (id: string) => boolean): Bm25fSubset {
    const n = this.fields.length;
    const mask = new Uint8Array(this.ids.length);
    const totalLengths = this.fields.map(() => 0);
    let size = 0;
    this.ids.forEach((id, slot) => {
      if (id === undefined || !accept(id)) return;
      mask[slot] = 1;
      size++;
      for (let f = 0; f < n; f++) totalLengths[f] += this.lengths[slot * n + f];
    });
    return { version: this.normVersion, mask, size, totalLengths, lists: new Map() };
  }

  /** Number of ids of a subset that contain the term. */
  subsetFrequency(term: string, subset: Bm25fSubset): number {
    const posting = this.posting(term);
    return posting ? this.subsetList(posting, subset).df : 0;
  }

  /** Indexes `id` with one list of analyzed terms per field (in field order). Replaces an existing id. */
  add(id: string, fieldTerms: string[][]): void {
    this.addTermIds(id, fieldTerms.map((terms) => this.termIdsOf(terms)));
  }

  /** `add` with each field's terms as ids from `termId`. */
  addTermIds(id: string, fieldTerms: ArrayLike<number>[]): void {
    if (fieldTerms.length !== this.fields.length) {
      throw new Error(`Bm25fIndex.add: expected ${this.fields.length} fields, got ${fieldTerms.length}`);
    }
    if (this.slotOf.has(id)) this.remove(id);
    const reused = this.freeSlots.length > 0;
    const slot = this.freeSlots.pop() ?? this.ids.length;
    this.ids[slot] = id;
    this.slotOf.set(id, slot);
    const n = this.fields.length;
    for (let f = 0; f < n; f++) {
      this.lengths[slot * n + f] = fieldTerms[f].length;
      this.totalLengths[f] += fieldTerms[f].length;
    }
    if (reused) this.insertPostings(slot, fieldTerms);
    else this.appendPostings(slot, fieldTerms);
    this.normVersion++;
  }

  /**
   * Adds a new slot, the largest there is, to its terms' postings: each list then ends with it, so a repeated term is
   * counted in place at the list's end, with no per-id table of counts (the bulk of a build's work).
   */
  private appendPostings(slot: number, fieldTerms: ArrayLike<number>[]): void {
    const terms: number[] | undefined = this.deferred ? undefined : [];
    const pending = this.pending;
    pending.reserveTerms(this.terms.length);
    for (let f = 0; f < fieldTerms.length; f++) {
      const field = fieldTerms[f];
      for (let i = 0; i < field.length; i++) {
        const term = field[i];
        const last = pending.last[term];
        if (last >= 0 && pending.slots[last] === slot) {
          pending.tfs[last] = this.packing.increment(pending.tfs[last], f);
          continue;
        }
        pending.push(term, slot, this.packing.increment(0, f));
        terms?.push(term);
      }
    }
    if (terms) this.termsOf[slot] = terms;
  }

  /**
   * Moves the pending postings (see `pending`) into the lists. Their slots are all above those already listed (each was
   * new when added), so each term's entries go at its list's end: in place for a few, and for a bulk (more than the
   * lists hold) by one counting sort into a fresh shared buffer. Any read does it first; a bulk build calls it at its
   * end, so that its first search does not pay for it.
   */
  flush(): void {
    const pending = this.pending;
    if (pending.size === 0) return;
    const counts = new Int32Array(this.terms.length + 1);
    for (let i = 0; i < pending.size; i++) counts[pending.terms[i]]++;
    let listed = 0;
    for (const posting of this.postings) listed += posting.count;
    if (pending.size >= listed) this.rebuildLists(counts);
    else this.growLists(counts);
    for (let t = 0; t < this.postings.length; t++) {
      if (counts[t] === 0) continue;
      const posting = this.postings[t];
      posting.pseudo = undefined;
      if (posting.count === counts[t]) this.entered(t);
    }
    pending.clear();
  }

  /** `flush` for a bulk: every list copied with its pending entries into two shared buffers. */
  private rebuildLists(counts: Int32Array): void {
    const { postings, pending } = this;
    const starts = new Int32Array(postings.length + 1);
    for (let t = 0; t < postings.length; t++) starts[t + 1] = starts[t] + postings[t].count + counts[t];
    const slots = new Int32Array(starts[postings.length]);
    const tfs = new Int32Array(starts[postings.length]);
    const fill = new Int32Array(postings.length);
    for (let t = 0; t < postings.length; t++) {
      const { count } = postings[t];
      fill[t] = starts[t] + count;
      if (count === 0) continue; // most terms of a first build (a view costs more than the copy)
      slots.set(postings[t].slots.subarray(0, count), starts[t]);
      tfs.set(postings[t].tfs.subarray(0, count), starts[t]);
    }
    for (let i = 0; i < pending.size; i++) {
      const at = fill[pending.terms[i]]++;
      slots[at] = pending.slots[i];
      tfs[at] = pending.tfs[i];
    }
    // Every list moves, those without pending entries too, so that no list keeps an older shared buffer alive.
    for (let t = 0; t < postings.length; t++) {
      const posting = postings[t];
      const size = starts[t + 1] - starts[t];
      posting.slots = size === 0 ? EMPTY : slots.subarray(starts[t], starts[t + 1]);
      posting.tfs = size === 0 ? EMPTY : tfs.subarray(starts[t], starts[t + 1]);
      posting.count = size;
    }
  }

  /** `flush` for a few: each pending entry appended to its list, grown by doubling. */
  private growLists(counts: Int32Array): void {
    const { postings, pending } = this;
    for (let t = 0; t < postings.length; t++) if (counts[t] > 0) reserve(postings[t], postings[t].count + counts[t]);
    for (let i = 0; i < pending.size; i++) {
      const posting = postings[pending.terms[i]];
      posting.slots[posting.count] = pending.slots[i];
      posting.tfs[posting.count++] = pending.tfs[i];
    }
  }

  /** Adds a reused slot to its terms' postings, each in its place in the ascending order of slots. */
  private insertPostings(slot: number, fieldTerms: ArrayLike<number>[]): void {
    this.flush();
    const counts = new Map<number, number>();
    fieldTerms.forEach((terms, f) => {
      for (let i = 0; i < terms.length; i++) counts.set(terms[i], this.packing.increment(counts.get(terms[i]) ?? 0, f));
    });
    for (const [term, tf] of counts) this.addPosting(term, slot, tf);
    if (!this.deferred) this.termsOf[slot] = [...counts.keys()];
  }

  /** Removes `id`; returns false when it was not indexed. Only the postings of its own terms are touched. */
  remove(id: string): boolean {
    this.flush();
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
  search(queryTerms: string[], limit: number, options: { fuzzy?: boolean; exhaustive?: boolean; subset?: Bm25fSubset } = {}): Ranked[] {
    const lists = this.queryLists(queryTerms, options.fuzzy !== false, options.subset);
    // The order of additions decides the last bits of a score, so it stays by factor (not by bound) as it always was.
    lists.sort((a, b) => b.factor - a.factor);
    const rest = new Float64Array(lists.length + 1);
    for (let i = lists.length - 1; i >= 0; i--) rest[i] = rest[i + 1] + lists[i].bound;
    const run = this.startRun(limit);
    let open = true;
    let restAtDrop = Infinity;
    lists.forEach(({ posting, factor, pseudo }, i) => {
      if (open) {
        this.accumulate(posting, pseudo, factor, run);
        open = options.exhaustive === true || !(run.heap.floor() > rest[i + 1] * (1 + SLACK));
        return;
      }
      // A pass over the candidates costs as much as a list, so it is made each time the bounds still to come have
      // halved (a few passes per query) rather than before every list.
      if (rest[i] <= restAtDrop / 2) {
        dropHopeless(run, rest[i]);
        restAtDrop = rest[i];
      }
      this.accumulateCandidates(posting, pseudo, factor, run);
    });
    const candidates = run.touched.subarray(0, run.count);
    const hits = topSlots(candidates, run.scores, this.ids, limit);
    for (const slot of candidates) run.scores[slot] = 0;
    return hits;
  }

  /** The postings a query reads, with what each adds at most per id (see `search`). */
  private queryLists(queryTerms: string[], fuzzy: boolean, subset: Bm25fSubset | undefined): QueryList[] {
    const lists: QueryList[] = [];
    const add = (posting: Posting, weight: number) => {
      const { pseudo, maxPseudo: top, idf } = this.statistics(posting, subset);
      const factor = weight * idf * (this.k1 + 1);
      lists.push({ posting, pseudo, factor, bound: ((factor * top) / (top + this.k1)) * (1 + SLACK) });
    };
    for (const [term, count] of countTerms(queryTerms)) {
      const posting = this.posting(term);
      // A term found only outside the subset is, for the subset, a term missing from the vocabulary.
      if (posting && (!subset || this.subsetList(posting, subset).df > 0)) add(posting, count);
      else if (fuzzy) {
        for (const near of this.nearTerms(term, undefined, subset)) add(this.posting(near.term)!, count * this.fuzzyPenalty ** near.distance);
      }
    }
    return lists;
  }

  /** A posting's pseudo-frequencies, their maximum and its idf, for the whole index or within a subset. */
  private statistics(posting: Posting, subset: Bm25fSubset | undefined): { pseudo: Float64Array; maxPseudo: number; idf: number } {
    if (!subset) {
      const pseudo = this.pseudoFrequencies(posting); // brings maxPseudo up to date
      return { pseudo, maxPseudo: posting.maxPseudo, idf: this.idf(posting) };
    }
    const list = this.subsetList(posting, subset);
    return { pseudo: list.pseudo, maxPseudo: list.maxPseudo, idf: idfOf(subset.size, list.df) };
  }

  /** A posting within a subset (see `SubsetList`), computed once per subset. */
  private subsetList(posting: Posting, subset: Bm25fSubset): SubsetList {
    if (subset.version !== this.normVersion) throw new Error("Bm25fIndex: the subset is stale (the index changed since it was made)");
    const cached = subset.lists.get(posting);
    if (cached) return cached;
    const pseudo = this.normalized(posting, this.norms(subset), subset.mask);
    let maxPseudo = 0;
    let df = 0;
    for (let i = 0; i < pseudo.length; i++) {
      if (subset.mask[posting.slots[i]]) df++;
      if (pseudo[i] > maxPseudo) maxPseudo = pseudo[i];
    }
    const list = { pseudo, maxPseudo, df };
    subset.lists.set(posting, list);
    return list;
  }

  /**
   * Why `id` scores what `search` gives it for these query terms: one entry per matched term and field, whose
   * contributions add up to the score. A term's saturated score is shared among its fields in proportion to each
   * field's part of the pseudo-frequency, the only split under which the parts sum exactly (BM25F saturates once,
   * across fields). A query word missing from the vocabulary shows each near term it was matched to, with its distance.
   */
  explain(queryTerms: string[], id: string, options: { fuzzy?: boolean; subset?: Bm25fSubset } = {}): TermContribution[] {
    const slot = this.slotOf.get(id);
    const subset = options.subset;
    if (slot === undefined || (subset && !subset.mask[slot])) return [];
    const out: TermContribution[] = [];
    for (const [term, count] of countTerms(queryTerms)) {
      const posting = this.posting(term);
      if (posting && (!subset || this.subsetList(posting, subset).df > 0)) this.explainPosting(posting, slot, count, { term, queryTerm: term }, out, subset);
      else if (options.fuzzy !== false) {
        for (const near of this.nearTerms(term, undefined, subset)) {
          const weight = count * this.fuzzyPenalty ** near.distance;
          this.explainPosting(this.posting(near.term)!, slot, weight, { term: near.term, queryTerm: term, distance: near.distance }, out, subset);
        }
      }
    }
    return out;
  }

  private explainPosting(posting: Posting, slot: number, weight: number, match: Omit<TermContribution, "field" | "contribution">, out: TermContribution[], subset?: Bm25fSubset): void {
    const at = lowerBound(posting.slots, posting.count, slot);
    if (at === posting.count || posting.slots[at] !== slot) return;
    const { pseudo: all, idf } = this.statistics(posting, subset);
    const pseudo = all[at];
    const total = pseudo > 0 ? (weight * idf * (this.k1 + 1) * pseudo) / (pseudo + this.k1) : 0;
    const norms = this.norms(subset);
    this.fields.forEach((field, f) => {
      const tf = this.packing.get(posting.tfs[at], f);
      if (tf === 0) return;
      const part = (field.weight * tf) / this.lengthNorm(norms, slot, f);
      out.push({ ...match, field: field.name, contribution: pseudo > 0 ? (total * part) / pseudo : 0 });
    });
  }

  /**
   * The scores `search` gives these ids for exact query terms (no typo expansion), in one pass over the query's
   * postings: for the few candidates another engine found outside BM25's top list (the learned ranker).
   */
  exactScores(queryTerms: string[], ids: readonly string[], subset?: Bm25fSubset): number[] {
    const lists: { posting: Posting; pseudo: Float64Array; factor: number }[] = [];
    for (const [term, count] of countTerms(queryTerms)) {
      const posting = this.posting(term);
      if (!posting || (subset && this.subsetList(posting, subset).df === 0)) continue;
      const { pseudo, idf } = this.statistics(posting, subset);
      lists.push({ posting, pseudo, factor: count * idf * (this.k1 + 1) });
    }
    return ids.map((id) => {
      const slot = this.slotOf.get(id);
      if (slot === undefined || (subset && !subset.mask[slot])) return 0;
      let score = 0;
      for (const { posting, pseudo, factor } of lists) {
        const at = lowerBound(posting.slots, posting.count, slot);
        if (at < posting.count && posting.slots[at] === slot && pseudo[at] > 0) score += (factor * pseudo[at]) / (pseudo[at] + this.k1);
      }
      return score;
    });
  }

  /**
   * The raw evidence of each id for exact query terms (no typo expansion): per distinct term, its count in the
   * query, idf and frequency in each field, with the id's field lengths and the average lengths (of the subset when
   * given). The learned ranker computes its own scorings (plain BM25, per-field BM25, coverage) from this without a
   * second index. Empty `terms` for an unknown id.
   */
  termMatches(queryTerms: string[], ids: readonly string[], subset?: Bm25fSubset): TermMatches[] {
    const norms = this.norms(subset);
    const n = this.fields.length;
    const live = subset ? subset.size : this.slotOf.size;
    // The query's postings and idfs once for all ids; then one binary search per id and term.
    const terms = [...countTerms(queryTerms)].map(([term, count]) => {
      const posting = this.posting(term);
      const df = posting ? (subset ? this.subsetList(posting, subset).df : posting.count) : 0;
      return { term, count, df, idf: idfOf(live, df), posting };
    });
    return ids.map((id) => {
      const slot = this.slotOf.get(id);
      const out: TermMatches = { lengths: [], averages: norms.avg, averageLength: norms.avgTotal, terms: [] };
      if (slot === undefined || (subset && !subset.mask[slot])) return out;
      for (let f = 0; f < n; f++) out.lengths.push(this.lengths[slot * n + f]);
      for (const { term, count, df, idf, posting } of terms) {
        const tfs = new Array<number>(n).fill(0);
        if (posting) {
          const at = lowerBound(posting.slots, posting.count, slot);
          if (at < posting.count && posting.slots[at] === slot) for (let f = 0; f < n; f++) tfs[f] = this.packing.get(posting.tfs[at], f);
        }
        out.terms.push({ term, count, idf, df, tfs });
      }
      return out;
    });
  }

  /** The built state in flat arrays (see `Bm25fState`); `fromState` with the same options restores it. */
  exportState(): Bm25fState {
    const live = [...this.liveTerms()];
    const terms = live.map(([term]) => term);
    const offsets = new Int32Array(terms.length + 1);
    live.forEach(([, posting], i) => (offsets[i + 1] = offsets[i] + posting.count));
    const slots = new Int32Array(offsets[terms.length]);
    const tfs = new Int32Array(offsets[terms.length]);
    live.forEach(([, posting], i) => {
      slots.set(posting.slots.subarray(0, posting.count), offsets[i]);
      tfs.set(posting.tfs.subarray(0, posting.count), offsets[i]);
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
    // One copy of each array (the state may be a view of a larger buffer, such as a whole snapshot), viewed per term.
    const slots = state.slots.slice();
    const tfs = state.tfs.slice();
    state.terms.forEach((term, i) => {
      const posting = index.postings[index.termId(term)];
      posting.slots = slots.subarray(state.offsets[i], state.offsets[i + 1]);
      posting.tfs = tfs.subarray(state.offsets[i], state.offsets[i + 1]);
      posting.count = posting.slots.length;
    });
    index.normVersion++;
    return index;
  }

  /** Makes every id's term list (see `deferred`), in one pass over the postings. */
  private undefer(): void {
    if (!this.deferred) return;
    this.deferred = false;
    this.termsOf = this.ids.map((id) => (id === undefined ? undefined : []));
    this.postings.forEach((posting, term) => {
      for (let i = 0; i < posting.count; i++) this.termsOf[posting.slots[i]]!.push(term);
    });
  }

  private idf(posting: Posting): number {
    return idfOf(this.slotOf.size, posting.count);
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
  private accumulate(posting: Posting, pseudo: Float64Array, factor: number, run: SearchRun): void {
    const { scores, touched, heap } = run;
    const k1 = this.k1;
    const { slots, count } = posting;
    let floor = heap.floor();
    for (let i = 0; i < count; i++) {
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
  private accumulateCandidates(posting: Posting, pseudo: Float64Array, factor: number, run: SearchRun): void {
    const { scores, touched, heap } = run;
    const k1 = this.k1;
    const { slots, count } = posting;
    let floor = heap.floor();
    const addAt = (i: number, slot: number) => {
      const tf = pseudo[i];
      const score = (scores[slot] += (factor * tf) / (tf + k1));
      if (score > floor) {
        heap.offer(slot);
        floor = heap.floor();
      }
    };
    if (run.count * Math.log2(count + 1) < count) {
      for (let c = 0; c < run.count; c++) {
        const slot = touched[c];
        const i = lowerBound(slots, count, slot);
        if (i < count && slots[i] === slot) addAt(i, slot);
      }
      return;
    }
    for (let i = 0; i < count; i++) if (scores[slots[i]] !== 0) addAt(i, slots[i]);
  }

  /** The weighted, length-normalized frequency of the term in each of its ids, cached until lengths change. */
  private pseudoFrequencies(posting: Posting): Float64Array {
    if (posting.pseudo && posting.version === this.normVersion) return posting.pseudo;
    const pseudo = this.normalized(posting, this.norms());
    let max = 0;
    for (let i = 0; i < pseudo.length; i++) if (pseudo[i] > max) max = pseudo[i];
    posting.pseudo = pseudo;
    posting.maxPseudo = max;
    posting.version = this.normVersion;
    return pseudo;
  }

  /** Pseudo-frequencies of a posting with these average lengths (`norms`); 0 for slots outside `mask` when given. */
  private normalized(posting: Posting, norms: { avg: number[]; avgTotal: number }, mask?: Uint8Array): Float64Array {
    const n = this.fields.length;
    const pseudo = new Float64Array(posting.count);
    for (let i = 0; i < posting.count; i++) {
      const slot = posting.slots[i];
      if (mask && !mask[slot]) continue;
      const packed = posting.tfs[i];
      let sum = 0;
      for (let f = 0; f < n; f++) {
        const tf = this.packing.get(packed, f);
        if (tf === 0) continue;
        sum += (this.fields[f].weight * tf) / this.lengthNorm(norms, slot, f);
      }
      pseudo[i] = sum;
    }
    return pseudo;
  }

  /** Average length per field and of a whole item, over the live ids (or a subset's). */
  private norms(subset?: Bm25fSubset): { avg: number[]; avgTotal: number } {
    const live = Math.max(1, subset ? subset.size : this.slotOf.size);
    const totals = subset ? subset.totalLengths : this.totalLengths;
    const avg = totals.map((total) => total / live || 1);
    return { avg, avgTotal: totals.reduce((a, b) => a + b, 0) / live || 1 };
  }

  /** The length normalization of field `f` of `slot`: its own (BM25F) or the whole item's (`normalization`). */
  private lengthNorm(norms: { avg: number[]; avgTotal: number }, slot: number, f: number): number {
    const n = this.fields.length;
    if (this.documentB === undefined) {
      const b = this.fields[f].b;
      return 1 - b + (b * this.lengths[slot * n + f]) / norms.avg[f];
    }
    let length = 0;
    for (let g = 0; g < n; g++) length += this.lengths[slot * n + g];
    return 1 - this.documentB + (this.documentB * length) / norms.avgTotal;
  }

  /** A term's list is about to receive its first id: the term enters the vocabulary. */
  private entered(term: number): void {
    if (this.vocabularyReady) this.vocabulary?.add(this.terms[term]);
  }

  private addPosting(term: number, slot: number, tf: number): void {
    const posting = this.postings[term];
    if (posting.count === 0) this.entered(term);
    // Slots stay in ascending order (a reused slot is inserted in place), so a list can be probed by binary search.
    reserve(posting, posting.count + 1);
    const { slots, tfs } = posting;
    const at = lowerBound(slots, posting.count, slot);
    slots.copyWithin(at + 1, at, posting.count);
    tfs.copyWithin(at + 1, at, posting.count);
    slots[at] = slot;
    tfs[at] = tf;
    posting.count++;
    posting.pseudo = undefined;
  }

  private removePosting(term: number, slot: number): void {
    const posting = this.postings[term];
    const at = lowerBound(posting.slots, posting.count, slot);
    if (at === posting.count || posting.slots[at] !== slot) return;
    posting.slots.copyWithin(at, at + 1, posting.count);
    posting.tfs.copyWithin(at, at + 1, posting.count);
    posting.count--;
    posting.pseudo = undefined;
    if (posting.count === 0 && this.vocabularyReady) this.vocabulary?.delete(this.terms[term]);
  }
}

/** The first index of a sorted list (its first `length` entries) whose value is ≥ `value`. */
function lowerBound(list: Int32Array, length: number, value: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const EMPTY = new Int32Array(0);

/**
 * The fixed heap cost of one term: its posting object, its two typed-array views, its vocabulary map entry and array
 * slots, and its string's header. Measured, not guessed: 200 snapshot-loaded collections (334k terms, 70k tools)
 * held ~360 bytes per term after a full collection beyond their entries; the 200 counted before made a 64 MB
 * budget hold about 1.3× its size in live heap.
 */
const TERM_BYTES = 340;

/**
 * Gives a list room for `size` entries, doubling its capacity: a list that is a view of a shared buffer (after a bulk
 * `flush` or `fromState`) moves to its own buffer on its first growth.
 */
function reserve(posting: Posting, size: number): void {
  if (posting.slots.length >= size) return;
  const capacity = Math.max(4, size, 2 * posting.count);
  const slots = new Int32Array(capacity);
  const tfs = new Int32Array(capacity);
  slots.set(posting.slots.subarray(0, posting.count));
  tfs.set(posting.tfs.subarray(0, posting.count));
  posting.slots = slots;
  posting.tfs = tfs;
}

/** Above this many entries, pending buffers are a bulk's, dropped once flushed. */
const SMALL_PENDING = 4096;

/** Postings of new ids in add order, as three parallel typed arrays grown by doubling (see `Bm25fIndex.pending`). */
class PendingPostings {
  terms = new Int32Array(64);
  slots = new Int32Array(64);
  tfs = new Int32Array(64);
  size = 0;
  /** Per term id, the index of its latest entry, or -1. */
  last = new Int32Array(0);

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
      const grow = (old: Int32Array) => {
        const next = new Int32Array(2 * old.length);
        next.set(old);
        return next;
      };
      this.terms = grow(this.terms);
      this.slots = grow(this.slots);
      this.tfs = grow(this.tfs);
    }
    this.terms[this.size] = term;
    this.slots[this.size] = slot;
    this.tfs[this.size] = tf;
    this.last[term] = this.size++;
  }
}

/**
 * Relative slack on every bound comparison: scores are float sums, whose rounding may exceed the exact sum by a few
 * units in the last place; pruning must never drop an id for that.
 */
const SLACK = 1e-9;

/** BM25's idf of a term found in `df` of `live` ids. */
function idfOf(live: number, df: number): number {
  return Math.log(1 + (live - df + 0.5) / (df + 0.5));
}

/** A posting as one search reads it: `factor` scales its saturated frequencies, `bound` is the most it adds to an id. */
interface QueryList {
  posting: Posting;
  /** Its pseudo-frequencies (of the whole index, or of the subset searched). */
  pseudo: Float64Array;
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

function documentB(normalization: Bm25fOptions["normalization"]): number | undefined {
  return typeof normalization === "object" ? normalization.document : undefined;
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
