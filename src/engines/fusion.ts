/**
 * Hybrid ranking: fuses a lexical (BM25) and a dense (cosine) ranking into one. Both lists arrive best first with
 * their raw scores; the result is deterministic (equal fused scores break by id).
 *
 * Methods (measured on StableToolBench, MetaTool and StackFAQ: docs/embeddings.md):
 * - `adaptive` (default): standard scores, as `zscore`, with the lexical share set per query by how strong the BM25
 *   match is: `top / (top + lexicalScale)` of the best raw BM25 score. A long query that matches rare words of a tool
 *   (StableToolBench queries name the API) leans on BM25; a short paraphrase with a weak lexical match (MetaTool)
 *   leans on the embedding. It beat every fixed share on the three sets taken together.
 * - `zscore`: each list's scores minus its mean over its standard deviation, summed with weights `lexicalWeight` and
 *   `1 − lexicalWeight`; a confident list (best hit far above the rest) counts for more than a flat one.
 * - `weighted`: BM25 scaled by its best score, cosine by min–max over the candidates, summed with weights.
 * - `rrf`: reciprocal-rank fusion, Σ 1/(k + rank), kept for comparison; it ignores score gaps and measured worst.
 */
import { compareRanked, type Ranked } from "./top-k.js";

/** How two rankings are fused. */
export interface FusionOptions {
  /** Default `weighted`. */
  method?: "adaptive" | "weighted" | "zscore" | "rrf";
  /** Share of the lexical score in `weighted` and `zscore` fusion, 0–1 (default 0.5). */
  lexicalWeight?: number;
  /** BM25 score at which `adaptive` gives both lists equal shares (default 15; chosen on a plateau from 10 to 20). */
  lexicalScale?: number;
  /** The k of `rrf` (default 60). */
  rrfK?: number;
}

export const DEFAULT_FUSION: Required<FusionOptions> = { method: "adaptive", lexicalWeight: 0.5, lexicalScale: 15, rrfK: 60 };

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
  return fuseParts(input, options).slice(0, limit).map(({ id, score }) => ({ id, score }));
}

/** Every fused candidate, best first, with each list's part of its score (for `explain`). */
export function fuseParts(input: FusionInput, options: FusionOptions = {}): FusedHit[] {
  const o = { ...DEFAULT_FUSION, ...options };
  const fused = o.method === "rrf" ? reciprocalRank(input, o.rrfK)
    : o.method === "zscore" ? standardized(input, o.lexicalWeight)
    : o.method === "weighted" ? weighted(input, o.lexicalWeight)
    : standardized(input, adaptiveShare(input.lexical, o.lexicalScale));
  return fused.sort(compareRanked);
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
