/**
 * Requests write through `CollectionWrites`: to the store, then a sync, so the writer reads its own writes; a write
 * the store refuses is not synced. And no route reaches past it into the store's write methods or `sync`.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { CollectionWrites } from "../../../src/server/collections/writes.js";
import { withStore, toolItem } from "./helpers.js";

test("each write lands in the store and is followed by one sync, with the store's answer passed back", async () => {
  await withStore(async (store) => {
    const heads: number[] = [];
    const writes = new CollectionWrites(store, async () => void heads.push(await store.latestSeq()));
    assert.equal((await writes.putCollection("crm", "tools", {}, [toolItem("a", "Alpha.")])).created, true);
    assert.equal((await writes.putItem("crm", toolItem("b", "Beta."))).created, true);
    assert.deepEqual(await writes.batch("crm", [toolItem("c", "Gamma.")], ["a"]), { upserted: 1, deleted: 1 });
    assert.equal(await writes.deleteItem("crm", "b"), true);
    await writes.putCuration("crm", "rules", { rules: [] });
    await writes.touch("crm");
    assert.equal(await writes.deleteCollection("crm"), true);
    assert.equal(heads.length, 7, "one sync per write");
    assert.deepEqual(heads, [...heads].sort((a, b) => a - b));
    assert.equal(heads[heads.length - 1], await store.latestSeq(), "each sync comes after its write committed");
  });
});

test("a write the store refuses throws its error and syncs nothing", async () => {
  await withStore(async (store) => {
    let syncs = 0;
    const writes = new CollectionWrites(store, async () => void syncs++);
    await writes.putCollection("crm", "tools", {}, [toolItem("a", "Alpha.")]);
    await assert.rejects(writes.putItem("crm", toolItem("a", "Changed."), { ifMatch: "stale" }), { code: "precondition_failed" });
    await assert.rejects(writes.putItem("nowhere", toolItem("a", "Alpha.")), { code: "unknown_collection" });
    await assert.rejects(writes.touch("nowhere"), { code: "unknown_collection" });
    assert.equal(syncs, 1);
  });
});

test("routes write through collections.writes: none calls sync or a store write method itself", () => {
  const dir = fileURLToPath(new URL("../../../src/server/routes/", import.meta.url));
  const reaching = /\.sync\(|store\.(putCollection|deleteCollection|putItem|deleteItem|batch|putCuration)\(/;
  const offenders = readdirSync(dir).filter((file) => file.endsWith(".ts")).filter((file) => reaching.test(readFileSync(dir + file, "utf8")));
  assert.deepEqual(offenders, []);
});
