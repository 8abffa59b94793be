/**
 * Ranking with the learned model: features of every candidate, scored by the model, best first (ties by id, as
 * every engine breaks them), and the parts of one candidate's score for `explain`.
 */
import { compareRanked, type Ranked } from "../engines/top-k.js";
import { featureRows, type QueryEvidence } from "./features.js";
import { contributions, type FeatureContribution, type LinearModel, scoreRow } from "./model.js";

/** The candidates of `evidence` ranked by `model`, best first. */
export function rankLearned(model: LinearModel, evidence: QueryEvidence): Ranked[] {
  return rankRows(model, evidence, featureRows(evidence));
}

function rankRows(model: LinearModel, evidence: QueryEvidence, rows: Float64Array[]): Ranked[] {
  return evidence.candidates.map((c, i) => ({ id: c.id, score: scoreRow(model, rows[i]) })).sort(compareRanked);
}

/** What the learned ranker made of one candidate (`explain`): its score and each feature's part of it. */
export interface ExplainedRanker {
  model: "hybrid" | "lexical";
  /** The model's score; the contributions add up to it. */
  score: number;
  features: FeatureContribution[];
}

/**
 * The candidates ranked by `model` (as `rankLearned`) and the parts of `id`'s score (undefined when it is not a
 * candidate), from one computation of the features: `explain` needs both, and the features are most of the cost.
 */
export function explainLearned(kind: ExplainedRanker["model"], model: LinearModel, evidence: QueryEvidence, id: string): { ranked: Ranked[]; ranker?: ExplainedRanker } {
  const rows = featureRows(evidence);
  const ranked = rankRows(model, evidence, rows);
  const at = evidence.candidates.findIndex((c) => c.id === id);
  if (at < 0) return { ranked };
  return { ranked, ranker: { model: kind, score: scoreRow(model, rows[at]), features: contributions(model, rows[at]) } };
}
