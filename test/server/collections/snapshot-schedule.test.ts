/**
 * When snapshots are saved, on a real SQLite store: debounced after changes, never for changes not applied yet,
 * before a drop, never for mcp collections or with snapshots off; a deleted collection's snapshot is deleted.
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { CollectionLoader } from "../../../src/server/collections/loader.js";
import { SerialQueue } from "../../../src/server/collections/serial-queue.js";
import { SnapshotSchedule, type SnapshotScheduleOptions } from "../../../src/server/collections/snapshot-schedule.js";
import type { LoadedCollection } from "../../../src/server/collections/types.js";
import type { Store } from "../../../src/store/types.js";
import { withStore, noMcp, toolItem } from "./helpers.js";

/** The store with a loaded `crm` of two tools, and a schedule over it (applied: the store's head unless given). */
async function setUp(store: Store, options: Partial<SnapshotScheduleOptions> = {}) {
  const { collection: record } = await store.putCollection("crm", "tools", {}, [toolItem("send_email", "Send an email."), toolItem("create_lead", "Create a lead.")]);
  const loader = new CollectionLoader({ store, snapshots: true, log: assert.fail, startMcp: noMcp });
  const crm = (await loader.build(record)).collection;
  const loaded = new Map<string, LoadedCollection>([["crm", crm]]);
  const head = await store.latestSeq();
  const schedule = new SnapshotSchedule({ store, queue: new SerialQueue(), find: (name) => loaded.get(name), appliedSeq: () => head, log: assert.fail, ...options });
  return { crm, loaded, schedule };
}

test("a burst of changes is saved once, a while after the last one, at the collection's version", async () => {
  await withStore(async (store) => {
    let writes = 0;
    const counting = Object.assign(Object.create(store) as Store, { putSnapshot: (snapshot: Parameters<Store["putSnapshot"]>[0]) => (writes++, store.putSnapshot(snapshot)) });
    const { crm, schedule } = await setUp(store, { store: counting, snapshots: { saveDelayMs: 30 } });
    for (let i = 0; i < 5; i++) schedule.markUnsaved(crm);
    assert.deepEqual(schedule.pending, ["crm"]);
    assert.equal(await store.snapshotVersion("crm"), undefined);
    // Written once the timer fired; polled, since when it fires depends on the machine's load.
    for (let i = 0; i < 500 && (await store.snapshotVersion("crm")) === undefined; i++) await sleep(20);
    assert.equal(await store.snapshotVersion("crm"), crm.version);
    assert.deepEqual(schedule.pending, []);
    assert.equal(writes, 1);
  });
});

test("a version above the last change applied is not saved until the changes are applied", async () => {
  await withStore(async (store) => {
    let applied = 0;
    const { crm, schedule } = await setUp(store, { appliedSeq: () => applied });
    schedule.markUnsaved(crm);
    assert.equal(await schedule.saveAll(), 0);
    assert.deepEqual(schedule.pending, ["crm"], "left for the next call");
    applied = await store.latestSeq();
    assert.equal(await schedule.saveAll(), 1);
    assert.equal(await schedule.saveAll(), 0, "nothing pending");
    schedule.stop();
  });
});

test("a collection about to be dropped is saved first when it has unsaved changes, and forgotten either way", async () => {
  await withStore(async (store) => {
    const { crm, schedule } = await setUp(store);
    await schedule.saveBeforeDrop("crm");
    assert.equal(await store.snapshotVersion("crm"), undefined, "nothing unsaved: nothing written");
    schedule.markUnsaved(crm);
    await schedule.saveBeforeDrop("crm");
    assert.equal(await store.snapshotVersion("crm"), crm.version);
    assert.deepEqual(schedule.pending, []);
    schedule.stop();
  });
});

test("mcp collections and a replica with snapshots off schedule nothing; a deleted collection's snapshot is deleted", async () => {
  await withStore(async (store) => {
    const { crm, schedule } = await setUp(store);
    schedule.markUnsaved({ ...crm, name: "fx", kind: "mcp" });
    assert.deepEqual(schedule.pending, []);
    schedule.markUnsaved(crm);
    assert.equal(await schedule.saveAll(), 1);
    await schedule.discard("crm", "tools");
    assert.equal(await store.snapshotVersion("crm"), undefined);

    const off = new SnapshotSchedule({ store, queue: new SerialQueue(), snapshots: false, find: () => crm, appliedSeq: () => 1e9, log: assert.fail });
    assert.equal(off.enabled, false);
    off.markUnsaved(crm);
    assert.deepEqual(off.pending, []);
  });
});
