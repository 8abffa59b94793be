import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normalizeTools } from "../../src/catalog/load.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { PLAIN_TOOL_BM25 } from "../../src/indexes/tool-index-options.js";
import { Embedder } from "../../src/embeddings/embedder.js";
import { querySentences } from "../../src/embeddings/semantic-store.js";
import { FEATURE_NAMES, featureIndex, featureRows, plainScore, rankFeature } from "../../src/ranking/features.js";
import { LetterProvider } from "../helpers/letter-provider.js";

const tools = normalizeTools([
  { name: "get_weather", description: "Current weather for a city", input_schema: { type: "object", properties: { city: { type: "string", description: "City name" } } } },
  { name: "get_forecast", description: "Weather forecast for the next days in a city", input_schema: { type: "object", properties: { days: { type: "integer" } } } },
  { name: "send_email", description: "Send an email message to a recipient", input_schema: { type: "object", properties: { to: { type: "string" } } } },
  { name: "stock_quote", description: "Latest stock price of a listed company", category: "finance", input_schema: { type: "object", properties: {} } },
]);
const index = new ToolIndex(tools, { bm25: { fit: false }, ranker: false });

async function lexical(query: string) {
  const found = await index.rankerEvidence(query, { engine: "bm25" });
  assert.ok(found);
  return found.evidence;
}

describe("ranker features on a hand-made catalog", () => {
  it("scores plain BM25 exactly as the bm25-plain engine does", async () => {
    const plain = new ToolIndex(tools, { bm25: PLAIN_TOOL_BM25 });
    for (const query of ["weather in a city", "forecast days", "stock price company"]) {
      const evidence = await lexical(query);
      for (const hit of plain.searchSync(query, { limit: 10 })) {
        const candidate = evidence.candidates.find((c) => c.id === hit.name);
        assert.ok(candidate, `${hit.name} is a candidate for ${query}`);
        assert.ok(Math.abs(plainScore(candidate.matches) - hit.score) < 1e-9, `${query} / ${hit.name}: ${plainScore(candidate.matches)} vs ${hit.score}`);
      }
    }
  });

  it("takes the BM25 list's candidates in its order, with their ranks and scores", async () => {
    const evidence = await lexical("weather forecast");
    const bm25 = index.searchSync("weather forecast", { limit: 10, ranker: false });
    assert.deepEqual(evidence.candidates.map((c) => c.id), bm25.map((h) => h.name));
    evidence.candidates.forEach((c, rank) => {
      assert.equal(c.lexicalRank, rank);
      assert.equal(c.lexical, bm25[rank].score);
    });
  });

  it("computes coverage, rank and share features by hand", async () => {
    const evidence = await lexical("weather forecast city");
    const rows = featureRows(evidence);
    const at = (id: string) => rows[evidence.candidates.findIndex((c) => c.id === id)];
    const get = (id: string, name: Parameters<typeof featureIndex>[0]) => at(id)[featureIndex(name)];
    // get_forecast has all three words (city in its description), get_weather two (weather, city).
    assert.equal(get("get_forecast", "cover"), 1);
    assert.equal(get("get_forecast", "all_terms"), 1);
    assert.ok(Math.abs(get("get_weather", "cover") - 2 / 3) < 1e-12);
    assert.equal(get("get_weather", "all_terms"), 0);
    // The best BM25 candidate has share 1 and the rank feature of rank 0.
    const top = evidence.candidates[0].id;
    assert.equal(get(top, "bm25f"), 1);
    assert.equal(get(top, "bm25f_rank"), 1);
    assert.equal(rankFeature(1), 1 / Math.log2(3));
    assert.equal(rankFeature(undefined), 0);
    // The name field holds "weather" for get_weather only; the category feature is 0 where no word is in it.
    assert.ok(get("get_weather", "name") > 0);
    assert.equal(get("get_forecast", "category"), 0);
    // idf-weighted coverage is a share of the query's idf mass.
    for (const row of rows) assert.ok(row[featureIndex("cover_idf")] >= 0 && row[featureIndex("cover_idf")] <= 1);
    // Without embeddings the dense features stay 0.
    for (const row of rows) assert.equal(row[featureIndex("cosine")], 0);
  });

  it("scores candidates outside BM25's list exactly as search would (exact terms)", () => {
    const bm25 = (index as unknown as { bm25: import("../../src/engines/bm25f.js").Bm25fIndex }).bm25;
    for (const query of ["weather in a city", "stock price company", "send email"]) {
      const terms = index.analyzer.analyze(query);
      const hits = index.searchSync(query, { limit: 10, fuzzy: false, ranker: false });
      const scores = bm25.exactScores(terms, [...hits.map((h) => h.name), "no_such_tool"]);
      hits.forEach((hit, i) => assert.ok(Math.abs(scores[i] - hit.score) < 1e-9, `${query} / ${hit.name}`));
      assert.equal(scores[hits.length], 0);
    }
  });

  it("gives no rows for a query that matches nothing", async () => {
    assert.deepEqual(featureRows(await lexical("zzzz qqqq")), []);
  });

  it("takes each part_ feature as the best of the request and its clauses, about the same candidates", async () => {
    const hybrid = new ToolIndex(tools, { bm25: { fit: false }, embedder: new Embedder(new LetterProvider()), ranker: false });
    const query = "send an email message to my boss and get the latest stock price of a company";
    const { evidence } = (await hybrid.rankerEvidence(query, { engine: "hybrid" }))!;
    assert.equal(evidence.clauses?.length, 2);
    const ids = evidence.candidates.map((c) => c.id);
    for (const clause of evidence.clauses!) assert.deepEqual(clause.candidates.map((c) => c.id), ids);
    const rows = featureRows(evidence);
    const clauseRows = evidence.clauses!.map(featureRows);
    const parts = FEATURE_NAMES.filter((name) => name.startsWith("part_"));
    assert.ok(parts.length > 0);
    rows.forEach((row, i) => {
      for (const part of parts) {
        const of = featureIndex(part.slice(5) as (typeof FEATURE_NAMES)[number]);
        assert.equal(row[featureIndex(part)], Math.max(row[of], ...clauseRows.map((c) => c[i][of])), `${ids[i]} ${part}`);
      }
    });
    // send_email covers half the request's words at most, but most of its own clause's.
    const email = ids.indexOf("send_email");
    assert.ok(rows[email][featureIndex("part_cover")] > rows[email][featureIndex("cover")]);
    // A request of one clause is its own only part.
    const single = (await hybrid.rankerEvidence("weather forecast in a city", { engine: "hybrid" }))!.evidence;
    assert.equal(single.clauses, undefined);
    for (const row of featureRows(single)) for (const part of parts) assert.equal(row[featureIndex(part)], row[featureIndex(part.slice(5) as (typeof FEATURE_NAMES)[number])]);
  });
  it("reads the catalog centrality of each candidate and how split the request is", async () => {
    const hybrid = new ToolIndex(tools, { bm25: { fit: false }, embedder: new Embedder(new LetterProvider()), ranker: false });
    const query = "send an email message to my boss and get the latest stock price of a company";
    const { evidence } = (await hybrid.rankerEvidence(query, { engine: "hybrid" }))!;
    const rows = featureRows(evidence);
    evidence.candidates.forEach((c, i) => {
      assert.ok(c.centrality! >= 0 && c.centrality! <= 1, c.id);
      assert.equal(rows[i][featureIndex("centrality")], c.centrality);
      assert.equal(rows[i][featureIndex("split")], 1 / 2, "two clauses");
    });
    // The centralities are the tools' places in the catalog: one tool at each end.
    const places = evidence.candidates.map((c) => c.centrality!).sort();
    if (places.length === tools.length) assert.deepEqual([places[0], places.at(-1)], [0, 1]);
    // A request of one clause is not split; the lexical model reads no centrality.
    const single = (await hybrid.rankerEvidence("weather forecast in a city", { engine: "hybrid" }))!.evidence;
    for (const row of featureRows(single)) assert.equal(row[featureIndex("split")], 0);
    for (const row of featureRows(await lexical("weather forecast in a city"))) assert.equal(row[featureIndex("centrality")], 0);
  });
  it("reads the cosine of the request to each candidate's name embedded on its own, whole and by clause", async () => {
    const hybrid = new ToolIndex(tools, { bm25: { fit: false }, embedder: new Embedder(new LetterProvider()), ranker: false });
    const query = "send an email message to my boss and get the latest stock price of a company";
    const { evidence } = (await hybrid.rankerEvidence(query, { engine: "hybrid" }))!;
    const own = new Embedder(new LetterProvider());
    const sentences = await own.embedQueries(querySentences(query));
    const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i], 0);
    const words: Record<string, string> = { get_weather: "get weather", get_forecast: "get forecast", send_email: "send email", stock_quote: "stock quote" };
    const rows = featureRows(evidence);
    assert.ok(evidence.candidates.length > 0);
    for (const [i, c] of evidence.candidates.entries()) {
      const [name] = await own.embedMany([words[c.id]]);
      const expected = Math.max(...sentences.map((s) => dot(name, s)));
      assert.ok(Math.abs(c.nameCosine! - expected) < 1e-5, `${c.id}: ${c.nameCosine} vs ${expected}`);
      assert.equal(rows[i][featureIndex("name_cosine")], c.nameCosine);
      // Not the cosine of the whole tool text: the name alone is a vector of its own.
      assert.notEqual(c.nameCosine, c.cosine);
    }
    // Each clause's name cosine is against that clause alone; part_name_cosine is the best of request and clauses.
    const clauses = evidence.clauses!.map(featureRows);
    const email = evidence.candidates.findIndex((c) => c.id === "send_email");
    const best = Math.max(rows[email][featureIndex("name_cosine")], ...clauses.map((c) => c[email][featureIndex("name_cosine")]));
    assert.equal(rows[email][featureIndex("part_name_cosine")], best);
    // The lexical model has no vectors: no name cosine.
    for (const row of featureRows(await lexical("send an email"))) assert.equal(row[featureIndex("name_cosine")], 0);
  });

  it("reads each candidate's cosine after pseudo-relevance feedback from the candidates the caller sees", async () => {
    const embedder = () => new Embedder(new LetterProvider());
    const hidden = normalizeTools([{ name: "weather_report", description: "Weather report and forecast for a city today", input_schema: { type: "object", properties: {} } }]);
    const everyone = new ToolIndex([...tools, ...hidden], { bm25: { fit: false }, embedder: embedder(), ranker: false });
    const without = new ToolIndex(tools, { bm25: { fit: false }, embedder: embedder(), ranker: false });
    const visible = { accept: (name: string) => name !== "weather_report" };
    const query = "weather forecast for a city";
    const feedback = async (index: ToolIndex, options = {}) => {
      const { evidence } = (await index.rankerEvidence(query, { engine: "hybrid", ...options }))!;
      const rows = featureRows(evidence);
      evidence.candidates.forEach((c, i) => {
        assert.equal(rows[i][featureIndex("prf_cosine")], c.feedbackCosine);
        assert.ok(c.feedbackCosine! > 0 && c.feedbackCosine! <= 1 + 1e-6, c.id);
      });
      return new Map(evidence.candidates.map((c) => [c.id, c.feedbackCosine!]));
    };
    const seen = await feedback(everyone, { visible });
    assert.ok(!seen.has("weather_report"));
    // The hidden tool is not among the caller's candidates and feeds nothing: the same as a catalog without it...
    const alone = await feedback(without);
    assert.deepEqual([...seen.keys()].sort(), [...alone.keys()].sort());
    for (const [id, cosine] of seen) assert.ok(Math.abs(cosine - alone.get(id)!) < 1e-6, id);
    // ...while a caller who sees it gets other feedback (it is among the closest to the query).
    const all = await feedback(everyone);
    assert.ok([...seen].some(([id, cosine]) => Math.abs(cosine - all.get(id)!) > 1e-4));
    // Not the plain cosine: the query moved.
    const { evidence } = (await without.rankerEvidence(query, { engine: "hybrid" }))!;
    assert.ok(evidence.candidates.some((c) => Math.abs(c.feedbackCosine! - c.cosine!) > 1e-4));
    // The lexical model has no vectors: no feedback.
    for (const row of featureRows(await lexical("weather forecast"))) assert.equal(row[featureIndex("prf_cosine")], 0);
  });
});
