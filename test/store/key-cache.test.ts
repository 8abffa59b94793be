import assert from "node:assert/strict";
import { test } from "node:test";
import { ToolsearchError } from "../../src/errors.js";
import { KeyCache } from "../../src/store/key-cache.js";
import type { ApiKeyRecord } from "../../src/store/types.js";

/** A key table that counts lookups and can be switched off like an unreachable database. */
function keyTable() {
  const keys = new Map<string, ApiKeyRecord>([["h1", { id: "k1", scope: "read", createdAt: "2026-01-01T00:00:00.000Z" }]]);
  const state = { down: false, lookups: 0 };
  return {
    keys,
    state,
    async keyByHash(hash: string) {
      state.lookups++;
      if (state.down) throw new ToolsearchError("store_unavailable", "store: connection refused");
      return keys.get(hash);
    },
  };
}

test("KeyCache: answers within the TTL from memory, asks again after it (a revocation takes effect)", async () => {
  let now = 0;
  const table = keyTable();
  const cache = new KeyCache(table, { ttlMs: 1000, now: () => now });
  assert.equal((await cache.keyByHash("h1"))?.id, "k1");
  assert.equal((await cache.keyByHash("h1"))?.id, "k1");
  assert.equal(await cache.keyByHash("nope"), undefined);
  assert.equal(await cache.keyByHash("nope"), undefined);
  assert.equal(table.state.lookups, 2);
  table.keys.delete("h1");
  now = 999;
  assert.equal((await cache.keyByHash("h1"))?.id, "k1", "still within the TTL");
  now = 1000;
  assert.equal(await cache.keyByHash("h1"), undefined, "revoked once the TTL is over");
});

test("KeyCache: by default the store is asked every time (a revocation takes effect at once)", async () => {
  const table = keyTable();
  const cache = new KeyCache(table);
  assert.equal((await cache.keyByHash("h1"))?.id, "k1");
  table.keys.delete("h1");
  assert.equal(await cache.keyByHash("h1"), undefined);
  assert.equal(table.state.lookups, 2);
});

test("KeyCache: with the store away a known key keeps working, an unknown one is store_unavailable", async () => {
  let now = 0;
  const table = keyTable();
  const cache = new KeyCache(table, { ttlMs: 10, now: () => now });
  await cache.keyByHash("h1");
  table.state.down = true;
  now = 60_000;
  assert.equal((await cache.keyByHash("h1"))?.id, "k1");
  await assert.rejects(cache.keyByHash("h2"), { code: "store_unavailable" });
  table.state.down = false;
  assert.equal((await cache.keyByHash("h1"))?.id, "k1");
});

test("KeyCache: remembers at most maxEntries hashes", async () => {
  const table = keyTable();
  const cache = new KeyCache(table, { maxEntries: 2, ttlMs: 60_000 });
  for (const hash of ["a", "b", "c"]) await cache.keyByHash(hash);
  const before = table.state.lookups;
  await cache.keyByHash("c");
  await cache.keyByHash("a");
  assert.equal(table.state.lookups, before + 1, "only the oldest (a) was forgotten");
});
