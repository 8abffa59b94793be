/**
 * BM25F over any number of fields: an inverted index of analyzed terms, with a weight and a length normalization per
 * field, and typo-tolerant lookup of terms that are not in the vocabulary. It ranks ids; it knows nothing of tools or
 * documents. Its parts: the vocabulary (`bm25f-terms.ts`), the lists as a struct of arrays (`bm25f-postings.ts`), the
 * ids and their lengths (`bm25f-items.ts`), the arithmetic (`bm25f-scoring.ts`), search and explain on one path
 * (`bm25f-search.ts`), subsets (`bm25f-subset.ts`) and the saved state (`bm25f-state.ts`).
 *
 * Scoring (Robertson & Zaragoza's BM25F): per term, the field frequencies are normalized by field length and summed
 * with the field weights into one pseudo-frequency `tf~`, then saturated once:
 *   score = Σ_t qtf · idf(t) · tf~ (k1 + 1) / (tf~ + k1),   tf~ = Σ_f w_f · tf_f / ((1 − b_f) + b_f · len_f / avglen_f)
 * where `avglen_f` is the average length of field f over the ids that have it (see `Norms.avg`).
 *
 * @example
 * ```ts
 * const index = new Bm25fIndex({ fields: [{ name: "title", weight: 2 }, { name: "body" }] });
 * index.add("a", [["weather"], ["forecast", "rain"]]);
 * index.search(["rain"], 5); // [{ id: "a", score: … }]
 * ```
 */
import { type Expansion, type FuzzyOptions, FuzzyVocabulary } from "./fuzzy.js";
import { ItemTable } from "./bm25f-items.js";
import { PendingPostings } from "./bm25f-pending.js";
import { PostingStore } from "./bm25f-postings.js";
import { type FieldOptions, type Lists, Scorer, type ScoringOptions } from "./bm25f-scoring.js";
import { countTerms, explainLists, idfOf, type QueryList, queryList, Searcher, type TermContribution } from "./bm25f-search.js";
import { type Bm25fState, exportLists, importState } from "./bm25f-state.js";
import { exactScores, type TermMatches, termMatches } from "./bm25f-evidence.js";
import { type Bm25fSubset, makeSubset, subsetList } from "./bm25f-subset.js";
import { TermDictionary } from "./bm25f-terms.js";
import { ENTRY_BYTES } from "./heap-cost.js";
import type { Ranked } from "./top-k.js";

export type { FieldOptions } from "./bm25f-scoring.js";
export type { TermContribution } from "./bm25f-search.js";
export type { Bm25fState } from "./bm25f-state.js";
export type { TermMatches } from "./bm25f-evidence.js";
export type { Bm25fSubset } from "./bm25f-subset.js";

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
  /** Each match counts at least its share of a plain match (see `ScoringOptions.presenceFloor`; default off). */
  presenceFloor?: boolean;
}

/** What `Bm25fIndex.rescore` may change without re-indexing: the postings keep raw frequencies per field. */
export type Bm25fScoring = ScoringOptions;

export class Bm25fIndex implements Lists {
  private readonly fuzzyPenalty: number;
  private readonly scorer: Scorer;
  private readonly searcher = new Searcher();
  /**
   * The vocabulary as dense ids: a term is resolved to its id once (`termId`), and everything after that is indexed by
   * id, so a build pays one string lookup per distinct term of a text, not one per occurrence. An id outlives its
   * postings: a term whose last id is removed keeps its id with an empty list.
   */
  private dictionary = new TermDictionary();
  store = new PostingStore();
  items: ItemTable;
  private readonly vocabulary: FuzzyVocabulary | undefined;
  /** Postings of new ids not yet in their lists (see `PendingPostings`); any read moves them first (`flush`). */
  private pending = new PendingPostings();
  /**
   * Each slot's term ids, for removal; undefined until the first removal makes them all in one pass over the lists, so
   * that neither a build nor `fromState` pays for them.
   */
  private termsOf: (number[] | undefined)[] | undefined;
  /**
   * Whether `vocabulary` holds every term. It is filled on the first lookup that needs it (a query word missing from
   * the vocabulary, a suggestion), not term by term during a build: most builds serve queries whose words are known.
   */
  private vocabularyReady = false;
  private normVersion = 0;

  constructor(options: Bm25fOptions) {
    this.fuzzyPenalty = options.fuzzyPenalty ?? 0.4;
    this.vocabulary = options.fuzzy === false ? undefined : new FuzzyVocabulary(options.fuzzy);
    this.items = new ItemTable(options.fields.length);
    this.scorer = new Scorer(this, options.fields, options);
  }

  /**
   * Changes field weights, `b`, `k1` and normalization in place: the postings hold raw frequencies per field, so
   * only the cached pseudo-frequencies are dropped (they are remade per term on next use).
   */
  rescore(scoring: Bm25fScoring): void {
    this.scorer.set(scoring);
    this.normVersion++;
  }

  /** Number of indexed ids. */
  get size(): number {
    return this.items.size;
  }

  /**
   * Bytes it holds: the byte length of its typed arrays (lists, lengths, caches, search buffers), its strings as
   * UTF-16, and a measured cost per object and map entry it makes (ids, decoded terms, removal lists).
   */
  memoryBytes(): number {
    this.flush();
    let bytes = this.store.bytes + this.items.bytes + this.scorer.bytes + this.searcher.bytes + this.pending.bytes;
    for (const id of this.items.ids) if (id !== undefined) bytes += ENTRY_BYTES + 2 * id.length;
    if (this.dictionary.decoded) bytes += ENTRY_BYTES * this.dictionary.size + this.dictionary.stringBytes;
    if (this.termsOf) bytes += ARRAY_BYTES * this.items.size + 8 * this.store.entries;
    if (this.vocabularyReady) bytes += VOCABULARY_TERM_BYTES * (this.vocabulary?.size ?? 0);
    return bytes;
  }

  has(id: string): boolean {
    return this.items.slotOf.has(id);
  }

  /** Whether a term (already analyzed) is in the vocabulary. */
  hasTerm(term: string): boolean {
    return this.liveTerm(term) !== undefined;
  }

  /**
   * The dense id of a term, made on first sight (see `dictionary`). `addTermIds` takes texts as ids, so a caller that
   * meets the same text many times (a catalog build) resolves its terms once.
   */
  termId(term: string): number {
    const id = this.dictionary.intern(term);
    if (id >= this.store.terms) this.store.addTerms(id + 1);
    return id;
  }

  /** `termId` of each term. */
  termIdsOf(terms: readonly string[]): Int32Array {
    const ids = new Int32Array(terms.length);
    for (let i = 0; i < terms.length; i++) ids[i] = this.termId(terms[i]);
    return ids;
  }

  /** The term's id when some indexed id has it. */
  private liveTerm(term: string): number | undefined {
    this.flush();
    const id = this.dictionary.get(term);
    return id === undefined || this.store.count[id] === 0 ? undefined : id;
  }

  /** Number of indexed ids that contain the term. */
  documentFrequency(term: string): number {
    const id = this.liveTerm(term);
    return id === undefined ? 0 : this.store.count[id];
  }

  /** Vocabulary terms close to a term, nearest first (for suggestions and typo tolerance); with a subset, its terms. */
  nearTerms(term: string, maxDistance?: number, subset?: Bm25fSubset): Expansion[] {
    if (!this.vocabulary) return [];
    this.flush();
    if (!this.vocabularyReady) {
      for (let t = 0; t < this.store.terms; t++) if (this.store.count[t] > 0) this.vocabulary.add(this.dictionary.term(t));
      this.vocabularyReady = true;
    }
    const keep = subset && ((near: string) => this.inSubset(this.dictionary.get(near)!, subset).df > 0);
    return this.vocabulary.expand(term, maxDistance, keep);
  }

  /** Changes with every add and remove: a `Bm25fSubset` made at another version is stale. */
  get version(): number {
    return this.normVersion;
  }

  /** The ids `accept` keeps, as a subset to search (see `Bm25fSubset`). Costs one pass over the ids. */
  subset(accept: (id: string) => boolean): Bm25fSubset {
    return makeSubset(this.items, this.normVersion, accept);
  }

  /** Number of ids of a subset that contain the term. */
  subsetFrequency(term: string, subset: Bm25fSubset): number {
    const t = this.liveTerm(term);
    return t === undefined ? 0 : this.inSubset(t, subset).df;
  }

  private inSubset(t: number, subset: Bm25fSubset) {
    return subsetList(this.scorer, this.store.slots, this.store.start[t], this.store.count[t], t, subset, this.normVersion);
  }

  /** Indexes `id` with one list of analyzed terms per field (in field order). Replaces an existing id. */
  add(id: string, fieldTerms: string[][]): void {
    this.addTermIds(id, fieldTerms.map((terms) => this.termIdsOf(terms)));
  }

  /** `add` with each field's terms as ids from `termId`. */
  addTermIds(id: string, fieldTerms: ArrayLike<number>[]): void {
    const ends = new Int32Array(fieldTerms.length);
    let total = 0;
    fieldTerms.forEach((terms, f) => (ends[f] = total += terms.length));
    const ids = new Int32Array(total);
    fieldTerms.forEach((terms, f) => ids.set(terms, ends[f] - terms.length));
    this.addTermRuns(id, ids, ends);
  }

  /**
   * `addTermIds` with the fields' ids as runs of one array: field `f`'s from `ends[f - 1]` (0 for the first) to
   * `ends[f]`. A build reuses one array for every id.
   */
  addTermRuns(id: string, ids: Int32Array, ends: ArrayLike<number>): void {
    if (ends.length !== this.items.fields) {
      throw new Error(`Bm25fIndex.add: expected ${this.items.fields} fields, got ${ends.length}`);
    }
    if (this.items.slotOf.has(id)) this.remove(id);
    const { slot, reused } = this.items.place(id, ends);
    if (reused) this.insertPostings(slot, ids, ends);
    else this.appendPostings(slot, ids, ends);
    this.normVersion++;
  }

  /** Adds a new slot, the largest there is, to its terms' pending postings (see `PendingPostings.addSlot`). */
  private appendPostings(slot: number, ids: Int32Array, ends: ArrayLike<number>): void {
    this.pending.reserveTerms(this.store.terms);
    const terms = this.pending.addSlot(slot, ids, ends, this.scorer.packing, this.termsOf !== undefined);
    if (this.termsOf && terms) this.termsOf[slot] = terms;
  }

  /** Adds a reused slot to its terms' lists, each in its place in the ascending order of slots. */
  private insertPostings(slot: number, ids: Int32Array, ends: ArrayLike<number>): void {
    this.flush();
    const { packing } = this.scorer;
    const counts = new Map<number, number>();
    for (let f = 0, i = 0; f < ends.length; f++) {
      for (; i < ends[f]; i++) counts.set(ids[i], packing.increment(counts.get(ids[i]) ?? 0, f));
    }
    for (const [term, tf] of counts) {
      if (this.store.count[term] === 0) this.entered(term);
      this.store.insert(term, slot, tf);
    }
    if (this.termsOf) this.termsOf[slot] = [...counts.keys()];
  }

  /**
   * Moves the pending postings into the lists (see `PendingPostings`). Any read does it first; a bulk build calls it
   * at its end, so that its first search does not pay for it.
   */
  flush(): void {
    const { pending, store } = this;
    if (pending.size === 0) return;
    if (this.vocabularyReady) {
      for (let i = 0; i < pending.size; i++) if (store.count[pending.terms[i]] === 0) this.entered(pending.terms[i]);
    }
    store.append(pending);
    pending.clear();
  }

  /** A term's list is about to receive its first id: the term enters the vocabulary. */
  private entered(term: number): void {
    if (this.vocabularyReady) this.vocabulary?.add(this.dictionary.term(term));
  }

  /** Removes `id`; returns false when it was not indexed. Only the lists of its own terms are touched. */
  remove(id: string): boolean {
    this.flush();
    if (!this.items.slotOf.has(id)) return false;
    const termsOf = (this.termsOf ??= this.store.termsBySlot(this.items.ids));
    const slot = this.items.free(id)!;
    for (const term of termsOf[slot] ?? []) {
      if (this.store.delete(term, slot) && this.store.count[term] === 0 && this.vocabularyReady) this.vocabulary?.delete(this.dictionary.term(term));
    }
    termsOf[slot] = undefined;
    this.normVersion++;
    return true;
  }

  /**
   * Ranks ids for analyzed query terms, best first, ties by id. Terms missing from the vocabulary are matched to
   * near terms at a discount. MaxScore pruning keeps the result exhaustive (see `Searcher`).
   */
  search(queryTerms: string[], limit: number, options: { fuzzy?: boolean; exhaustive?: boolean; subset?: Bm25fSubset } = {}): Ranked[] {
    const lists = this.queryLists(queryTerms, options.fuzzy !== false, options.subset);
    return this.searcher.run(this.scorer, lists, limit, this.items.ids, options.exhaustive === true);
  }

  /**
   * Why `id` scores what `search` gives it for these query terms: one entry per matched term and field, whose
   * contributions add up to the score. A query word missing from the vocabulary shows each near term it was matched
   * to, with its distance.
   */
  explain(queryTerms: string[], id: string, options: { fuzzy?: boolean; subset?: Bm25fSubset } = {}): TermContribution[] {
    const slot = this.items.slotOf.get(id);
    const { subset } = options;
    if (slot === undefined || (subset && !subset.mask[slot])) return [];
    const lists = this.queryLists(queryTerms, options.fuzzy !== false, subset);
    const norms = this.scorer.norms(subset ?? this.items);
    return explainLists(this.scorer, lists, slot, norms, (t) => this.dictionary.term(t));
  }

  /** The scores `search` gives these ids for exact query terms, no typo expansion (see `exactScores`). */
  exactScores(queryTerms: string[], ids: readonly string[], subset?: Bm25fSubset): number[] {
    return exactScores(this, this.scorer.k1, this.queryLists(queryTerms, false, subset), ids, subset);
  }

  /** Each id's raw evidence for exact query terms (see `termMatches`). */
  termMatches(queryTerms: string[], ids: readonly string[], subset?: Bm25fSubset): TermMatches[] {
    const live = subset ? subset.size : this.items.size;
    const terms = [...countTerms(queryTerms)].map(([term, count]) => {
      const t = this.liveTerm(term);
      const df = t === undefined ? 0 : subset ? this.inSubset(t, subset).df : this.store.count[t];
      return { term, count, df, idf: idfOf(live, df), t };
    });
    return termMatches(this, this.scorer, terms, ids, subset);
  }

  /** The lists a query reads, with what each adds at most per id. */
  private queryLists(queryTerms: string[], fuzzy: boolean, subset: Bm25fSubset | undefined): QueryList[] {
    const lists: QueryList[] = [];
    const add = (t: number, queryTerm: string, weight: number, distance?: number) => {
      if (subset) {
        const list = this.inSubset(t, subset);
        lists.push(queryList(this.scorer.k1, t, queryTerm, distance, weight, list.pseudo, list.maxPseudo, idfOf(subset.size, list.df)));
      } else {
        const pseudo = this.scorer.pseudo(t, this.normVersion);
        lists.push(queryList(this.scorer.k1, t, queryTerm, distance, weight, pseudo, this.scorer.maxPseudo(t), idfOf(this.items.size, this.store.count[t])));
      }
    };
    for (const [term, count] of countTerms(queryTerms)) {
      const t = this.liveTerm(term);
      // A term found only outside the subset is, for the subset, a term missing from the vocabulary.
      if (t !== undefined && (!subset || this.inSubset(t, subset).df > 0)) add(t, term, count);
      else if (fuzzy) {
        for (const near of this.nearTerms(term, undefined, subset)) add(this.dictionary.get(near.term)!, term, count * this.fuzzyPenalty ** near.distance, near.distance);
      }
    }
    return lists;
  }

  /** The built state in flat arrays (see `Bm25fState`); `fromState` with the same options restores it. */
  exportState(): Bm25fState & { terms: string[] } {
    this.flush();
    return { ids: this.items.ids.map((id) => id ?? null), lengths: this.items.savedLengths(), ...exportLists(this.store, (t) => this.dictionary.term(t)) };
  }

  /**
   * An index with `options` and a state from `exportState` (of an index with the same fields). Its arrays are kept as
   * given (views of a snapshot's bytes stay views, copied on the first change) and its terms decoded on first need.
   */
  static fromState(options: Bm25fOptions, state: Bm25fState): Bm25fIndex {
    const index = new Bm25fIndex(options);
    const parts = importState(options.fields.length, state);
    index.items = parts.items;
    index.store = parts.store;
    index.dictionary = parts.dictionary;
    index.normVersion++;
    return index;
  }
}

/**
 * The measured heap cost of a term in the typo vocabulary (its map entry and array slots): 60 loaded 150-tool indexes
 * (896 terms each) grew by 72.8 KB each when their vocabulary was first made.
 */
const VOCABULARY_TERM_BYTES = 80;
/** The measured heap cost of a small array (a slot's term list) besides its entries. */
const ARRAY_BYTES = 40;
