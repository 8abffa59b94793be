/**
 * Some of an index's ids, searched as if the others were not indexed at all: document frequencies, the number of ids
 * and average field lengths are those of the subset, so scores, ranks and typo expansions equal those of an index built
 * from the subset alone.
 */
import type { ItemTable } from "./bm25f-items.js";
import type { Scorer } from "./bm25f-scoring.js";

/** A subset made by `Bm25fIndex.subset`; valid until the index changes (`version`). */
export interface Bm25fSubset {
  /** The index's `version` it was made at. */
  readonly version: number;
  /** 1 per slot in the subset. */
  readonly mask: Uint8Array;
  readonly size: number;
  readonly totalLengths: number[];
  /** Per field, how many ids of the subset have it non-empty. */
  readonly filled: number[];
  /** Per-term statistics within the subset, by term id, made on first use. */
  readonly lists: Map<number, SubsetList>;
}

/** A term's list as a subset sees it: its pseudo-frequencies with the subset's lengths (0 outside it), and its df. */
export interface SubsetList {
  pseudo: Float64Array;
  maxPseudo: number;
  df: number;
}

/** The ids `accept` keeps, at the index's `version`. Costs one pass over the ids. */
export function makeSubset(items: ItemTable, version: number, accept: (id: string) => boolean): Bm25fSubset {
  const n = items.fields;
  const mask = new Uint8Array(items.slots);
  const totalLengths = new Array<number>(n).fill(0);
  const filled = new Array<number>(n).fill(0);
  let size = 0;
  items.ids.forEach((id, slot) => {
    if (id === undefined || !accept(id)) return;
    mask[slot] = 1;
    size++;
    for (let f = 0; f < n; f++) {
      const length = items.length(slot, f);
      totalLengths[f] += length;
      if (length > 0) filled[f]++;
    }
  });
  return { version, mask, size, totalLengths, filled, lists: new Map() };
}

/** Term `t` within a subset (see `SubsetList`), computed once per subset; throws when the subset is stale. */
export function subsetList(scorer: Scorer, slots: Int32Array, start: number, count: number, t: number, subset: Bm25fSubset, version: number): SubsetList {
  if (subset.version !== version) throw new Error("Bm25fIndex: the subset is stale (the index changed since it was made)");
  const cached = subset.lists.get(t);
  if (cached) return cached;
  const pseudo = new Float64Array(count);
  const maxPseudo = scorer.normalize(t, scorer.norms(subset), pseudo, subset.mask);
  let df = 0;
  for (let i = 0; i < count; i++) if (subset.mask[slots[start + i]]) df++;
  const list = { pseudo, maxPseudo, df };
  subset.lists.set(t, list);
  return list;
}
