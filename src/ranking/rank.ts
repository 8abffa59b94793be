/**
 * Ranking with the learned model: features of every candidate, scored by the model, best first (ties by id, as
 * every engine breaks them), and the parts of one candidate's score for `explain`.
 */
import { compareRanked, type Ranked } from "../engines/top-k.js";
import { featureRows, type QueryEvidence } from "./features.js";
import { contributions, type FeatureContribution, type LinearModel, scoreRow } from "./model.js";

/** The candidates of `evidence` ranked by `model`, best first. */
export function rankLearned(model: LinearModel, evidence: QueryEvidence): Ranked[] {
  const rows = featureRows(evidence);
  return evidence.candidates.map((c, i) => ({ id: c.id, score: scoreRow(model, rows[i]) })).sort(compareRanked);
}

/** What the learned ranker made of one candidate (`explain`): its score and each feature's part of it. */
export interface ExplainedRanker {
  model: "hybrid" | "lexical";
  /** The model's score; the contributions add up to it. */
  score: number;
  features: FeatureContribution[];
}

/** The parts of `id`'s learned score, or undefined when it is not a candidate. */
export function explainLearned(kind: ExplainedRanker["model"], model: LinearModel, evidence: QueryEvidence, id: string): ExplainedRanker | undefined {
  const at = evidence.candidates.findIndex((c) => c.id === id);
  if (at < 0) return undefined;
  const row = featureRows(evidence)[at];
  return { model: kind, score: scoreRow(model, row), features: contributions(model, row) };
}
