import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { expansionTerms, LEXICAL_FEEDBACK } from "../../src/ranking/lexical-feedback.js";

describe("lexical feedback's expansion terms", () => {
  it("weighs each term by its frequency in the feedback tools times its idf, best first, ties by term", () => {
    const tools = [
      [{ term: "weather", tf: 2, idf: 1 }, { term: "city", tf: 1, idf: 0.5 }, { term: "forecast", tf: 1, idf: 2 }],
      [{ term: "weather", tf: 1, idf: 1 }, { term: "rain", tf: 1, idf: 1.5 }, { term: "alerts", tf: 1, idf: 1.5 }],
    ];
    // weather 3, forecast 2, alerts 1.5 = rain 1.5 (ties by term), city 0.5.
    assert.deepEqual(expansionTerms(tools, 10), ["weather", "forecast", "alerts", "rain", "city"]);
    assert.deepEqual(expansionTerms(tools, 2), ["weather", "forecast"]);
    assert.equal(LEXICAL_FEEDBACK.terms, 10);
  });

  it("keeps letters only, drops terms of no weight, and takes nothing from tools it is not given", () => {
    const tools = [[{ term: "v2", tf: 5, idf: 3 }, { term: "2024", tf: 5, idf: 3 }, { term: "météo", tf: 1, idf: 1 }, { term: "the", tf: 9, idf: 0 }]];
    assert.deepEqual(expansionTerms(tools), ["météo"]);
    assert.deepEqual(expansionTerms([]), []);
  });
});
