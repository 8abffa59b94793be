import assert from "node:assert/strict";
import { test } from "node:test";
import { EmbeddingCache } from "../../src/embeddings/cache.js";
import { Embedder } from "../../src/embeddings/embedder.js";
import { DocumentIndex } from "../../src/indexes/document-index.js";
import { CountingProvider } from "./helpers.js";

const DOCS = [
  { id: "refunds", title: "Getting your money back", body: "If an order arrives damaged you can return it within 30 days and we pay back the full amount to your card." },
  { id: "shipping", title: "Delivery times", body: "Parcels leave our warehouse within two working days. Courier tracking numbers are emailed once the parcel ships." },
  { id: "password", title: "Signing in", body: "Forgot your password? Use the reset link on the sign-in page and choose a new one." },
];

test("documents: semantic and hybrid search find passages by meaning, with snippets and in step with replace/remove", async () => {
  const provider = new CountingProvider();
  const index = await DocumentIndex.fromDocuments(DOCS, { embedder: new Embedder(provider, { cache: new EmbeddingCache({ path: ":memory:" }) }) });
  const semantic = await index.search("how do I get a refund for a broken item", { engine: "semantic", limit: 2 });
  assert.equal(semantic[0].id, "refunds");
  assert.ok(semantic[0].snippet.length > 0 && semantic[0].title === "Getting your money back");
  assert.equal((await index.search("how long until my parcel is delivered", { engine: "hybrid", limit: 1 }))[0].id, "shipping");
  assert.throws(() => index.searchSync("refund", { engine: "hybrid" }), { code: "unknown_engine" });

  const before = provider.seen.length;
  index.replace({ id: "password", title: "Signing in", body: "Locked out? Ask an administrator to unlock your account." });
  assert.ok(index.remove("refunds"));
  assert.ok(!(await index.search("refund for a broken item", { engine: "semantic", limit: 3 })).some((h) => h.id === "refunds"));
  assert.equal(provider.seen.length - before, 2, "the replaced passage and the query, nothing else");
});

test("documents: memoryBytes counts the passage vectors once they are made", async () => {
  const provider = new CountingProvider();
  const index = await DocumentIndex.fromDocuments(DOCS, { embedder: new Embedder(provider, { cache: new EmbeddingCache({ path: ":memory:" }) }) });
  const before = index.memoryBytes();
  const entries = index.semanticEntries;
  await index.search("refund for a broken item", { engine: "semantic", limit: 1 });
  assert.ok(index.semanticEntries > entries);
  const passages = provider.seen.length - 1; // every passage, then the query
  assert.ok(passages >= DOCS.length);
  assert.ok(index.memoryBytes() - before >= passages * provider.dimensions * 4);
});
