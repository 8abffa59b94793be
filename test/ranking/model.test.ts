import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { normalizeTools } from "../../src/catalog/load.js";
import { Embedder } from "../../src/embeddings/embedder.js";
import { SemanticStore } from "../../src/embeddings/semantic-store.js";
import { ToolsearchError } from "../../src/errors.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { FEATURE_NAMES, featureIndex, LEXICAL_FEATURES } from "../../src/ranking/features.js";
import { checkModel, contributions, type LinearModel, loadModel, type RankerModel, readsFeedback, scoreRow, shippedModel } from "../../src/ranking/model.js";
import { formatExplanation } from "../../src/cli/commands/explain.js";
import { LetterProvider } from "../helpers/letter-provider.js";

const tools = normalizeTools([
  { name: "get_weather", description: "Current weather for a city", input_schema: { type: "object", properties: { city: { type: "string" } } } },
  { name: "get_forecast", description: "Weather forecast for the next days", input_schema: { type: "object", properties: { days: { type: "integer" } } } },
  { name: "send_email", description: "Send an email message to a recipient", input_schema: { type: "object", properties: { to: { type: "string" } } } },
  { name: "stock_quote", description: "Latest stock price of a listed company", category: "finance", input_schema: { type: "object", properties: {} } },
  { name: "news_headlines", description: "Latest news headlines about a company or topic", input_schema: { type: "object", properties: {} } },
  { name: "chart_prices", description: "Chart a share price over a period", input_schema: { type: "object", properties: {} } },
]);

/** A model with made-up weights on every feature: what is tested is how it is applied, not what it learned. */
const model: RankerModel = {
  version: 1,
  hybrid: { features: [...FEATURE_NAMES], weights: FEATURE_NAMES.map((_, i) => ((i % 5) - 2) * 0.7 + 0.1) },
  lexical: { features: [...LEXICAL_FEATURES], weights: LEXICAL_FEATURES.map((_, i) => ((i % 3) - 1) * 0.9 + 0.2) },
};
const embedder = () => new Embedder(new LetterProvider());
const queries = ["weather in a city", "latest news about a company and chart its share price over the year", "send a message", "stock price"];

describe("ranker model file", () => {
  it("scores a model written before the name cosine features exactly as before: it reads its features by name", () => {
    const older: LinearModel = { features: ["bm25f", "cosine", "centrality", "split"], weights: [1.5, 2, -0.5, 0.25] };
    const row = Float64Array.from(FEATURE_NAMES, (_, i) => (i + 1) / 10);
    const before = scoreRow(older, row);
    row[featureIndex("name_cosine")] = 0.9;
    row[featureIndex("part_name_cosine")] = 0.95;
    assert.equal(scoreRow(older, row), before);
    assert.equal(before, 1.5 * row[featureIndex("bm25f")] + 2 * row[featureIndex("cosine")] - 0.5 * row[featureIndex("centrality")] + 0.25 * row[featureIndex("split")]);
    assert.deepEqual(checkModel({ version: 1, hybrid: older }, "older.json").hybrid, older);
    // The new features sit at the end, after every feature an older model may name.
    assert.deepEqual(FEATURE_NAMES.slice(-4), ["name_cosine", "part_name_cosine", "prf_cosine", "part_prf_cosine"]);
  });

  it("loads the shipped model, and every model it ships names known features", () => {
    const shipped = shippedModel();
    assert.equal(shipped.version, 1);
    for (const kind of ["hybrid", "lexical"] as const) {
      const m = shipped[kind];
      if (m) for (const f of m.features) assert.ok((FEATURE_NAMES as readonly string[]).includes(f));
    }
  });

  it("refuses a bad model with invalid_option naming the file and the rule", () => {
    const dir = mkdtempSync(join(tmpdir(), "ranker-"));
    const bad = (body: string) => {
      const file = join(dir, "model.json");
      writeFileSync(file, body);
      return assert.throws(() => loadModel(file), (e: unknown) => e instanceof ToolsearchError && e.code === "invalid_option" && e.message.includes(file));
    };
    bad("{");
    bad(JSON.stringify({ version: 2 }));
    bad(JSON.stringify({ version: 1, hybrid: { features: ["cosine"], weights: [] } }));
    bad(JSON.stringify({ version: 1, lexical: { features: ["made_up"], weights: [1] } }));
    bad(JSON.stringify({ version: 1, lexical: { features: ["plain"], weights: ["1"] } }));
    assert.deepEqual(checkModel({ version: 1 }, "x"), { version: 1 });
  });

  it("scores a row as the sum of its features' parts, the same every time", () => {
    const row = Float64Array.from(FEATURE_NAMES, (_, i) => (i + 1) / 7);
    const m = model.hybrid as LinearModel;
    const parts = contributions(m, row);
    assert.equal(parts.reduce((s, p) => s + p.contribution, 0), scoreRow(m, row));
    assert.equal(scoreRow(m, row), scoreRow(m, row));
    assert.equal(parts[featureIndex("cosine")].value, row[featureIndex("cosine")]);
  });
});

describe("ToolIndex with a learned ranker", () => {
  const learned = new ToolIndex(tools, { bm25: { fit: false }, embedder: embedder(), ranker: model });
  const before = new ToolIndex(tools, { bm25: { fit: false }, embedder: embedder(), ranker: false });

  it("with ranker: false ranks exactly as an index without the ranker (+noranker), ids and scores", async () => {
    for (const query of queries) {
      for (const engine of ["bm25", "hybrid"] as const) {
        assert.deepEqual(await learned.search(query, { engine, limit: 10, ranker: false }), await before.search(query, { engine, limit: 10 }), `${engine}: ${query}`);
      }
    }
  });

  it("ranks the candidates by the model's score", async () => {
    for (const query of queries) {
      for (const engine of ["bm25", "hybrid"] as const) {
        const hits = await learned.search(query, { engine, limit: 10 });
        const found = await learned.rankerEvidence(query, { engine });
        assert.ok(found?.model);
        assert.equal(hits.length, Math.min(10, found.evidence.candidates.length));
        for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score);
        const why = await learned.explain(query, hits[0].name, { engine });
        assert.equal(why.ranker?.score, hits[0].score);
      }
    }
  });

  it("computes the feedback cosines only for a model that reads them, and ranks by them when it does", async () => {
    let calls = 0;
    const original = SemanticStore.prototype.feedbackScores;
    SemanticStore.prototype.feedbackScores = function (this: SemanticStore, ...args: Parameters<SemanticStore["feedbackScores"]>) {
      calls++;
      return original.apply(this, args);
    };
    try {
      const prf = new ToolIndex(tools, { bm25: { fit: false }, embedder: embedder(), ranker: { version: 1, hybrid: { features: ["prf_cosine"], weights: [1] } } });
      const without = new ToolIndex(tools, { bm25: { fit: false }, embedder: embedder(), ranker: { version: 1, hybrid: { features: ["cosine", "bm25f"], weights: [1, 1] } } });
      for (const query of queries) {
        calls = 0;
        await without.search(query, { engine: "hybrid", limit: 10 });
        assert.equal(calls, 0, "a model without prf_ features pays nothing for them");
        const hits = await prf.search(query, { engine: "hybrid", limit: 10 });
        assert.ok(calls > 0);
        const { evidence } = (await prf.rankerEvidence(query, { engine: "hybrid" }))!;
        const byFeedback = [...evidence.candidates].sort((a, b) => b.feedbackCosine! - a.feedbackCosine!);
        hits.forEach((hit, i) => assert.ok(Math.abs(hit.score - byFeedback[i].feedbackCosine!) < 1e-9, `${query}: ${hit.name}`));
      }
    } finally {
      SemanticStore.prototype.feedbackScores = original;
    }
    assert.equal(readsFeedback({ features: ["cosine", "part_prf_cosine"], weights: [1, 1] }), true);
    assert.equal(readsFeedback({ features: ["cosine", "part_cosine"], weights: [1, 1] }), false);
  });

  it("a model of the BM25F share alone keeps bm25's order", () => {
    const alone = new ToolIndex(tools, { bm25: { fit: false }, ranker: { version: 1, lexical: { features: ["bm25f"], weights: [1] } } });
    for (const query of queries) {
      assert.deepEqual(alone.searchSync(query, { limit: 10 }).map((h) => h.name), before.searchSync(query, { limit: 10 }).map((h) => h.name), query);
    }
  });

  it("explain: each feature's part adds up to the score, and rank and score are search's", async () => {
    for (const query of queries) {
      for (const engine of ["bm25", "hybrid"] as const) {
        const hits = await learned.search(query, { engine, limit: 50 });
        for (const [at, hit] of hits.entries()) {
          const why = await learned.explain(query, hit.name, { engine });
          assert.equal(why.rank, at + 1, `${engine} ${query}: ${hit.name}`);
          assert.equal(why.score, hit.score);
          assert.ok(why.ranker);
          assert.equal(why.ranker.features.reduce((s, f) => s + f.contribution, 0), why.ranker.score);
          assert.equal(why.ranker.model, engine === "hybrid" ? "hybrid" : "lexical");
        }
      }
    }
    const shown = formatExplanation(await learned.explain("weather in a city", "get_weather", { engine: "hybrid" })).join("\n");
    assert.match(shown, /Learned ranker \(hybrid model\) score/);
    for (const feature of FEATURE_NAMES) assert.match(shown, new RegExp(`\\b${feature}\\b`));
    const outside = await learned.explain("weather in a city", "send_email", { engine: "bm25" });
    assert.equal(outside.rank, null);
    assert.match(outside.note ?? "", /not a ranker candidate/);
  });

  it("covers the clauses of a split request when the model says how much, and explain shows it", async () => {
    const covering = new ToolIndex(tools, { bm25: { fit: false }, embedder: embedder(), ranker: { version: 1, hybrid: { ...model.hybrid!, coverage: 0.5 } } });
    const split = queries[1];
    const hits = await covering.search(split, { engine: "hybrid", limit: 10 });
    const uncovered = await learned.search(split, { engine: "hybrid", limit: 10 });
    assert.deepEqual(new Set(hits.map((h) => h.name)), new Set(uncovered.map((h) => h.name)));
    for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score);
    for (const [at, hit] of hits.entries()) {
      const why = await covering.explain(split, hit.name, { engine: "hybrid" });
      assert.equal(why.rank, at + 1);
      assert.equal(why.ranker?.coverage?.score, hit.score);
      assert.equal(why.ranker?.coverage?.weight, 0.5);
    }
    assert.match(formatExplanation(await covering.explain(split, hits[0].name, { engine: "hybrid" })).join("\n"), /Placed by coverage of the request's clauses/);
    // A request of one clause is ranked by the model alone.
    const one = await covering.search(queries[0], { engine: "hybrid", limit: 10 });
    assert.deepEqual(one, await learned.search(queries[0], { engine: "hybrid", limit: 10 }));
    assert.equal((await covering.explain(queries[0], one[0].name, { engine: "hybrid" })).ranker?.coverage, undefined);
  });

  it("refuses a coverage weight outside 0–1", () => {
    assert.throws(() => checkModel({ version: 1, hybrid: { features: ["cosine"], weights: [1], coverage: 2 } }, "m.json"), /coverage must be a number from 0 to 1/);
  });

  it("is off where the options choose the scoring (plain BM25, custom fusion)", async () => {
    const plain = new ToolIndex(tools, { bm25: { bag: { b: 0.4 }, k1: 0.9 }, ranker: model });
    assert.equal((await plain.rankerEvidence("weather", { engine: "bm25" }))?.model, undefined);
    const custom = new ToolIndex(tools, { embedder: embedder(), fusion: { method: "rrf" }, ranker: model });
    assert.equal((await custom.rankerEvidence("weather", { engine: "hybrid" }))?.model, undefined);
    assert.ok((await custom.rankerEvidence("weather", { engine: "bm25" }))?.model);
  });
});
