/**
 * Hybrid ranking: fuses a lexical (BM25) and a dense (cosine) ranking into one. Both lists arrive best first with
 * their raw scores; the result is deterministic (equal fused scores break by id).
 *
 * Methods (measured on StableToolBench, MetaTool, ToolAlpaca, StackFAQ and the scale set: docs/embeddings.md):
 * - default: `zscore` at 0.5 with `confidence: "top"`: each list's standard scores, each list weighted by its own
 *   evidence (how far its best hit stands above the rest). It was the best worst-set setting among those that stay
 *   near BM25 when the dense list is noise (`scripts/tune-fusion.ts`); the former default, `adaptive`, set the
 *   share from the raw BM25 score, whose scale moves with query length, catalog size and BM25 parameters.
 * - `adaptive`: standard scores, as `zscore`, with the lexical share set per query by how strong the BM25
 *   match is: `top / (top + lexicalScale)` of the best raw BM25 score. A long query that matches rare words of a tool
 *   (StableToolBench queries name the API) leans on BM25; a short paraphrase with a weak lexical match (MetaTool)
 *   leans on the embedding. It beat every fixed share on the three sets taken together.
 * - `zscore`: each list's scores minus its mean over its standard deviation, summed with weights `lexicalWeight` and
 *   `1 − lexicalWeight`; a confident list (best hit far above the rest) counts for more than a flat one.
 * - `weighted`: BM25 scaled by its best score, cosine by min–max over the candidates, summed with weights.
 * - `rrf`: reciprocal-rank fusion, Σ 1/(k + rank), kept for comparison; it ignores score gaps and measured worst.
 */
import { ToolsearchError } from "../errors.js";
import { compareRanked, type Ranked } from "./top-k.js";

/** A fusion of your own: the two rankings of one query in, the best `limit` out (best first). */
export type FusionFunction = (input: FusionInput, limit: number) => Ranked[];

/** How two rankings are fused. */
export interface FusionOptions {
  /** Default `zscore` (with `confidence: "top"`); or a function of your own (the tuning scripts use one to record the candidate lists). */
  method?: "adaptive" | "weighted" | "zscore" | "rrf" | FusionFunction;
  /** Share of the lexical score in `weighted` and `zscore` fusion, 0–1, before `confidence` (default 0.5). */
  lexicalWeight?: number;
  /** BM25 score at which `adaptive` gives both lists equal shares (default 15; chosen on a plateau from 10 to 20). */
  lexicalScale?: number;
  /** The k of `rrf` (default 60). */
  rrfK?: number;
  /**
   * In `adaptive` and `zscore`, scale each list's share by its own evidence: how far its best hit stands above the
   * rest of the list, in standard deviations. When the engines disagree, the list with a clear winner then
   * outweighs a flat one instead of being averaged with its noise. `top` (default): the best hit's standard score;
   * `gap`: the gap between the two best in standard deviations; `agree`: `top` only as far as the two lists'
   * scores are uncorrelated (see `agreement`); `false` turns it off.
   */
  confidence?: boolean | "top" | "gap" | "agree";
  /** For `confidence: "agree"`: the correlation at which the two lists count as agreeing (default 0.3). */
  agreement?: number;
  /**
   * A tool index fits `lexicalWeight` to its catalog, without labels, on the catalog's own pseudo-queries: it may use
   * BM25 or the embedding alone where the other drags the blend down (`fitFusionWeight` in indexes/catalog-fit.ts).
   * Default true; off when `method` or `lexicalWeight` is given (the caller chose) or with `false`.
   */
  fit?: boolean;
}

export const DEFAULT_FUSION: Required<FusionOptions> = { method: "zscore", lexicalWeight: 0.5, lexicalScale: 15, rrfK: 60, confidence: "top", agreement: 0.3, fit: true };

/** The two rankings of one query, best first, with raw scores. */
export interface FusionInput {
  lexical: Ranked[];
  dense: Ranked[];
}

/** A fused hit with the two parts its score is the sum of. */
export interface FusedHit extends Ranked {
  /** What the lexical ranking added to `score`. */
  lexical: number;
  /** What the dense ranking added to `score`. */
  dense: number;
}

/** Fuses the rankings and returns the best `limit`. */
export function fuse(input: FusionInput, limit: number, options: FusionOptions = {}): Ranked[] {
  const method = options.method ?? DEFAULT_FUSION.method;
  if (typeof method === "function") return method(input, limit);
  return fuseParts(input, options).slice(0, limit).map(({ id, score }) => ({ id, score }));
}

/** Every fused candidate, best first, with each list's part of its score (for `explain`). */
export function fuseParts(input: FusionInput, options: FusionOptions = {}): FusedHit[] {
  const o = { ...DEFAULT_FUSION, ...options };
  if (typeof o.method === "function") {
    // A custom method returns scores only, so there are no parts to show.
    throw new ToolsearchError("invalid_option", "explain cannot split the score of a custom fusion method into its lexical and dense parts.");
  }
  const fused = o.method === "rrf" ? reciprocalRank(input, o.rrfK)
    : o.method === "zscore" ? guarded(input, withConfidence(input, o.lexicalWeight, o))
    : o.method === "weighted" ? weighted(input, o.lexicalWeight)
    : guarded(input, withConfidence(input, adaptiveShare(input.lexical, o.lexicalScale), o));
  return fused.sort(compareRanked);
}

/** The two engines a hybrid ranking fuses. */
export type FusedEngine = "lexical" | "dense";

/**
 * The engine a query is ranked by alone, if any: the other one when a list carries no evidence of its own (empty, one
 * hit, or all scores equal), or the only one with a share (a catalog's fitted weight of 0 or 1, see
 * `fitFusionWeight`). Fusing a list without evidence can only add noise to the other, so it is left out entirely.
 */
export function soleEngine(input: FusionInput, lexicalShare: number): FusedEngine | undefined {
  if (!informative(input.lexical) || lexicalShare <= 0) return "dense";
  if (!informative(input.dense) || lexicalShare >= 1) return "lexical";
  return undefined;
}

function informative(list: Ranked[]): boolean {
  return list.length >= 2 && stats(list.map((h) => h.score)).std > 0;
}

/** Standard-score fusion at `lexicalShare`, or one engine's ranking alone when `soleEngine` says so. */
function guarded(input: FusionInput, lexicalShare: number): FusedHit[] {
  const sole = soleEngine(input, lexicalShare);
  return sole ? alone(input, sole) : standardized(input, lexicalShare);
}

/**
 * One engine's ranking exactly: its hits by their standard scores (an order-preserving map of its own scores), then
 * the candidates only the other list has, in that list's order, in a band strictly below its worst hit (its
 * standard score minus 1, plus at most 1/2 by the other engine's min–max score). Parts still add up to the score.
 */
function alone(input: FusionInput, engine: FusedEngine): FusedHit[] {
  const other: FusedEngine = engine === "lexical" ? "dense" : "lexical";
  const sums = new PartSums();
  const own = stats(input[engine].map((h) => h.score));
  const z = (score: number) => (own.std > 0 ? (score - own.mean) / own.std : 0);
  const seen = new Set<string>();
  let floor = 0;
  for (const hit of input[engine]) {
    if (seen.has(hit.id)) continue;
    seen.add(hit.id);
    sums.add(hit.id, engine, z(hit.score));
    floor = Math.min(floor, z(hit.score));
  }
  const rest = input[other].filter((h) => !seen.has(h.id));
  const high = Math.max(...rest.map((h) => h.score));
  const low = Math.min(...rest.map((h) => h.score));
  for (const hit of rest) {
    sums.add(hit.id, engine, floor - 1);
    sums.add(hit.id, other, high > low ? (0.5 * (hit.score - low)) / (high - low) : 0);
  }
  return sums.hits();
}

/** Sums parts per id; the order of addition is fixed (lexical, then dense) so that `score` equals the sum. */
class PartSums {
  private readonly parts = new Map<string, { lexical: number; dense: number }>();
  add(id: string, half: "lexical" | "dense", value: number): void {
    const entry = this.parts.get(id) ?? { lexical: 0, dense: 0 };
    entry[half] += value;
    this.parts.set(id, entry);
  }
  hits(): FusedHit[] {
    return [...this.parts].map(([id, p]) => ({ id, score: p.lexical + p.dense, lexical: p.lexical, dense: p.dense }));
  }
}

function weighted({ lexical, dense }: FusionInput, lexicalWeight: number): FusedHit[] {
  const sums = new PartSums();
  const best = lexical.length ? Math.max(...lexical.map((h) => h.score)) : 0;
  if (best > 0) for (const hit of lexical) sums.add(hit.id, "lexical", (lexicalWeight * hit.score) / best);
  if (dense.length) {
    const high = Math.max(...dense.map((h) => h.score));
    const low = Math.min(...dense.map((h) => h.score));
    const span = high - low;
    for (const hit of dense) sums.add(hit.id, "dense", (1 - lexicalWeight) * (span > 0 ? (hit.score - low) / span : 1));
  }
  return sums.hits();
}

/**
 * Each list's scores as standard scores (minus the list's mean, over its standard deviation), summed with weights. A
 * list whose best hit stands far above the rest (a confident ranking) then counts for more than a flat one. A
 * candidate missing from the lexical list scores as a lexical 0.
 */
function standardized({ lexical, dense }: FusionInput, lexicalWeight: number): FusedHit[] {
  const sums = new PartSums();
  const ids = new Set([...lexical, ...dense].map((h) => h.id));
  const lexicalScores = new Map(lexical.map((h) => [h.id, h.score]));
  const denseScores = new Map(dense.map((h) => [h.id, h.score]));
  const lex = stats(lexical.map((h) => h.score));
  const den = stats(dense.map((h) => h.score));
  for (const id of ids) {
    const l = lex.std > 0 ? ((lexicalScores.get(id) ?? 0) - lex.mean) / lex.std : 0;
    const d = den.std > 0 && denseScores.has(id) ? (denseScores.get(id)! - den.mean) / den.std : 0;
    sums.add(id, "lexical", lexicalWeight * l);
    sums.add(id, "dense", (1 - lexicalWeight) * d);
  }
  return sums.hits();
}

/** The lexical share of `adaptive` fusion: grows with the best BM25 score, 0 when nothing matched. */
function adaptiveShare(lexical: Ranked[], scale: number): number {
  const top = lexical.reduce((best, hit) => Math.max(best, hit.score), 0);
  return top / (top + scale);
}

/**
 * The lexical share after weighing each list by its own evidence: the standard score of its best hit (`top`), or the
 * gap between its two best hits in standard deviations (`gap`).
 */
function withConfidence(input: FusionInput, share: number, o: Required<FusionOptions>): number {
  const { lexical, dense } = input;
  const confidence = o.confidence;
  if (!confidence) return share;
  const evidence = (list: Ranked[]): number => {
    const scores = list.map((h) => h.score).sort((a, b) => b - a);
    const { mean, std } = stats(scores);
    if (std === 0 || scores.length < 2) return 0;
    return confidence === "gap" ? (scores[0] - scores[1]) / std : (scores[0] - mean) / std;
  };
  const l = share * evidence(lexical) ** (confidence === "agree" ? 4 : 1);
  const d = (1 - share) * evidence(dense) ** (confidence === "agree" ? 4 : 1);
  const weighed = l + d > 0 ? l / (l + d) : share;
  if (confidence !== "agree") return weighed;
  const a = Math.min(1, Math.max(0, correlation(input) / o.agreement));
  return a * share + (1 - a) * weighed;
}

/** Pearson correlation of the two engines' scores over the lexical candidates (each has both scores). */
function correlation({ lexical, dense }: FusionInput): number {
  const denseScores = new Map(dense.map((h) => [h.id, h.score]));
  const pairs = lexical.filter((h) => denseScores.has(h.id)).map((h) => [h.score, denseScores.get(h.id)!]);
  if (pairs.length < 3) return 1;
  const x = stats(pairs.map((p) => p[0]));
  const y = stats(pairs.map((p) => p[1]));
  if (x.std === 0 || y.std === 0) return 1;
  const cov = pairs.reduce((sum, [a, b]) => sum + (a - x.mean) * (b - y.mean), 0) / pairs.length;
  return cov / (x.std * y.std);
}

function stats(values: number[]): { mean: number; std: number } {
  if (values.length === 0) return { mean: 0, std: 0 };
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length;
  return { mean, std: Math.sqrt(variance) };
}

function reciprocalRank({ lexical, dense }: FusionInput, k: number): FusedHit[] {
  const sums = new PartSums();
  lexical.forEach((hit, rank) => sums.add(hit.id, "lexical", 1 / (k + rank + 1)));
  dense.forEach((hit, rank) => sums.add(hit.id, "dense", 1 / (k + rank + 1)));
  return sums.hits();
}
