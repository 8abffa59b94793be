import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Ranked } from "../../src/engines/top-k.js";
import { createAnalyzer } from "../../src/text/analyzer.js";
import { LearnedSignal } from "../../src/usage/learned.js";
import { UsageRanking } from "../../src/usage/ranking.js";

const analyzer = createAnalyzer();
const exists = () => true;

/** A signal that learned "rain" → tool_7 (40 calls) and "city" → tool_30 (40 calls): "rain" lifts tool_7. */
function ranking(): UsageRanking {
  const signal = new LearnedSignal(analyzer);
  const at = Date.now();
  for (let i = 0; i < 40; i++) signal.add({ query: "rain", tool: "tool_7", at });
  for (let i = 0; i < 40; i++) signal.add({ query: "city", tool: "tool_30", at });
  const usage = new UsageRanking(analyzer);
  usage.setLearned(signal);
  return usage;
}

/** 60 candidates, best first: `score(rank)` gives each its engine score. */
function list(score: (rank: number) => number): Ranked[] {
  return Array.from({ length: 60 }, (_, i) => ({ id: `tool_${i}`, score: score(i) }));
}

const order = (usage: UsageRanking, ranked: Ranked[]) =>
  usage.rerank("rain", ["rain"], ranked, 60, {}, exists).map((h) => h.id);

describe("learned blend", () => {
  it("measures the learned part against the engine's own spread: scaling or shifting its scores changes nothing", () => {
    const usage = ranking();
    const steep = list((i) => 10 / (1 + i));
    const base = order(usage, steep);
    assert.notDeepEqual(base, steep.map((h) => h.id), "history moves tools");
    assert.deepEqual(order(usage, steep.map((h) => ({ ...h, score: h.score * 37 }))), base, "scaled");
    assert.deepEqual(order(usage, steep.map((h) => ({ ...h, score: h.score + 1000 }))), base, "shifted");
  });

  it("moves a tool as far in a flat list as in a steep one of the same order", () => {
    // The same ranking, once with scores spread over 0.1–1 and once crowded into 0.99–1 (as fused lists can be).
    const usage = ranking();
    const linear = (i: number) => 1 - (0.9 * i) / 59;
    const flat = (i: number) => 1 - (0.01 * i) / 59;
    assert.deepEqual(order(usage, list(flat)), order(usage, list(linear)));
  });

  it("explain's learned contribution is what the blend added", () => {
    const usage = ranking();
    const ranked = list((i) => 5 - i / 20);
    const blended = usage.rerank("rain", ["rain"], ranked, 60, {}, exists);
    const hit = blended.find((h) => h.id === "tool_7")!;
    const why = usage.explain("rain", "tool_7", ranked, {}, exists);
    assert.ok(why.learned && why.learned.contribution > 0);
    assert.ok(Math.abs(hit.score - ranked[7].score - why.learned.contribution) < 1e-9);
  });

  it("keeps a tool never called ahead of tools that familiar words split between them", () => {
    // Every word of the query led somewhere, but to three tools: history leaves the choice open, so the best text
    // match (never called) stays first, however close the known tools are behind it.
    const signal = new LearnedSignal(analyzer);
    const at = Date.now();
    for (const tool of ["tool_1", "tool_2", "tool_3"]) for (let i = 0; i < 20; i++) signal.add({ query: "weather city", tool, at });
    const usage = new UsageRanking(analyzer);
    usage.setLearned(signal);
    const ranked = list((i) => (i === 0 ? 1 : 0.99 - i / 100));
    const terms = analyzer.analyze("weather city");
    const top = usage.rerank("weather city", terms, ranked, 5, {}, exists);
    assert.equal(top[0].id, "tool_0");
    assert.deepEqual(top.slice(1, 4).map((h) => h.id).sort(), ["tool_1", "tool_2", "tool_3"]);
  });
});
