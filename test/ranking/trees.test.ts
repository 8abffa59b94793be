/**
 * The tree kind of learned model (`src/ranking/trees.ts`): walking the trees, the Saabas parts of a score, and what
 * `model.json` refuses.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatExplanation } from "../../src/cli/commands/explain.js";
import { Embedder } from "../../src/embeddings/embedder.js";
import { ToolsearchError } from "../../src/errors.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { FEATURE_NAMES, featureIndex, featureRows, type FeatureName } from "../../src/ranking/features.js";
import { checkModel, contributions, readsClauses, scoreRow } from "../../src/ranking/model.js";
import { rankLearned } from "../../src/ranking/rank.js";
import { scoreTrees, treeContributions, type TreeModel } from "../../src/ranking/trees.js";
import { LetterProvider } from "../helpers/letter-provider.js";
import { rankerTools } from "../helpers/ranker-tools.js";

/** A row with the given features set and every other one 0. */
function row(values: Partial<Record<FeatureName, number>>): Float64Array {
  const out = new Float64Array(FEATURE_NAMES.length);
  for (const [name, value] of Object.entries(values)) out[featureIndex(name as FeatureName)] = value;
  return out;
}

/**
 * Two hand-made trees. The first: cosine ≤ 0.5 → (name ≤ 0.25 → -1, else 0.5), else 2; its root holds 0.25, so its
 * part of a score is leaf − 0.25. The second: a single leaf (adds nothing), to show a leaf tree is allowed.
 */
const hand: TreeModel = {
  kind: "trees",
  features: ["cosine", "name", "plain"],
  trees: [
    {
      value: 0.25,
      feature: "cosine",
      threshold: 0.5,
      left: { value: -0.5, feature: "name", threshold: 0.25, left: { value: -1 }, right: { value: 0.5 } },
      right: { value: 2 },
    },
    { value: 3 },
  ],
};

describe("tree model", () => {
  it("walks each tree to its leaf (≤ goes left) and sums leaf − root", () => {
    assert.equal(scoreTrees(hand, row({ cosine: 0.9 })), 2 - 0.25);
    assert.equal(scoreTrees(hand, row({ cosine: 0.5, name: 0.25 })), -1 - 0.25);
    assert.equal(scoreTrees(hand, row({ cosine: 0.2, name: 0.3 })), 0.5 - 0.25);
    assert.equal(scoreRow(hand, row({ cosine: 0.2, name: 0.3 })), 0.25);
  });

  it("credits each split's change of value to its feature (Saabas); the parts add up to the score", () => {
    assert.deepEqual(treeContributions(hand, row({ cosine: 0.9 })), [1.75, 0, 0]);
    assert.deepEqual(treeContributions(hand, row({ cosine: 0.1, name: 0.9 })), [-0.75, 1, 0]);
    for (const r of [row({ cosine: 0.9 }), row({ cosine: 0.1 }), row({ cosine: 0.1, name: 0.9, plain: 1 })]) {
      const parts = contributions(hand, r);
      assert.deepEqual(parts.map((p) => p.feature), hand.features);
      assert.equal(parts.reduce((s, p) => s + p.contribution, 0), scoreRow(hand, r));
      assert.equal(parts[0].value, r[featureIndex("cosine")]);
      assert.equal(parts[0].weight, undefined, "a tree has no weight per feature");
    }
  });

  it("with weights, adds a linear model's score, each weight × value part of its feature's", () => {
    const boosted: TreeModel = { ...hand, weights: [2, -1, 0.5] };
    const r = row({ cosine: 0.75, name: 0.5, plain: 1 });
    assert.equal(scoreTrees(boosted, r), 2 * 0.75 - 0.5 + 0.5 + (2 - 0.25));
    const parts = contributions(boosted, r);
    assert.deepEqual(parts.map((p) => [p.weight, p.contribution]), [[2, 1.5 + 1.75], [-1, -0.5], [0.5, 0.5]]);
    assert.ok(Math.abs(parts.reduce((s, p) => s + p.contribution, 0) - scoreRow(boosted, r)) < 1e-12);
    // The weights put every feature into the score: the clauses' evidence is needed when a part_ feature is listed.
    assert.equal(readsClauses({ ...boosted, features: [...hand.features, "part_name"], weights: [2, -1, 0.5, 1] }), true);
  });

  it("reads the clauses only when it splits on a part_ feature or covers them", () => {
    assert.equal(readsClauses(hand), false);
    assert.equal(readsClauses({ ...hand, coverage: 0.2 }), true);
    const part: TreeModel = { kind: "trees", features: ["part_cosine"], trees: [{ value: 0, feature: "part_cosine", threshold: 0.4, left: { value: 0 }, right: { value: 1 } }] };
    assert.equal(readsClauses(part), true);
    // Listed but never split on: the evidence of the clauses is not needed.
    assert.equal(readsClauses({ ...hand, features: [...hand.features, "part_name"] }), false);
  });
});

describe("model.json with trees", () => {
  const refused = (model: unknown, rule: RegExp) =>
    assert.throws(() => checkModel(model, "m.json"), (e: unknown) => e instanceof ToolsearchError && e.code === "invalid_option" && /^m\.json: ranker model /.test(e.message) && rule.test(e.message));

  it("accepts a tree model and a linear one with or without its kind", () => {
    assert.equal(checkModel({ version: 1, hybrid: hand }, "m.json").hybrid, hand);
    checkModel({ version: 1, lexical: { kind: "linear", features: ["plain"], weights: [1] } }, "m.json");
    checkModel({ version: 1, lexical: { features: ["plain"], weights: [1] } }, "m.json");
  });

  it("refuses an unknown kind, and trees that are empty, malformed or read features the model does not list", () => {
    refused({ version: 1, hybrid: { ...hand, kind: "forest" } }, /hybrid: kind "forest" is not one of linear, trees/);
    refused({ version: 1, hybrid: { ...hand, trees: [] } }, /hybrid: trees must be a non-empty array/);
    refused({ version: 1, hybrid: { ...hand, trees: undefined } }, /hybrid: trees must be a non-empty array/);
    refused({ version: 1, lexical: { ...hand, features: ["cosine", "made_up"] } }, /lexical: unknown feature "made_up"/);
    refused({ version: 1, hybrid: { ...hand, features: ["cosine"] } }, /hybrid: trees\[0\]\.left\.feature "name" is not one of the model's features/);
    refused({ version: 1, hybrid: { ...hand, trees: [{ value: "1" }] } }, /trees\[0\]\.value must be a finite number/);
    refused({ version: 1, hybrid: { ...hand, trees: [{ value: 0, feature: "cosine", threshold: 0.5, left: { value: 1 } }] } }, /trees\[0\] splits, so it needs both left and right/);
    refused({ version: 1, hybrid: { ...hand, trees: [{ value: 0, feature: "cosine", left: { value: 1 }, right: { value: 2 } }] } }, /trees\[0\]\.threshold must be a finite number/);
    refused({ version: 1, hybrid: { ...hand, trees: [hand.trees[0], { value: 0, feature: "cosine", threshold: 1, left: { value: null }, right: { value: 2 } }] } }, /trees\[1\]\.left\.value must be a finite number/);
    refused({ version: 1, hybrid: { ...hand, coverage: 1.5 } }, /coverage must be a number from 0 to 1/);
    refused({ version: 1, hybrid: { ...hand, weights: [1, 2] } }, /hybrid: features and weights must be arrays of the same length/);
    refused({ version: 1, hybrid: { ...hand, weights: [1, 2, Number.NaN] } }, /hybrid: weights must be finite numbers/);
  });
});

describe("ToolIndex with a tree model", () => {
  const tools = rankerTools();
  /** Made-up trees over lexical and dense features, values on the binary grid the trainer writes. */
  const trees: TreeModel = {
    kind: "trees",
    features: ["plain", "name", "cover", "cosine", "part_cover"],
    trees: [
      { value: 0, feature: "plain", threshold: 0.5, left: { value: -0.5, feature: "cosine", threshold: 0.3, left: { value: -1 }, right: { value: 0.25 } }, right: { value: 1.5 } },
      { value: 0, feature: "name", threshold: 0.1, left: { value: -0.125 }, right: { value: 0.75, feature: "part_cover", threshold: 0.5, left: { value: 0.5 }, right: { value: 1 } } },
      { value: 0, feature: "cover", threshold: 0.6, left: { value: -0.25 }, right: { value: 0.375 } },
    ],
  };
  const index = new ToolIndex(tools, { bm25: { fit: false }, embedder: new Embedder(new LetterProvider()), ranker: { version: 1, hybrid: trees, lexical: trees } });

  it("ranks by the trees' score, and explain's parts add up to it", async () => {
    for (const engine of ["bm25", "hybrid"] as const) {
      for (const query of ["weather in a city", "latest stock price and chart it", "send a message"]) {
        const found = (await index.rankerEvidence(query, { engine }))!;
        assert.equal(found.model, trees);
        const expected = rankLearned(trees, found.evidence);
        const rows = featureRows(found.evidence);
        for (const hit of expected) assert.equal(hit.score, scoreTrees(trees, rows[found.evidence.candidates.findIndex((c) => c.id === hit.id)]));
        const hits = await index.search(query, { engine, limit: 10 });
        assert.deepEqual(hits.map((h) => h.name), expected.slice(0, 10).map((h) => h.id), `${engine}: ${query}`);
        for (const [at, hit] of hits.entries()) {
          const why = await index.explain(query, hit.name, { engine });
          assert.equal(why.rank, at + 1);
          assert.equal(why.ranker!.score, hit.score);
          assert.equal(why.ranker!.features.reduce((s, f) => s + f.contribution, 0), why.ranker!.score);
        }
      }
    }
    const shown = formatExplanation(await index.explain("weather in a city", "get_weather", { engine: "hybrid" })).join("\n");
    assert.match(shown, /Learned ranker \(hybrid model\) score/);
    assert.match(shown, /\bcosine\s+\S+\s+—/);
  });
});
