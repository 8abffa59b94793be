import assert from "node:assert/strict";
import { test } from "node:test";
import type { EmbeddingProvider } from "../../src/embeddings/provider.js";
import { SemanticStore } from "../../src/embeddings/semantic-store.js";
import { Embedder } from "../../src/embeddings/embedder.js";

/** Seeded pseudo-random vectors per text: this test checks ranking arithmetic, not meaning. */
class RandomVectors implements EmbeddingProvider {
  readonly id = "test-random";
  readonly dimensions = 24;
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => {
      let seed = [...text].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
      return Float32Array.from({ length: this.dimensions }, () => {
        seed = (seed * 1103515245 + 12345) >>> 0;
        return seed / 2 ** 32 - 0.5;
      });
    });
  }
}

test("a query of several sentences ranks items by their best sentence, exactly as a full scan would", async () => {
  const store = new SemanticStore(new Embedder(new RandomVectors(), { cache: false }));
  for (let i = 0; i < 300; i++) store.set(`item-${i}`, `text of item ${i}`);
  await store.prepare();
  const query = await store.embedQuery("First we want this. Then we want that! Finally something else?");
  assert.equal(query.length, 3);
  const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);
  const vectors = await new Embedder(new RandomVectors(), { cache: false }).embedMany(Array.from({ length: 300 }, (_, i) => `text of item ${i}`));
  const brute = vectors
    .map((v, i) => ({ id: `item-${i}`, score: Math.max(...query.map((q) => dot(q, v))) }))
    .sort((a, b) => b.score - a.score);
  for (const k of [1, 5, 20, 300]) {
    const ranked = store.rankDense(query, k);
    assert.deepEqual(ranked.map((h) => h.id), brute.slice(0, k).map((h) => h.id), `k=${k}`);
    ranked.forEach((h, i) => assert.ok(Math.abs(h.score - brute[i].score) < 1e-5));
  }
  const odd = store.rankDense(query, 10, (id) => Number(id.slice(5)) % 2 === 1);
  assert.deepEqual(odd.map((h) => h.id), brute.filter((h) => Number(h.id.slice(5)) % 2 === 1).slice(0, 10).map((h) => h.id));
});

test("an item's centrality is its place among the items a caller sees, and follows changes of the vectors", async () => {
  const store = new SemanticStore(new Embedder(new RandomVectors(), { cache: false }));
  const seen = new SemanticStore(new Embedder(new RandomVectors(), { cache: false }));
  for (let i = 0; i < 40; i++) {
    store.set(`item-${i}`, `text of item ${i}`);
    if (i % 2 === 0) seen.set(`item-${i}`, `text of item ${i}`);
  }
  await Promise.all([store.prepare(), seen.prepare()]);
  const even = (id: string) => Number(id.slice(5)) % 2 === 0;
  const places = (s: SemanticStore, accept?: (id: string) => boolean) =>
    Array.from({ length: 40 }, (_, i) => s.centrality(`item-${i}`, accept));
  // Through the filter, exactly what a store of the visible items alone says: hidden items move nothing.
  assert.deepEqual(places(store, even).filter((p) => p !== undefined), places(seen).filter((p) => p !== undefined));
  assert.notDeepEqual(places(store).filter((_, i) => i % 2 === 0), places(seen).filter((p) => p !== undefined));
  assert.deepEqual(places(store).filter((p) => p === 0 || p === 1).sort(), [0, 1], "one item at each end");
  assert.equal(store.centrality("item-41"), undefined, "no vector, no centrality");
  // A removed item leaves the places of the others recomputed.
  const before = places(store);
  store.delete(`item-${before.indexOf(1)}`);
  assert.equal(Math.max(...places(store).filter((p) => p !== undefined)), 1);
  assert.ok(places(store).filter((p) => p !== undefined).every((p) => p! >= 0 && p! <= 1));
});

/** RandomVectors that records every text it is asked for, and in how many calls. */
class CountingRandom extends RandomVectors {
  readonly seen: string[] = [];
  calls = 0;
  override async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls++;
    this.seen.push(...texts);
    return super.embed(texts);
  }
}

test("an item's name gets a vector of its own, in the same batch, and follows changes of the name", async () => {
  const provider = new CountingRandom();
  const store = new SemanticStore(new Embedder(provider, { cache: false }));
  for (let i = 0; i < 5; i++) store.set(`item-${i}`, `text of item ${i}`, `name ${i}`);
  store.set("plain", "an item without a name");
  assert.equal(store.pending, 6);
  await store.prepare();
  assert.equal(provider.calls, 1, "texts and names in one provider call");
  assert.equal(provider.seen.length, 11);
  assert.deepEqual([store.vectorCount, store.nameVectorCount, store.pending], [6, 5, 0]);

  const query = await store.embedQuery("First this. Then that.");
  const [name2] = await new Embedder(new RandomVectors(), { cache: false }).embedMany(["name 2"]);
  const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);
  assert.ok(Math.abs(store.nameScores(["item-2"], query)[0]! - Math.max(...query.map((q) => dot(q, name2)))) < 1e-5);
  assert.notEqual(store.nameScores(["item-2"], query)[0], Math.max(...store.sentenceScores("item-2", query)!));
  assert.equal(store.nameScores(["plain"], query)[0], undefined, "no name, no name vector");

  // A changed text keeps its name's vector; a changed name re-embeds the name alone; a name dropped loses its vector.
  provider.seen.length = 0;
  store.set("item-0", "new text of item 0", "name 0");
  store.set("item-1", "text of item 1", "renamed 1");
  store.set("item-3", "text of item 3");
  assert.equal(store.pending, 2);
  await store.prepare();
  assert.deepEqual(provider.seen.sort(), ["new text of item 0", "renamed 1"]);
  assert.equal(store.nameScores(["item-3"], query)[0], undefined);
  assert.equal(store.nameVectorCount, 4);
  store.delete("item-4");
  assert.equal(store.nameScores(["item-4"], query)[0], undefined);
  assert.equal(store.nameVectorCount, 3);
});

test("name vectors go out and come back with the vectors; a state without them leaves the names to embed", async () => {
  const fill = (store: SemanticStore) => {
    for (let i = 0; i < 6; i++) store.set(`item-${i}`, `text of item ${i}`, `name ${i}`);
  };
  const built = new SemanticStore(new Embedder(new RandomVectors(), { cache: false }));
  fill(built);
  await built.prepare();
  const state = built.exportVectors()!;
  assert.equal(state.names?.ids.length, 6);

  const provider = new CountingRandom();
  const loaded = new SemanticStore(new Embedder(provider, { cache: false }));
  fill(loaded);
  loaded.set("item-5", "text of item 5", "another name 5");
  assert.equal(loaded.importVectors(state), 6);
  assert.equal(loaded.pending, 1, "only the renamed item's name waits");
  await loaded.prepare();
  assert.deepEqual(provider.seen, ["another name 5"]);
  const query = await built.embedQuery("Something to find.");
  for (let i = 0; i < 5; i++) assert.equal(loaded.nameScores([`item-${i}`], query)[0], built.nameScores([`item-${i}`], query)[0]);

  // Vectors saved before names had their own (no `names`): the names are embedded on first need.
  const older = new CountingRandom();
  const fromOlder = new SemanticStore(new Embedder(older, { cache: false }));
  fill(fromOlder);
  fromOlder.importVectors({ ...state, names: undefined });
  await fromOlder.prepare();
  assert.deepEqual(older.seen.sort(), Array.from({ length: 6 }, (_, i) => `name ${i}`));
  for (let i = 0; i < 6; i++) assert.equal(fromOlder.nameScores([`item-${i}`], query)[0], built.nameScores([`item-${i}`], query)[0]);
});
