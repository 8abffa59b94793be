import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { Embedder } from "../../src/embeddings/embedder.js";
import type { EmbeddingProvider } from "../../src/embeddings/provider.js";
import { ToolsearchError } from "../../src/errors.js";
import { decodeSnapshot, encodeSnapshot, type Section } from "../../src/indexes/snapshot.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { CountingProvider, useLite } from "../embeddings/helpers.js";
import { fixture } from "../helpers/files.js";

const QUERIES = ["weather in Paris", "Lay thong tin khach hang", "convert currency", "stock price of a company", "kiem tra ton kho", "wether"];
const paths = [fixture("catalogs", "weather-finance.json"), fixture("catalogs", "enterprise.json")];

/** No disk cache: every text a provider is asked for is really sent to it. */
const uncached = (provider: EmbeddingProvider) => new Embedder(provider, { cache: false });

const isCode = (code: string) => (error: unknown) => error instanceof ToolsearchError && error.code === code;

describe("ToolIndex snapshots", () => {
  for (const path of paths) {
    it(`a loaded snapshot answers exactly as the built index (${path.split("/").pop()})`, async () => {
      const built = await ToolIndex.fromFile(path);
      const loaded = ToolIndex.fromSnapshot(built.snapshot());
      assert.deepEqual(loaded.names(), built.names());
      for (const q of QUERIES) {
        assert.deepEqual(loaded.searchSync(q, { limit: 10 }), built.searchSync(q, { limit: 10 }), q);
        assert.deepEqual(loaded.searchSync(q, { limit: 10, fuzzy: false }), built.searchSync(q, { limit: 10, fuzzy: false }), q);
        assert.deepEqual(loaded.searchSync("(?i)get_|customer", { engine: "regex", limit: 10 }), built.searchSync("(?i)get_|customer", { engine: "regex", limit: 10 }));
      }
      for (const name of built.names()) assert.deepEqual(loaded.describe(name), built.describe(name));
      assert.deepEqual(loaded.suggest("wether"), built.suggest("wether"));
    });
  }

  it("stays editable: add, replace and remove after loading give what a fresh build gives", async () => {
    const built = await ToolIndex.fromFile(paths[0]);
    const loaded = ToolIndex.fromSnapshot(built.snapshot());
    const extra = { name: "get_air_quality", description: "Air quality index of a city", input_schema: { type: "object", properties: { city: { type: "string" } } } };
    for (const index of [built, loaded]) {
      index.add(extra);
      index.remove("get_timezone");
      index.replace({ ...extra, description: "Air pollution and quality index of a city" });
    }
    for (const q of [...QUERIES, "air pollution", "time zone"]) assert.deepEqual(loaded.searchSync(q, { limit: 10 }), built.searchSync(q, { limit: 10 }));
    assert.deepEqual(loaded.searchSync("air", { engine: "regex" }), built.searchSync("air", { engine: "regex" }));
    assert.equal(loaded.get("get_timezone"), undefined);
  });

  it("loads a snapshot written before postings moved to typed arrays and term ids, and answers as a fresh build", async () => {
    // Written by d9dd369 from enterprise.json less one tool (so it holds a free slot): the format is unchanged.
    const loaded = ToolIndex.fromSnapshot(readFileSync(fixture("snapshots", "enterprise-d9dd369.snapshot")));
    const built = await ToolIndex.fromFile(paths[1]);
    built.remove(built.names()[3]);
    assert.deepEqual(loaded.names(), built.names());
    const extra = { name: "get_air_quality", description: "Air quality index of a city", input_schema: { type: "object", properties: { city: { type: "string" } } } };
    const same = (step: string) => {
      for (const q of [...QUERIES, "customer orders", "air quality"]) {
        assert.deepEqual(loaded.searchSync(q, { limit: 10 }), built.searchSync(q, { limit: 10 }), `${step}: ${q}`);
      }
    };
    same("as loaded");
    for (const index of [built, loaded]) {
      index.add(extra); // into the free slot
      index.remove(index.names()[0]);
    }
    same("edited");
  });

  it("takes BM25 weights from the loader's options, as a build with them would", async () => {
    const options = { bm25: { k1: 2, fields: { description: { weight: 3 } } } };
    const built = await ToolIndex.fromFile(paths[0], options);
    const loaded = ToolIndex.fromSnapshot((await ToolIndex.fromFile(paths[0])).snapshot(), options);
    for (const q of QUERIES) assert.deepEqual(loaded.searchSync(q, { limit: 10 }), built.searchSync(q, { limit: 10 }));
  });

  it("keeps the vectors: a loaded index embeds only the query", async () => {
    const first = new CountingProvider();
    const built = await ToolIndex.fromFile(paths[0], { embedder: uncached(first) });
    await built.prepareEmbeddings();
    assert.ok(first.seen.length >= 8);
    const second = new CountingProvider();
    const loaded = ToolIndex.fromSnapshot(built.snapshot(), { embedder: uncached(second) });
    const hits = await loaded.search("will it rain tomorrow", { engine: "hybrid", limit: 3 });
    assert.deepEqual(second.seen, ["will it rain tomorrow"]);
    assert.deepEqual(hits.map((h) => h.name), (await built.search("will it rain tomorrow", { engine: "hybrid", limit: 3 })).map((h) => h.name));
    assert.equal(hits[0].name, "get_forecast");
  });

  it("re-embeds only tools whose text changed, and ignores vectors of another provider", async () => {
    const built = await ToolIndex.fromFile(paths[0], { embedder: uncached(new CountingProvider()) });
    await built.prepareEmbeddings();
    const snapshot = built.snapshot();
    const counting = new CountingProvider();
    const loaded = ToolIndex.fromSnapshot(snapshot, { embedder: uncached(counting) });
    loaded.replace({ name: "get_timezone", description: "Time zone and UTC offset of a place", input_schema: { type: "object", properties: {} } });
    await loaded.prepareEmbeddings();
    assert.equal(counting.seen.length, 1);
    const other = new CountingProvider({ id: "other-model", dimensions: 512, embed: (texts) => useLite.embed(texts) });
    const elsewhere = ToolIndex.fromSnapshot(snapshot, { embedder: uncached(other) });
    await elsewhere.prepareEmbeddings();
    assert.equal(other.seen.length, 2 * built.size, "each tool's text and its name");
  });

  it("keeps the name vectors: the ranker's evidence of a loaded index is the built one's, a pre-name snapshot's too", async () => {
    const built = await ToolIndex.fromFile(paths[0], { embedder: uncached(new CountingProvider()) });
    await built.prepareEmbeddings();
    const bytes = built.snapshot();
    const { sections } = decodeSnapshot(bytes, "tools");
    assert.ok(sections.nameVectors instanceof Float32Array && sections.nameVectorIds, "the snapshot holds the name vectors");
    const request = "will it rain tomorrow and what is the stock price of Apple";
    const evidence = async (index: ToolIndex) => (await index.rankerEvidence(request, { engine: "hybrid" }))!.evidence;
    const expected = await evidence(built);
    assert.ok(expected.candidates.some((c) => c.nameCosine! > 0));
    const counting = new CountingProvider();
    const loaded = ToolIndex.fromSnapshot(bytes, { embedder: uncached(counting) });
    assert.deepEqual(await evidence(loaded), expected);
    assert.ok(counting.seen.every((text) => !built.names().some((name) => text === name.replace(/_/g, " "))), "no name re-embedded");

    // A snapshot written before names had vectors: the names are embedded on first need, and answer the same.
    const older = decodeSnapshot(bytes, "tools");
    const { format: _format, sections: _table, ...rest } = older.header as Record<string, unknown>;
    const plain: Record<string, Section> = {};
    for (const [name, section] of Object.entries(older.sections)) if (!name.startsWith("name")) plain[name] = "all" in section ? section.all() : section;
    const before = new CountingProvider();
    const fromOlder = ToolIndex.fromSnapshot(encodeSnapshot(rest as typeof older.header, plain, 3), { embedder: uncached(before) });
    assert.deepEqual(await evidence(fromOlder), expected);
    assert.equal(before.seen.filter((text) => built.names().some((name) => text === name.replace(/_/g, " "))).length, built.size);
  });

  it("refuses damaged or mismatched snapshots with snapshot_invalid", async () => {
    const snapshot = (await ToolIndex.fromFile(paths[0])).snapshot();
    assert.throws(() => ToolIndex.fromSnapshot(Buffer.from("not a snapshot")), isCode("snapshot_invalid"));
    assert.throws(() => ToolIndex.fromSnapshot(snapshot.subarray(0, snapshot.length - 9)), isCode("snapshot_invalid"));
    assert.throws(() => ToolIndex.fromSnapshot(snapshot.subarray(0, 40)), isCode("snapshot_invalid"));
    assert.throws(() => ToolIndex.fromSnapshot(snapshot, { analyzer: { stem: false } }), /analyzer settings/);
    assert.throws(() => ToolIndex.fromSnapshot(snapshot, { bm25: { bag: { b: 0.4 } } }), /bag/);
  });
  it("loadSnapshot fills an empty index with its own options, and leaves a non-empty or mismatched one untouched", async () => {
    const options = { bm25: { k1: 2, fields: { description: { weight: 3 } } } };
    const built = await ToolIndex.fromFile(paths[0], options);
    const target = new ToolIndex([], options);
    target.loadSnapshot(built.snapshot());
    for (const q of QUERIES) assert.deepEqual(target.searchSync(q, { limit: 10 }), built.searchSync(q, { limit: 10 }), q);
    assert.throws(() => target.loadSnapshot(built.snapshot()), isCode("snapshot_invalid"));
    const bag = new ToolIndex([], { bm25: { bag: { b: 0.75 } } });
    assert.throws(() => bag.loadSnapshot(built.snapshot()), isCode("snapshot_invalid"));
    assert.equal(bag.size, 0);
    assert.deepEqual(bag.searchSync("weather"), []);
  });

  it("writes format 3: no tool in the JSON header, tools, ids and terms as string sections", async () => {
    const built = await ToolIndex.fromFile(paths[1]);
    const { header, sections } = decodeSnapshot(built.snapshot(), "tools");
    assert.equal(header.format, 3);
    assert.equal(header.tools, undefined);
    assert.equal(header.bm25, undefined);
    for (const name of ["tools", "toolSlots", "bm25Ids", "bm25Terms"]) assert.ok(sections[name], name);
    assert.ok(JSON.stringify(header).length < 2000, "the header does not grow with the catalog");
  });

  it("materialises only the tools a search returns, and answers and describes as the built index", async () => {
    const built = await ToolIndex.fromFile(paths[1]);
    const loaded = ToolIndex.fromSnapshot(built.snapshot());
    const counted = loaded.memoryBytes();
    const hits = loaded.searchSync("customer", { limit: 2 });
    assert.deepEqual(hits, built.searchSync("customer", { limit: 2 }));
    assert.deepEqual(loaded.names(), built.names());
    for (const name of built.names()) assert.deepEqual(loaded.describe(name), built.describe(name));
    assert.ok(loaded.memoryBytes() > counted, "materialised tools and decoded terms are counted");
  });

  it("refuses a format 3 snapshot whose tools name missing slots, and leaves the index empty", async () => {
    const bytes = (await ToolIndex.fromFile(paths[0])).snapshot();
    const { header, sections } = decodeSnapshot(bytes, "tools");
    const { format: _format, sections: _table, ...rest } = header as Record<string, unknown>;
    const plain: Record<string, Section> = {};
    for (const [name, section] of Object.entries(sections)) plain[name] = "all" in section ? section.all() : section;
    const damaged = encodeSnapshot(rest as typeof header, { ...plain, toolSlots: new Int32Array((sections.toolSlots as Int32Array).length).fill(9999) }, 3);
    const target = new ToolIndex();
    assert.throws(() => target.loadSnapshot(damaged), isCode("snapshot_invalid"));
    assert.equal(target.size, 0);
    assert.deepEqual(target.searchSync("weather"), []);
  });
});
