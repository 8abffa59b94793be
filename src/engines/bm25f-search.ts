/**
 * One BM25F search over the stored lists, and the explanation of one id's score, on the same path: the query's terms
 * become lists with a factor each (`queryLists`, typo expansions included), which a search accumulates with MaxScore
 * pruning and `explain` splits by field.
 *
 *   score = Σ_t qtf · idf(t) · tf~ (k1 + 1) / (tf~ + k1)
 */
import { lowerBound } from "./bm25f-postings.js";
import type { Scorer } from "./bm25f-scoring.js";
import type { Bm25fSubset } from "./bm25f-subset.js";
import { ScoreHeap } from "./score-heap.js";
import type { Ranked } from "./top-k.js";

/** A query term matched to a vocabulary term's list, as one search reads it. */
export interface QueryList {
  /** The vocabulary term's id, and the analyzed query term it stands for (with its edits when a typo expansion). */
  term: number;
  queryTerm: string;
  distance?: number;
  /** Its pseudo-frequencies (of the whole index, or of the subset searched). */
  pseudo: Float64Array;
  /** Scales its saturated frequencies; `bound` is the most it adds to an id. */
  factor: number;
  bound: number;
}

/**
 * Relative slack on every bound comparison: scores are float sums, whose rounding may exceed the exact sum by a few
 * units in the last place; pruning must never drop an id for that.
 */
const SLACK = 1e-9;

/** BM25's idf of a term found in `df` of `live` ids. */
export function idfOf(live: number, df: number): number {
  return Math.log(1 + (live - df + 0.5) / (df + 0.5));
}

/** A list with its statistics (`pseudo`, their maximum, idf) at query weight `weight`. */
export function queryList(k1: number, term: number, queryTerm: string, distance: number | undefined, weight: number, pseudo: Float64Array, maxPseudo: number, idf: number): QueryList {
  const factor = weight * idf * (k1 + 1);
  return { term, queryTerm, distance, pseudo, factor, bound: ((factor * maxPseudo) / (maxPseudo + k1)) * (1 + SLACK) };
}

/** The number of times each query term occurs, in first-occurrence order. */
export function countTerms(terms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

/** One search's state: scores by slot, the touched slots (`count` of them, in `touched`), the k best so far. */
interface SearchRun {
  scores: Float64Array;
  touched: Int32Array;
  count: number;
  heap: ScoreHeap;
}

/**
 * The buffers of searches, reused from search to search (a search runs to its end without yielding), and the search
 * itself. MaxScore pruning: each list has a bound, the most it adds to any id. Lists go from the largest factor down;
 * once the k-th best score so far exceeds the bounds of the lists still to come, no id untouched yet can reach the top
 * k, so those lists only add to ids already touched, and an id whose score plus those bounds falls below the k-th best
 * is dropped. The result is the exhaustive one, scores included: every id that can rank receives the same additions in
 * the same order.
 */
export class Searcher {
  private scores = new Float64Array(0);
  private touched = new Int32Array(0);
  private heap = new ScoreHeap(this.scores, 0);
  private best = this.heap;
  /** The ids of the index searched last, which break ties in `best`. */
  private ids: (string | undefined)[] = [];

  /** Bytes of its buffers: scores, touched slots, and the two heaps' places. */
  get bytes(): number {
    return 20 * this.scores.length;
  }

  run(scorer: Scorer, lists: QueryList[], limit: number, ids: (string | undefined)[], exhaustive: boolean): Ranked[] {
    // The order of additions decides the last bits of a score, so it stays by factor (not by bound) as it always was.
    lists.sort((a, b) => b.factor - a.factor);
    const rest = new Float64Array(lists.length + 1);
    for (let i = lists.length - 1; i >= 0; i--) rest[i] = rest[i + 1] + lists[i].bound;
    const run = this.start(ids, limit);
    const { slots, start, count } = scorer.lists.store;
    let open = true;
    let restAtDrop = Infinity;
    lists.forEach(({ term, factor, pseudo }, i) => {
      if (open) {
        accumulate(slots, start[term], count[term], pseudo, factor, scorer.k1, run);
        open = exhaustive || !(run.heap.floor() > rest[i + 1] * (1 + SLACK));
        return;
      }
      // A pass over the candidates costs as much as a list, so it is made each time the bounds still to come have
      // halved (a few passes per query) rather than before every list.
      if (rest[i] <= restAtDrop / 2) {
        dropHopeless(run, rest[i]);
        restAtDrop = rest[i];
      }
      accumulateCandidates(slots, start[term], count[term], pseudo, factor, scorer.k1, run);
    });
    // The k best of the candidates, equal scores by id (the order of `compareRanked`).
    this.best.reset(limit);
    for (let c = 0; c < run.count; c++) this.best.offer(run.touched[c]);
    const hits = this.best.ranked().map((slot) => ({ id: ids[slot]!, score: run.scores[slot] }));
    for (let c = 0; c < run.count; c++) run.scores[run.touched[c]] = 0;
    return hits;
  }

  private start(ids: (string | undefined)[], limit: number): SearchRun {
    this.ids = ids;
    if (this.scores.length < ids.length) {
      const capacity = Math.max(16, ids.length * 2);
      this.scores = new Float64Array(capacity);
      this.touched = new Int32Array(capacity);
      this.heap = new ScoreHeap(this.scores, capacity);
      this.best = new ScoreHeap(this.scores, capacity, (a, b) => this.ids[a]! > this.ids[b]!);
    }
    this.heap.reset(limit);
    return { scores: this.scores, touched: this.touched, count: 0, heap: this.heap };
  }
}

/** Adds a term's contribution (at most `factor`) to every id of its list (`count` entries from `from`). */
function accumulate(slots: Int32Array, from: number, count: number, pseudo: Float64Array, factor: number, k1: number, run: SearchRun): void {
  const { scores, touched, heap } = run;
  let floor = heap.floor();
  for (let i = 0; i < count; i++) {
    const tf = pseudo[i];
    // A term found only in fields of weight 0 adds nothing; it must not count as a touch either, or an id first
    // reached that way would be listed twice (a zero score is what marks an id untouched).
    if (tf === 0) continue;
    const slot = slots[from + i];
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
function accumulateCandidates(slots: Int32Array, from: number, count: number, pseudo: Float64Array, factor: number, k1: number, run: SearchRun): void {
  const { scores, touched, heap } = run;
  let floor = heap.floor();
  const addAt = (i: number, slot: number) => {
    const tf = pseudo[i];
    const score = (scores[slot] += (factor * tf) / (tf + k1));
    if (score > floor) {
      heap.offer(slot);
      floor = heap.floor();
    }
  };
  const end = from + count;
  if (run.count * Math.log2(count + 1) < count) {
    for (let c = 0; c < run.count; c++) {
      const slot = touched[c];
      const i = lowerBound(slots, from, end, slot);
      if (i < end && slots[i] === slot) addAt(i - from, slot);
    }
    return;
  }
  for (let i = from; i < end; i++) if (scores[slots[i]] !== 0) addAt(i - from, slots[i]);
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
 * `slot`'s share of each list, split by field: a term's saturated score is shared among its fields in proportion to
 * each field's part of the pseudo-frequency (of the raw frequency when the presence floor set it), the only split
 * under which the parts sum exactly (BM25F saturates once, across fields).
 */
export function explainLists(scorer: Scorer, lists: QueryList[], slot: number, norms: ReturnType<Scorer["norms"]>, termOf: (t: number) => string): TermContribution[] {
  const { store } = scorer.lists;
  const out: TermContribution[] = [];
  for (const list of lists) {
    const at = store.find(list.term, slot);
    if (at < 0) continue;
    const pseudo = list.pseudo[at - store.start[list.term]];
    const total = pseudo > 0 ? (list.factor * pseudo) / (pseudo + scorer.k1) : 0;
    const match = { term: termOf(list.term), queryTerm: list.queryTerm, ...(list.distance === undefined ? {} : { distance: list.distance }) };
    const shares = scorer.fieldShares(store.tfs[at], slot, norms, pseudo);
    scorer.fields.forEach((field, f) => {
      if (scorer.packing.get(store.tfs[at], f) === 0) return;
      out.push({ ...match, field: field.name, contribution: total * shares[f] });
    });
  }
  return out;
}
