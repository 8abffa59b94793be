/** What a replica knows and holds: records and loaded collections, LRU under the budget, pins and busy ones; no store. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Embedder } from "../../../src/embeddings/embedder.js";
import { EmbeddingCache } from "../../../src/embeddings/cache.js";
import { ToolIndex } from "../../../src/indexes/tool-index.js";
import { ResidentSet } from "../../../src/server/collections/resident-set.js";
import type { LoadedCollection } from "../../../src/server/collections/types.js";
import type { CollectionRecord } from "../../../src/store/types.js";
import { CountingProvider, FIXTURE_TOOLS } from "../../embeddings/helpers.js";

const record = (name: string, size = 1): CollectionRecord => ({ name, kind: "tools", version: 1, updatedAt: "2026-01-01T00:00:00.000Z", config: {}, size });
/** A loaded collection whose index counts `bytes` (set as counted, so no index is needed). */
const held = (name: string, bytes: number): LoadedCollection => ({ ...record(name), source: "rebuild", loaded: true, storedSize: 1, bytes });
const idle = () => false;

function fill(residents: ResidentSet, sizes: Record<string, number>): void {
  for (const [name, bytes] of Object.entries(sizes)) {
    residents.know(record(name));
    residents.hold(held(name, bytes));
  }
}

test("the list is every known collection by name, loaded ones as held and the others idle; bytes and count are the loaded ones'", () => {
  const residents = new ResidentSet();
  for (const name of ["kb", "crm", "ops"]) residents.know(record(name, 7));
  residents.hold(held("ops", 30));
  residents.hold(held("crm", 12));
  assert.deepEqual(residents.list().map((c) => [c.name, c.loaded, c.storedSize]), [["crm", true, 1], ["kb", false, 7], ["ops", true, 1]]);
  assert.equal(residents.loadedCount, 2);
  assert.equal(residents.loadedBytes, 42);
  assert.deepEqual(residents.knownNames(), ["kb", "crm", "ops"]);
});

test("hold replaces a collection under its name and hands back the one replaced; unload keeps the record, forget does not", () => {
  const residents = new ResidentSet();
  fill(residents, { crm: 10 });
  const first = residents.find("crm");
  const next = held("crm", 20);
  assert.equal(residents.hold(next), first);
  assert.equal(residents.find("crm"), next);
  assert.equal(residents.unload("crm"), next);
  assert.equal(residents.isLoaded("crm"), false);
  assert.equal(residents.knows("crm"), true, "an evicted collection is still known");
  assert.equal(residents.list()[0].loaded, false);
  residents.hold(next);
  residents.forget("crm");
  assert.equal(residents.knows("crm"), false);
  assert.equal(residents.isLoaded("crm"), false);
  assert.deepEqual(residents.list(), []);
});

test("without a budget no collection is ever dropped and nothing is over it", () => {
  const residents = new ResidentSet();
  fill(residents, { a: 40, b: 30 });
  assert.deepEqual(residents.roomFor(held("c", 1e9), idle), []);
  assert.equal(residents.overBudget(held("c", 1e9)), undefined);
});

test("room for a new collection: least recently used first, just enough of them", () => {
  const residents = new ResidentSet(100);
  fill(residents, { a: 40, b: 30, c: 20 }); // 90 held
  residents.touch("a"); // b, c, a
  assert.deepEqual(residents.roomFor(held("d", 10), idle), []);
  assert.deepEqual(residents.roomFor(held("d", 25), idle), ["b"]);
  assert.deepEqual(residents.roomFor(held("d", 45), idle), ["b", "c"]);
});

test("a collection replacing itself never evicts itself, and only the others' bytes count against the new one", () => {
  const residents = new ResidentSet(100);
  fill(residents, { a: 40, b: 50 });
  // b is replaced by a bigger b: 40 (a) + 70 (new b) > 100, so a goes; the old b is not counted.
  assert.deepEqual(residents.roomFor(held("b", 70), idle), ["a"]);
  assert.deepEqual(residents.roomFor(held("b", 60), idle), []);
  assert.equal(residents.overBudget(held("b", 60)), undefined);
  assert.equal(residents.overBudget(held("b", 70)), 110);
});

test("pinned collections (a request uses them) and busy ones (an MCP session) stay until released", () => {
  const residents = new ResidentSet(100);
  fill(residents, { a: 40, b: 30, c: 20 });
  residents.pin("a");
  residents.pin("a");
  const busyB = (c: LoadedCollection) => c.name === "b";
  assert.deepEqual(residents.roomFor(held("d", 60), busyB), ["c"], "a is pinned, b busy: only c can go, though it is not enough");
  assert.equal(residents.overBudget(held("d", 60)), 150);
  residents.unpin("a");
  assert.deepEqual(residents.roomFor(held("d", 60), busyB), ["c"], "pins are counted: one request still uses a");
  residents.unpin("a");
  assert.deepEqual(residents.roomFor(held("d", 60), busyB), ["a", "c"], "a is least recently used");
  assert.deepEqual(residents.roomFor(held("d", 60), idle), ["a", "b"]);
});

test("the bytes of a collection are counted once from its index and again after a change", () => {
  const residents = new ResidentSet(100);
  let counted = 0;
  const collection = { ...held("a", 0), bytes: undefined, tools: { memoryBytes: () => (++counted, 64) } } as unknown as LoadedCollection;
  residents.know(record("a"));
  residents.hold(collection);
  assert.equal(residents.loadedBytes, 64);
  assert.equal(residents.loadedBytes, 64);
  assert.equal(counted, 1);
  collection.bytes = undefined; // what applying a change does
  assert.equal(residents.loadedBytes, 64);
  assert.equal(counted, 2);
});

test("a collection's size is counted again once its first dense search has made vectors, with no change applied", async () => {
  const provider = new CountingProvider();
  const tools = await ToolIndex.fromFile(FIXTURE_TOOLS, { embedder: new Embedder(provider, { cache: new EmbeddingCache({ path: ":memory:" }) }) });
  const residents = new ResidentSet(1);
  residents.know(record("a"));
  residents.hold({ ...held("a", 0), bytes: undefined, tools });
  const lexical = residents.loadedBytes;
  assert.equal(residents.loadedBytes, lexical, "counted once");
  await tools.search("will it rain tomorrow", { engine: "semantic", limit: 1 });
  assert.ok(residents.loadedBytes - lexical >= tools.vectorCount * provider.dimensions * 4, "the vectors weigh on the budget");
  assert.equal(residents.overBudget(held("b", 0)), residents.loadedBytes);
});
