/**
 * The candidates the learned ranker re-ranks, with each one's evidence: the union of every engine's top list (so no
 * engine's find is lost before ranking), and for each candidate what every engine says about it, asked of the
 * engines directly when it was not in their list.
 */
import type { TermMatches } from "../engines/bm25f.js";
import type { Ranked } from "../engines/top-k.js";
import type { CandidateEvidence, QueryEvidence } from "./features.js";

/** How the evidence of a candidate missing from an engine's list is asked of that engine. */
export interface EvidenceSources {
  /** The lexical index's field names, in `TermMatches` order. */
  fields: readonly string[];
  /** The exact query terms in each id's fields (`Bm25fIndex.termMatches`). */
  matches(ids: string[]): TermMatches[];
  /** The BM25F scores of ids outside the lexical list. */
  lexicalScores(ids: string[]): number[];
  /** The cosine of an id outside the dense list (undefined without vectors). */
  cosine?(id: string): number | undefined;
  /** How close an id is to the rest of the catalog, 0–1 (undefined without vectors). */
  centrality?(id: string): number | undefined;
  /** The cosines of ids' names, each embedded on its own, to the query (undefined without a name vector). */
  nameCosines?(ids: string[]): (number | undefined)[];
  /**
   * The cosines of ids to the query after pseudo-relevance feedback (undefined without vectors): from the top of
   * `ranked` (the first-stage ranking, best first) when given, else from the ids closest to each sentence.
   */
  feedbackCosines?(ids: string[], ranked?: string[]): (number | undefined)[];
}

/** The rankings a query got from each engine, best first. */
export interface EngineLists {
  lexical: Ranked[];
  /** The dense top list (cosines), best first. */
  dense?: Ranked[];
  /** Cosines of further candidates already known (e.g. lexical candidates scored by the fusion input). */
  cosines?: Map<string, number>;
  /** The unlearned hybrid ranking (fusion, with clauses merged when the request was split). */
  fused?: Ranked[];
  /** The clause rankings, when the request was split. */
  clauses?: Ranked[][];
}

/**
 * Every candidate of the lists, in first-seen order (lexical, fused, dense), with its evidence; or, given `ids`,
 * exactly those (a clause's evidence about the whole request's candidates).
 */
export function gatherEvidence(sources: EvidenceSources, lists: EngineLists, ids?: readonly string[]): QueryEvidence {
  const order: string[] = ids ? [...ids] : [];
  const seen = new Set<string>();
  if (!ids) {
    for (const list of [lists.lexical, lists.fused ?? [], lists.dense ?? []]) {
      for (const hit of list) if (!seen.has(hit.id)) (seen.add(hit.id), order.push(hit.id));
    }
  }
  const lexical = positions(lists.lexical);
  const dense = positions(lists.dense ?? []);
  const fused = positions(lists.fused ?? []);
  const fusedShare = shares(lists.fused ?? []);
  const clause = new Map<string, number>();
  for (const list of lists.clauses ?? []) for (const [id, share] of shares(list)) clause.set(id, Math.max(clause.get(id) ?? 0, share));
  const matches = sources.matches(order);
  const outside = order.filter((id) => !lexical.has(id));
  const outsideScores = new Map(sources.lexicalScores(outside).map((score, i) => [outside[i], score]));
  const nameCosines = sources.nameCosines?.(order);
  // Pseudo-relevance feedback from the first-stage ranking's top tools (the unlearned hybrid's), as PRF reads the
  // first run's top documents: it ranks better than the cosine alone, so its top few are likelier to be on topic.
  const feedbackCosines = sources.feedbackCosines?.(order, lists.fused?.map((hit) => hit.id));
  const candidates = order.map((id, at): CandidateEvidence => {
    const lex = lexical.get(id);
    const den = dense.get(id);
    const out: CandidateEvidence = {
      id,
      matches: matches[at],
      lexical: lex ? lex.score : outsideScores.get(id)!,
      lexicalRank: lex?.rank,
      denseRank: den?.rank,
      fused: fusedShare.get(id),
      fusedRank: fused.get(id)?.rank,
      clause: lists.clauses ? (clause.get(id) ?? 0) : undefined,
    };
    if (sources.cosine) out.cosine = den?.score ?? lists.cosines?.get(id) ?? sources.cosine(id) ?? 0;
    if (sources.centrality) out.centrality = sources.centrality(id) ?? 0;
    if (nameCosines) out.nameCosine = nameCosines[at] ?? 0;
    if (feedbackCosines) out.feedbackCosine = feedbackCosines[at] ?? 0;
    return out;
  });
  return { fields: sources.fields, candidates };
}

function positions(list: Ranked[]): Map<string, { rank: number; score: number }> {
  return new Map(list.map((hit, rank) => [hit.id, { rank, score: hit.score }]));
}

/** Each hit's place in its list's score range: 1 for the best, 0 for the last (1 for all when the range is empty). */
function shares(list: Ranked[]): Map<string, number> {
  const top = list[0]?.score ?? 0;
  const low = list.length ? list[list.length - 1].score : 0;
  const span = top - low;
  return new Map(list.map((hit) => [hit.id, span > 0 ? (hit.score - low) / span : 1]));
}
