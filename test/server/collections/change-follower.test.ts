/**
 * Following the change log on a real SQLite store: pages handed over in order as plans, the position (applied, head,
 * when), a pruned log starting over, and a failing store reported and retried.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChangePlan } from "../../../src/server/collections/change-plan.js";
import { ChangeFollower, type ChangeTarget } from "../../../src/server/collections/change-follower.js";
import { SerialQueue } from "../../../src/server/collections/serial-queue.js";
import type { Store } from "../../../src/store/types.js";
import { withStore, toolItem } from "./helpers.js";

/** A target that records what it is asked to do. */
function recorder(): ChangeTarget & { plans: ChangePlan[]; reloads: number } {
  const target = {
    plans: [] as ChangePlan[],
    reloads: 0,
    applyPlan: async (plan: ChangePlan) => void target.plans.push(plan),
    reloadAll: async () => void target.reloads++,
  };
  return target;
}

const keysOf = (plans: ChangePlan[]) => plans.flatMap((plan) => [...plan.keys].flatMap(([name, keys]) => [...keys].map((key) => `${name}/${key}`)));

test("sync hands every page after the position to the target as a plan, in order, and moves the position", async () => {
  await withStore(async (store) => {
    await store.putCollection("crm", "tools", {}, []);
    let clock = 1000;
    const target = recorder();
    const follower = new ChangeFollower({ store, queue: new SerialQueue(), target, pageSize: 2, log: assert.fail, now: () => clock });
    await follower.begin();
    assert.deepEqual(await follower.position(), { appliedSeq: 1, headSeq: 1, lastAppliedAt: undefined });
    for (const name of ["a", "b", "c"]) await store.putItem("crm", toolItem(name, `Tool ${name}.`));
    await store.putCuration("crm", "synonyms", { groups: [["a", "b"]] });
    assert.deepEqual(await follower.position(), { appliedSeq: 1, headSeq: 5, lastAppliedAt: undefined }, "behind by four");
    clock = 2000;
    await follower.sync();
    assert.equal(target.plans.length, 2, "two pages of two");
    assert.deepEqual(keysOf(target.plans), ["crm/a", "crm/b", "crm/c"]);
    assert.deepEqual([...target.plans[1].curated], ["crm"]);
    assert.deepEqual(await follower.position(), { appliedSeq: 5, headSeq: 5, lastAppliedAt: 2000 });
    await follower.sync();
    assert.equal(target.plans.length, 2, "nothing new: nothing applied twice");
  });
});

test("follow syncs on the store's own notifications; stop ends that", async () => {
  await withStore(async (store) => {
    const target = recorder();
    const queue = new SerialQueue();
    const follower = new ChangeFollower({ store, queue, target, log: assert.fail });
    await follower.begin();
    follower.follow();
    await store.putCollection("crm", "tools", {}, []);
    await queue.idle();
    assert.deepEqual(target.plans.map((plan) => [...plan.whole]), [["crm"]]);
    follower.stop();
    await store.putCollection("kb", "docs", {}, []);
    await queue.idle();
    assert.equal(target.plans.length, 1);
    assert.equal(follower.appliedSeq, 1);
  });
});

test("a log pruned past the position: every collection is reloaded, then the position is the head read before reloading", async () => {
  await withStore(async (store) => {
    const lines: string[] = [];
    const target = recorder();
    const follower = new ChangeFollower({ store, queue: new SerialQueue(), target, log: (line) => lines.push(line) });
    await follower.begin();
    await store.putCollection("crm", "tools", {}, []);
    await store.putItem("crm", toolItem("a", "Alpha."));
    await store.pruneChanges(await store.latestSeq() - 1);
    await follower.sync();
    assert.equal(target.reloads, 1);
    assert.equal(target.plans.length, 0, "the pruned page is not replayed");
    assert.equal(follower.appliedSeq, 2);
    assert.match(lines.join("\n"), /pruned past seq 0; reloading every collection/);
  });
});

test("a store failure while catching up is reported, never thrown, and the next sync applies what was missed", async () => {
  await withStore(async (real) => {
    let failures = 1;
    const store = new Proxy(real, {
      get(target, property, receiver) {
        if (property === "changesSince" && failures > 0) return async () => (failures--, Promise.reject(new Error("connection refused")));
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    }) as Store;
    const lines: string[] = [];
    const target = recorder();
    const follower = new ChangeFollower({ store, queue: new SerialQueue(), target, log: (line) => lines.push(line) });
    await follower.begin();
    await real.putCollection("crm", "tools", {}, []);
    await follower.sync();
    assert.match(lines.join("\n"), /could not apply changes after seq 0: connection refused/);
    assert.equal(follower.appliedSeq, 0);
    await follower.sync();
    assert.equal(follower.appliedSeq, 1);
    assert.deepEqual(target.plans.map((plan) => [...plan.whole]), [["crm"]]);
  });
});
