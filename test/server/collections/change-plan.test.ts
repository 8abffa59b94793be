/** What a page of the change log asks for, and the item changes of one collection since a version (real SQLite log). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { itemChangesSince, planPage, prunedPast, touchedKeys } from "../../../src/server/collections/change-plan.js";
import type { Change } from "../../../src/store/types.js";
import { withStore, toolItem } from "./helpers.js";

let seq = 0;
const item = (collection: string, key: string): Change => ({ seq: ++seq, collection, scope: "item", key });
const whole = (collection: string): Change => ({ seq: ++seq, collection, scope: "collection" });
const curation = (collection: string, key: string): Change => ({ seq: ++seq, collection, scope: "curation", key });

test("a page's plan re-reads each touched key once, reloads a collection changed whole instead of its keys, and re-reads curation", () => {
  const plan = planPage([
    item("crm", "a"), item("crm", "b"), item("crm", "a"), item("kb", "d1"),
    curation("crm", "synonyms"), curation("crm", "rules"),
    item("ops", "x"), whole("ops"), curation("ops", "rules"), item("ops", "y"),
  ]);
  assert.deepEqual([...plan.whole], ["ops"]);
  assert.deepEqual([...plan.keys].map(([name, keys]) => [name, [...keys]]), [["crm", ["a", "b"]], ["kb", ["d1"]]]);
  assert.deepEqual([...plan.curated], ["crm"]);
});

test("an item change without a key stands for its whole collection", () => {
  const plan = planPage([{ seq: 1, collection: "crm", scope: "item" }]);
  assert.deepEqual([...plan.whole], ["crm"]);
  assert.equal(plan.keys.size, 0);
});

test("the log is pruned past a position when its first change after it skips some", () => {
  assert.equal(prunedPast(4, [{ seq: 5, collection: "c", scope: "collection" }]), false);
  assert.equal(prunedPast(4, [{ seq: 7, collection: "c", scope: "collection" }]), true);
  assert.equal(prunedPast(4, []), false);
});

test("touched keys are the item changes' keys only: a curation change names no item", () => {
  assert.deepEqual([...touchedKeys([item("crm", "a"), curation("crm", "rules"), item("crm", "a")])], ["a"]);
});

test("item changes since a version: read page by page for that collection only; a replace or a pruned log means rebuild", async () => {
  await withStore(async (store) => {
    const { collection } = await store.putCollection("crm", "tools", {}, [toolItem("a", "Alpha.")]);
    await store.putCollection("kb", "docs", {}, []);
    for (const name of ["b", "c", "d"]) await store.putItem("crm", toolItem(name, `Tool ${name}.`));
    await store.putCuration("crm", "rules", { rules: [] });
    const head = await store.latestSeq();
    const changes = await itemChangesSince(store, "crm", collection.version, head, 2);
    assert.ok(changes !== "rebuild");
    assert.deepEqual(changes.map((c) => [c.scope, c.key]), [["item", "b"], ["item", "c"], ["item", "d"], ["curation", "rules"]]);
    assert.deepEqual(await itemChangesSince(store, "crm", head, head), [], "nothing after the head");

    await store.putCollection("crm", "tools", {}, []);
    assert.equal(await itemChangesSince(store, "crm", head, await store.latestSeq()), "rebuild", "replaced whole");
    await store.pruneChanges(head + 1);
    assert.equal(await itemChangesSince(store, "crm", collection.version, await store.latestSeq()), "rebuild", "the log no longer reaches back");
  });
});
