import assert from "node:assert/strict";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openCatalog, SNAPSHOT_MIN_TOOLS } from "../../src/cli/index-cache.js";
import { makeTempDir } from "../helpers/temp-dir.js";

const dir = makeTempDir("toolsearch-snapcache-");
after(() => rmSync(dir, { recursive: true, force: true }));
const cache = join(dir, "cache", "embeddings.sqlite");
const snapshots = () => readdirSync(join(dir, "cache", "snapshots")).filter((f) => f.endsWith(".snap"));

function catalog(count: number, extra = "", file = "catalog.json"): string {
  const topics = ["weather", "stock", "invoice", "flight", "calendar", "email", "translate", "music"];
  const tools = Array.from({ length: count }, (_, i) => ({
    name: `tool_${i}`,
    description: `${topics[i % topics.length]} helper number ${i} ${extra}`,
    input_schema: { type: "object", properties: { [`${topics[(i * 3) % topics.length]}_id`]: { type: "string" } } },
  }));
  const path = join(dir, file);
  writeFileSync(path, JSON.stringify(tools));
  return path;
}

describe("the CLI's snapshot cache", () => {
  it("saves a snapshot of a large catalog and answers the same from it", async () => {
    const path = catalog(SNAPSHOT_MIN_TOOLS);
    const first = await openCatalog(path, {}, cache);
    first.save();
    assert.equal(snapshots().length, 1);
    const second = await openCatalog(path, {}, cache);
    assert.deepEqual(second.index.searchSync("weather helper 42", { limit: 5 }), first.index.searchSync("weather helper 42", { limit: 5 }));
    second.save(); // nothing new: the same single file stays
    assert.equal(snapshots().length, 1);
  });

  it("makes a new snapshot when the catalog changes and drops the old one", async () => {
    const before = snapshots();
    const path = catalog(SNAPSHOT_MIN_TOOLS, "changed");
    const opened = await openCatalog(path, {}, cache);
    opened.save();
    const now = snapshots();
    assert.equal(now.length, 1);
    assert.notDeepEqual(now, before);
    assert.match(opened.index.describe("tool_7")!.description!, /changed/);
  });

  it("rebuilds quietly from a damaged snapshot, and keeps none for small catalogs or with --no-cache", async () => {
    const path = catalog(SNAPSHOT_MIN_TOOLS, "changed");
    const [file] = snapshots();
    writeFileSync(join(dir, "cache", "snapshots", file), "garbage");
    const rebuilt = await openCatalog(path, {}, cache);
    assert.equal(rebuilt.index.size, SNAPSHOT_MIN_TOOLS);
    rebuilt.save();
    assert.ok((await openCatalog(path, {}, cache)).index.searchSync("invoice", { limit: 1 }).length === 1);
    const small = await openCatalog(catalog(10, "", "small.json"), {}, cache);
    small.save();
    assert.equal(snapshots().length, 1);
    const off = await openCatalog(path, {}, false);
    off.save();
    assert.equal(off.index.size, SNAPSHOT_MIN_TOOLS);
  });
});
