/**
 * The applier over real parts and a real SQLite store: plans applied by re-reading state (loaded collections
 * re-read, idle ones only their record), swap-ins that catch up or give up on a deleted collection, eviction for
 * the budget and drops of deleted collections.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ChangeApplier } from "../../../src/server/collections/apply-changes.js";
import { planPage } from "../../../src/server/collections/change-plan.js";
import { GatewayHost } from "../../../src/server/collections/gateway-host.js";
import { CollectionLoader } from "../../../src/server/collections/loader.js";
import { ResidentSet } from "../../../src/server/collections/resident-set.js";
import { SerialQueue } from "../../../src/server/collections/serial-queue.js";
import { SnapshotSchedule } from "../../../src/server/collections/snapshot-schedule.js";
import type { CollectionEvent } from "../../../src/server/collections/types.js";
import { UsageSignals } from "../../../src/server/collections/usage-signals.js";
import type { Store } from "../../../src/store/types.js";
import { withStore, toolItem } from "./helpers.js";

/** The applier and the parts it changes, wired as `Collections` wires them. */
function partsOf(store: Store, budget?: number) {
  const log = assert.fail;
  const residents = new ResidentSet(budget);
  const find = (name: string) => residents.find(name);
  const signals = new UsageSignals({ store, log, find });
  const gateways = new GatewayHost({ store, log, usage: (name) => signals.hookFor(name) });
  const snapshots = new SnapshotSchedule({ store, queue: new SerialQueue(), find, appliedSeq: () => Infinity, log });
  const loader = new CollectionLoader({ store, snapshots: true, log, startMcp: (record) => gateways.startMcp(record) });
  const events: CollectionEvent[] = [];
  const applier = new ChangeApplier({ store, residents, loader, gateways, signals, snapshots, loadNew: false, log, emit: (e) => events.push(e) });
  return { applier, residents, loader, snapshots, events };
}

async function since(store: Store, seq: number) {
  return planPage(await store.changesSince(seq));
}

test("a plan re-reads the keys of a loaded collection; an idle one only has its record re-read", async () => {
  await withStore(async (store) => {
    await store.putCollection("crm", "tools", {}, [toolItem("a", "Alpha.")]);
    await store.putCollection("ops", "tools", {}, [toolItem("x", "Ex.")]);
    const { applier, residents, loader, snapshots } = partsOf(store);
    for (const record of await store.listCollections()) residents.know(record);
    await applier.swapIn(await loader.build((await store.getCollection("crm"))!));
    const seq = await store.latestSeq();
    await store.putItem("crm", toolItem("b", "Beta."));
    await store.putItem("ops", toolItem("y", "Why."));
    await applier.applyPlan(await since(store, seq));
    assert.deepEqual(residents.find("crm")!.tools!.names().sort(), ["a", "b"]);
    assert.equal(residents.find("crm")!.version, await store.latestSeq() - 1);
    assert.equal(residents.isLoaded("ops"), false, "idle stays idle");
    assert.equal(residents.recordOf("ops")!.size, 2, "its record is re-read");
    assert.deepEqual(snapshots.pending, ["crm"]);
    snapshots.stop();
  });
});

test("a swap-in catches up with changes applied to the record meanwhile, and gives up on a collection deleted meanwhile", async () => {
  await withStore(async (store) => {
    await store.putCollection("crm", "tools", {}, [toolItem("a", "Alpha.")]);
    const { applier, residents, loader, snapshots } = partsOf(store);
    residents.know((await store.getCollection("crm"))!);
    const built = await loader.build((await store.getCollection("crm"))!);
    await store.putItem("crm", toolItem("late", "Arrived while loading."));
    residents.know((await store.getCollection("crm"))!); // what the follower did meanwhile
    const loaded = await applier.swapIn(built);
    assert.ok(loaded?.tools!.get("late"));

    const again = await loader.build((await store.getCollection("crm"))!);
    residents.forget("crm"); // deleted meanwhile
    assert.equal(await applier.swapIn(again), undefined);
    assert.equal(residents.isLoaded("crm"), false);
    snapshots.stop();
  });
});

test("under a budget the least recently used collection is evicted, its unsaved changes saved first", async () => {
  await withStore(async (store) => {
    for (const name of ["a", "b"]) await store.putCollection(name, "tools", {}, [toolItem(`${name}_tool`, `The ${name} tool.`)]);
    const probe = partsOf(store);
    const one = (await probe.loader.build((await store.getCollection("a"))!)).collection.tools!.memoryBytes();
    const { applier, residents, loader, snapshots, events } = partsOf(store, one * 1.5);
    for (const record of await store.listCollections()) residents.know(record);
    await applier.swapIn(await loader.build((await store.getCollection("a"))!));
    assert.deepEqual(snapshots.pending, ["a"]);
    await applier.swapIn(await loader.build((await store.getCollection("b"))!));
    assert.deepEqual(events, [{ type: "evict", name: "a" }]);
    assert.equal(residents.isLoaded("a"), false);
    assert.equal(residents.knows("a"), true);
    assert.equal(await store.snapshotVersion("a"), residents.recordOf("a")!.version, "saved before it was dropped");
    snapshots.stop();
  });
});

test("a deleted collection is dropped: index, record and stored snapshot", async () => {
  await withStore(async (store) => {
    await store.putCollection("crm", "tools", {}, [toolItem("a", "Alpha.")]);
    const { applier, residents, loader, snapshots } = partsOf(store);
    residents.know((await store.getCollection("crm"))!);
    await applier.swapIn(await loader.build((await store.getCollection("crm"))!));
    await snapshots.saveAll();
    assert.ok(await store.snapshotVersion("crm"));
    const seq = await store.latestSeq();
    await store.deleteCollection("crm");
    await applier.applyPlan(await since(store, seq));
    assert.equal(residents.knows("crm"), false);
    assert.equal(residents.isLoaded("crm"), false);
    assert.equal(await store.snapshotVersion("crm"), undefined);
  });
});
