/**
 * `serve --preload`, `--preload-recent` and `--memory-budget` (or `TOOLSEARCH_MEMORY_BUDGET`) as a user runs them: bad
 * values are usage errors naming the rule; a real process preloads what it is told, says so, and loads the rest on use.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { helpCenter, serveCli, startServe, tempDir, waitReady, WEATHER_TOOLS } from "./helpers.js";

test("--memory-budget, TOOLSEARCH_MEMORY_BUDGET and --preload-recent out of range are usage errors that say why", () => {
  for (const bad of ["0", "-5", "lots"]) {
    const result = serveCli(["--memory-budget", bad]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /--memory-budget takes a whole number from 1 to \d+/);
  }
  const environment = serveCli([], { TOOLSEARCH_MEMORY_BUDGET: "half" });
  assert.equal(environment.code, 2, environment.stderr);
  assert.match(environment.stderr, /TOOLSEARCH_MEMORY_BUDGET takes a whole number from 1 to \d+ \(got "half"\)/);
  const recent = serveCli(["--preload-recent", "x"]);
  assert.equal(recent.code, 2, recent.stderr);
  assert.match(recent.stderr, /--preload-recent takes a whole number/);
});

test("a real serve preloads what it is told, loads the rest on first use, and says which are loaded", async () => {
  const dir = tempDir();
  // A collection named by --catalog is preloaded; one created later through the API loads on its first search.
  const serve = await startServe(["--store", join(dir, "store.sqlite"), "--no-auth", "--log", "warn", "--catalog", WEATHER_TOOLS, "--preload", "weather-finance"], { TOOLSEARCH_MEMORY_BUDGET: "64" });
  try {
    await waitReady(serve.url);
    const base = serve.url.replace(/\/$/, "");
    const documents = helpCenter();
    const put = await fetch(`${base}/v1/collections/help-center`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ kind: "docs", documents }) });
    assert.equal(put.status, 201);
    const listed = async () => ((await (await fetch(`${base}/v1/collections`)).json()) as { collections: Array<{ name: string; loaded: boolean }> }).collections;
    assert.deepEqual((await listed()).map((c) => [c.name, c.loaded]), [["help-center", false], ["weather-finance", true]]);
    const search = await fetch(`${base}/v1/collections/help-center/search`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "refund" }) });
    assert.equal(search.status, 200);
    assert.deepEqual((await listed()).map((c) => [c.name, c.loaded]), [["help-center", true], ["weather-finance", true]]);
    assert.match(serve.stderr(), /ready: 1 collection\(s\) from sqlite store .*, 1 loaded, memory budget 64 MB/);
  } finally {
    await serve.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
