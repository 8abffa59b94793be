/**
 * Trains the tree kind of learned model (`trees.ts`): gradient-boosted regression trees over ranking gradients, as
 * LambdaMART does (Burges, 2010), small enough to write here rather than depend on a native library.
 *
 * Each round fits one tree of a few levels to the gradients of a ranking loss at the current scores, with Newton
 * steps in the leaves (−Σgradient / (Σhessian + l2)) shrunk by `shrinkage`, and adds it. Splits are found on
 * histograms: each feature's values are cut into at most `bins` ranges once (at midpoints between distinct values,
 * so a threshold never sits on a value a catalog is likely to produce exactly), and a node's gradients are summed per
 * range. Boosting may start from a linear model's scores (`weights`): the trees then learn what it misses. Two losses
 * over each query's candidates:
 * - `softmax`: the listwise softmax loss of the linear ranker with every relevant candidate asked for (the mean of
 *   −log each one's share); the scores stay log-probabilities, which the coverage stage reads (`coverage.ts`);
 * - `lambda`: LambdaMART's pairwise logistic loss of each (relevant, irrelevant) pair weighted by how much swapping
 *   the two would change the query's nDCG.
 * Queries carry weights (every set counts by its own weight, whatever its size). Deterministic: no sampling.
 */
import type { FeatureName } from "./features.js";
import type { TreeModel, TreeNode } from "./trees.js";

/** One training query: its candidates' feature rows (`d` values each, one after the other) and labels. */
export interface BoostQuery {
  x: Float64Array;
  labels: Uint8Array;
  weight: number;
}

export interface BoostOptions {
  trees: number;
  depth: number;
  shrinkage: number;
  loss: "softmax" | "lambda";
  /** Hessian mass a leaf needs (in units of one average query's). */
  minHessian: number;
  l2: number;
  bins: number;
  /**
   * A linear model to boost from (one weight per feature): the trees start from its scores and correct them, and the
   * model keeps its weights.
   */
  weights?: number[];
  /** Called after each tree with the model so far (the ensemble of the first k trees is a model of its own). */
  onTree?: (model: TreeModel) => void;
}

export const BOOST_DEFAULTS: Omit<BoostOptions, "onTree"> = { trees: 200, depth: 3, shrinkage: 0.1, loss: "softmax", minHessian: 5, l2: 1, bins: 64 };

/** Node values are written on this grid, on which the sums of `trees.ts` are exact (2⁻¹⁶). */
const GRID = 65536;
const onGrid = (x: number) => Math.round(x * GRID) / GRID;

/** Each feature's cut points: a value ≤ edges[b] falls in a range ≤ b. */
export function binEdges(values: Float64Array, bins: number): Float64Array {
  const sorted = Float64Array.from(values).sort();
  const distinct: number[] = [];
  for (const v of sorted) if (distinct.length === 0 || v !== distinct[distinct.length - 1]) distinct.push(v);
  const edges: number[] = [];
  if (distinct.length <= bins) {
    for (let k = 0; k + 1 < distinct.length; k++) edges.push((distinct[k] + distinct[k + 1]) / 2);
  } else {
    // Cuts at quantiles of the values (not of the distinct ones), each between two distinct values.
    for (let b = 1; b < bins; b++) {
      const v = sorted[Math.floor((b * sorted.length) / bins)];
      const k = lowerBound(distinct, v);
      if (k + 1 >= distinct.length) continue;
      const edge = (distinct[k] + distinct[k + 1]) / 2;
      if (edges.length === 0 || edge > edges[edges.length - 1]) edges.push(edge);
    }
  }
  return Float64Array.from(edges, (e) => Math.round(e * 1e6) / 1e6);
}

function lowerBound(sorted: ArrayLike<number>, v: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Trains an ensemble over `features` (the columns of every query's rows, in that order). */
export function boostTrees(features: readonly FeatureName[], queries: BoostQuery[], options: Partial<BoostOptions> = {}): TreeModel {
  const o = { ...BOOST_DEFAULTS, ...options };
  const d = features.length;
  const usable = queries.filter((q) => q.labels.some((l) => l === 1) && q.labels.length > 1);
  // Query weights scaled to a mean of 1, so that minHessian and l2 mean the same whatever the number of queries.
  const meanWeight = usable.reduce((s, q) => s + q.weight, 0) / Math.max(1, usable.length);
  const starts = new Int32Array(usable.length + 1);
  usable.forEach((q, i) => (starts[i + 1] = starts[i] + q.labels.length));
  const n = starts[usable.length];
  const labels = new Uint8Array(n);
  usable.forEach((q, i) => labels.set(q.labels, starts[i]));
  const weights = Float64Array.from(usable, (q) => q.weight / meanWeight);

  // Every value's range, once.
  const edges: Float64Array[] = [];
  const binned = new Uint8Array(n * d);
  const column = new Float64Array(n);
  for (let j = 0; j < d; j++) {
    usable.forEach((q, i) => {
      for (let k = 0; k < q.labels.length; k++) column[starts[i] + k] = q.x[k * d + j];
    });
    const e = binEdges(column, Math.min(o.bins, 255));
    edges.push(e);
    for (let r = 0; r < n; r++) binned[r * d + j] = lowerBound(e, column[r]);
  }

  const scores = new Float64Array(n);
  if (o.weights) {
    const w = o.weights;
    usable.forEach((q, i) => {
      for (let k = 0; k < q.labels.length; k++) {
        let s = 0;
        for (let j = 0; j < d; j++) s += w[j] * q.x[k * d + j];
        scores[starts[i] + k] = s;
      }
    });
  }
  const grad = new Float64Array(n);
  const hess = new Float64Array(n);
  const model: TreeModel = { kind: "trees", features: [...features], ...(o.weights ? { weights: [...o.weights] } : {}), trees: [] };
  const all = Int32Array.from({ length: n }, (_, r) => r);
  const leafOf = new Int32Array(n);
  for (let t = 0; t < o.trees; t++) {
    gradients(o.loss, usable, starts, labels, weights, scores, grad, hess);
    const leaves: TreeNode[] = [];
    const root = grow(all, 0);
    const rootValue = root.value;
    // Centred: the root holds 0, so a row's score moves by its leaf's value (every candidate alike by the root's).
    const centre = (node: TreeNode): void => {
      node.value = onGrid(node.value - rootValue);
      if (node.left) (centre(node.left), centre(node.right!));
    };
    centre(root);
    for (let r = 0; r < n; r++) scores[r] += leaves[leafOf[r]].value;
    model.trees.push(root);
    o.onTree?.({ ...model, trees: [...model.trees] });

    function grow(rows: Int32Array, depth: number): TreeNode {
      let g = 0;
      let h = 0;
      for (const r of rows) (g += grad[r]), (h += hess[r]);
      const node: TreeNode = { value: (-o.shrinkage * g) / (h + o.l2) };
      const split = depth < o.depth ? bestSplit(rows, g, h) : undefined;
      if (!split) {
        for (const r of rows) leafOf[r] = leaves.length;
        leaves.push(node);
        return node;
      }
      const left = rows.filter((r) => binned[r * d + split.feature] <= split.bin);
      const right = rows.filter((r) => binned[r * d + split.feature] > split.bin);
      node.feature = features[split.feature];
      node.threshold = edges[split.feature][split.bin];
      node.left = grow(left, depth + 1);
      node.right = grow(right, depth + 1);
      return node;
    }
  }
  return model;

  /** The split of `rows` with the most gain (each side holding at least `minHessian`), if any gains. */
  function bestSplit(rows: Int32Array, g: number, h: number): { feature: number; bin: number } | undefined {
    const hg = new Float64Array(d * 256);
    const hh = new Float64Array(d * 256);
    for (const r of rows) {
      const gr = grad[r];
      const hr = hess[r];
      const base = r * d;
      for (let j = 0; j < d; j++) {
        const at = j * 256 + binned[base + j];
        hg[at] += gr;
        hh[at] += hr;
      }
    }
    const parent = (g * g) / (h + o.l2);
    let best: { feature: number; bin: number; gain: number } | undefined;
    for (let j = 0; j < d; j++) {
      let gl = 0;
      let hl = 0;
      for (let b = 0; b < edges[j].length; b++) {
        gl += hg[j * 256 + b];
        hl += hh[j * 256 + b];
        const hr = h - hl;
        if (hl < o.minHessian || hr < o.minHessian) continue;
        const gr = g - gl;
        const gain = (gl * gl) / (hl + o.l2) + (gr * gr) / (hr + o.l2) - parent;
        if (gain > 1e-12 && (!best || gain > best.gain)) best = { feature: j, bin: b, gain };
      }
    }
    return best;
  }
}

/** The loss's gradients and (diagonal) hessians at the current scores, query by query, times each query's weight. */
function gradients(
  loss: BoostOptions["loss"], queries: BoostQuery[], starts: Int32Array, labels: Uint8Array, weights: Float64Array,
  scores: Float64Array, grad: Float64Array, hess: Float64Array,
): void {
  grad.fill(0);
  hess.fill(0);
  for (let q = 0; q < queries.length; q++) {
    const from = starts[q];
    const to = starts[q + 1];
    const w = weights[q];
    if (loss === "softmax") softmaxGradients(from, to, w);
    else lambdaGradients(from, to, w);
  }

  // −Σ_rel log p_r / R: gradient p_i − [relevant]/R, hessian p_i (1 − p_i).
  function softmaxGradients(from: number, to: number, w: number): void {
    let top = -Infinity;
    let relevant = 0;
    for (let r = from; r < to; r++) (top = Math.max(top, scores[r])), (relevant += labels[r]);
    let sum = 0;
    for (let r = from; r < to; r++) sum += Math.exp(scores[r] - top);
    for (let r = from; r < to; r++) {
      const p = Math.exp(scores[r] - top) / sum;
      grad[r] = w * (p - labels[r] / relevant);
      hess[r] = w * Math.max(p * (1 - p), 1e-9);
    }
  }

  // Each (relevant, irrelevant) pair: logistic loss of their score gap, weighted by |ΔnDCG| of swapping them.
  function lambdaGradients(from: number, to: number, w: number): void {
    const order = Array.from({ length: to - from }, (_, i) => from + i).sort((a, b) => scores[b] - scores[a] || a - b);
    const discount = new Float64Array(to - from);
    order.forEach((r, at) => (discount[r - from] = 1 / Math.log2(at + 2)));
    let relevant = 0;
    for (let r = from; r < to; r++) relevant += labels[r];
    let ideal = 0;
    for (let k = 0; k < relevant; k++) ideal += 1 / Math.log2(k + 2);
    for (let i = from; i < to; i++) {
      if (!labels[i]) continue;
      for (let j = from; j < to; j++) {
        if (labels[j]) continue;
        const delta = Math.abs(discount[i - from] - discount[j - from]) / ideal;
        const rho = 1 / (1 + Math.exp(scores[i] - scores[j]));
        const lambda = w * rho * delta;
        grad[i] -= lambda;
        grad[j] += lambda;
        const curvature = w * Math.max(rho * (1 - rho), 1e-9) * delta;
        hess[i] += curvature;
        hess[j] += curvature;
      }
    }
  }
}
