/**
 * Ranking with the learned model: features of every candidate, scored by the model, best first (ties by id, as
 * every engine breaks them), and the parts of one candidate's score for `explain`.
 */
import { compareRanked, type Ranked } from "../engines/top-k.js";
import { coverClauses } from "./coverage.js";
import { type FeatureTables, featureTables, type QueryEvidence } from "./features.js";
import { contributions, type FeatureContribution, type LearnedModel, scoreRow } from "./model.js";

/**
 * The candidates of `evidence` ranked by `model`, best first; when the request was split into clauses and the model
 * covers them, in coverage order (`coverage.ts`, scored there).
 */
export function rankLearned(model: LearnedModel, evidence: QueryEvidence): Ranked[] {
  return rankTables(model, evidence, featureTables(evidence));
}

/** `rankLearned` from features already computed. */
function rankTables(model: LearnedModel, evidence: QueryEvidence, tables: FeatureTables): Ranked[] {
  const scored = scoreCandidates(model, evidence, tables.rows);
  if (!model.coverage || !evidence.clauses) return scored;
  return coverClauses(scored, tables.clauses.map((table) => scoreCandidates(model, evidence, table)), model.coverage);
}

/** The model's score of every candidate from its feature rows, best first. */
function scoreCandidates(model: LearnedModel, evidence: QueryEvidence, rows: Float64Array[]): Ranked[] {
  return evidence.candidates.map((c, i) => ({ id: c.id, score: scoreRow(model, rows[i]) })).sort(compareRanked);
}

/** What the learned ranker made of one candidate (`explain`): its score and each feature's part of it. */
export interface ExplainedRanker {
  model: "hybrid" | "lexical";
  /** The model's score; the contributions add up to it. */
  score: number;
  features: FeatureContribution[];
  /**
   * The request was split into clauses and the model covers them (`coverage.ts`): the weight of coverage, and the
   * candidate's score in coverage order, which is what it is placed by.
   */
  coverage?: { weight: number; score: number };
}

/**
 * The candidates ranked by `model` (as `rankLearned`) and the parts of `id`'s score (undefined when it is not a
 * candidate), from one computation of the features: `explain` needs both, and the features are most of the cost.
 */
export function explainLearned(kind: ExplainedRanker["model"], model: LearnedModel, evidence: QueryEvidence, id: string): { ranked: Ranked[]; ranker?: ExplainedRanker } {
  const tables = featureTables(evidence);
  const ranked = rankTables(model, evidence, tables);
  const at = evidence.candidates.findIndex((c) => c.id === id);
  if (at < 0) return { ranked };
  const row = tables.rows[at];
  const ranker: ExplainedRanker = { model: kind, score: scoreRow(model, row), features: contributions(model, row) };
  if (model.coverage && evidence.clauses) ranker.coverage = { weight: model.coverage, score: ranked.find((hit) => hit.id === id)!.score };
  return { ranked, ranker };
}
