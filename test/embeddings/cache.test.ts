import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { EmbeddingCache, hashText } from "../../src/embeddings/cache.js";
import { tempDir } from "./helpers.js";

test("EmbeddingCache: its page cache is bounded at 2 MB, not better-sqlite3's 16 MB, and every vector still comes back", () => {
  // A server writes a vector for every new query it embeds; with the build default (cache_size = -16000) those pages
  // would stay in its RSS up to 16 MB per connection.
  const cache = new EmbeddingCache({ path: join(tempDir(), "embeddings.sqlite") });
  const db = (cache as unknown as { db: Database.Database }).db;
  const plain = new Database(":memory:");
  assert.equal(plain.pragma("cache_size", { simple: true }), -16000, "the build default this bounds");
  plain.close();
  assert.equal(db.pragma("cache_size", { simple: true }), -2000);
  // More pages than the cache holds (3,000 vectors of 512 floats, 6 MB): each one reads back as written.
  const vectors = Array.from({ length: 3000 }, (_, i) => Float32Array.from({ length: 512 }, (_, j) => Math.sin(i * 512 + j)));
  const hashes = vectors.map((_, i) => hashText(`query ${i}`));
  cache.putMany("p", hashes.map((hash, i) => [hash, vectors[i]]));
  const back = cache.getMany("p", hashes, 512);
  assert.equal(back.size, 3000);
  assert.deepEqual(back.get(hashes[2999]), vectors[2999]);
  assert.equal(cache.count(), 3000);
  cache.close();
});
