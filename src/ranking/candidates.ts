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
  /** How close each id is to a group of ids taken together (on one scale per call; undefined without vectors). */
  closenessTo?(ids: string[], group: string[]): (number | undefined)[];
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
  // Each candidate's two best shares and its best rank among the clause rankings.
  const clause = new Map<string, [number, number]>();
  const clauseRank = new Map<string, number>();
  for (const list of lists.clauses ?? []) {
    for (const [id, share] of shares(list)) {
      const [first, second] = clause.get(id) ?? [0, 0];
      clause.set(id, share > first ? [share, first] : [first, Math.max(second, share)]);
    }
    list.forEach((hit, rank) => clauseRank.set(hit.id, Math.min(clauseRank.get(hit.id) ?? rank, rank)));
  }
  const matches = sources.matches(order);
  const outside = order.filter((id) => !lexical.has(id));
  const outsideScores = new Map(sources.lexicalScores(outside).map((score, i) => [outside[i], score]));
  const topic = sources.closenessTo && topicPlaces(order, lists.fused ?? lists.dense ?? [], sources.closenessTo);
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
      clause: lists.clauses ? (clause.get(id)?.[0] ?? 0) : undefined,
      clauseSecond: lists.clauses ? (clause.get(id)?.[1] ?? 0) : undefined,
      clauseRank: clauseRank.get(id),
    };
    if (sources.cosine) out.cosine = den?.score ?? lists.cosines?.get(id) ?? sources.cosine(id) ?? 0;
    if (sources.centrality) out.centrality = sources.centrality(id) ?? 0;
    if (topic) out.topicCentrality = topic[at];
    return out;
  });
  return { fields: sources.fields, candidates };
}

/** Hits of the ranking whose tools together stand for the request's topic (`topicPlaces`). */
export const TOPIC_HEAD = 10;

/**
 * Each candidate's place (0 the farthest, 1 the closest; ties share the lower) among the candidates by its closeness
 * to the head of the unlearned ranking: of the tools of one topic, the general one is close to all the others, a
 * narrow one to few.
 */
function topicPlaces(ids: string[], ranking: Ranked[], closenessTo: NonNullable<EvidenceSources["closenessTo"]>): number[] {
  const close = closenessTo(ids, ranking.slice(0, TOPIC_HEAD).map((hit) => hit.id)).map((x) => x ?? -Infinity);
  const order = [...close.keys()].sort((a, b) => close[a] - close[b]);
  const places = new Array<number>(ids.length).fill(0);
  let place = 0;
  order.forEach((at, k) => {
    if (k > 0 && close[at] > close[order[k - 1]]) place = k;
    places[at] = ids.length > 1 ? place / (ids.length - 1) : 1;
  });
  return places;
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
