/**
 * Building a collection's index from a real SQLite store: from the items, from a snapshot exactly, from a snapshot
 * caught up with the log, and a damaged snapshot rebuilt (logged, and deleted so the rebuilt one replaces it).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { CollectionLoader } from "../../../src/server/collections/loader.js";
import { saveSnapshot } from "../../../src/server/snapshots.js";
import type { CollectionRecord, Store } from "../../../src/store/types.js";
import { withStore, noMcp, tool, toolItem } from "./helpers.js";

function loaderOf(store: Store, lines: string[] = []): CollectionLoader {
  return new CollectionLoader({ store, snapshots: true, log: (line) => lines.push(line), startMcp: noMcp });
}

/** A tools collection of three, with a snapshot saved at its version; returns its record. */
async function withSnapshot(store: Store): Promise<CollectionRecord> {
  const { collection } = await store.putCollection("crm", "tools", {}, [toolItem("send_email", "Send an email."), toolItem("create_lead", "Create a sales lead."), toolItem("close_deal", "Close a deal.")]);
  const built = await loaderOf(store).build(collection, false);
  assert.ok(await saveSnapshot(store, "crm", collection.version, () => built.collection.tools!.snapshot()));
  return collection;
}

test("from the items: every stored item indexed, a broken one reported and skipped; a snapshot is due", async () => {
  await withStore(async (store) => {
    const { collection } = await store.putCollection("crm", "tools", {}, [toolItem("send_email", "Send an email."), { key: "broken", body: { name: "broken", input_schema: "x" } }]);
    const lines: string[] = [];
    const { collection: built, saved } = await loaderOf(store, lines).build(collection);
    assert.equal(saved, false);
    assert.equal(built.source, "rebuild");
    assert.equal(built.loaded, true);
    assert.deepEqual(built.tools!.names(), ["send_email"]);
    assert.match(lines.join("\n"), /crm\/broken is stored but cannot be indexed/);
  });
});

test("from a snapshot at the collection's version: the index is exactly the snapshot, no snapshot is due", async () => {
  await withStore(async (store) => {
    const record = await withSnapshot(store);
    const { collection, saved } = await loaderOf(store).build(record);
    assert.equal(collection.source, "snapshot");
    assert.equal(saved, true);
    assert.equal(collection.version, record.version);
    assert.equal(collection.tools!.searchSync("sales lead", { limit: 1 })[0].name, "create_lead");
  });
});

test("from an older snapshot: the changes since are replayed onto it, and a snapshot is due", async () => {
  await withStore(async (store) => {
    await withSnapshot(store);
    await store.putItem("crm", toolItem("aurora_alert", "Northern lights alert."));
    await store.deleteItem("crm", "close_deal");
    await store.putItem("crm", { key: "send_email", body: tool("send_email", "Send a message by carrier pigeon.") });
    const record = (await store.getCollection("crm"))!;
    const { collection, saved } = await loaderOf(store).build(record);
    assert.equal(collection.source, "snapshot");
    assert.equal(saved, false);
    assert.equal(collection.version, record.version);
    assert.deepEqual(collection.tools!.names().sort(), ["aurora_alert", "create_lead", "send_email"]);
    assert.equal(collection.tools!.searchSync("pigeon", { limit: 1 })[0].name, "send_email");
  });
});

test("a snapshot the log cannot bring up to date (collection replaced since) is rebuilt from the items", async () => {
  await withStore(async (store) => {
    await withSnapshot(store);
    const { collection: record } = await store.putCollection("crm", "tools", {}, [toolItem("only_one", "The only tool.")]);
    const lines: string[] = [];
    const { collection } = await loaderOf(store, lines).build(record);
    assert.equal(collection.source, "rebuild");
    assert.deepEqual(collection.tools!.names(), ["only_one"]);
    assert.match(lines.join("\n"), /change log cannot bring it there; rebuilding it/);
  });
});

test("a damaged snapshot is logged, deleted and the collection rebuilt from its items", async () => {
  await withStore(async (store) => {
    const record = await store.putCollection("crm", "tools", {}, [toolItem("send_email", "Send an email.")]).then((r) => r.collection);
    await store.putSnapshot({ collection: "crm", version: record.version, encoding: "raw", bytes: Buffer.from("not a snapshot") });
    const lines: string[] = [];
    const { collection, saved } = await loaderOf(store, lines).build(record);
    assert.equal(collection.source, "rebuild");
    assert.equal(saved, false);
    assert.deepEqual(collection.tools!.names(), ["send_email"]);
    assert.match(lines.join("\n"), /the snapshot of crm cannot be used \(.+\); rebuilding it/);
    assert.equal(await store.getSnapshot("crm"), undefined);
  });
});

test("reindex re-reads keys into an index (an absent one is removed) and says when the collection is gone", async () => {
  await withStore(async (store) => {
    const record = await withSnapshot(store);
    const loader = loaderOf(store);
    const { collection } = await loader.build(record);
    collection.bytes = 1;
    await store.deleteItem("crm", "close_deal");
    await store.putItem("crm", toolItem("new_tool", "A new tool."));
    assert.equal(await loader.reindex(collection, new Set(["close_deal", "new_tool"])), true);
    assert.deepEqual(collection.tools!.names().sort(), ["create_lead", "new_tool", "send_email"]);
    assert.equal(collection.bytes, undefined, "to be counted again");
    await store.deleteCollection("crm");
    assert.equal(await loader.reindex(collection, new Set(["send_email"])), false);
  });
});
