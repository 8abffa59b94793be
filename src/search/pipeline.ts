/**
 * How a tool search runs, in one place (issue 36): a request (`request.ts`) passes five stages, each a module that
 * calls only downward (engines, the learned ranker, usage), never back into the index.
 *
 * ```
 * request ──► 1 candidates ──► 2 features ──► 3 model ──► 4 curation ──► 5 hits
 *             engine-lists.ts  evidence.ts    ranking/    curation.ts    hits.ts
 *             (bm25, dense,    (+ ranking/    rank.ts     (groups, usage
 *              fused, clauses)  features.ts)              blend, pins)
 * ```
 *
 * Stages 2 and 3 run only where the request has a model (`ToolSearchRequest.model`: `bm25` and `hybrid`, unless
 * turned off); otherwise the engine's own ranking goes straight to curation. Visibility is applied where results
 * are made: the engines rank only the tools the caller sees (BM25 over the caller's subset, the dense and regex
 * engines through `accept`), and curation brings in only those. The index prepares what the stages read
 * (`SearchEngines`: vectors embedded, fits made, the caller's subset) and embeds the query for the dense engines
 * (`embedQuery`) before calling `searchTools`. docs/search-pipeline.md walks through it.
 */
import type { QueryEvidence } from "../ranking/features.js";
import { readsClauses, readsFeedback } from "../ranking/model.js";
import { rankLearned } from "../ranking/rank.js";
import type { ToolHit } from "../indexes/tool-index-options.js";
import { curate } from "./curation.js";
import type { SearchEngines } from "./engines.js";
import { findCandidates, modelLists, type QueryEmbedding } from "./engine-lists.js";
import { queryEvidence } from "./evidence.js";
import { toolHit } from "./hits.js";
import type { ToolSearchRequest } from "./request.js";

/** The hits of one request, best first. `embedding`: the query's vectors, for `semantic` and `hybrid`. */
export function searchTools(query: string, request: ToolSearchRequest, engines: SearchEngines, embedding?: QueryEmbedding): ToolHit[] {
  // 0. The request's words, synonyms added (a regex request is a pattern, not words).
  const terms = request.engine === "regex" ? [] : engines.usage.terms(query).terms;
  // 1. Candidates from each engine.
  const candidates = findCandidates(query, terms, request, engines, embedding);
  // 2–3. Every engine's evidence as features, ranked by the model (where the request has one).
  const ranked = request.model && candidates.lists
    ? rankLearned(request.model, queryEvidence(terms, candidates.lists, engines, embedding?.whole, { clauses: readsClauses(request.model), feedback: readsFeedback(request.model) }))
    : candidates.ranking;
  // 4. Curation within what the caller sees: group lifts, the learned usage blend, pins, the limit.
  const curated = curate(query, terms, ranked, request, engines);
  // 5. Hits as the caller gets them.
  return curated.map((hit) => toolHit(engines.tool(hit.id), hit));
}

/**
 * Stages 1 and 2 alone: the evidence the learned ranker of the request's engine (`bm25` or `hybrid`) reads, whether
 * or not a model is on. For `explain`, the training script (`scripts/train-ranker.ts`) and tests.
 */
export function modelEvidence(query: string, terms: string[], request: Pick<ToolSearchRequest, "engine" | "sets">, engines: SearchEngines, embedding?: QueryEmbedding): QueryEvidence {
  return queryEvidence(terms, modelLists(query, terms, request, engines, embedding), engines, embedding?.whole);
}
