import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadCatalogFile } from "../../src/catalog/load.js";
import type { Bm25fScoring } from "../../src/engines/bm25f.js";
import { Embedder } from "../../src/embeddings/embedder.js";
import { fitFusionWeight, fitLexicalRanking, LEXICAL_CANDIDATES, pseudoQueries } from "../../src/indexes/catalog-fit.js";
import { toolTexts } from "../../src/indexes/tool-fields.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { PLAIN_TOOL_BM25 } from "../../src/indexes/tool-index-options.js";
import { createAnalyzer } from "../../src/text/analyzer.js";
import { fixture } from "../helpers/files.js";
import { LetterProvider } from "../helpers/letter-provider.js";

const tools = loadCatalogFile(fixture("catalogs", "enterprise.json")).concat(loadCatalogFile(fixture("catalogs", "weather-finance.json")));
const analyzer = createAnalyzer();
const texts = tools.map((t) => ({ name: t.name, texts: toolTexts(t) }));
const plainScoring = LEXICAL_CANDIDATES.find((c) => c.name === "plain")!.scoring;

describe("pseudo-queries", () => {
  it("are the same whatever the catalog order, and name tools of the catalog as their answers", () => {
    const a = pseudoQueries(texts, analyzer);
    const b = pseudoQueries([...texts].reverse(), analyzer);
    assert.ok(a.length > 5);
    assert.deepEqual(a, b);
    const names = new Set(tools.map((t) => t.name));
    for (const q of a) for (const r of q.relevant) assert.ok(names.has(r));
    assert.ok(a.some((q) => q.relevant.length === 2), "some pseudo-queries need two tools");
  });
});

describe("fitLexicalRanking", () => {
  const source = (query: string) => pseudoQueries(texts, analyzer).find((q) => q.query === query)!.relevant;
  it("keeps the default (fields) when no candidate does better", () => {
    const fit = fitLexicalRanking({ analyzer, tools: texts, rank: (q) => source(q) });
    assert.equal(fit.ranking, "fields");
  });

  it("chooses plain BM25 when it finds the sources clearly better", () => {
    const rank = (q: string, s: Bm25fScoring) => (s === plainScoring ? source(q) : ["none"]);
    const fit = fitLexicalRanking({ analyzer, tools: texts, rank });
    assert.equal(fit.ranking, "plain");
    assert.equal(fit.scores.plain, 1);
    assert.equal(fit.scores.fields, 0);
  });

  it("does not leave the default for a gain within noise (one query of many)", () => {
    const first = pseudoQueries(texts, analyzer)[0].query;
    const rank = (q: string, s: Bm25fScoring) => (s === plainScoring || q !== first ? source(q) : ["none"]);
    assert.equal(fitLexicalRanking({ analyzer, tools: texts, rank }).ranking, "fields");
  });
});

describe("ToolIndex with the plain ranking chosen", () => {
  it("ranks exactly as plain BM25 (one bag of words), scores included", async () => {
    const fitted = new ToolIndex(tools);
    (fitted as unknown as { bm25: { rescore(s: Bm25fScoring): void } }).bm25.rescore(plainScoring);
    const plain = new ToolIndex(tools, { bm25: PLAIN_TOOL_BM25 });
    for (const query of ["weather in Paris", "kiem tra ton kho", "stock price of a company", "customer segment update"]) {
      const a = plain.searchSync(query, { limit: 10 });
      const b = (fitted as unknown as { bm25: { search(t: string[], k: number, o: object): { id: string; score: number }[] } }).bm25
        .search(fitted.analyzer.analyze(query), 10, { fuzzy: false });
      assert.deepEqual(b.map((h) => h.id), a.map((h) => h.name));
      b.forEach((h, i) => assert.ok(Math.abs(h.score - a[i].score) < 1e-9));
    }
  });
});

describe("ToolIndex lexical ranking per catalog", () => {
  it("is chosen on first use, kept by a snapshot, and custom when the options set BM25 parameters", () => {
    const index = new ToolIndex(tools);
    const ranking = index.lexicalRanking;
    assert.ok(["fields", "plain", "mixed"].includes(ranking));
    const loaded = ToolIndex.fromSnapshot(index.snapshot());
    assert.equal((loaded as unknown as { fitted?: { ranking: string } }).fitted?.ranking, ranking, "restored without a new fit");
    assert.deepEqual(loaded.searchSync("weather in Paris"), index.searchSync("weather in Paris"));
    assert.equal(new ToolIndex(tools, { bm25: { fit: false } }).lexicalRanking, "custom");
    assert.equal(new ToolIndex(tools, { bm25: { k1: 1 } }).lexicalRanking, "custom");
  });

  it("is chosen again once enough of the catalog has changed (a fifth, and at least 8 tools)", () => {
    const index = new ToolIndex(tools.slice(0, 4));
    void index.lexicalRanking;
    const fitted = () => (index as unknown as { fitted: object }).fitted;
    const before = fitted();
    index.add(tools[4]);
    void index.lexicalRanking;
    assert.equal(fitted(), before, "one new tool does not refit");
    for (const tool of tools.slice(5)) index.add(tool);
    void index.lexicalRanking;
    assert.notEqual(fitted(), before);
  });
});

describe("fitFusionWeight", () => {
  // Ten pseudo-queries over 20 tools; a good list puts the source first by a small margin, a bad one confidently puts five other tools
  // first and the source last.
  let seed = 9;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const ids = Array.from({ length: 20 }, (_, i) => `t${i}`);
  const ranking = (source: string, good: boolean) => {
    const decoys = new Set(ids.filter((id) => id !== source).slice(0, 5));
    const score = (id: string) => (good ? (id === source ? 0.5 : 0) : decoys.has(id) ? 10 : id === source ? -1 : 0);
    return ids.map((id) => ({ id, score: score(id) + random() })).sort((a, b) => b.score - a.score);
  };
  const samples = (lexicalGood: boolean, denseGood: boolean) =>
    ids.slice(0, 10).map((source) => ({ relevant: [source], input: { lexical: ranking(source, lexicalGood), dense: ranking(source, denseGood) } }));

  it("keeps the blend when both engines find the sources", () => {
    const fit = fitFusionWeight(samples(true, true));
    assert.equal(fit.lexicalWeight, 0.5);
    assert.equal(fit.queries, 10);
  });

  it("uses one engine alone when the other's noise drags the blend below their midpoint", () => {
    // Without confidence weighting the blend follows the noise; with it, the fusion guard already leans away.
    const noDense = fitFusionWeight(samples(true, false), { confidence: false });
    assert.ok(noDense.scores.blend < (noDense.scores.lexical + noDense.scores.dense) / 2, JSON.stringify(noDense.scores));
    assert.equal(noDense.lexicalWeight, 1);
    assert.equal(fitFusionWeight(samples(false, true), { confidence: false }).lexicalWeight, 0);
  });

  it("keeps the blend when it is above the midpoint even if one engine leads it", () => {
    const fit = fitFusionWeight(samples(true, false));
    if (fit.scores.blend >= (fit.scores.lexical + fit.scores.dense) / 2) assert.equal(fit.lexicalWeight, 0.5);
    else assert.equal(fit.lexicalWeight, 1);
  });
});

describe("ToolIndex hybrid fusion per catalog", () => {
  const embedder = () => new Embedder(new LetterProvider(), { cache: false });

  it("fits on the first hybrid search, through the embedder (pseudo-queries embedded once), and not with a weight given", async () => {
    const provider = new LetterProvider();
    const index = new ToolIndex(tools, { embedder: new Embedder(provider, { cache: false }) });
    const fit = await index.fusionFit();
    assert.ok([0, 0.5, 1].includes(fit.lexicalWeight));
    assert.ok(fit.fit && fit.fit.queries > 5);
    await index.prepareEmbeddings(); // the names the shipped ranker reads
    const embedded = provider.texts;
    await index.search("weather in Paris", { engine: "hybrid" });
    assert.equal(provider.texts, embedded + 1, "only the query is embedded once the fit is made");
    const fixed = new ToolIndex(tools, { embedder: embedder(), fusion: { lexicalWeight: 0.3 } });
    assert.deepEqual(await fixed.fusionFit(), { lexicalWeight: 0.3, fit: undefined });
  });

  it("a single-engine weight (what the fit may choose) returns exactly that engine's ranking, and explain agrees", async () => {
    const bm25Only = new ToolIndex(tools, { embedder: embedder(), fusion: { lexicalWeight: 1 } });
    const denseOnly = new ToolIndex(tools, { embedder: embedder(), fusion: { lexicalWeight: 0 } });
    for (const query of ["weather forecast for the next days", "exchange rate currency", "customer profile"]) {
      const lexical = bm25Only.searchSync(query, { limit: 10 }).map((h) => h.name);
      const hybrid = (await bm25Only.search(query, { engine: "hybrid", limit: 10 })).map((h) => h.name);
      assert.deepEqual(hybrid.slice(0, lexical.length), lexical);
      const semantic = (await denseOnly.search(query, { engine: "semantic", limit: 10 })).map((h) => h.name);
      const hits = await denseOnly.search(query, { engine: "hybrid", limit: 10 });
      assert.deepEqual(hits.map((h) => h.name), semantic);
      const why = await denseOnly.explain(query, hits[2].name, { engine: "hybrid" });
      assert.equal(why.rank, 3);
      assert.ok(Math.abs(why.parts!.reduce((s, p) => s + p.contribution, 0) - hits[2].score) < 1e-9);
    }
  });
});
