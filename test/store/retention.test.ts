import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { openStore } from "../../src/store/open.js";
import { pruneMark, pruneRound } from "../../src/store/retention.js";
import { makeTempDir } from "../helpers/temp-dir.js";

test("pruneMark: the newest sample older than the window, or 0", () => {
  const samples: Array<[number, number]> = [[0, 5], [100, 9], [200, 14]];
  assert.equal(pruneMark(samples, 150, 100), 5);
  assert.equal(pruneMark(samples, 300, 100), 14);
  assert.equal(pruneMark(samples, 50, 100), 0);
});

test("pruneRound keeps every change younger than the window and drops the older ones", async () => {
  const dir = makeTempDir("toolsearch-retention-");
  const store = await openStore(join(dir, "store.sqlite"));
  try {
    const samples: Array<[number, number]> = [];
    await store.putCollection("crm", "tools", {}, []);
    await store.putItem("crm", { key: "a", body: { name: "a" } });
    assert.equal(await pruneRound(store, samples, 0, 1000), 0, "nothing is old enough yet");
    await store.putItem("crm", { key: "b", body: { name: "b" } });
    assert.equal(await pruneRound(store, samples, 500, 1000), 0);
    await store.putItem("crm", { key: "c", body: { name: "c" } });
    // At t=1000 the sample of t=0 (seq 2) is a full window old: seq 1 and 2 go, 3 and 4 stay.
    assert.equal(await pruneRound(store, samples, 1000, 1000), 2);
    assert.deepEqual((await store.changesSince(0)).map((c) => c.key), ["b", "c"]);
    assert.equal(await pruneRound(store, samples, 1600, 1000), 1, "the t=500 sample (seq 3) has aged out");
    assert.ok(samples.length <= 3, "old samples are forgotten");
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
