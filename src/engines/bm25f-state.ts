/**
 * The built state of a BM25F index in flat arrays, for snapshots: a loaded state answers exactly as the index it came
 * from, with no text analyzed again and no list copied.
 */
import { ItemTable } from "./bm25f-items.js";
import { PostingStore } from "./bm25f-postings.js";
import { listOf, type StringList, TermDictionary } from "./bm25f-terms.js";

/**
 * Postings are stored term by term: `slots` and `tfs` from `offsets[i]` to `offsets[i + 1]` belong to term `i`. Terms
 * are an array or a string list read on first need (a snapshot's section).
 */
export interface Bm25fState {
  /** Id per slot; null for a free slot. */
  ids: (string | null)[];
  /** Field lengths, `fields` per slot. */
  lengths: Int32Array;
  terms: string[] | StringList;
  offsets: Int32Array;
  slots: Int32Array;
  tfs: Int32Array;
}

/** The lists of the terms some id has, renumbered in term order, as a state keeps them. */
export function exportLists(store: PostingStore, termOf: (t: number) => string): Pick<Bm25fState, "terms" | "offsets" | "slots" | "tfs"> & { terms: string[] } {
  const live: number[] = [];
  for (let t = 0; t < store.terms; t++) if (store.count[t] > 0) live.push(t);
  const offsets = new Int32Array(live.length + 1);
  live.forEach((t, i) => (offsets[i + 1] = offsets[i] + store.count[t]));
  const slots = new Int32Array(offsets[live.length]);
  const tfs = new Int32Array(offsets[live.length]);
  live.forEach((t, i) => {
    slots.set(store.slots.subarray(store.start[t], store.start[t] + store.count[t]), offsets[i]);
    tfs.set(store.tfs.subarray(store.start[t], store.start[t] + store.count[t]), offsets[i]);
  });
  return { terms: live.map(termOf), offsets, slots, tfs };
}

/** The parts of an index a state gives; throws when it does not fit `fields` fields or is inconsistent. */
export function importState(fields: number, state: Bm25fState): { items: ItemTable; store: PostingStore; dictionary: TermDictionary } {
  const terms = Array.isArray(state.terms) ? listOf(state.terms) : (state.terms as StringList);
  if (state.lengths.length < state.ids.length * fields || state.offsets.length !== terms.length + 1) {
    throw new Error("Bm25fIndex.fromState: the state does not fit these fields");
  }
  const { offsets, slots, tfs } = state;
  const entries = offsets[offsets.length - 1];
  if (slots.length !== entries || tfs.length !== entries) throw new Error("Bm25fIndex.fromState: its lists do not add up");
  for (let t = 0; t < terms.length; t++) {
    if (offsets[t] > offsets[t + 1] || offsets[t] < 0) throw new Error("Bm25fIndex.fromState: its list offsets are not in order");
  }
  for (let i = 0; i < slots.length; i++) {
    if (slots[i] < 0 || slots[i] >= state.ids.length || state.ids[slots[i]] === null) throw new Error("Bm25fIndex.fromState: a list names a slot with no id");
  }
  return {
    items: ItemTable.of(fields, state.ids, state.lengths),
    store: PostingStore.fromLists(offsets, slots, tfs),
    dictionary: TermDictionary.of(terms),
  };
}
