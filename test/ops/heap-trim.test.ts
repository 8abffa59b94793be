import assert from "node:assert/strict";
import { test } from "node:test";

const MB = 2 ** 20;

test("tightenHeapGrowth: under load-and-drop churn V8's heap peaks well below where its own growth factor takes it", async () => {
  const { execFileSync } = await import("node:child_process");
  const peak = (mode: string) => Number(execFileSync(process.execPath, ["--import", "tsx", "test/fixtures/heap-churn.ts", mode], { encoding: "utf8" }));
  const loose = peak("default");
  const tight = peak("tight");
  assert.ok(tight < 0.75 * loose, `peak heap ${(tight / MB).toFixed(0)} MB tightened vs ${(loose / MB).toFixed(0)} MB by default`);
});

test("tightenHeapGrowth: an operator's own --heap-growing-percent wins, on the command line or in NODE_OPTIONS", async () => {
  const { tightenHeapGrowth } = await import("../../src/ops/heap-trim.js");
  assert.equal(tightenHeapGrowth(20, { execArgv: ["--heap-growing-percent=50"] }), false);
  assert.equal(tightenHeapGrowth(20, { execArgv: ["--heap_growing_percent", "50"] }), false);
  assert.equal(tightenHeapGrowth(20, { execArgv: [], nodeOptions: "--max-old-space-size=512 --heap-growing-percent=35" }), false);
  // Another flag of a similar name is not the operator's choice of this one.
  assert.equal(tightenHeapGrowth(20, { execArgv: ["--heap-growing-percentage=5"], nodeOptions: "--max-old-space-size=512" }), true);
});
