/** A tool collection's curation and learned signal, read from a real SQLite store; usage recorded in both places. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { CollectionLoader } from "../../../src/server/collections/loader.js";
import type { LoadedCollection } from "../../../src/server/collections/types.js";
import { UsageSignals } from "../../../src/server/collections/usage-signals.js";
import type { Store, UsageEvent } from "../../../src/store/types.js";
import type { UsageLearner } from "../../../src/usage/events.js";
import { withStore, noMcp, toolItem } from "./helpers.js";

async function crmOf(store: Store): Promise<LoadedCollection> {
  const { collection } = await store.putCollection("crm", "tools", {}, [toolItem("book_leave", "Book vacation days off work."), toolItem("send_email", "Send an email to a customer.")]);
  return (await new CollectionLoader({ store, snapshots: false, log: assert.fail, startMcp: noMcp }).build(collection)).collection;
}

const top = (collection: LoadedCollection, query: string) => collection.tools!.searchSync(query, { limit: 1 })[0]?.name;
const event = (kind: UsageEvent["kind"], tools: string[], extra: Partial<UsageEvent> = {}): UsageEvent => ({ collection: "crm", session: "s1", kind, tools, at: new Date().toISOString(), ...extra });

test("curation from the store reaches the index: synonyms, pinned rules and the learning switch", async () => {
  await withStore(async (store) => {
    const crm = await crmOf(store);
    const signals = new UsageSignals({ store, log: assert.fail, find: () => crm });
    assert.equal(top(crm, "pto"), undefined);
    await store.putCuration("crm", "synonyms", { groups: [["pto", "vacation"]] });
    await store.putCuration("crm", "rules", { rules: [{ query: "email", pin: ["book_leave"] }] });
    await store.putCuration("crm", "learning", { enabled: false });
    await signals.applyCuration(crm);
    assert.equal(top(crm, "pto"), "book_leave");
    assert.equal(top(crm, "email"), "book_leave", "pinned first");
    assert.equal(crm.learningOff, true);
  });
});

test("recorded usage goes to the store and to the loaded collection's learner at once; the learner is rebuilt from the store", async () => {
  await withStore(async (store) => {
    const crm = await crmOf(store);
    const signals = new UsageSignals({ store, log: assert.fail, find: (name) => (name === "crm" ? crm : undefined) });
    await signals.loadLearner(crm);
    const fed: UsageEvent[] = [];
    const real = crm.learner!;
    crm.learner = { add: (e: UsageEvent) => (fed.push(e), real.add(e)), signal: real.signal } as unknown as UsageLearner;
    const events = [event("search", ["send_email"], { query: "holiday" }), event("call", ["book_leave"], { outcome: "ok" })];
    await signals.hookFor("crm").record(events);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(fed, events);
    assert.equal((await store.listUsage("crm")).length, 2);
    assert.equal(real.signal.evidence, 1, "the search→call pair, learned at once");
    await signals.loadLearner(crm);
    assert.notEqual(crm.learner, real, "a new learner…");
    assert.equal(crm.learner!.signal.evidence, 1, "…that learned the same pair from the stored events");
  });
});

test("a store that refuses usage events is logged, never thrown", async () => {
  await withStore(async (store) => {
    const lines: string[] = [];
    const failing = Object.assign(Object.create(store) as Store, { recordUsage: () => Promise.reject(new Error("disk full")) });
    const signals = new UsageSignals({ store: failing, log: (line) => lines.push(line), find: () => undefined });
    await signals.record("crm", [event("load", ["send_email"])]);
    assert.match(lines.join("\n"), /could not record usage of crm: disk full/);
  });
});
