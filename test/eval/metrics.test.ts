import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ndcgAt, percentile, recallAt, reciprocalRankAt } from "../../src/eval/metrics.js";
import { evaluate } from "../../src/eval/runner.js";
import { patternFromQuery } from "../../src/eval/regex-pattern.js";

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} ≉ ${b}`);

describe("SPEC §5 metrics", () => {
  const relevant = new Set(["a", "b"]);
  const ranked = ["x", "a", "y", "b"];

  it("recall@k", () => {
    close(recallAt(1, ranked, relevant), 0);
    close(recallAt(2, ranked, relevant), 0.5);
    close(recallAt(5, ranked, relevant), 1);
  });

  it("nDCG@10 with binary gains and IDCG over min(|R|, 10)", () => {
    const dcg = 1 / Math.log2(3) + 1 / Math.log2(5);
    const idcg = 1 + 1 / Math.log2(3);
    close(ndcgAt(10, ranked, relevant), dcg / idcg);
    close(ndcgAt(10, ["a", "b"], relevant), 1);
    close(ndcgAt(10, ["x"], relevant), 0);
    const many = new Set(Array.from({ length: 20 }, (_, i) => `r${i}`));
    close(ndcgAt(10, [...many].slice(0, 10), many), 1);
  });

  it("MRR@10 counts only the top 10", () => {
    close(reciprocalRankAt(10, ranked, relevant), 0.5);
    close(reciprocalRankAt(10, [...Array(10).fill("z"), "a"], relevant), 0);
  });

  it("percentile by nearest rank", () => {
    assert.equal(percentile([5, 1, 3, 2, 4], 0.5), 3);
    assert.equal(percentile(Array.from({ length: 100 }, (_, i) => i + 1), 0.99), 99);
    assert.equal(percentile([], 0.5), 0);
  });
});

describe("evaluate", () => {
  it("averages over queries, engines side by side", async () => {
    const queries = [{ id: "1", query: "q1", relevant: ["a"] }, { id: "2", query: "q2", relevant: ["b"] }];
    const report = await evaluate(queries, { perfect: (q) => (q === "q1" ? ["a"] : ["b"]), half: () => ["a"] });
    assert.equal(report.queries, 2);
    close(report.engines.perfect["ndcg@10"], 1);
    close(report.engines.half["recall@1"], 0.5);
    close(report.engines.half["mrr@10"], 0.5);
    assert.ok(report.engines.half.p99_ms >= report.engines.half.p50_ms);
  });
});

describe("patternFromQuery", () => {
  it("takes the longest content words as escaped alternatives", () => {
    assert.equal(patternFromQuery("What is the weather forecast in Paris?"), "forecast|weather|paris");
    assert.equal(patternFromQuery("c++ (a.b)"), ".");
  });
});
