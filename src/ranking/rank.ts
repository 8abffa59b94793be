/**
 * Ranking with the learned model: features of every candidate, scored by the model, best first (ties by id, as
 * every engine breaks them), and the parts of one candidate's score for `explain`.
 */
import { compareRanked, type Ranked } from "../engines/top-k.js";
import { coverClauses } from "./coverage.js";
import { featureRows, featureTables, type QueryEvidence } from "./features.js";
import { contributions, type FeatureContribution, type LinearModel, scoreRow } from "./model.js";

/**
 * The candidates of `evidence` ranked by `model`, best first; when the request was split into clauses and the model
 * covers them, in coverage order (`coverage.ts`, scored there).
 */
export function rankLearned(model: LinearModel, evidence: QueryEvidence): Ranked[] {
  const { rows, clauses } = featureTables(evidence);
  const scored = scoreCandidates(model, evidence, rows);
  if (!model.coverage || !evidence.clauses) return scored;
  return coverClauses(scored, clauses.map((table) => scoreCandidates(model, evidence, table)), model.coverage);
}

/** The model's score of every candidate from its feature rows, best first. */
function scoreCandidates(model: LinearModel, evidence: QueryEvidence, rows: Float64Array[]): Ranked[] {
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

/** The parts of `id`'s learned score, or undefined when it is not a candidate. */
export function explainLearned(kind: ExplainedRanker["model"], model: LinearModel, evidence: QueryEvidence, id: string): ExplainedRanker | undefined {
  const at = evidence.candidates.findIndex((c) => c.id === id);
  if (at < 0) return undefined;
  const row = featureRows(evidence)[at];
  const out: ExplainedRanker = { model: kind, score: scoreRow(model, row), features: contributions(model, row) };
  if (model.coverage && evidence.clauses) out.coverage = { weight: model.coverage, score: rankLearned(model, evidence).find((hit) => hit.id === id)!.score };
  return out;
}
