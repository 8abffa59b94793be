import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { Bm25fIndex } from "../../src/engines/bm25f.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { PLAIN_TOOL_BM25 } from "../../src/indexes/tool-index-options.js";
import { fuzzParameters } from "../fuzz/settings.js";

/** A seeded generator, so every run builds the same corpus. */
function random(seed: number): () => number {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

/** Words with a skewed (Zipf-like) frequency, so some lists are long and some short, as in real catalogs. */
function corpus(size: number, next: () => number): { index: Bm25fIndex; draw: () => string } {
  const draw = () => `w${Math.floor(400 * next() ** 3)}`;
  const index = new Bm25fIndex({ fields: [{ name: "name", weight: 3 }, { name: "body" }, { name: "category", weight: 0 }] });
  for (let i = 0; i < size; i++) {
    index.add(`t${i}`, [Array.from({ length: 2 }, draw), Array.from({ length: 3 + Math.floor(next() * 20) }, draw), [draw()]]);
  }
  return { index, draw };
}

describe("BM25F search with MaxScore pruning", () => {
  it("returns exactly what the exhaustive search returns, scores included", () => {
    const next = random(17);
    const { index, draw } = corpus(3000, next);
    for (let q = 0; q < 300; q++) {
      const terms = Array.from({ length: 1 + Math.floor(next() * 30) }, draw);
      for (const limit of [1, 10, 50]) {
        assert.deepEqual(index.search(terms, limit, { fuzzy: false }), index.search(terms, limit, { fuzzy: false, exhaustive: true }), terms.join(" "));
      }
    }
  });

  it("stays exact after removals and re-adds reuse slots", () => {
    const next = random(5);
    const { index, draw } = corpus(500, next);
    for (let i = 0; i < 500; i += 3) index.remove(`t${i}`);
    for (let i = 0; i < 100; i++) index.add(`n${i}`, [[draw()], Array.from({ length: 8 }, draw), [draw()]]);
    for (let q = 0; q < 100; q++) {
      const terms = Array.from({ length: 1 + Math.floor(next() * 20) }, draw);
      assert.deepEqual(index.search(terms, 10, { fuzzy: false }), index.search(terms, 10, { fuzzy: false, exhaustive: true }));
    }
  });

  it("returns exactly the exhaustive result on any corpus and query (property)", () => {
    // Few distinct words, so lists overlap heavily and many scores tie exactly (copied items), which is where a
    // bound that is off by a rounding error would drop an item that ties the k-th.
    const word = fc.integer({ min: 0, max: 11 }).map((i) => `w${i * i}`);
    const item = fc.tuple(fc.array(word, { maxLength: 3 }), fc.array(word, { maxLength: 12 }), fc.array(word, { maxLength: 2 }));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(item, fc.nat({ max: 2 })), { minLength: 1, maxLength: 60 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.array(word, { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 1, max: 12 }),
        (items, removals, query, limit) => {
          const index = new Bm25fIndex({ fields: [{ name: "name", weight: 3 }, { name: "body" }, { name: "category", weight: 0 }] });
          items.forEach(([fields, copies], i) => {
            for (let c = 0; c <= copies; c++) index.add(`t${i}.${c}`, fields);
          });
          for (const r of removals) index.remove(`t${r % items.length}.0`);
          const exhaustive = index.search(query, limit, { fuzzy: false, exhaustive: true });
          assert.deepEqual(index.search(query, limit, { fuzzy: false }), exhaustive);
        },
      ),
      fuzzParameters(300),
    );
  });

  it("answers a limit of 0 with nothing", () => {
    const { index, draw } = corpus(50, random(3));
    assert.deepEqual(index.search([draw(), draw()], 0), []);
  });

  it("never lists an id twice, even when a query word hits only a field of weight 0", () => {
    const index = new Bm25fIndex({ fields: [{ name: "name" }, { name: "category", weight: 0 }] });
    index.add("a", [["weather"], ["finance"]]);
    index.add("b", [["stock", "finance"], ["finance"]]);
    const hits = index.search(["finance", "stock", "weather", "finance"], 10);
    assert.deepEqual(hits.map((h) => h.id), ["b", "a"]);
  });
});

describe("plain BM25 reference (bm25.bag)", () => {
  it("scores every field as one bag with Okapi BM25, k1 0.9, b 0.4", () => {
    const tools = [
      { name: "get_weather", description: "Current weather", input_schema: { type: "object", properties: {} }, category: "Forecast" },
      { name: "get_forecast", description: "Weather forecast for days", input_schema: { type: "object", properties: { days: { type: "integer" } } } },
      { name: "stock_price", description: "Latest price", input_schema: { type: "object", properties: {} }, category: "Finance" },
    ];
    const index = new ToolIndex([], { bm25: PLAIN_TOOL_BM25 });
    for (const tool of tools) index.add(tool);
    // Bags after analysis: get_weather → get weather getweath current weather forecast (6 terms);
    // get_forecast → get forecast getforecast weather forecast day day (7); stock_price → stock price stockpric latest price financ (6).
    const avg = (6 + 7 + 6) / 3;
    const idf = (df: number) => Math.log(1 + (3 - df + 0.5) / (df + 0.5));
    const part = (tf: number, len: number, df: number) => (idf(df) * tf * 1.9) / (tf + 0.9 * (0.6 + (0.4 * len) / avg));
    const hits = index.searchSync("forecast", { limit: 3 });
    assert.deepEqual(hits.map((h) => h.name), ["get_forecast", "get_weather"]);
    assert.ok(Math.abs(hits[0].score - part(2, 7, 2)) < 1e-9, `${hits[0].score} vs ${part(2, 7, 2)}`);
    assert.ok(Math.abs(hits[1].score - part(1, 6, 2)) < 1e-9);
    // The category counts like any other word (it weighs 0 in the tuned defaults' BM25F).
    assert.equal(index.searchSync("finance", { limit: 3 })[0]?.name, "stock_price");
  });
});
