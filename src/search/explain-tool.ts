/**
 * Why one tool ranks where it does for a request (SPEC §4 `explain`): the search pipeline (`pipeline.ts`) run for
 * every match instead of a page, with each stage's part of the tool's score kept: the engine's own parts (BM25 terms,
 * regex spans, similarity, fusion shares), the tool sets' clause shares and group lift, the learned ranker's
 * features, and curation (synonyms, pins, the learned usage signal). Its place is taken in the same final ranking
 * search would return, so rank and score agree with it.
 */
import { HYBRID_CANDIDATES, querySentences } from "../embeddings/semantic-store.js";
import type { Ranked } from "../engines/top-k.js";
import {
  type Explanation, explainedFields, explainedParts, explainedSimilarity, explainedTerms, NOT_A_HYBRID_CANDIDATE, NOT_A_RANKER_CANDIDATE, placeIn,
} from "../indexes/explain.js";
import { REGEX_FIELD_NAMES } from "../indexes/tool-fields.js";
import { type ClauseRanking, explainClauses, type ExplainedSets, groupLifts, groupOf, SET_POOL } from "../indexes/tool-sets.js";
import { explainLearned } from "../ranking/rank.js";
import { hybridRanking, lexicalRanking, type QueryEmbedding, widen, withGroups } from "./engine-lists.js";
import { lexicalOf, type SearchEngines } from "./engines.js";
import { modelEvidence } from "./pipeline.js";
import type { ToolSearchRequest } from "./request.js";

/**
 * The explanation of `name` for `query`. `all`: how many tools the caller sees (every match is ranked);
 * `embedding`: the query's vectors, for `semantic` and `hybrid`.
 */
export function explainTool(query: string, name: string, request: ToolSearchRequest, engines: SearchEngines, all: number, embedding?: QueryEmbedding): Explanation {
  const { engine, sets: setOptions } = request;
  const base = { name, engine, query };
  const { usage, exists } = engines;
  const { terms } = usage.terms(query);
  // Curation and use, ranked and explained as search applies them (the learned part only for bm25 and hybrid).
  const place = (ranked: Ranked[], learning: boolean) => {
    const use = learning ? request : { learned: false };
    const ranking = usage.rerank(query, terms, ranked, all, use, exists);
    return { ...placeIn(ranking, name), ...usage.explain(query, name, ranked, use, exists) };
  };
  if (engine === "regex") {
    const fields = explainedFields(engines.regex.explain(query, name), REGEX_FIELD_NAMES);
    return { ...base, ...place(engines.regex.search(query, all, engines.accept), false), fields };
  }
  const lexical = lexicalOf(engines);
  const bm25Terms = () => explainedTerms(lexical.index.explain(terms, name, lexical.query));
  // Tool sets as search applies them: the merged clause ranking (and group lifts) is what is placed and explained.
  const withSets = (ranking: ClauseRanking, groups: boolean) => {
    const lifts = groups ? groupLifts(ranking.ranked, (id) => groupOf(engines.tool(id))) : undefined;
    const explained: ExplainedSets = { clauses: explainClauses(ranking, name), group: lifts?.get(name) };
    const sets = explained.clauses || explained.group ? { sets: explained } : {};
    return { ranked: withGroups(ranking.ranked, groups, engines), sets };
  };
  // The learned ranker, when on: its ranking of the candidates is what is placed, and each feature's part is shown.
  const learned = request.model && (() => {
    const evidence = modelEvidence(query, terms, request, engines, embedding);
    const { ranked, ranker } = explainLearned(engine === "hybrid" ? "hybrid" : "lexical", request.model!, evidence, name);
    return { ranked, ...(ranker ? { ranker } : { note: NOT_A_RANKER_CANDIDATE }) };
  })();
  if (engine === "bm25") {
    if (learned) {
      // Groups are lifted again over the model's ranking, as for hybrid (search lifts them only in the candidate list).
      const { ranked, ...why } = learned;
      return { ...base, ...place(withGroups(ranked, setOptions.groups, engines), true), terms: bm25Terms(), ...why };
    }
    if (!setOptions.clauses && !setOptions.groups) return { ...base, ...place(lexical.index.search(terms, all, lexical.query), true), terms: bm25Terms() };
    const { ranked, sets } = withSets(lexicalRanking(query, widen(SET_POOL, usage.learns(request)), setOptions.clauses, lexical, engines), setOptions.groups);
    return { ...base, ...place(ranked, true), terms: bm25Terms(), ...sets };
  }
  const { whole: vectors } = embedding!;
  const semantic = explainedSimilarity(querySentences(query), engines.semantic.sentenceScores(name, vectors));
  if (engine === "semantic") return { ...base, ...place(engines.semantic.rankDense(vectors, all, engines.accept), false), semantic };
  const { fused, input } = engines.semantic.explainHybrid(lexical.index.search(terms, HYBRID_CANDIDATES, lexical.query), vectors, engines.accept);
  const parts = explainedParts(fused.find((h) => h.id === name), input, name);
  // The clause ranking only when it applies: a one-clause request is placed in `fused` as before.
  const split = embedding!.clauses.length > 0;
  const { ranked, sets } = split || setOptions.groups
    ? withSets(split ? hybridRanking(query, embedding!, SET_POOL, true, engines) : { ranked: fused, clauses: [] }, setOptions.groups)
    : { ranked: fused, sets: {} };
  if (learned) {
    const { ranked: learnedRanked, ...why } = learned;
    return { ...base, ...place(withGroups(learnedRanked, setOptions.groups, engines), true), parts, terms: bm25Terms(), semantic, ...sets, ...why };
  }
  const out: Explanation = { ...base, ...place(ranked, true), parts, terms: bm25Terms(), semantic, ...sets };
  if (!ranked.some((h) => h.id === name) && !out.learned && !out.pinned) out.note = NOT_A_HYBRID_CANDIDATE;
  return out;
}
