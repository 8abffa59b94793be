/**
 * The tree kind of learned model: a sum of small regression trees (gradient-boosted, LambdaMART-style; trained by
 * `boost.ts`), read from `model.json` and walked here at search time. Trees can learn what a weighted sum cannot:
 * that a feature counts only when another is high (a name match matters less when the cosine is already near its
 * best), or counts up to a point and no further.
 *
 * `explain` shows each feature's part of a score as Saabas's path attribution does: every node holds a value (the
 * model's estimate before the split below it), and each split on the way from a tree's root to its leaf moves the
 * estimate by (child's value − node's value), credited to the feature it split on. A tree's parts add up to its leaf
 * minus its root, so the score is defined as Σ (leaf − root) over the trees: a root's value is the same for every
 * candidate of every query and so carries no order. The trainer writes values on a binary grid (multiples of 2⁻¹⁶),
 * on which these sums are exact in any order, so the parts add up to the score exactly.
 */
import { type FeatureName, featureIndex } from "./features.js";

/** A node of a tree as written in `model.json`: a leaf holds a value; a split also sends a row left or right. */
export interface TreeNode {
  /** The model's estimate at this node (at a leaf, what the tree adds). */
  value: number;
  /** Split: the feature read, and where to go: `left` when the row's value is ≤ `threshold`, else `right`. */
  feature?: FeatureName;
  threshold?: number;
  left?: TreeNode;
  right?: TreeNode;
}

/**
 * A tree ensemble: score = Σ weight × feature (when it has weights: the trees then correct a linear model) + Σ over
 * the trees of (the value of the row's leaf − the root's value).
 */
export interface TreeModel {
  kind: "trees";
  /** The features the model may read, in the order `explain` lists them. */
  features: FeatureName[];
  /** A linear model the trees were boosted from (one weight per feature), if any. */
  weights?: number[];
  trees: TreeNode[];
  /** As `LinearModel.coverage`: how much a request of several clauses trades the model's order for covering each. */
  coverage?: number;
}

/**
 * Every tree of a model in flat arrays, built once per model: splits by position, each child a split's position or,
 * when negative, ~(a leaf's position), so the walk tests one number per level.
 */
interface FlatTrees {
  /** Each feature's position in a feature row (for the linear part). */
  columns: Int32Array;
  weights: Float64Array;
  /** Each tree's root (a split's position, or ~leaf for a tree of one leaf) and its value. */
  roots: Int32Array;
  rootValues: Float64Array;
  /** Per split: the feature's position in a row, in `TreeModel.features` (for attribution), threshold, children. */
  column: Int32Array;
  slot: Int32Array;
  threshold: Float64Array;
  left: Int32Array;
  right: Int32Array;
  value: Float64Array;
  leafValue: Float64Array;
}

const flattened = new WeakMap<TreeModel, FlatTrees>();

function flatten(model: TreeModel): FlatTrees {
  const cached = flattened.get(model);
  if (cached) return cached;
  const splits: TreeNode[] = [];
  const leaves: TreeNode[] = [];
  const number = (node: TreeNode): number => {
    if (node.feature === undefined || !node.left || !node.right) return ~(leaves.push(node) - 1);
    const at = splits.push(node) - 1;
    number(node.left);
    number(node.right);
    return at;
  };
  const roots = Int32Array.from(model.trees, number);
  const place = new Map<TreeNode, number>();
  splits.forEach((node, at) => place.set(node, at));
  leaves.forEach((node, at) => place.set(node, ~at));
  const flat: FlatTrees = {
    columns: Int32Array.from(model.features, featureIndex),
    weights: Float64Array.from(model.weights ?? []),
    roots,
    rootValues: Float64Array.from(model.trees, (tree) => tree.value),
    column: Int32Array.from(splits, (node) => featureIndex(node.feature!)),
    slot: Int32Array.from(splits, (node) => model.features.indexOf(node.feature!)),
    threshold: Float64Array.from(splits, (node) => node.threshold!),
    left: Int32Array.from(splits, (node) => place.get(node.left!)!),
    right: Int32Array.from(splits, (node) => place.get(node.right!)!),
    value: Float64Array.from(splits, (node) => node.value),
    leafValue: Float64Array.from(leaves, (node) => node.value),
  };
  flattened.set(model, flat);
  return flat;
}

/** The ensemble's score of one feature row (all features, in `FEATURE_NAMES` order). */
export function scoreTrees(model: TreeModel, row: Float64Array): number {
  const { columns, weights, roots, rootValues, column, threshold, left, right, leafValue } = flatten(model);
  let score = 0;
  for (let i = 0; i < weights.length; i++) score += weights[i] * row[columns[i]];
  for (let t = 0; t < roots.length; t++) {
    let node = roots[t];
    while (node >= 0) node = row[column[node]] <= threshold[node] ? left[node] : right[node];
    score += leafValue[~node] - rootValues[t];
  }
  return score;
}

/**
 * Each of the model's features' part of a row's score (its weight × its value, plus its Saabas part of the trees), in
 * `model.features` order; they add up to the score (exactly for trees alone, to rounding with weights).
 */
export function treeContributions(model: TreeModel, row: Float64Array): number[] {
  const { columns, weights, roots, column, slot, threshold, left, right, value, leafValue } = flatten(model);
  const parts = new Array<number>(model.features.length).fill(0);
  for (let i = 0; i < weights.length; i++) parts[i] = weights[i] * row[columns[i]];
  for (let t = 0; t < roots.length; t++) {
    let node = roots[t];
    while (node >= 0) {
      const next = row[column[node]] <= threshold[node] ? left[node] : right[node];
      parts[slot[node]] += (next >= 0 ? value[next] : leafValue[~next]) - value[node];
      node = next;
    }
  }
  return parts;
}

/** Every feature a tree splits on. */
export function treeFeatures(node: TreeNode, into = new Set<FeatureName>()): Set<FeatureName> {
  if (node.feature !== undefined) into.add(node.feature);
  if (node.left) treeFeatures(node.left, into);
  if (node.right) treeFeatures(node.right, into);
  return into;
}

/**
 * What is wrong with a tree, or undefined: every node has a finite value; a split has a known feature of `features`,
 * a finite threshold and both children; a leaf has neither. `path` names the node (root, root.left, …).
 */
export function treeProblem(node: unknown, features: readonly string[], path: string, depth = 0): string | undefined {
  if (typeof node !== "object" || node === null) return `${path} must be an object`;
  const n = node as TreeNode;
  if (typeof n.value !== "number" || !Number.isFinite(n.value)) return `${path}.value must be a finite number`;
  const split = n.feature !== undefined || n.threshold !== undefined || n.left !== undefined || n.right !== undefined;
  if (!split) return undefined;
  if (depth >= 32) return `${path} is deeper than 32 levels`;
  if (typeof n.feature !== "string" || !features.includes(n.feature)) return `${path}.feature ${JSON.stringify(n.feature)} is not one of the model's features`;
  if (typeof n.threshold !== "number" || !Number.isFinite(n.threshold)) return `${path}.threshold must be a finite number`;
  if (n.left === undefined || n.right === undefined) return `${path} splits, so it needs both left and right`;
  return treeProblem(n.left, features, `${path}.left`, depth + 1) ?? treeProblem(n.right, features, `${path}.right`, depth + 1);
}
