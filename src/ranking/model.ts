/**
 * The learned ranker's model: a function of the features in `features.ts`, one per kind of search (`hybrid` with
 * embeddings, `lexical` for `bm25` alone), read from a small JSON file shipped with the package (`model.json` beside
 * this module; `scripts/train-ranker.ts` writes it). Two kinds: `linear` (the default when a model names no kind),
 * the smallest one that can be read, each weight saying how much a feature counts; and `trees`, a sum of small
 * regression trees (`trees.ts`). Either way a score is exactly the sum of its features' parts, which is what
 * `explain` shows.
 */
import { readFileSync } from "node:fs";
import { ToolsearchError } from "../errors.js";
import { FEATURE_NAMES, type FeatureName, featureIndex } from "./features.js";
import { scoreTrees, treeContributions, treeFeatures, type TreeModel, treeProblem } from "./trees.js";

export type { TreeModel } from "./trees.js";

/** One linear model: score = Σ weight × feature. */
export interface LinearModel {
  /** Absent in files written before the tree kind existed. */
  kind?: "linear";
  features: FeatureName[];
  weights: number[];
  /**
   * How much a request of several clauses trades the model's order for covering each clause (0–1, `coverage.ts`);
   * absent or 0 keeps the model's order.
   */
  coverage?: number;
}

/** A model of either kind. */
export type LearnedModel = LinearModel | TreeModel;

/** The shipped file: a model per kind of search, and how it was trained (for people, not read at search time). */
export interface RankerModel {
  version: 1;
  hybrid?: LearnedModel;
  lexical?: LearnedModel;
  trained?: unknown;
}

/** One feature's part of a candidate's score. */
export interface FeatureContribution {
  feature: FeatureName;
  value: number;
  /** A linear model's weight of the feature (trees have none: their part depends on the row's path). */
  weight?: number;
  contribution: number;
}

/** Checks a parsed model file; throws `invalid_option` naming what is wrong. */
export function checkModel(value: unknown, source: string): RankerModel {
  const fail = (rule: string) => new ToolsearchError("invalid_option", `${source}: ranker model ${rule}`);
  if (typeof value !== "object" || value === null || (value as RankerModel).version !== 1) throw fail("must be an object with version 1");
  const model = value as RankerModel;
  for (const kind of ["hybrid", "lexical"] as const) {
    const m = model[kind];
    if (m === undefined) continue;
    if (typeof m !== "object" || m === null) throw fail(`${kind} must be an object`);
    if (!Array.isArray(m.features)) throw fail(`${kind}: features must be an array`);
    for (const name of m.features) if (!FEATURE_NAMES.includes(name)) throw fail(`${kind}: unknown feature ${JSON.stringify(name)}`);
    if (m.kind === "trees") {
      if (!Array.isArray(m.trees) || m.trees.length === 0) throw fail(`${kind}: trees must be a non-empty array`);
      if (m.weights !== undefined) checkWeights(kind, m);
      for (const [t, tree] of m.trees.entries()) {
        const problem = treeProblem(tree, m.features, `trees[${t}]`);
        if (problem) throw fail(`${kind}: ${problem}`);
      }
    } else if (m.kind === undefined || m.kind === "linear") {
      checkWeights(kind, m);
    } else {
      throw fail(`${kind}: kind ${JSON.stringify((m as { kind: unknown }).kind)} is not one of linear, trees`);
    }
    if (m.coverage !== undefined && !(typeof m.coverage === "number" && m.coverage >= 0 && m.coverage <= 1)) throw fail(`${kind}: coverage must be a number from 0 to 1`);
  }
  return model;

  function checkWeights(kind: string, m: { features: unknown[]; weights?: unknown }): void {
    if (!Array.isArray(m.weights) || m.features.length !== m.weights.length) throw fail(`${kind}: features and weights must be arrays of the same length`);
    for (const w of m.weights) if (typeof w !== "number" || !Number.isFinite(w)) throw fail(`${kind}: weights must be finite numbers`);
  }
}

/** Reads and checks a model file. */
export function loadModel(path: string | URL): RankerModel {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ToolsearchError("invalid_option", `${String(path)}: cannot read the ranker model (${(error as Error).message})`);
  }
  try {
    return checkModel(JSON.parse(text), String(path));
  } catch (error) {
    if (error instanceof ToolsearchError) throw error;
    throw new ToolsearchError("invalid_option", `${String(path)}: the ranker model is not JSON (${(error as Error).message})`);
  }
}

let shipped: RankerModel | undefined;

/** The model shipped with the package (`model.json` beside this module), read once. */
export function shippedModel(): RankerModel {
  shipped ??= loadModel(new URL("./model.json", import.meta.url));
  return shipped;
}

/** Whether a model reads each clause's evidence: `part_` features or coverage (search gathers it only then). */
export function readsClauses(model: LearnedModel): boolean {
  if ((model.coverage ?? 0) > 0) return true;
  return [...featuresRead(model)].some((name) => name.startsWith("part_"));
}

/** Whether a model reads the cosines after pseudo-relevance feedback (search computes them only then). */
export function readsFeedback(model: LearnedModel): boolean {
  return readsWhole(model, "prf_cosine");
}

/**
 * Whether a model reads the cosine of a tool's name embedded on its own (`name_cosine`, `part_name_cosine`): an index
 * embeds names only then, since a name vector serves nothing else.
 */
export function readsNames(model: LearnedModel | undefined): boolean {
  return model !== undefined && readsWhole(model, "name_cosine");
}

/** Whether a model reads `feature` or its `part_` form (the best over the request and its clauses). */
function readsWhole(model: LearnedModel, feature: FeatureName): boolean {
  const read = featuresRead(model);
  return read.has(feature) || read.has(`part_${feature}` as FeatureName);
}

/** Each model's features read, gathered once per model: searches ask on every request. */
const readSets = new WeakMap<LearnedModel, ReadonlySet<FeatureName>>();

/** The features a model's score depends on: a linear model's list, or those its trees split on. */
function featuresRead(model: LearnedModel): ReadonlySet<FeatureName> {
  let read = readSets.get(model);
  if (!read) {
    read = new Set(model.kind === "trees" && !model.weights ? model.trees.flatMap((tree) => [...treeFeatures(tree)]) : model.features);
    readSets.set(model, read);
  }
  return read;
}

/** Each model's feature positions in a row, looked up once per model rather than for every row. */
const columns = new WeakMap<LinearModel, Int32Array>();

/** A model's score of one feature row. */
export function scoreRow(model: LearnedModel, row: Float64Array): number {
  if (model.kind === "trees") return scoreTrees(model, row);
  let at = columns.get(model);
  if (!at) columns.set(model, (at = Int32Array.from(model.features, featureIndex)));
  let score = 0;
  for (let i = 0; i < at.length; i++) score += model.weights[i] * row[at[i]];
  return score;
}

/** Each feature's part of a row's score, in the model's order; the parts add up to `scoreRow`. */
export function contributions(model: LearnedModel, row: Float64Array): FeatureContribution[] {
  if (model.kind === "trees") {
    const parts = treeContributions(model, row);
    return model.features.map((feature, i) => ({ feature, value: row[featureIndex(feature)], ...(model.weights ? { weight: model.weights[i] } : {}), contribution: parts[i] }));
  }
  return model.features.map((feature, i) => {
    const value = row[featureIndex(feature)];
    return { feature, value, weight: model.weights[i], contribution: model.weights[i] * value };
  });
}
