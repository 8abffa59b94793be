/**
 * Features of one (query, candidate) pair for the learned ranker (issue 36). The engines have already ranked the
 * query; this module turns what they found into numbers that mean the same on any catalog: ranks, shares of the
 * query's best score, shares of the query's words and their idf, cosines. Raw BM25 scores never enter a feature
 * unscaled: their size moves with catalog size, query length and field lengths, and a model fitted on one catalog's
 * scale would not transfer to another's.
 */
import type { TermMatches } from "../engines/bm25f.js";

/** What the engines found for one candidate of a query (gathered by the index, see `ToolIndex`). */
export interface CandidateEvidence {
  id: string;
  /** Exact query terms in the candidate's fields (`Bm25fIndex.termMatches`); field order is `fields`. */
  matches: TermMatches;
  /** The index's own BM25F score (the fitted lexical ranking), 0 when no word matches. */
  lexical: number;
  /** 0-based rank in the BM25F top list, when it is in it. */
  lexicalRank?: number;
  /** Cosine of the closest query sentence (dense evidence only; undefined for the lexical model). */
  cosine?: number;
  /** 0-based rank in the dense top list, when it is in it. */
  denseRank?: number;
  /** Place in the unlearned `hybrid` ranking's score range (1 its best, 0 its last), when it is in it. */
  fused?: number;
  /** 0-based rank in the unlearned `hybrid` ranking, when it is in it. */
  fusedRank?: number;
  /** The best place among the request's clause rankings (1 best), when the request was split into clauses. */
  clause?: number;
  /** How close the tool is to the rest of the catalog, 0–1 (dense evidence only; `SemanticStore.centrality`). */
  centrality?: number;
  /** Cosine of the closest query sentence to the tool's name embedded on its own (dense evidence only). */
  nameCosine?: number;
  /**
   * Cosine of the closest query sentence after pseudo-relevance feedback: each sentence moved toward the mean of the
   * first-stage ranking's top few tools (dense evidence only; `SemanticStore.feedbackScores`).
   */
  feedbackCosine?: number;
}

/** The evidence of one query: its analyzed words, the index's field names, and every candidate. */
export interface QueryEvidence {
  /** Field names, in the order of `TermMatches.tfs` and `lengths`. */
  fields: readonly string[];
  candidates: CandidateEvidence[];
  /** Each clause of a request split into clauses, as the evidence of a request of its own (see `coverage.ts`). */
  clauses?: QueryEvidence[];
}

/** Every feature the ranker knows, in a fixed order (a model names the ones it uses). */
export const FEATURE_NAMES = [
  "bm25f", "bm25f_rank", "plain", "name", "description", "params", "category",
  "cover", "cover_idf", "all_terms", "long_bm25f",
  "cosine", "cosine_gap", "dense_rank", "fused", "fused_rank", "clause", "long_cosine",
  "part_bm25f", "part_bm25f_rank", "part_plain", "part_name", "part_description", "part_params", "part_category",
  "part_cover", "part_cover_idf", "part_all_terms", "part_cosine", "part_cosine_gap", "part_dense_rank",
  "centrality", "split", "name_cosine", "part_name_cosine", "prf_cosine", "part_prf_cosine",
] as const;

export type FeatureName = (typeof FEATURE_NAMES)[number];

/**
 * The features also taken part by part: `part_X` is the best X of the whole request and of each of its clauses
 * searched as a request of its own (X itself for a request of one clause). A tool that serves one step of a task
 * covers that step's words and is close to that step's sentence, while against the whole request it covers half.
 */
const PART_OF = [
  ["part_bm25f", "bm25f"], ["part_bm25f_rank", "bm25f_rank"], ["part_plain", "plain"], ["part_name", "name"],
  ["part_description", "description"], ["part_params", "params"], ["part_category", "category"],
  ["part_cover", "cover"], ["part_cover_idf", "cover_idf"], ["part_all_terms", "all_terms"],
  ["part_cosine", "cosine"], ["part_cosine_gap", "cosine_gap"], ["part_dense_rank", "dense_rank"],
  ["part_name_cosine", "name_cosine"], ["part_prf_cosine", "prf_cosine"],
] as const satisfies readonly (readonly [FeatureName, FeatureName])[];

/** The features a model over BM25 alone may use (no embeddings exist). */
export const LEXICAL_FEATURES: readonly FeatureName[] = FEATURE_NAMES.slice(0, 11);

/** Plain BM25 as `PLAIN_TOOL_BM25` scores (one bag of all fields, k1 0.9, b 0.4). */
const PLAIN = { k1: 0.9, b: 0.4 };
/** Each field scored on its own as BM25 with the usual constants, for the per-field features. */
const FIELD = { k1: 1.2, b: 0.75 };
/** Fields pooled into the `params` feature. */
const PARAM_FIELDS = new Set(["paramNames", "paramDescriptions", "enumValues"]);
/** Query length (distinct words) at which the `long_*` interactions reach full weight. */
const LONG_QUERY = 8;

/** Rank as a feature: 1 for the first, falling like a DCG discount; 0 when absent from the list. */
export function rankFeature(rank: number | undefined): number {
  return rank === undefined ? 0 : 1 / Math.log2(rank + 2);
}

/**
 * The features of every candidate, one row per candidate in `FEATURE_NAMES` order. The evidence of each clause, when
 * the request has several, is about the same candidates in the same order (`gatherEvidence` with `ids`).
 */
export function featureRows(evidence: QueryEvidence): Float64Array[] {
  return featureTables(evidence).rows;
}

/** The feature rows of a request's candidates, and of the same candidates for each of its clauses. */
export interface FeatureTables {
  rows: Float64Array[];
  clauses: Float64Array[][];
}

/**
 * `featureRows` of the request, and of each of its clauses as a request of its own (their `part_` features their own
 * values), computed once for both.
 */
export function featureTables(evidence: QueryEvidence): FeatureTables {
  const rows = requestRows(evidence);
  const clauses = (evidence.clauses ?? []).map(requestRows);
  for (const table of clauses) {
    for (const row of table) for (const [part, of] of PART_OF) row[F[part]] = row[F[of]];
  }
  // How split the request is: 0 for one clause, 1/2 for two, 2/3 for three (a clause's own rows are of one).
  const split = clauses.length > 1 ? 1 - 1 / clauses.length : 0;
  rows.forEach((row, i) => {
    for (const [part, of] of PART_OF) {
      let best = row[F[of]];
      for (const clause of clauses) best = Math.max(best, clause[i][F[of]]);
      row[F[part]] = best;
    }
    row[F.split] = split;
  });
  return { rows, clauses };
}

/** The features of every candidate against one request (its clauses aside). */
function requestRows(evidence: QueryEvidence): Float64Array[] {
  const { candidates, fields } = evidence;
  if (candidates.length === 0) return [];
  const terms = candidates[0].matches.terms;
  // The query's idf mass, saturated as BM25 would at best: a field matching every query word scores near 1.
  const idfMass = terms.reduce((sum, t) => sum + t.count * t.idf, 0) || 1;
  const distinct = Math.max(1, terms.length);
  const longShare = Math.min(1, terms.length / LONG_QUERY);
  const plain = candidates.map((c) => plainScore(c.matches));
  const topPlain = Math.max(...plain) || 1;
  const topLexical = Math.max(...candidates.map((c) => c.lexical)) || 1;
  const cosines = candidates.map((c) => c.cosine ?? 0);
  const topCosine = Math.max(...cosines);
  const groups = fieldGroups(fields);
  const perField = new Float64Array(FIELD_GROUPS.length);
  return candidates.map((c, i) => {
    const row = new Float64Array(FEATURE_NAMES.length);
    fieldScores(c.matches, groups, perField);
    let covered = 0;
    let coveredIdf = 0;
    for (const t of c.matches.terms) {
      if (t.tfs.some((tf) => tf > 0)) {
        covered++;
        coveredIdf += t.count * t.idf;
      }
    }
    const lexical = c.lexical / topLexical;
    row[F.bm25f] = lexical;
    row[F.bm25f_rank] = rankFeature(c.lexicalRank);
    row[F.plain] = plain[i] / topPlain;
    FIELD_GROUPS.forEach((name, g) => (row[F[name]] = perField[g] / idfMass));
    row[F.cover] = covered / distinct;
    row[F.cover_idf] = coveredIdf / idfMass;
    row[F.all_terms] = covered === terms.length && terms.length > 0 ? 1 : 0;
    row[F.long_bm25f] = lexical * longShare;
    if (c.cosine !== undefined) {
      row[F.cosine] = c.cosine;
      row[F.cosine_gap] = c.cosine - topCosine;
      row[F.long_cosine] = (c.cosine - topCosine) * longShare;
    }
    row[F.dense_rank] = rankFeature(c.denseRank);
    row[F.fused] = c.fused ?? 0;
    row[F.fused_rank] = rankFeature(c.fusedRank);
    row[F.clause] = c.clause ?? 0;
    row[F.centrality] = c.centrality ?? 0;
    row[F.name_cosine] = c.nameCosine ?? 0;
    row[F.prf_cosine] = c.feedbackCosine ?? 0;
    return row;
  });
}

const F = Object.fromEntries(FEATURE_NAMES.map((name, i) => [name, i])) as Record<FeatureName, number>;

/** The position of a feature in a row. */
export function featureIndex(name: FeatureName): number {
  return F[name];
}

/** Plain BM25 of one candidate: every field in one bag, normalized by the whole item's length. */
export function plainScore(matches: TermMatches): number {
  const length = matches.lengths.reduce((a, b) => a + b, 0);
  const norm = 1 - PLAIN.b + (PLAIN.b * length) / matches.averageLength;
  let score = 0;
  for (const t of matches.terms) {
    const tf = t.tfs.reduce((a, b) => a + b, 0);
    if (tf > 0) score += (t.count * t.idf * (PLAIN.k1 + 1) * tf) / (tf + PLAIN.k1 * norm);
  }
  return score;
}

/** The field groups with a feature of their own; parameter names, descriptions and enum values are one. */
const FIELD_GROUPS = ["name", "description", "params", "category"] as const;

/** Each field's group (index into `FIELD_GROUPS`), or -1 for a field without one. */
function fieldGroups(fields: readonly string[]): Int8Array {
  return Int8Array.from(fields, (name) => (PARAM_FIELDS.has(name) ? 2 : FIELD_GROUPS.indexOf(name as (typeof FIELD_GROUPS)[number])));
}

/**
 * BM25 of each field group on its own (tf saturated per group, the lengths of its fields summed), into `out`. Scaled
 * by 1/(k1+1), so that a saturated match of every query word sums to about the query's idf mass.
 */
function fieldScores(matches: TermMatches, groups: Int8Array, out: Float64Array): void {
  out.fill(0);
  const lengths = [0, 0, 0, 0];
  const averages = [0, 0, 0, 0];
  groups.forEach((g, f) => {
    if (g < 0) return;
    lengths[g] += matches.lengths[f] ?? 0;
    averages[g] += matches.averages[f];
  });
  const tfs = [0, 0, 0, 0];
  for (const t of matches.terms) {
    tfs.fill(0);
    groups.forEach((g, f) => g >= 0 && (tfs[g] += t.tfs[f]));
    for (let g = 0; g < tfs.length; g++) {
      if (tfs[g] === 0) continue;
      const norm = 1 - FIELD.b + (FIELD.b * lengths[g]) / (averages[g] || 1);
      out[g] += (t.count * t.idf * tfs[g]) / (tfs[g] + FIELD.k1 * norm);
    }
  }
}
