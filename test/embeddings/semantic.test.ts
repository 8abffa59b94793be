import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { EmbeddingCache } from "../../src/embeddings/cache.js";
import { Embedder } from "../../src/embeddings/embedder.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { CountingProvider, FIXTURE_TOOLS, tempDir } from "./helpers.js";

/** Vectors shared by the tests that do not watch the cache, so the fixture is embedded once per file. */
const shared = new EmbeddingCache({ path: ":memory:" });

const top = async (index: ToolIndex, query: string, engine: "semantic" | "hybrid") =>
  (await index.search(query, { engine, limit: 3 })).map((h) => h.name);

test("semantic search finds tools by meaning where the words differ", async () => {
  const index = await ToolIndex.fromFile(FIXTURE_TOOLS, { embedder: new Embedder(new CountingProvider(), { cache: shared }) });
  assert.equal((await top(index, "latest equity prices", "semantic"))[0], "get_stock_price");
  assert.equal((await top(index, "will it rain tomorrow", "semantic"))[0], "get_weather_forecast");
  assert.equal((await top(index, "will it rain tomorrow", "hybrid"))[0], "get_weather_forecast");
  assert.equal((await top(index, "latest equity prices", "hybrid"))[0], "get_stock_price");
});

test("semantic results carry the usual hit shape, are deterministic, and respect the limit", async () => {
  const index = await ToolIndex.fromFile(FIXTURE_TOOLS, { embedder: new Embedder(new CountingProvider(), { cache: shared }) });
  const hits = await index.search("convert dollars to euros", { engine: "semantic", limit: 2 });
  assert.equal(hits.length, 2);
  assert.equal(hits[0].name, "get_exchange_rate");
  assert.ok(hits[0].score >= hits[1].score && hits[0].score <= 1.0001);
  assert.deepEqual(await index.search("convert dollars to euros", { engine: "semantic", limit: 2 }), hits);
});

test("the synchronous call refuses the dense engines clearly", async () => {
  const index = await ToolIndex.fromFile(FIXTURE_TOOLS, { embedder: new Embedder(new CountingProvider(), { cache: shared }) });
  assert.throws(() => index.searchSync("rain", { engine: "semantic" }), { code: "unknown_engine", message: /search\(\)/ });
});

test("vectors survive a restart: the second index calls the provider for the query only", async () => {
  const path = join(tempDir(), "cache.sqlite");
  const first = new CountingProvider();
  const a = await ToolIndex.fromFile(FIXTURE_TOOLS, { embedder: new Embedder(first, { cache: new EmbeddingCache({ path }) }) });
  await a.prepareEmbeddings();
  // The 10 tools and their 10 names (embedded alone, for the ranker), then the catalog's pseudo-queries for the fusion
  // fit (cached alike).
  assert.equal(first.seen.length, 20 + (a as unknown as { fusionFitted: { result: { queries: number } } }).fusionFitted.result.queries);
  await a.embedder.close();

  const second = new CountingProvider();
  const b = await ToolIndex.fromFile(FIXTURE_TOOLS, { embedder: new Embedder(second, { cache: new EmbeddingCache({ path }) }) });
  await b.prepareEmbeddings();
  assert.equal(second.calls, 0, "no tool was re-embedded");
  assert.equal((await top(b, "will it rain tomorrow", "semantic"))[0], "get_weather_forecast");
  assert.deepEqual(second.seen, ["will it rain tomorrow"]);
  await b.embedder.close();
});

test("a changed tool re-embeds alone; a removed tool leaves the results; an added one joins them", async () => {
  const provider = new CountingProvider();
  const index = await ToolIndex.fromFile(FIXTURE_TOOLS, { embedder: new Embedder(provider, { cache: shared }) });
  await index.prepareEmbeddings();
  provider.seen.length = 0;

  index.replace({ name: "play_music", description: "Streams podcasts and audiobooks.", input_schema: { type: "object", properties: {} } });
  index.replace(index.describe("send_email")!); // unchanged: keeps its vector
  await index.prepareEmbeddings();
  assert.equal(provider.seen.length, 1);
  assert.match(provider.seen[0], /podcasts/);

  assert.ok(index.remove("get_weather_forecast"));
  assert.ok(!(await top(index, "will it rain tomorrow", "semantic")).includes("get_weather_forecast"));
  index.add({ name: "rain_radar", description: "Shows where it is raining now and where showers move next.", input_schema: { type: "object", properties: {} } });
  assert.equal((await top(index, "will it rain tomorrow", "hybrid"))[0], "rain_radar");
});

test("a corrupt cache file is reported, moved aside and rebuilt; search still works", async () => {
  const path = join(tempDir(), "cache.sqlite");
  writeFileSync(path, "this is not a database, just text that happens to be long enough to be read as a header....");
  const warnings: string[] = [];
  const cache = new EmbeddingCache({ path, warn: (m) => warnings.push(m) });
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /moved to .*broken/);
  assert.ok(cache.available);
  const index = await ToolIndex.fromFile(FIXTURE_TOOLS, { embedder: new Embedder(new CountingProvider(), { cache }) });
  assert.equal((await top(index, "latest equity prices", "semantic"))[0], "get_stock_price");
  assert.equal(cache.count(), 10, "the 10 tool texts");
  cache.close();
});

test("tool names are embedded only for a ranker that reads them; training and explain evidence always has them", async () => {
  const names = (seen: string[]) => seen.filter((text) => ["get stock price", "get weather forecast", "send email"].includes(text));
  const off = new CountingProvider();
  const plain = await ToolIndex.fromFile(FIXTURE_TOOLS, { embedder: new Embedder(off, { cache: false }), ranker: false });
  await plain.prepareEmbeddings();
  await plain.search("latest equity prices", { engine: "hybrid" });
  assert.deepEqual(names(off.seen), [], "no ranker: no name vectors");
  const { evidence } = (await plain.rankerEvidence("latest equity prices", { engine: "hybrid" }))!;
  assert.equal(names(off.seen).length, 3, "the evidence for training embeds them on first need");
  assert.ok(evidence.candidates.some((c) => (c.nameCosine ?? 0) !== 0));

  const on = new CountingProvider();
  const ranked = await ToolIndex.fromFile(FIXTURE_TOOLS, { embedder: new Embedder(on, { cache: false }) });
  await ranked.prepareEmbeddings();
  assert.equal(names(on.seen).length, 3, "the shipped model reads names: prepared with the texts");
  assert.equal(names(on.seen.slice(0, 20)).length, 3, "in the same provider call as the 10 texts");
});

test("another application's SQLite file is never written into", async () => {
  const path = join(tempDir(), "theirs.sqlite");
  const theirs = new Database(path);
  theirs.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES ('Ada');");
  theirs.close();
  const warnings: string[] = [];
  const cache = new EmbeddingCache({ path, warn: (m) => warnings.push(m) });
  assert.match(warnings[0] ?? "", /not a toolsearch cache|another application/);
  assert.equal(cache.count(), 0);
  cache.close();
  const aside = warnings[0].match(/moved to (\S+) and rebuilt/)![1];
  const kept = new Database(aside, { readonly: true });
  assert.equal((kept.prepare("SELECT name FROM customers").get() as { name: string }).name, "Ada");
  kept.close();
});

test("a request of several sentences finds the tool of each sentence, embedding them in one call", async () => {
  const provider = new CountingProvider();
  const index = await ToolIndex.fromFile(FIXTURE_TOOLS, { embedder: new Embedder(provider, { cache: shared }) });
  await index.prepareEmbeddings();
  const calls = provider.calls;
  provider.seen.length = 0;
  const request = "I am flying to Lisbon next week and still need a plane ticket. Will it rain there? How many euros does a dollar buy?";
  // semantic embeds the request's sentences; hybrid also ranks it clause by clause (tool sets), one more call for them.
  for (const [i, engine] of (["semantic", "hybrid"] as const).entries()) {
    const names = await top(index, request, engine);
    assert.deepEqual([...names].sort(), ["book_flight", "get_exchange_rate", "get_weather_forecast"], `${engine}: ${names}`);
    assert.equal(provider.calls, calls + 1 + i, `${engine}: its texts went to the provider together, once`);
  }
  assert.deepEqual(provider.seen.slice(3), ["I am flying to Lisbon next week", "still need a plane ticket", "Will it rain there", "How many euros does a dollar buy"]);
  provider.seen.length = 3;
  // Each tool scores as its closest sentence alone.
  const whole = await index.search(request, { engine: "semantic", limit: 3 });
  const alone = await index.search("Will it rain there?", { engine: "semantic", limit: 1 });
  assert.equal(alone[0].name, "get_weather_forecast");
  assert.ok(Math.abs(whole.find((h) => h.name === "get_weather_forecast")!.score - alone[0].score) < 1e-6);
  assert.deepEqual(provider.seen, ["I am flying to Lisbon next week and still need a plane ticket.", "Will it rain there?", "How many euros does a dollar buy?"]);
});

test("memoryBytes counts the vectors made on the first dense search: at least 4 bytes per dimension of each", async () => {
  const provider = new CountingProvider();
  const index = await ToolIndex.fromFile(FIXTURE_TOOLS, { embedder: new Embedder(provider, { cache: shared }) });
  const before = index.memoryBytes();
  const entries = index.semanticEntries;
  await index.prepareEmbeddings();
  assert.equal(index.vectorCount, index.size);
  assert.ok(index.semanticEntries > entries, "the count a service keys its cached size on moves");
  const grown = index.memoryBytes() - before;
  assert.ok(grown >= index.vectorCount * provider.dimensions * 4, `${grown} bytes for ${index.vectorCount} vectors of ${provider.dimensions}`);
});
