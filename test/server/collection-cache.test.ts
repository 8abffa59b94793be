/** Which loaded collections a memory budget drops: least recently used first, never a pinned or busy one. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { CollectionCache } from "../../src/server/collection-cache.js";

const sizes: Record<string, number> = { a: 40, b: 30, c: 20, d: 10 };
const bytesOf = (name: string) => sizes[name] ?? 0;
const idle = () => false;

test("without a budget nothing is ever dropped", () => {
  const cache = new CollectionCache();
  for (const name of ["a", "b", "c", "d"]) cache.touch(name);
  assert.deepEqual(cache.victims(1e9, bytesOf, idle), []);
});

test("the least recently used go first, just enough of them for the new one to fit", () => {
  const cache = new CollectionCache(100);
  for (const name of ["a", "b", "c", "d"]) cache.touch(name); // 100 bytes held
  cache.touch("a"); // order now b, c, d, a
  assert.deepEqual(cache.victims(0, bytesOf, idle), []);
  assert.deepEqual(cache.victims(25, bytesOf, idle), ["b"]);
  assert.deepEqual(cache.victims(45, bytesOf, idle), ["b", "c"]);
});

test("a pinned collection (a request uses it) and a busy one (an MCP session) are skipped until released", () => {
  const cache = new CollectionCache(100);
  for (const name of ["a", "b", "c", "d"]) cache.touch(name);
  cache.pin("a");
  cache.pin("a");
  assert.deepEqual(cache.victims(35, bytesOf, (name) => name === "b"), ["c", "d"]);
  cache.unpin("a");
  assert.ok(cache.isPinned("a"), "pins are counted: one request still uses it");
  cache.unpin("a");
  assert.deepEqual(cache.victims(35, bytesOf, idle), ["a"]);
});

test("when nothing idle is left the answer is what can go, and the caller loads anyway", () => {
  const cache = new CollectionCache(50);
  cache.touch("a");
  cache.touch("b");
  cache.pin("b");
  assert.deepEqual(cache.victims(500, bytesOf, idle), ["a"]);
  cache.forget("a");
  assert.deepEqual(cache.victims(500, bytesOf, idle), []);
});
