/** A client in another language: Python's standard library against a real `toolsearch serve` process. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createApiKey } from "../../src/server/auth.js";
import { openStore } from "../../src/store/open.js";
import { FIXTURES, startServe, tempDir, waitReady } from "./helpers.js";

test("a Python (urllib) client creates a collection, searches it, reads a tool and meets a 412", async (t) => {
  const python = spawnSync("python3", ["--version"], { encoding: "utf8" });
  if (python.status !== 0) return t.skip("python3 is not installed here");
  const home = tempDir();
  const store = await openStore(join(home, "store.sqlite"));
  const { key } = await createApiKey(store, { scope: "write" });
  await store.close();
  const server = await startServe([], { TOOLSEARCH_HOME: home });
  try {
    await waitReady(server.url);
    const run = spawnSync("python3", [join(FIXTURES, "service", "client.py")], { encoding: "utf8", env: { ...process.env, TOOLSEARCH_URL: server.url, TOOLSEARCH_KEY: key } });
    assert.equal(run.status, 0, run.stderr);
    const seen = JSON.parse(run.stdout) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    assert.equal(seen.created, 201);
    assert.deepEqual({ ...seen.summary, updated_at: undefined }, { name: "py", kind: "tools", size: 2, updated_at: undefined });
    assert.equal(seen.top, "book_flight");
    assert.deepEqual(seen.tool, { name: "book_flight", description: "Book a flight between two airports.", input_schema: { type: "object", properties: { from: { type: "string" } } } });
    assert.match(seen.etag, /^".+"$/);
    assert.equal(seen.stale, 412);
    assert.equal(seen.error_code, "precondition_failed");
  } finally {
    await server.stop();
    rmSync(home, { recursive: true, force: true });
  }
});
