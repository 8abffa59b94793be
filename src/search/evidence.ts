/**
 * Stage 2 of a tool search (`pipeline.ts`): the evidence the learned ranker's features are made of. The lists of
 * stage 1 give each candidate's ranks and scores; what an engine's list lacks about a candidate (its term matches,
 * its BM25F score outside the BM25 top list, its cosine outside the dense one) is asked of that engine here.
 */
import type { QueryVectors } from "../embeddings/semantic-store.js";
import { type EvidenceSources, gatherEvidence } from "../ranking/candidates.js";
import type { QueryEvidence } from "../ranking/features.js";
import type { ModelLists } from "./engine-lists.js";
import { lexicalOf, type SearchEngines } from "./engines.js";

/**
 * Every candidate of `lists` with every engine's evidence about it; `vector` adds the dense evidence (`hybrid`).
 * `byClause`: also what each clause of the request, as a request of its own, says about the same candidates (a tool
 * that serves one step of a task matches that step's words, not the whole request's); a model without `part_`
 * features or coverage does not read it. `reads.feedback`: also the cosines after pseudo-relevance feedback, which a
 * model without `prf_` features does not read.
 */
export function queryEvidence(terms: string[], lists: ModelLists, engines: SearchEngines, vector?: QueryVectors, reads: EvidenceReads = ALL): QueryEvidence {
  const evidence = gatherEvidence(evidenceSources(terms, engines, vector, reads.feedback), lists);
  if (lists.parts && reads.clauses) {
    const ids = evidence.candidates.map((c) => c.id);
    evidence.clauses = lists.parts.map((part) => gatherEvidence(evidenceSources(part.terms, engines, part.vector, reads.feedback), part.lists, ids));
  }
  return evidence;
}

/** Which optional evidence a model reads (`readsClauses`, `readsFeedback`). */
export interface EvidenceReads {
  clauses: boolean;
  feedback: boolean;
}

const ALL: EvidenceReads = { clauses: true, feedback: true };

/** How the ranker asks the engines about a candidate missing from their lists. */
function evidenceSources(terms: string[], engines: SearchEngines, vector: QueryVectors | undefined, feedback: boolean): EvidenceSources {
  const { index, query, fields } = lexicalOf(engines);
  return {
    fields,
    matches: (ids) => index.termMatches(terms, ids, query.subset),
    // Exact terms only: typo expansion would search the vocabulary again, and a candidate outside BM25's top list
    // scores below its last anyway.
    lexicalScores: (ids) => index.exactScores(terms, ids, query.subset),
    cosine: vector && ((id) => {
      const scores = engines.semantic.sentenceScores(id, vector);
      return scores && Math.max(...scores);
    }),
    centrality: vector && ((id) => engines.semantic.centrality(id, engines.accept)),
    nameCosines: vector && ((ids) => engines.semantic.nameScores(ids, vector)),
    // The candidates are the caller's (every list was filtered by its visibility): only they feed the feedback.
    feedbackCosines: vector && feedback ? (ids, ranked) => engines.semantic.feedbackScores(ids, vector, ranked) : undefined,
  };
}
