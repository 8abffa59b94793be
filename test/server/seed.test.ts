/** Seeding collections from files (`serve --catalog/--docs/--mcp-config`). */
import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { collectionNameOf, seedCollections } from "../../src/server/seed.js";
import { openStore } from "../../src/store/open.js";
import { FIXTURES, HELP_CENTER, tempDir, WEATHER_TOOLS } from "./helpers.js";

test("collection names come from base names; names no URL could carry are refused", () => {
  assert.equal(collectionNameOf("/a/b/crm.json"), "crm");
  assert.equal(collectionNameOf("kb/"), "kb");
  assert.equal(collectionNameOf("crm.jsonl"), "crm");
  assert.throws(() => collectionNameOf("tools.v2.yaml"), { code: "invalid_option", message: /rename the file/ });
  assert.throws(() => collectionNameOf("my tools.json"), { code: "invalid_option" });
});

test("each file becomes a collection once; a stored one is kept; a bad file writes nothing", async () => {
  const dir = tempDir();
  const store = await openStore(join(dir, "store.sqlite"));
  try {
    const mcp = join(dir, "servers.json");
    writeFileSync(mcp, JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: ["server.js"] } } }));
    const first = await seedCollections(store, { catalogs: [WEATHER_TOOLS], docs: [HELP_CENTER, join(FIXTURES, "documents", "markdown")], mcpConfigs: [mcp] });
    assert.deepEqual(first, { added: ["weather-finance", "help-center", "markdown", "servers"], kept: [] });
    assert.deepEqual((await store.listCollections()).map((c) => [c.name, c.kind]), [["help-center", "docs"], ["markdown", "docs"], ["servers", "mcp"], ["weather-finance", "tools"]]);
    assert.deepEqual((await store.getCollection("servers"))?.config, { mcpServers: { fx: { command: process.execPath, args: ["server.js"] } } });
    const weather = await store.listItems("weather-finance");
    assert.equal(weather.length, 8);

    await store.deleteItem("weather-finance", weather[0].key);
    const again = await seedCollections(store, { catalogs: [WEATHER_TOOLS] });
    assert.deepEqual(again, { added: [], kept: ["weather-finance"] });
    assert.equal((await store.getCollection("weather-finance"))?.size, 7, "the stored collection was not overwritten");

    const bad = join(dir, "broken.json");
    writeFileSync(bad, JSON.stringify([{ name: "bad name", input_schema: { type: "object" } }]));
    const fresh = join(dir, "fresh.json");
    writeFileSync(fresh, JSON.stringify([{ name: "ok_tool", input_schema: { type: "object" } }]));
    await assert.rejects(seedCollections(store, { catalogs: [fresh, bad] }), { code: "catalog_invalid" });
    assert.equal(await store.getCollection("fresh"), undefined, "nothing was written");
    mkdirSync(join(dir, "other"));
    const twin = join(dir, "other", "fresh.json");
    writeFileSync(twin, JSON.stringify([{ name: "twin_tool", input_schema: { type: "object" } }]));
    await assert.rejects(seedCollections(store, { catalogs: [fresh, twin] }), { code: "invalid_option", message: /both become collection "fresh"/ });
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
