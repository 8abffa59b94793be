/** The PostgreSQL pool size: `TOOLSEARCH_PG_POOL_SIZE` and the `poolSize` option are checked, never silently replaced. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { openStore } from "../../src/store/open.js";
import { poolSizeFromEnvironment } from "../../src/store/postgres.js";

const invalidOption = (pattern: RegExp) => (error: unknown) => (error as { code?: string }).code === "invalid_option" && pattern.test((error as Error).message);

test("TOOLSEARCH_PG_POOL_SIZE: unset means 10, a whole number from 1 to 1000 is taken, anything else is refused by name", () => {
  assert.equal(poolSizeFromEnvironment({}), 10);
  assert.equal(poolSizeFromEnvironment({ TOOLSEARCH_PG_POOL_SIZE: "" }), 10);
  assert.equal(poolSizeFromEnvironment({ TOOLSEARCH_PG_POOL_SIZE: "25" }), 25);
  assert.equal(poolSizeFromEnvironment({ TOOLSEARCH_PG_POOL_SIZE: " 3 " }), 3);
  for (const bad of ["0", "abc", "2.5", "-4", "1001", "1e2"]) {
    assert.throws(() => poolSizeFromEnvironment({ TOOLSEARCH_PG_POOL_SIZE: bad }), invalidOption(new RegExp(`TOOLSEARCH_PG_POOL_SIZE takes a whole number from 1 to 1000 \\(got "${bad.replace(".", "\\.")}"\\)`)), bad);
  }
});

test("openStore refuses a bad poolSize before connecting to anything", async () => {
  // Nothing listens on port 1: a refusal that came from connecting would be store_unavailable, not invalid_option.
  await assert.rejects(openStore("postgres://toolsearch@127.0.0.1:1/none", { poolSize: 0 }), invalidOption(/poolSize takes a whole number from 1 to 1000 \(got 0\)/));
  await assert.rejects(openStore("postgres://toolsearch@127.0.0.1:1/none", { poolSize: 1.5 }), invalidOption(/got 1\.5/));
});
