/**
 * Stage 1 of a tool search (`pipeline.ts`): the candidates, as each engine ranks them. `bm25` ranks the request's
 * words (and, with tool sets, each clause's, merged; groups lifted); `hybrid` fuses BM25 with the dense ranking (each
 * clause fused on its own when the request has several); `semantic` and `regex` rank alone. Where the learned ranker
 * is on, the stage hands it every engine's list (`EngineLists`) instead of one ranking, so no engine's find is lost
 * before the model sees it.
 */
import type { QueryVectors, SemanticStore } from "../embeddings/semantic-store.js";
import { HYBRID_CANDIDATES } from "../embeddings/semantic-store.js";
import type { FusionInput } from "../engines/fusion.js";
import type { Ranked } from "../engines/top-k.js";
import type { EngineLists } from "../ranking/candidates.js";
import { type ClauseRanking, clauseRanking, groupOf, liftGroups, SET_POOL, taskClauses } from "../indexes/tool-sets.js";
import { type LexicalEngine, lexicalOf, type SearchEngines } from "./engines.js";
import type { ToolSearchRequest } from "./request.js";

/** The query as the dense engines read it: the whole request's sentence vectors, and each clause's own vector. */
export interface QueryEmbedding {
  whole: QueryVectors;
  /** Each clause with its vector when `hybrid` ranks the request clause by clause; empty otherwise. */
  clauses: [string, QueryVectors][];
}

/** Every engine's list for the learned model; for a request of several clauses, each clause's own (`hybrid`). */
export interface ModelLists extends EngineLists {
  parts?: ClauseLists[];
}

/** A clause of a request as a request of its own: its words, its vector and its engines' lists. */
export interface ClauseLists {
  terms: string[];
  vector: QueryVectors;
  lists: EngineLists;
}

/** What a clause was ranked from: its words, its vector and the two lists fused for it. */
interface ClauseInput {
  terms: string[];
  vector: QueryVectors;
  input: FusionInput;
}

/** What stage 1 found: the ranking without the learned model, and, when the model is on, every engine's list. */
export interface Candidates {
  /** The engine's own ranking, best first. */
  ranking: Ranked[];
  /** Each engine's list, for the learned model (only when the request has a model). */
  lists?: ModelLists;
}

/**
 * Embeds what the dense engines read: the request (one vector per sentence, one call to the embedder) and, for
 * `hybrid` with clauses, its clauses (one more call for all of them).
 */
export async function embedQuery(query: string, request: Pick<ToolSearchRequest, "engine" | "sets">, semantic: SemanticStore): Promise<QueryEmbedding> {
  const whole = await semantic.embedQuery(query);
  const parts = request.engine === "hybrid" && request.sets.clauses ? taskClauses(query) : [];
  return { whole, clauses: parts.length ? await semantic.embedClauses(parts) : [] };
}

/**
 * The candidates of one request (`terms`: its words with synonyms added). Where the request has a model, every
 * engine's list for it (`modelLists`); otherwise the engine's own ranking, deeper than asked when the learned usage
 * signal or group lifts may reorder it.
 */
export function findCandidates(query: string, terms: string[], request: ToolSearchRequest, engines: SearchEngines, embedding?: QueryEmbedding): Candidates {
  if (request.model) {
    const lists = modelLists(query, terms, request, engines, embedding);
    return { ranking: lists.fused ?? lists.lexical, lists };
  }
  const { sets, limit } = request;
  const learning = engines.usage.learns(request);
  switch (request.engine) {
    case "regex":
      return { ranking: engines.regex.search(query, limit, engines.accept) };
    case "semantic":
      return { ranking: engines.semantic.rankDense(needEmbedding(embedding).whole, limit, engines.accept) };
    case "bm25":
      return { ranking: lexicalList(query, terms, sets, widen(sets.clauses || sets.groups ? Math.max(limit, SET_POOL) : limit, learning), engines) };
    case "hybrid":
      return { ranking: hybridRanking(query, needEmbedding(embedding), widen(sets.groups ? Math.max(limit, SET_POOL) : limit, learning), sets.clauses, engines).ranked };
  }
}

/**
 * Every engine's list as the learned ranker reads it: for `hybrid`, the BM25, dense and fused lists (`hybridLists`);
 * for `bm25`, its candidate list (`lexicalList`) to the ranker's depth, group lifts included. The same whatever the
 * limit (a limit never exceeds that depth), so search, `explain` and training read the same evidence.
 */
export function modelLists(query: string, terms: string[], request: Pick<ToolSearchRequest, "engine" | "sets">, engines: SearchEngines, embedding?: QueryEmbedding): ModelLists {
  const { sets } = request;
  if (request.engine === "hybrid") return hybridLists(query, terms, needEmbedding(embedding), sets.clauses, engines);
  return lexicalLists(lexicalList(query, terms, sets, sets.clauses || sets.groups ? SET_POOL : HYBRID_CANDIDATES, engines));
}

/** The BM25 top `width` of a request: its clauses merged and groups lifted when those tool-set parts are on. */
export function lexicalList(query: string, terms: string[], sets: ToolSearchRequest["sets"], width: number, engines: SearchEngines): Ranked[] {
  const lexical = lexicalOf(engines);
  return sets.clauses || sets.groups
    ? withGroups(lexicalRanking(query, width, sets.clauses, lexical, engines).ranked, sets.groups, engines)
    : lexical.index.search(terms, width, lexical.query);
}

/** What the lexical model reads of a `bm25` candidate list: its head. */
function lexicalLists(ranking: Ranked[]): EngineLists {
  return { lexical: ranking.slice(0, HYBRID_CANDIDATES) };
}

/**
 * What the learned ranker reads for a `hybrid` request (issue 36): the BM25 top list, the dense top list and the
 * unlearned hybrid ranking (clauses merged when the request has several), with the cosines the fusion already knows;
 * and, for a request of several clauses, each clause's own lists (`parts`).
 */
export function hybridLists(query: string, terms: string[], embedding: QueryEmbedding, clauses: boolean, engines: SearchEngines): ModelLists {
  const lexical = lexicalOf(engines);
  const bm25 = lexical.index.search(terms, HYBRID_CANDIDATES, lexical.query);
  const input = engines.semantic.fusionInput(bm25, embedding.whole, HYBRID_CANDIDATES, engines.accept);
  const seen = new Map<string, ClauseInput>();
  const ranking = hybridRanking(query, embedding, SET_POOL, clauses, engines, input, seen);
  const lists: ModelLists = fusedLists(input, ranking.ranked, ranking.whole ? ranking.clauses.map((c) => c.ranked) : undefined);
  if (ranking.whole) {
    lists.parts = ranking.clauses.map((c) => {
      const { terms, vector, input } = seen.get(c.text)!;
      return { terms, vector, lists: fusedLists(input, c.ranked) };
    });
  }
  return lists;
}

/** The lists of one fused ranking: the two it was fused from, and the cosines the fusion already knows. */
function fusedLists(input: FusionInput, fused: Ranked[], clauses?: Ranked[][]): EngineLists {
  return {
    lexical: input.lexical,
    // The dense top list comes first in the input; the lexical candidates it lacked follow with their cosines.
    dense: input.dense.slice(0, HYBRID_CANDIDATES),
    cosines: new Map(input.dense.map((h) => [h.id, h.score])),
    fused,
    clauses,
  };
}

/** The BM25 ranking of a request, merged with its clauses' rankings when asked (see `tool-sets.ts`). */
export function lexicalRanking(query: string, pool: number, clauses: boolean, lexical: LexicalEngine, engines: Pick<SearchEngines, "usage">): ClauseRanking {
  // Synonyms apply to each clause as to the whole request.
  const rank = (text: string) => lexical.index.search(engines.usage.terms(text).terms, pool, lexical.query);
  return clauseRanking(query, clauses ? taskClauses(query) : [], rank, pool);
}

/**
 * The hybrid ranking of a request. With clauses, each clause is ranked by both engines and fused on its own (its
 * words and its own embedding) before the fused lists are merged, so a part of the task that the whole request's
 * vector drowns still brings its best tools up. A request of one clause is fused exactly as without `sets`.
 * `input`: the whole request's two lists, when the caller has them already (the learned ranker reads them too);
 * `seen` collects what each clause was ranked from, for the ranker's per-clause evidence.
 */
export function hybridRanking(query: string, embedding: QueryEmbedding, wide: number, clauses: boolean, engines: SearchEngines, input?: FusionInput, seen?: Map<string, ClauseInput>): ClauseRanking {
  const lexical = lexicalOf(engines);
  const { semantic, accept } = engines;
  const parts = clauses ? taskClauses(query) : [];
  if (parts.length === 0) {
    const ranked = input ? semantic.fuseInput(input, wide) : semantic.rankHybrid(lexicalRanking(query, HYBRID_CANDIDATES, false, lexical, engines).ranked, embedding.whole, wide, accept);
    return { ranked, clauses: [] };
  }
  const vectors = new Map<string, QueryVectors>([[query, embedding.whole], ...embedding.clauses]);
  const rank = (text: string) => {
    if (text === query && input) return semantic.fuseInput(input, SET_POOL);
    const terms = engines.usage.terms(text).terms;
    const vector = vectors.get(text)!;
    const clause = semantic.fusionInput(lexical.index.search(terms, HYBRID_CANDIDATES, lexical.query), vector, SET_POOL, accept);
    seen?.set(text, { terms, vector, input: clause });
    return semantic.fuseInput(clause, SET_POOL);
  };
  return clauseRanking(query, parts, rank, Math.max(wide, SET_POOL));
}

/** Lifts the members of strong groups when asked (see `tool-sets.ts`). */
export function withGroups(ranked: Ranked[], groups: boolean, engines: Pick<SearchEngines, "tool">): Ranked[] {
  return groups ? liftGroups(ranked, (id) => groupOf(engines.tool(id))) : ranked;
}

/** How many candidates an engine ranks: more than asked when the learned blend (or the model) may reorder them. */
export function widen(limit: number, learning: boolean): number {
  return learning ? Math.max(limit, HYBRID_CANDIDATES) : limit;
}

function needEmbedding(embedding: QueryEmbedding | undefined): QueryEmbedding {
  if (!embedding) throw new Error("the query was not embedded for a dense engine");
  return embedding;
}
