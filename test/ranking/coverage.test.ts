import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Ranked } from "../../src/engines/top-k.js";
import { coverClauses, softmax } from "../../src/ranking/coverage.js";

const list = (...pairs: [string, number][]): Ranked[] => pairs.map(([id, score]) => ({ id, score }));
const ids = (ranked: Ranked[]) => ranked.map((hit) => hit.id);

// The model's scores for "latest news about Tesla and chart its stock": news tools fill the top.
const whole = list(["news_a", 5], ["news_b", 4.8], ["news_c", 4.6], ["stock_chart", 4.2], ["weather", 1]);
const newsClause = list(["news_a", 6], ["news_b", 5.5], ["news_c", 5.4], ["stock_chart", 1], ["weather", 0]);
const stockClause = list(["stock_chart", 6], ["news_a", 1], ["news_b", 0.5], ["news_c", 0.5], ["weather", 0]);

describe("coverage of a request's clauses", () => {
  it("turns scores into probabilities that add up to 1, in the scores' order", () => {
    const p = softmax(whole);
    assert.ok(Math.abs([...p.values()].reduce((a, b) => a + b, 0) - 1) < 1e-12);
    assert.ok(p.get("news_a")! > p.get("news_b")! && p.get("news_b")! > p.get("stock_chart")!);
    // Shifting every score by the same amount changes nothing.
    assert.deepEqual([...softmax(whole.map((h) => ({ id: h.id, score: h.score + 1000 }))).values()].map((x) => x.toFixed(12)), [...p.values()].map((x) => x.toFixed(12)));
  });

  it("brings the best tool of an uncovered clause up beside the best of the other", () => {
    const covered = coverClauses(whole, [newsClause, stockClause], 0.5);
    // The stock clause is sure of its tool, the news clause split between three: both lead, before news_b.
    assert.deepEqual(new Set(ids(covered).slice(0, 2)), new Set(["news_a", "stock_chart"]));
    assert.deepEqual(ids(covered).slice(2), ["news_b", "news_c", "weather"]);
    assert.deepEqual(new Set(ids(covered)), new Set(ids(whole)));
    // Each place is scored by what it had when placed: the scores fall down the list.
    for (let i = 1; i < covered.length; i++) assert.ok(covered[i].score <= covered[i - 1].score);
  });

  it("keeps the model's order with weight 0, one clause, or clauses that favour no tool", () => {
    assert.deepEqual(ids(coverClauses(whole, [newsClause, stockClause], 0)), ids(whole));
    assert.deepEqual(ids(coverClauses(whole, [stockClause], 0.5)), ids(whole));
    const flat = whole.map((h) => ({ id: h.id, score: 0 }));
    assert.deepEqual(ids(coverClauses(whole, [flat, flat], 0.5)), ids(whole));
  });

  it("sorts an unsorted input and breaks ties as every engine does (by id)", () => {
    const shuffled = [whole[3], whole[0], whole[4], whole[2], whole[1]];
    assert.deepEqual(ids(coverClauses(shuffled, [newsClause], 0.5)), ids(whole));
    assert.deepEqual(ids(coverClauses(list(["b", 1], ["a", 1]), [], 0.5)), ["a", "b"]);
  });
});
