/**
 * Training the tree kind of model (`src/ranking/boost.ts`) on small synthetic query sets: it must find what separates
 * relevant candidates from the rest, including what no weighted sum can (an interaction of two features), and write
 * models whose parts add up to their scores exactly.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { binEdges, type BoostQuery, boostTrees } from "../../src/ranking/boost.js";
import { FEATURE_NAMES, featureIndex, type FeatureName } from "../../src/ranking/features.js";
import { checkModel, contributions, scoreRow } from "../../src/ranking/model.js";
import { treeFeatures, type TreeModel } from "../../src/ranking/trees.js";

/** A deterministic generator (mulberry32), so every run trains on the same data. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FEATURES: FeatureName[] = ["name", "cosine", "plain"];

/**
 * Queries of 20 candidates over `FEATURES`, each candidate's values drawn by `draw(relevant, next)`; the first
 * `relevant` candidates of each query are the relevant ones.
 */
function querySet(count: number, relevant: number, draw: (isRelevant: boolean, next: () => number) => number[], seed = 7): BoostQuery[] {
  const next = random(seed);
  return Array.from({ length: count }, () => {
    const n = 20;
    const x = new Float64Array(n * FEATURES.length);
    const labels = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      labels[i] = i < relevant ? 1 : 0;
      x.set(draw(i < relevant, next), i * FEATURES.length);
    }
    return { x, labels, weight: 1 };
  });
}

/** A full feature row of one candidate of a query. */
function fullRow(q: BoostQuery, i: number): Float64Array {
  const row = new Float64Array(FEATURE_NAMES.length);
  FEATURES.forEach((name, j) => (row[featureIndex(name)] = q.x[i * FEATURES.length + j]));
  return row;
}

/** How many of the queries have every relevant candidate above every other one under the model. */
function separated(model: TreeModel, queries: BoostQuery[]): number {
  return queries.filter((q) => {
    const scores = Array.from(q.labels, (_, i) => scoreRow(model, fullRow(q, i)));
    const worstRelevant = Math.min(...scores.filter((_, i) => q.labels[i]));
    const bestOther = Math.max(...scores.filter((_, i) => !q.labels[i]));
    return worstRelevant > bestOther;
  }).length;
}

describe("binEdges", () => {
  it("cuts between distinct values, at most bins − 1 times", () => {
    assert.deepEqual([...binEdges(Float64Array.from([0, 1, 1, 0, 0.5]), 8)], [0.25, 0.75]);
    assert.deepEqual([...binEdges(Float64Array.from([2, 2, 2]), 8)], []);
    const many = binEdges(Float64Array.from({ length: 1000 }, (_, i) => i / 1000), 16);
    assert.ok(many.length <= 15 && many.length >= 14);
    for (let k = 1; k < many.length; k++) assert.ok(many[k] > many[k - 1]);
  });
});

describe("boostTrees", () => {
  // Relevant candidates have a name match of 0.65 or more, the others 0.35 or less (in steps of 0.05, so that every
  // value has a range of its own); the cosine and plain BM25 are noise.
  const step = (v: number) => Math.round(v * 20) / 20;
  const draw = (rel: boolean, next: () => number) => [step(rel ? 0.65 + 0.35 * next() : 0.35 * next()), next(), next()];
  const separable = querySet(60, 2, draw);

  for (const loss of ["softmax", "lambda"] as const) {
    it(`${loss}: separates a separable set, splitting first on the feature that separates it`, () => {
      const model = boostTrees(FEATURES, separable, { loss, trees: 20, depth: 2, minHessian: 0.1 });
      assert.equal(model.trees.length, 20);
      assert.equal(separated(model, separable), separable.length);
      assert.equal(model.trees[0].feature, "name");
      assert.equal(model.trees[0].threshold, 0.5);
      const fresh = querySet(30, 2, draw, 99);
      assert.equal(separated(model, fresh), fresh.length, "and ranks unseen queries of the same kind");
    });
  }

  it("learns an interaction no weighted sum can: relevant when exactly one of two features is high", () => {
    const xor = querySet(80, 1, (rel, next) => {
      const a = next() < 0.5;
      const high = (on: boolean) => (on ? 0.6 + 0.4 * next() : 0.4 * next());
      // Relevant: one of name, cosine high and the other low; the rest: both high or both low.
      return rel ? [high(a), high(!a), next()] : [high(a), high(a), next()];
    });
    const model = boostTrees(FEATURES, xor, { trees: 60, depth: 2, minHessian: 0.1 });
    assert.ok(separated(model, xor) >= 0.95 * xor.length, `${separated(model, xor)} of ${xor.length}`);
    assert.ok(!treeFeatures(model.trees[0]).has("plain") || model.trees.length > 1);
  });

  it("writes a valid model, centred trees, values on the binary grid: parts add up to the score exactly", () => {
    const model = boostTrees(FEATURES, separable, { trees: 15, depth: 3, minHessian: 0.1 });
    checkModel({ version: 1, hybrid: model }, "trained");
    for (const tree of model.trees) assert.equal(tree.value, 0);
    const values = (node: TreeModel["trees"][number]): number[] => [node.value, ...(node.left ? [...values(node.left), ...values(node.right!)] : [])];
    for (const v of model.trees.flatMap(values)) assert.ok(Number.isInteger(v * 65536), `${v} on the grid`);
    for (const q of separable.slice(0, 10)) {
      for (let i = 0; i < q.labels.length; i++) {
        const row = fullRow(q, i);
        assert.equal(contributions(model, row).reduce((s, p) => s + p.contribution, 0), scoreRow(model, row));
      }
    }
  });

  it("is deterministic, and a query's weight counts: a heavier set's pattern wins where two disagree", () => {
    assert.deepEqual(boostTrees(FEATURES, separable, { trees: 5 }), boostTrees(FEATURES, separable, { trees: 5 }));
    // One set says the name matters, the other the cosine; weighted 9:1 the first one's relevant candidates win.
    const byName = querySet(40, 1, (rel, next) => [rel ? 0.7 + 0.3 * next() : 0.5 * next(), 0.5 * next(), next()], 1);
    const byCosine = querySet(40, 1, (rel, next) => [0.5 * next(), rel ? 0.7 + 0.3 * next() : 0.5 * next(), next()], 2);
    const mixed = [...byName.map((q) => ({ ...q, weight: 9 })), ...byCosine];
    const model = boostTrees(FEATURES, mixed, { trees: 1, depth: 1, minHessian: 0.1 });
    assert.equal(model.trees[0].feature, "name");
    const flipped = boostTrees(FEATURES, [...byName, ...byCosine.map((q) => ({ ...q, weight: 9 }))], { trees: 1, depth: 1, minHessian: 0.1 });
    assert.equal(flipped.trees[0].feature, "cosine");
  });

  it("boosts from a linear model: keeps its weights, starts from its order and corrects it", () => {
    // A linear model that ranks by the noise (plain BM25 here) and against the name.
    const weights = [-1, 0, 2];
    const model = boostTrees(FEATURES, separable, { trees: 30, depth: 2, minHessian: 0.1, weights });
    assert.deepEqual(model.weights, weights);
    const linearAlone: TreeModel = { kind: "trees", features: FEATURES, weights, trees: [{ value: 0 }] };
    assert.ok(separated(linearAlone, separable) < separable.length / 2);
    assert.equal(separated(model, separable), separable.length);
    assert.equal(model.trees[0].feature, "name");
  });

  it("trains nothing from queries without a relevant candidate", () => {
    const none = querySet(10, 0, (_, next) => [next(), next(), next()]);
    const model = boostTrees(FEATURES, none, { trees: 3 });
    for (const tree of model.trees) assert.deepEqual(tree, { value: 0 });
  });
});
