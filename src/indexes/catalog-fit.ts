/**
 * Per-catalog choice of the lexical ranking, without labels: which BM25 scoring suits a catalog depends on how its
 * tools are written (a domain named only in the category, long generated names, many parameters) and no fixed
 * weights hold on all of them (issue 25). So each catalog is asked: a few candidate scorings, plain BM25 among them,
 * each rank pseudo-queries made from the catalog's own tools, and the one that finds their sources best is kept.
 *
 * A pseudo-query imitates a request rather than quoting a tool: some content words of a tool's description, maybe a
 * word of its name or of a parameter's description, a word of an unrelated tool's description (the filler of a
 * long request; one word: more drowned the name matches that real requests do make), and for every other query the
 * words of a second tool as well (a task that needs two tools; both are its answers). Everything is derived from hashes of tool names, so the choice does not depend on catalog order
 * and is the same every time it is made (a snapshot stores it; one without it recomputes the same).
 */
import type { Bm25fScoring } from "../engines/bm25f.js";
import { DEFAULT_FUSION, fuse, type FusionInput, type FusionOptions } from "../engines/fusion.js";
import { ndcgAt } from "../eval/metrics.js";
import { seededRandom } from "../eval/seeded-random.js";
import type { Analyzer } from "../text/analyzer.js";
import { TOOL_FIELDS, type ToolTexts } from "./tool-fields.js";
import { DEFAULT_TOOL_BM25, type FieldWeight, TOOL_PRESENCE_FLOOR } from "./tool-index-options.js";

/** One scoring the fit may choose, over the tool fields in `TOOL_FIELDS` order. */
export interface LexicalCandidate {
  name: LexicalRanking;
  scoring: Bm25fScoring;
}

/**
 * The candidate scorings: `fields` (BM25F with the default weights and the presence floor), `plain` (plain BM25: one bag of every field,
 * k1 0.9, b 0.4: `PLAIN_TOOL_BM25` ranked by the same index) and `mixed` (the default weights, normalized over the
 * whole tool as plain BM25 is).
 */
export type LexicalRanking = "fields" | "plain" | "mixed";

const defaultWeights = (): FieldWeight[] => TOOL_FIELDS.map((f) => DEFAULT_TOOL_BM25.fields[f]);

export const LEXICAL_CANDIDATES: readonly LexicalCandidate[] = [
  { name: "fields", scoring: { k1: DEFAULT_TOOL_BM25.k1, fields: defaultWeights(), presenceFloor: TOOL_PRESENCE_FLOOR } },
  { name: "plain", scoring: { k1: 0.9, normalization: { document: 0.4 }, fields: TOOL_FIELDS.map(() => ({ weight: 1, b: 0.4 })) } },
  { name: "mixed", scoring: { k1: 0.9, normalization: { document: 0.4 }, fields: defaultWeights() } },
];

/**
 * The lexical shares of a hybrid ranking a catalog's fusion fit may choose (see `fitFusionWeight`): the embedding
 * alone (0), three blends, and BM25 alone (1). 0.5 is the default, kept unless another is clearly better.
 */
export const FUSION_WEIGHTS: readonly number[] = [0, 0.25, 0.5, 0.75, 1];

/** How many tools pseudo-queries are made from (spread over the catalog by name hash). */
export const PSEUDO_QUERY_SOURCES = 120;

/** One pseudo-query: its text and the tools it was made from. */
export interface PseudoQuery {
  query: string;
  relevant: string[];
}

/** What the fit needs of an index: the tools' texts and a way to rank with a candidate scoring. */
export interface FitTarget {
  analyzer: Analyzer;
  /** Every tool's name and searchable texts (only those of the few hundred tools queries are made from are read). */
  tools: { name: string; texts: ToolTexts }[];
  /** The top 10 names for a query under a scoring. */
  rank(query: string, scoring: Bm25fScoring): string[];
}

/** The chosen ranking and every candidate's mean nDCG@10 on the pseudo-queries (for `explain` and the docs). */
export interface FitResult {
  ranking: LexicalRanking;
  scores: Record<LexicalRanking, number>;
  queries: number;
}

/**
 * Keeps `fields` (the defaults, measured on many catalogs) unless another candidate finds the pseudo-queries' sources
 * better by a margin the queries themselves make significant: its mean paired gain in nDCG@10 over `fields` must
 * exceed `SIGNIFICANCE` standard errors. Of several such candidates the largest gain wins. Pseudo-queries are easy
 * (their words come from the tools), so small differences between candidates are mostly noise and must not decide.
 */
export function fitLexicalRanking(target: FitTarget): FitResult {
  const queries = pseudoQueries(target.tools, target.analyzer);
  const perQuery = LEXICAL_CANDIDATES.map((c) => queries.map((q) => ndcgAt(10, target.rank(q.query, c.scoring), new Set(q.relevant))));
  const scores = {} as Record<LexicalRanking, number>;
  LEXICAL_CANDIDATES.forEach((c, i) => (scores[c.name] = mean(perQuery[i])));
  return { ranking: LEXICAL_CANDIDATES[significantBest(perQuery, 0)].name, scores, queries: queries.length };
}

/**
 * The candidate whose mean paired gain over the `fallback` candidate (per-query scores, one row per candidate) exceeds
 * `SIGNIFICANCE` standard errors, the largest such gain winning; else the fallback.
 */
export function significantBest(perQuery: number[][], fallback: number): number {
  let best = fallback;
  let bestGain = 0;
  perQuery.forEach((row, i) => {
    const gains = row.map((x, q) => x - perQuery[fallback][q]);
    const gain = mean(gains);
    const error = Math.sqrt(mean(gains.map((g) => (g - gain) ** 2)) / Math.max(1, gains.length - 1));
    if (gain > bestGain && gain > SIGNIFICANCE * error) {
      best = i;
      bestGain = gain;
    }
  });
  return best;
}

/** One pseudo-query as `hybrid` would fuse it: its lexical and dense rankings, and the tools it was made from. */
export interface FusionSample {
  input: FusionInput;
  relevant: string[];
}

/** What the fusion fit chose, and why (mean nDCG@10 on the pseudo-queries of each candidate). */
export interface FusionFitResult {
  /** The lexical share to fuse with: 0 (the embedding alone), the configured blend, or 1 (BM25 alone). */
  lexicalWeight: number;
  scores: { dense: number; blend: number; lexical: number };
  queries: number;
}

/**
 * Fits a catalog's hybrid fusion on its own pseudo-queries: the embedding alone, the configured blend
 * (`options.lexicalWeight`, default 0.5) and BM25 alone rank them. Pseudo-queries are made of the tools' own words,
 * so BM25 alone always looks stronger on them than on real requests (measured on every set: docs/relevance.md), and
 * their best share is not the real one. What they can show is whether fusing works on this catalog at all: a blend
 * that ranks the catalog's own queries worse than the midpoint of its two engines does worse than picking one engine
 * per query at random, so the weaker engine is dragging it down. Only then, and only when the stronger engine's lead
 * over the blend is also significant (`significantBest`), is that engine used alone; otherwise the blend stays.
 */
export function fitFusionWeight(samples: FusionSample[], options: FusionOptions = {}): FusionFitResult {
  const blend = options.lexicalWeight ?? DEFAULT_FUSION.lexicalWeight;
  const weights = [0, blend, 1];
  const perQuery = weights.map((w) => samples.map((s) => ndcgAt(10, fuse(s.input, 10, { ...options, lexicalWeight: w }).map((h) => h.id), new Set(s.relevant))));
  const [dense, mixed, lexical] = perQuery.map(mean);
  const scores = { dense, blend: mixed, lexical };
  const dragged = mixed < (dense + lexical) / 2;
  const stronger = lexical >= dense ? 2 : 0;
  const chosen = dragged && significantBest([perQuery[1], perQuery[stronger]], 0) === 1 ? weights[stronger] : blend;
  return { lexicalWeight: chosen, scores, queries: samples.length };
}

/** Standard errors a candidate's mean gain over `fields` must exceed (about a 95% one-sided level). */
export const SIGNIFICANCE = 2;

function mean(values: number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}

export function candidateScoring(name: LexicalRanking): Bm25fScoring {
  return LEXICAL_CANDIDATES.find((c) => c.name === name)!.scoring;
}

export function isLexicalRanking(value: unknown): value is LexicalRanking {
  return LEXICAL_CANDIDATES.some((c) => c.name === value);
}

/** The pseudo-queries of a catalog (see the module comment); none for a catalog of fewer than 3 tools. */
export function pseudoQueries(tools: FitTarget["tools"], analyzer: Analyzer): PseudoQuery[] {
  if (tools.length < 3) return [];
  // Hashed once per tool (not per comparison): at 12k tools the sort was most of the fit's cost.
  const byHash = tools.map((tool) => ({ tool, h: hash(tool.name) }))
    .sort((a, b) => a.h - b.h || (a.tool.name < b.tool.name ? -1 : 1))
    .map((entry) => entry.tool);
  const sources = byHash.slice(0, PSEUDO_QUERY_SOURCES);
  const contentWords = (text: string) => [...new Set(text.toLowerCase().match(/[a-z][a-z0-9]{2,}/g) ?? [])].filter((w) => analyzer.analyze(w).length > 0);
  const out: PseudoQuery[] = [];
  sources.forEach((tool, i) => {
    const random = seededRandom(hash(tool.name));
    const words = (t: ToolTexts, n: number) => pick(contentWords(t.description), n, random);
    const filler = byHash[(i * 7919 + 13) % byHash.length];
    const parts = [...words(tool.texts, 3), ...pick(contentWords(tool.texts.name.replace(/[_\-.]+/g, " ")), random() < 0.5 ? 1 : 0, random)];
    parts.push(...pick(contentWords(tool.texts.paramDescriptions), random() < 0.5 ? 1 : 0, random));
    const relevant = [tool.name];
    if (i % 2 === 1) {
      const partner = byHash[(i * 104729 + 1) % byHash.length];
      if (partner.name !== tool.name) {
        parts.push(...words(partner.texts, 3));
        relevant.push(partner.name);
      }
    }
    if (filler.name !== tool.name && !relevant.includes(filler.name)) parts.push(...words(filler.texts, 1));
    if (parts.length < 2) return;
    out.push({ query: shuffle(parts, random).join(" "), relevant });
  });
  return out;
}

/** FNV-1a, 32 bits. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

function pick(words: string[], n: number, random: () => number): string[] {
  return shuffle(words, random).slice(0, n);
}

function shuffle<T>(items: T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
