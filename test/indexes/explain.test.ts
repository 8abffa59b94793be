import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EmbeddingCache } from "../../src/embeddings/cache.js";
import { Embedder } from "../../src/embeddings/embedder.js";
import type { ToolsearchError } from "../../src/errors.js";
import type { Explanation } from "../../src/indexes/explain.js";
import { DocumentIndex } from "../../src/indexes/document-index.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { FIXTURE_TOOLS, useLite } from "../embeddings/helpers.js";
import { fixture } from "../helpers/files.js";

const finance = await ToolIndex.fromFile(fixture("catalogs", "weather-finance.json"));
const enterprise = await ToolIndex.fromFile(fixture("catalogs", "enterprise.json"));
const sum = (values: { contribution: number }[] = []) => values.reduce((total, v) => total + v.contribution, 0);
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

/** The rank and score `search` gives, to hold explain to. */
async function searched(index: ToolIndex, query: string, name: string, engine: "bm25" | "regex" | "semantic" | "hybrid" = "bm25") {
  const hits = await index.search(query, { engine, limit: 50 });
  const at = hits.findIndex((h) => h.name === name);
  return { rank: at < 0 ? null : at + 1, score: at < 0 ? 0 : hits[at].score, hits };
}

describe("explain with bm25", () => {
  const cases: [ToolIndex, string, string][] = [
    [finance, "weather in Paris", "get_weather"],
    [finance, "weather forecast for the next days", "get_forecast"],
    [finance, "weather forecast for the next days", "get_weather"],
    [finance, "exchange rate currency", "convert_currency"],
    [finance, "current wether", "get_weather"],
    [enterprise, "Lay thong tin khach hang C-5521", "get_customer_profile"],
    [enterprise, "kiem tra ton kho", "get_stock_level"],
  ];
  for (const [index, query, name] of cases) {
    it(`term contributions add up to the score: ${JSON.stringify(query)} → ${name}`, async () => {
      const why = await index.explain(query, name);
      const seen = await searched(index, query, name);
      assert.equal(why.rank, seen.rank);
      assert.ok(close(why.score, seen.score), `${why.score} vs ${seen.score}`);
      assert.ok(why.score > 0);
      assert.ok(close(sum(why.terms), why.score), `terms sum to ${sum(why.terms)}, score ${why.score}`);
      assert.equal(why.above, why.rank! - 1);
    });
  }

  it("names each field a term matched in, the name counting more than the description", async () => {
    const why = await finance.explain("weather", "get_weather");
    const fields = new Map(why.terms!.map((t) => [t.field, t.contribution]));
    assert.deepEqual([...fields.keys()].sort(), ["description", "name"]);
    assert.ok(fields.get("name")! > fields.get("description")!);
    assert.ok(why.terms!.every((t) => t.term === "weather" && t.typo === undefined));
  });

  it("shows a typo expansion as such, with its distance", async () => {
    const why = await finance.explain("wether", "get_weather");
    assert.ok(why.terms!.length > 0);
    for (const t of why.terms!) assert.deepEqual(t.typo, { query_term: "wether", distance: 1 });
    assert.ok(why.terms!.every((t) => t.term === "weather"));
    const exact = await finance.explain("weather", "get_weather");
    assert.ok(why.score < exact.score, "a typo counts less than the exact word");
    const off = await finance.explain("wether", "get_weather", { fuzzy: false });
    assert.equal(off.rank, null);
    assert.deepEqual(off.terms, []);
  });

  it("says where a tool below the top ranks and what outranks it", async () => {
    const query = "weather forecast in a location";
    const why = await finance.explain(query, "get_timezone");
    const seen = await searched(finance, query, "get_timezone");
    assert.ok(why.rank !== null && why.rank > 2, `rank ${why.rank}`);
    assert.equal(why.rank, seen.rank);
    assert.deepEqual(why.outranked_by.map((o) => o.name), seen.hits.slice(0, why.rank - 1).map((h) => h.name));
  });

  it("a tool the query does not match has no rank, and every match outranks it", async () => {
    const why = await finance.explain("weather", "calculate_mortgage");
    assert.equal(why.rank, null);
    assert.equal(why.score, 0);
    assert.deepEqual(why.terms, []);
    const matches = (await finance.search("weather", { limit: 50 })).map((h) => h.name);
    assert.equal(why.above, matches.length);
    assert.deepEqual(why.outranked_by.map((o) => o.name), matches);
  });

  it("refuses an unknown tool with its closest names, and an unknown engine", async () => {
    await assert.rejects(finance.explain("weather", "get_wheather"), (e: ToolsearchError) => e.code === "unknown_tool" && /get_weather/.test(e.message));
    await assert.rejects(finance.explain("weather", "get_weather", { engine: "nope" as "bm25" }), (e: ToolsearchError) => e.code === "unknown_engine");
  });
});

describe("explain with regex", () => {
  it("lists the fields and spans that matched; the first field decides the score", async () => {
    const why = await finance.explain("(?i)weather|forecast", "get_forecast", { engine: "regex" });
    const seen = await searched(finance, "(?i)weather|forecast", "get_forecast", "regex");
    assert.equal(why.rank, seen.rank);
    assert.equal(why.score, seen.score);
    assert.deepEqual(why.fields!.map((f) => f.field), ["name", "description"]);
    assert.deepEqual(why.fields![0].matches, [{ start: 4, end: 12, text: "forecast" }]);
    assert.deepEqual(why.fields![1].matches.map((m) => m.text.toLowerCase()), ["weather", "forecast"]);
  });

  it("matches in parameters only rank below name matches", async () => {
    const why = await finance.explain("ticker", "get_stock_price", { engine: "regex" });
    assert.deepEqual(why.fields!.map((f) => f.field), ["description", "parameters"]);
    assert.equal(why.score, 2);
  });

  it("refuses a bad pattern with the search's code", async () => {
    await assert.rejects(finance.explain("(?<=a)b", "get_weather", { engine: "regex" }), (e: ToolsearchError) => e.code === "invalid_pattern");
  });
});

describe("explain with semantic and hybrid", async () => {
  const index = await ToolIndex.fromFile(FIXTURE_TOOLS, { embedder: new Embedder(useLite, { cache: new EmbeddingCache({ path: ":memory:" }) }) });

  it("semantic: the similarity is the score, from the closest query sentence", async () => {
    const query = "Track my parcel please. Will it rain tomorrow in Lyon?";
    const why = await index.explain(query, "get_weather_forecast", { engine: "semantic" });
    const seen = await searched(index, query, "get_weather_forecast", "semantic");
    assert.equal(why.rank, seen.rank);
    assert.ok(close(why.score, seen.score));
    assert.ok(close(why.semantic!.similarity, why.score));
    assert.equal(why.semantic!.sentences.length, 2);
    assert.equal(why.semantic!.sentence, "Will it rain tomorrow in Lyon?");
    assert.ok(why.semantic!.sentences[1].similarity > why.semantic!.sentences[0].similarity);
  });

  for (const [query, name] of [["will it rain tomorrow", "get_weather_forecast"], ["latest equity prices", "get_stock_price"], ["ticker price", "get_weather_forecast"]]) {
    it(`hybrid: each engine's part adds up to the fused score: ${JSON.stringify(query)} → ${name}`, async () => {
      const why: Explanation = await index.explain(query, name, { engine: "hybrid" });
      const seen = await searched(index, query, name, "hybrid");
      assert.equal(why.rank, seen.rank);
      assert.ok(close(why.score, seen.score), `${why.score} vs ${seen.score}`);
      assert.deepEqual(why.parts!.map((p) => p.engine), ["bm25", "semantic"]);
      // The default hybrid ends in the learned ranker: its features' parts make the score; without it, the fusion's.
      assert.ok(close(sum(why.ranker!.features), why.score));
      const fused: Explanation = await index.explain(query, name, { engine: "hybrid", ranker: false });
      assert.equal(fused.ranker, undefined);
      assert.ok(close(sum(fused.parts), fused.score));
      const bm25 = why.parts![0];
      assert.ok(close(sum(why.terms), bm25.raw), "the BM25 terms explain the raw BM25 score");
      assert.ok(close(why.parts![1].raw, why.semantic!.similarity));
    });
  }
});

describe("DocumentIndex.explain", async () => {
  const docs = await DocumentIndex.fromFile(fixture("documents", "help-center.jsonl"), { passages: { maxChars: 80 } });
  const decayed = await DocumentIndex.fromFile(fixture("documents", "help-center.jsonl"), { scoring: { decay: 0.5, passages: 3 }, passages: { maxChars: 80 } });

  for (const [index, label] of [[docs, "best passage"], [decayed, "decayed passages"]] as const) {
    for (const [query, id] of [["How do I get a refund?", "kb-refunds"], ["live session recordings", "kb-live-sessions"], ["certificate download", "kb-certificates"]]) {
      it(`${label}: terms add up to the document's score: ${JSON.stringify(query)} → ${id}`, async () => {
        const why = await index.explain(query, id);
        const hits = await index.search(query, { limit: 50 });
        const at = hits.findIndex((h) => h.id === id);
        assert.equal(why.rank, at + 1);
        assert.ok(close(why.score, hits[at].score), `${why.score} vs ${hits[at].score}`);
        assert.ok(close(sum(why.terms), why.score), `terms ${sum(why.terms)} vs ${why.score}`);
        assert.ok(why.passages!.length >= 1);
        assert.ok(why.terms!.every((t) => ["title", "body"].includes(t.field) && t.passage !== undefined));
      });
    }
  }

  it("refuses an unknown document and an engine documents do not have", async () => {
    await assert.rejects(docs.explain("refund", "kb-refund"), (e: ToolsearchError) => e.code === "unknown_document" && /kb-refunds/.test(e.message));
    await assert.rejects(docs.explain("refund", "kb-refunds", { engine: "regex" as "bm25" }), (e: ToolsearchError) => e.code === "unknown_engine");
  });

  it("hybrid: the parts add up to the document's score", async () => {
    const index = await DocumentIndex.fromFile(fixture("documents", "help-center.jsonl"), { embedder: new Embedder(useLite, { cache: new EmbeddingCache({ path: ":memory:" }) }) });
    const why = await index.explain("money back for a course", "kb-refunds", { engine: "hybrid" });
    const hits = await index.search("money back for a course", { engine: "hybrid", limit: 5 });
    assert.equal(why.rank, hits.findIndex((h) => h.id === "kb-refunds") + 1);
    assert.ok(close(sum(why.parts), why.score));
    assert.ok(close(why.score, hits[why.rank! - 1].score));
    assert.ok(why.semantic!.similarity > 0);
  });
});
