import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { expandQuery, FEEDBACK } from "../../src/embeddings/feedback.js";
import { VectorIndex } from "../../src/engines/vector.js";

const unit = (v: number[]) => {
  const norm = Math.hypot(...v);
  return Float32Array.from(v, (x) => x / norm);
};
const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i], 0);
const close = (a: ArrayLike<number>, b: ArrayLike<number>, what: string) => {
  assert.equal(a.length, b.length);
  for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i] - b[i]) < 1e-5, `${what}[${i}]: ${a[i]} vs ${b[i]}`);
};

/** Tools in 4 dimensions: three close to the query's topic (axis 0) but each leaning its own way, one far off. */
const tools: Record<string, number[]> = {
  narrow: [1, 0.05, 0, 0],
  general: [0.8, 0.6, 0, 0],
  other: [0.7, 0.5, 0.2, 0],
  far: [0, 0, 0.2, 1],
};

for (const kernel of ["auto", "js"] as const) {
  function index(entries: Record<string, number[]>): VectorIndex {
    const vectors = new VectorIndex(4, 8, { kernel });
    for (const [id, v] of Object.entries(entries)) vectors.set(id, Float32Array.from(v));
    return vectors;
  }

  describe(`pseudo-relevance feedback (Rocchio) on the ${kernel} kernel`, () => {
    it("moves each sentence toward the mean of the ranking's first few tools, by Rocchio's weights", () => {
      const vectors = index(tools);
      const query = unit([1, 0, 0, 0]);
      const [moved] = expandQuery([query], ["narrow", "general", "other", "far"], vectors);
      // By hand: the first 3 of the ranking are narrow, general, other.
      const top = ["narrow", "general", "other"].map((id) => unit(tools[id]));
      const mean = top[0].map((_, i) => (top[0][i] + top[1][i] + top[2][i]) / 3);
      const expected = unit(Array.from(query, (x, i) => x + FEEDBACK.weight * mean[i]));
      close(moved, expected, "moved");
      // The moved query is closer to the tools that fed it than the query was; the tool the query already favoured
      // most (narrow) loses ground to the general one.
      const centroid = unit([...mean]);
      assert.ok(dot(moved, centroid) > dot(query, centroid));
      const gap = (q: Float32Array) => dot(q, unit(tools.narrow)) - dot(q, unit(tools.general));
      assert.ok(gap(moved) < gap(query), `${gap(moved)} < ${gap(query)}`);
      assert.ok(Math.abs(Math.hypot(...moved) - 1) < 1e-6);
    });

    it("reads only the first few of the ranking: a tool past them moves nothing, until more are read", () => {
      const query = unit([1, 0, 0, 0]);
      const ranked = ["narrow", "general", "other", "far"];
      const [before] = expandQuery([query], ranked, index(tools));
      const [after] = expandQuery([query], ranked, index({ ...tools, far: [0, 0, 1, 0.3] }));
      close(after, before, "moved");
      const [four] = expandQuery([query], ranked, index(tools), { ...FEEDBACK, tools: 4 });
      assert.ok(Math.abs(four[3] - before[3]) > 1e-3);
    });

    it("moves every sentence toward the same top tools, however close each sentence is to them", () => {
      const vectors = index(tools);
      const first = unit([1, 0, 0, 0]);
      const second = unit([0, 0, 0.1, 1]);
      // "far" ranked first although the first sentence is orthogonal to it: the ranking, not the cosine, chooses;
      // a ranked id without a vector ("missing") takes its place among the few and adds nothing.
      const ranked = ["far", "other", "missing", "general", "narrow"];
      const mean = vectors.mean(["far", "other", "missing"])!;
      const moved = expandQuery([first, second], ranked, vectors);
      close(moved[0], unit(Array.from(first, (x, i) => x + FEEDBACK.weight * mean[i])), "first");
      close(moved[1], unit(Array.from(second, (x, i) => x + FEEDBACK.weight * mean[i])), "second");
    });

    it("with one tool ranked, moves toward it alone; with none that has a vector, keeps a copy of the query", () => {
      const vectors = index(tools);
      const query = unit([0.6, 0, 0.8, 0]);
      const [one] = expandQuery([query], ["general"], vectors);
      close(one, unit(Array.from(query, (x, i) => x + FEEDBACK.weight * unit(tools.general)[i])), "one");
      for (const ranked of [["missing"], []]) {
        const [none] = expandQuery([query], ranked, vectors);
        close(none, query, "none");
        assert.notEqual(none, query, "a copy, not the caller's vector");
      }
      assert.deepEqual(expandQuery([], ["general"], vectors), []);
    });

    it("the mean of the index's unit vectors, skipping ids without one", () => {
      const vectors = index(tools);
      const mean = vectors.mean(["narrow", "missing", "far"])!;
      close(mean, unit(tools.narrow).map((x, i) => (x + unit(tools.far)[i]) / 2), "mean");
      assert.equal(vectors.mean(["missing"]), undefined);
    });
  });
}
