import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Explanation } from "../../src/indexes/explain.js";
import { buildReportData, latencyHistograms } from "../../src/eval/report-data.js";
import type { LabelledQuery } from "../../src/eval/queries.js";
import { evaluateRuns } from "../../src/eval/runner.js";

const queries: LabelledQuery[] = [
  { id: "a", query: "alpha", relevant: ["x"] },
  { id: "b", query: "beta", relevant: ["y", "z"] },
  { id: "c", query: "gamma", relevant: ["z"] },
];
/** Two fake engines with fixed answers: "good" finds everything, "half" misses y and z. */
const answers: Record<string, Record<string, string[]>> = {
  good: { alpha: ["x"], beta: ["z", "y"], gamma: ["z"] },
  half: { alpha: ["x", "w"], beta: ["w"], gamma: [] },
};
const searchers = Object.fromEntries(Object.entries(answers).map(([engine, byQuery]) => [engine, (q: string) => byQuery[q]]));

describe("report data", () => {
  it("lists only the queries an engine missed, with each engine's results and the missing items explained", async () => {
    const { report, runs } = await evaluateRuns(queries, searchers);
    const asked: string[] = [];
    const explain = async (engine: string, query: string, id: string): Promise<Explanation> => {
      asked.push(`${engine}:${query}:${id}`);
      return { name: id, engine, query, rank: null, score: 0, above: 1, outranked_by: [{ name: "w", score: 0.123456789 }] };
    };
    const data = await buildReportData(queries, report, runs, { explain });
    assert.deepEqual(data.missed.map((m) => [m.id, m.missed]), [["b", ["half"]], ["c", ["half"]]]);
    assert.deepEqual(asked, ["half:beta:y", "half:beta:z", "half:gamma:z"]);
    const b = data.missed[0];
    assert.deepEqual(b.relevant.map((i) => data.names[i]), ["y", "z"]);
    assert.deepEqual(b.results.half.map((i) => data.names[i]), ["w"]);
    assert.equal(b.explanations!.half[0].outranked_by[0].score, 0.123457, "scores rounded to 6 significant digits");
    assert.equal(b.explanations!.half[0].query, undefined, "the row's own query is not repeated");
    assert.deepEqual(data.recall_at_k.good, [2.5 / 3, ...new Array(9).fill(1)], "beta's first hit is one of its two");
    assert.deepEqual(data.recall_at_k.half.map((r) => Math.round(r * 1000) / 1000), new Array(10).fill(0.333));
    assert.equal(data.unexplained, 0);
  });

  it("stops explaining at the per-engine cap and says how many misses were left unexplained", async () => {
    const { report, runs } = await evaluateRuns(queries, searchers);
    const explain = async (engine: string, query: string, id: string): Promise<Explanation> => ({ name: id, engine, query, rank: null, score: 0, above: 0, outranked_by: [] });
    const data = await buildReportData(queries, report, runs, { explain, maxExplanations: 1 });
    assert.equal(data.unexplained, 1);
    assert.ok(data.missed[0].explanations);
    assert.equal(data.missed[1].explanations, undefined);
  });

  it("latency histograms share log-spaced bins and count every query", () => {
    const { edges, engines } = latencyHistograms([["fast", [0.1, 0.2, 0.2, 0.4]], ["slow", [1, 2, 8, 100]]]);
    assert.equal(edges.length, 31);
    assert.ok(Math.abs(edges[0] - 0.1) < 1e-12 && Math.abs(edges[30] - 100) < 1e-9);
    const ratios = edges.slice(1).map((e, i) => e / edges[i]);
    assert.ok(ratios.every((r) => Math.abs(r - ratios[0]) < 1e-9), "log-spaced");
    assert.equal(engines.fast.counts.reduce((a, b) => a + b), 4);
    assert.equal(engines.slow.counts.reduce((a, b) => a + b), 4);
    assert.equal(engines.slow.counts[29], 1, "the slowest query lands in the last bin");
    assert.equal(engines.slow.max, 100);
    assert.equal(engines.fast.p50, 0.2);
  });
});
