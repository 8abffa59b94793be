/** When collections load: the warm-up list, and one shared load per first request (real SQLite store and loader). */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChangeApplier } from "../../../src/server/collections/apply-changes.js";
import { CollectionLoader } from "../../../src/server/collections/loader.js";
import { Loads, warmUpList } from "../../../src/server/collections/loads.js";
import { ResidentSet } from "../../../src/server/collections/resident-set.js";
import { SerialQueue } from "../../../src/server/collections/serial-queue.js";
import type { CollectionEvent } from "../../../src/server/collections/types.js";
import type { CollectionRecord, Store } from "../../../src/store/types.js";
import { withStore, noMcp, toolItem } from "./helpers.js";

const record = (name: string, version: number): CollectionRecord => ({ name, kind: "tools", version, updatedAt: "2026-01-01T00:00:00.000Z", config: {}, size: 0 });
const records = [record("a", 5), record("b", 9), record("c", 1), record("d", 7)];
const names = (list: CollectionRecord[]) => list.map((r) => r.name);

test("the warm-up list: every collection by default; else the ones named and the N most recently changed, in store order", () => {
  assert.deepEqual(names(warmUpList(records)), ["a", "b", "c", "d"]);
  assert.deepEqual(names(warmUpList(records, { names: ["c"], recent: 2 })), ["b", "c", "d"]);
  assert.deepEqual(names(warmUpList(records, {})), []);
  const lines: string[] = [];
  assert.deepEqual(names(warmUpList(records, { names: ["a", "zz"] }, (line) => lines.push(line))), ["a"]);
  assert.deepEqual(lines, ["toolsearch serve: --preload zz: there is no such collection in the store"]);
});

/** Loads over a real loader, with a swap-in that only holds what it is given (the applier's own tests are elsewhere). */
function loadsOf(store: Store) {
  const residents = new ResidentSet();
  const events: CollectionEvent[] = [];
  let reads = 0;
  const counting = Object.assign(Object.create(store) as Store, { listItems: (name: string) => (reads++, store.listItems(name)) });
  const loader = new CollectionLoader({ store: counting, snapshots: false, log: assert.fail, startMcp: noMcp });
  const applier = { swapIn: async (built: { collection: Parameters<ResidentSet["hold"]>[0] }) => (residents.hold(built.collection), built.collection) } as unknown as ChangeApplier;
  const loads = new Loads({ store, queue: new SerialQueue(), residents, loader, applier, log: assert.fail, emit: (e) => events.push(e) });
  return { loads, residents, events, reads: () => reads };
}

test("concurrent first requests share one load, reported once with its source", async () => {
  await withStore(async (store) => {
    await store.putCollection("crm", "tools", {}, [toolItem("a", "Alpha."), toolItem("b", "Beta.")]);
    const { loads, residents, events, reads } = loadsOf(store);
    const all = await Promise.all(Array.from({ length: 5 }, () => loads.load("crm")));
    for (const loaded of all) assert.equal(loaded, all[0]);
    assert.equal(reads(), 1);
    assert.equal(residents.find("crm")!.tools!.size, 2);
    assert.deepEqual(events.map((e) => [e.type, e.name, e.type === "load" && e.source]), [["load", "crm", "rebuild"]]);
    await loads.load("crm");
    assert.equal(reads(), 2, "a load after the first settled is a new one (the caller checks what is loaded)");
    await loads.settled();
  });
});

test("a collection gone from the store loads as undefined and its record is forgotten", async () => {
  await withStore(async (store) => {
    const { loads, residents, events } = loadsOf(store);
    residents.know(record("gone", 3));
    assert.equal(await loads.load("gone"), undefined);
    assert.equal(residents.knows("gone"), false);
    assert.deepEqual(events, []);
  });
});
