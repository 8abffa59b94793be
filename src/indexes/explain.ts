/**
 * Explanations: why one item ranks where it does for a query, and what its score is made of (SPEC §4 `explain`).
 * Engines give the parts (BM25F term contributions, regex spans, similarities, fusion shares); this module holds the
 * shapes they are reported in and the ranking facts every engine shares (rank, what outranks the item).
 *
 * @example
 * ```ts
 * const why = await tools.explain("wether in Paris", "get_weather");
 * why.rank;  // 1
 * why.terms; // [{ term: "weather", field: "description", contribution: 2.1, typo: { query_term: "wether", distance: 1 } }, …]
 * ```
 */
import type { TermContribution } from "../engines/bm25f.js";
import type { FusedHit, FusionInput } from "../engines/fusion.js";
import type { FieldMatch, MatchSpan } from "../engines/regex.js";
import type { Ranked } from "../engines/top-k.js";
import type { UsageExplanation } from "../usage/ranking.js";
import type { ExplainedRanker } from "../ranking/rank.js";
import type { ExplainedSets } from "./tool-sets.js";

/** Items listed as outranking the explained one, at most (the best of those above it). */
export const MAX_OUTRANKED = 10;

/** One query term's share of the score from one field (`bm25`, and the BM25 half of `hybrid`). */
export interface ExplainedTerm {
  /** The indexed term that matched. */
  term: string;
  field: string;
  contribution: number;
  /** Present when the match is a typo expansion: the query's word (analyzed) and how many edits away it is. */
  typo?: { query_term: string; distance: number };
  /** Documents: the passage the term matched in. */
  passage?: number;
}

/** The spans a regex matched in one field. */
export interface ExplainedField {
  field: string;
  matches: MatchSpan[];
}

/** How close the item's vector is to the query (`semantic`, and the dense half of `hybrid`). */
export interface ExplainedSimilarity {
  /** Cosine similarity to the closest query sentence: the semantic score. */
  similarity: number;
  /** The query sentence that is closest. */
  sentence: string;
  /** Every query sentence with its similarity, in query order. */
  sentences: { text: string; similarity: number }[];
}

/** One engine's part of a fused `hybrid` score. */
export interface ExplainedPart {
  engine: "bm25" | "semantic";
  /** The engine's own score before fusion (BM25 score, cosine similarity); 0 when that engine did not match. */
  raw: number;
  /** What it added to the fused score; the parts add up to `score`. */
  contribution: number;
}

/** An item ranked above the explained one. */
export interface Outranking {
  name: string;
  score: number;
}

/**
 * Why an item ranks where it does. The parts of the engine used add up to `score`, plus `learned.contribution` when
 * the learned signal is blended in; `synonyms` and `pinned` say when curation moved the item (tools).
 */
export interface Explanation extends UsageExplanation {
  /** Tool name or document id. */
  name: string;
  engine: string;
  query: string;
  /** 1-based rank among every item the engine matched; null when it does not match the query at all. */
  rank: number | null;
  /** The score `search` gives it (0 when it does not match). */
  score: number;
  /** How many items rank above it (all of them when it does not match). */
  above: number;
  /** The best of the items above it, best first (at most 10). */
  outranked_by: Outranking[];
  /** `bm25`/`hybrid`: every matched term and field; for `bm25` the contributions add up to `score`. */
  terms?: ExplainedTerm[];
  /** `regex`: the fields that match and where; the score is decided by the first of them. */
  fields?: ExplainedField[];
  /** `semantic`/`hybrid`: the similarity to the query. */
  semantic?: ExplainedSimilarity;
  /** `hybrid`: each engine's part in the fused score. */
  parts?: ExplainedPart[];
  /** Documents: the passages that make the score, each with its weight. */
  passages?: { passage: number; offset: number; score: number; weight: number }[];
  /**
   * Tools, `bm25`/`hybrid` with tool sets (`ToolSearchOptions.sets`; clauses are on by default for `hybrid`): when the
   * request was ranked clause by clause, the score is `sets.clauses.whole` plus the best of `sets.clauses.parts`
   * (each a place in its list's score range, 0–1; `parts` and `terms` then describe the whole request's own ranking),
   * plus `sets.group.lift` and `learned.contribution` when present.
   */
  sets?: ExplainedSets;
  /**
   * Tools, `bm25`/`hybrid` with the learned ranker on (`ToolIndexOptions.ranker`): the model's score of the item and
   * each feature's part (value × weight); the parts add up to `ranker.score`, which is `score` before any learned
   * usage signal, group lift or pin. `parts`, `terms` and `sets` then describe the evidence the features came from.
   */
  ranker?: ExplainedRanker;
  /** Anything the numbers alone do not say (e.g. why the item is not ranked). */
  note?: string;
}

/** Options of `explain`. */
export interface ExplainOptions<E extends string = string> {
  /** Default `bm25`. */
  engine?: E;
  /** Typo tolerance, as in search (default on). */
  fuzzy?: boolean;
}

/** The ranking facts of `id` in a complete ranking (best first): rank, score, and what outranks it. */
export function placeIn(ranking: Ranked[], id: string): Pick<Explanation, "rank" | "score" | "above" | "outranked_by"> {
  const at = ranking.findIndex((hit) => hit.id === id);
  const above = at < 0 ? ranking.length : at;
  return {
    rank: at < 0 ? null : at + 1,
    score: at < 0 ? 0 : ranking[at].score,
    above,
    outranked_by: ranking.slice(0, Math.min(above, MAX_OUTRANKED)).map((hit) => ({ name: hit.id, score: hit.score })),
  };
}

/** BM25F term contributions in the report's shape, each multiplied by `weight` (a passage's weight for documents). */
export function explainedTerms(contributions: TermContribution[], weight = 1, passage?: number): ExplainedTerm[] {
  return contributions.map((c) => {
    const out: ExplainedTerm = { term: c.term, field: c.field, contribution: c.contribution * weight };
    if (c.distance !== undefined) out.typo = { query_term: c.queryTerm, distance: c.distance };
    if (passage !== undefined) out.passage = passage;
    return out;
  });
}

/** Regex field matches with field names. */
export function explainedFields(matches: FieldMatch[], names: readonly string[]): ExplainedField[] {
  return matches.map((m) => ({ field: names[m.field] ?? String(m.field), matches: m.spans }));
}

/** The similarity of an item to each query sentence, with the closest one; undefined when it has no vector. */
export function explainedSimilarity(sentences: string[], scores: number[] | undefined): ExplainedSimilarity | undefined {
  if (!scores || scores.length === 0) return undefined;
  let best = 0;
  scores.forEach((score, i) => {
    if (score > scores[best]) best = i;
  });
  return {
    similarity: scores[best],
    sentence: sentences[best],
    sentences: sentences.map((text, i) => ({ text, similarity: scores[i] })),
  };
}

/**
 * The hybrid parts of one fused hit, with the raw scores that went into the fusion (0 for a list the item was not
 * in: fusion counts it so).
 */
export function explainedParts(hit: FusedHit | undefined, input: FusionInput, id: string): ExplainedPart[] {
  const raw = (list: Ranked[]) => list.find((h) => h.id === id)?.score ?? 0;
  return [
    { engine: "bm25", raw: raw(input.lexical), contribution: hit?.lexical ?? 0 },
    { engine: "semantic", raw: raw(input.dense), contribution: hit?.dense ?? 0 },
  ];
}

/** The note for an item that `hybrid` did not even consider. */
export const NOT_A_HYBRID_CANDIDATE =
  "not a hybrid candidate: hybrid fuses the top 50 of bm25 with the top 50 of semantic, and this item is in neither";

/** The note for an item outside the candidates the learned ranker re-ranks. */
export const NOT_A_RANKER_CANDIDATE =
  "not a ranker candidate: the learned ranker re-ranks the top 50 of each engine (and of the unlearned ranking), and this item is in none";
