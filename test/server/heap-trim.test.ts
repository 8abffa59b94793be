import assert from "node:assert/strict";
import { test } from "node:test";
import { exposeGc, HeapTrim } from "../../src/server/heap-trim.js";

const MB = 2 ** 20;

/** A heap whose size the test sets, a clock it moves, and deferred work it runs by hand. */
function fixture(startMb: number) {
  const state = { heap: startMb * MB, now: 0, gcs: 0, afterGcMb: startMb, queued: [] as Array<() => void> };
  const trim = new HeapTrim({
    budgetBytes: 64 * MB,
    gc: () => {
      state.gcs++;
      state.heap = state.afterGcMb * MB;
    },
    heapBytes: () => state.heap,
    now: () => state.now,
    defer: (run) => state.queued.push(run),
  });
  const flush = () => state.queued.splice(0).forEach((run) => run());
  return { state, trim, flush };
}

test("no collection while the heap stays within its start size plus half the budget", () => {
  const { state, trim, flush } = fixture(40);
  state.heap = (40 + 32) * MB; // exactly on the line
  trim.check();
  flush();
  assert.equal(state.gcs, 0);
});

test("past the line: one deferred collection, shared by checks made meanwhile, and none again within the interval", () => {
  const { state, trim, flush } = fixture(40);
  state.heap = 200 * MB;
  trim.check();
  trim.check();
  assert.equal(state.gcs, 0, "deferred until the current work is done");
  flush();
  assert.equal(state.gcs, 1);
  state.heap = 200 * MB;
  state.now += 500;
  trim.check();
  flush();
  assert.equal(state.gcs, 1, "within a second of the last one");
  state.now += 600;
  trim.check();
  flush();
  assert.equal(state.gcs, 2);
});

test("a heap that stays large after collecting moves the line up instead of collecting in a loop, and back down later", () => {
  const { state, trim, flush } = fixture(40);
  state.afterGcMb = 180; // live indexes over what the budget explains
  state.heap = 190 * MB;
  trim.check();
  flush();
  assert.equal(state.gcs, 1);
  state.now += 5_000;
  state.heap = 200 * MB; // under 180 × 1.25
  trim.check();
  flush();
  assert.equal(state.gcs, 1);
  state.afterGcMb = 60; // the big collections were dropped
  state.heap = 240 * MB;
  trim.check();
  flush();
  assert.equal(state.gcs, 2);
  state.now += 5_000;
  state.heap = 100 * MB; // the line came back down to 60 × 1.25 = 75 MB
  trim.check();
  flush();
  assert.equal(state.gcs, 3);
});

test("V8's collector is reachable without --expose-gc and frees unreachable memory", async () => {
  const gc = exposeGc();
  const ref = new WeakRef(Array.from({ length: 200 }, () => Array.from({ length: 10_000 }, (_, i) => i)));
  // A WeakRef's target is kept until the job that created it ends.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  assert.ok(ref.deref() === undefined, "the unreachable arrays were collected");
});

test("tightenHeapGrowth: under load-and-drop churn V8's heap peaks well below where its own growth factor takes it", async () => {
  const { execFileSync } = await import("node:child_process");
  const peak = (mode: string) => Number(execFileSync(process.execPath, ["--import", "tsx", "test/fixtures/heap-churn.ts", mode], { encoding: "utf8" }));
  const loose = peak("default");
  const tight = peak("tight");
  assert.ok(tight < 0.75 * loose, `peak heap ${(tight / MB).toFixed(0)} MB tightened vs ${(loose / MB).toFixed(0)} MB by default`);
});
