/**
 * What the learned ranker reads of a BM25F index besides its ranking: the exact scores of ids another engine found,
 * and the raw per-field frequencies of the query's terms in each id, from which it computes its own scorings (plain
 * BM25, per-field BM25, coverage) without a second index. Exact terms only: no typo expansion.
 */
import type { Lists, Scorer } from "./bm25f-scoring.js";
import type { QueryList } from "./bm25f-search.js";
import type { Bm25fSubset } from "./bm25f-subset.js";

/** Raw frequencies of exact query terms in one id (`Bm25fIndex.termMatches`). */
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

/** A distinct query term with its statistics; `t` is its term id when some indexed id has it. */
export interface QueryTermStats {
  term: string;
  count: number;
  df: number;
  idf: number;
  t: number | undefined;
}

/**
 * The scores `search` gives these ids for the query's exact lists, in one pass over them: for the few candidates
 * another engine found outside BM25's top list. 0 for an id outside the index or the subset.
 */
export function exactScores({ store, items }: Lists, k1: number, lists: QueryList[], ids: readonly string[], subset?: Bm25fSubset): number[] {
  return ids.map((id) => {
    const slot = items.slotOf.get(id);
    if (slot === undefined || (subset && !subset.mask[slot])) return 0;
    let score = 0;
    for (const { term, pseudo, factor } of lists) {
      const at = store.find(term, slot);
      if (at < 0) continue;
      // `pseudo` counts from the start of the term's list.
      const value = pseudo[at - store.start[term]];
      if (value > 0) score += (factor * value) / (value + k1);
    }
    return score;
  });
}

/** Each id's evidence for the query's terms (see `TermMatches`); empty `terms` for an id outside the index or subset. */
export function termMatches({ store, items }: Lists, scorer: Scorer, terms: QueryTermStats[], ids: readonly string[], subset?: Bm25fSubset): TermMatches[] {
  const norms = scorer.norms(subset ?? items);
  const n = items.fields;
  return ids.map((id) => {
    const slot = items.slotOf.get(id);
    const out: TermMatches = { lengths: [], averages: norms.avgAll, averageLength: norms.avgTotal, terms: [] };
    if (slot === undefined || (subset && !subset.mask[slot])) return out;
    for (let f = 0; f < n; f++) out.lengths.push(items.length(slot, f));
    for (const { term, count, df, idf, t } of terms) {
      const tfs = new Array<number>(n).fill(0);
      const at = t === undefined ? -1 : store.find(t, slot);
      if (at >= 0) for (let f = 0; f < n; f++) tfs[f] = scorer.packing.get(store.tfs[at], f);
      out.terms.push({ term, count, idf, df, tfs });
    }
    return out;
  });
}
