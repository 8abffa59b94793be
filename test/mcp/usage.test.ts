/**
 * The standalone gateway's usage sink (src/mcp/usage.ts) against a real SQLite store: it keeps up with calls that
 * arrive faster than one per turn of the event loop (each write takes every event queued so far), keeps their order,
 * reports a failed write without failing the next ones, and drops the oldest events only past its cap.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { GATEWAY_USAGE, MAX_QUEUED_USAGE, StoreUsage } from "../../src/mcp/usage.js";
import { openStore } from "../../src/store/open.js";
import type { Store, UsageEvent } from "../../src/store/types.js";
import { makeTempDir } from "../helpers/temp-dir.js";

const dir = makeTempDir("toolsearch-usage-");
const call = (i: number): UsageEvent => ({ collection: GATEWAY_USAGE, session: "s1", kind: "call", tools: [`srv__tool${i}`], outcome: "ok", at: new Date(1_700_000_000_000 + i).toISOString() });

/** The store, counting the events handed to it. */
function counting(store: Store): { store: Store; written: () => number; writes: () => number } {
  let written = 0;
  let writes = 0;
  const wrapped = Object.create(store) as Store;
  wrapped.recordUsage = async (events) => {
    writes++;
    await store.recordUsage(events);
    written += events.length;
  };
  return { store: wrapped, written: () => written, writes: () => writes };
}

test("keeps up with 16 calls a turn for 200 turns, in order, in far fewer writes than calls", async () => {
  const real = await openStore(join(dir, "keep-up.sqlite"));
  try {
    const { store, written, writes } = counting(real);
    const usage = await StoreUsage.open(store, new ToolIndex([]));
    let recorded = 0;
    let mostBehind = 0;
    for (let turn = 0; turn < 200; turn++) {
      for (let i = 0; i < 16; i++) usage.record([call(recorded++)]);
      await nextTurn();
      mostBehind = Math.max(mostBehind, recorded - written());
    }
    // One write per call, chained, moved one call per turn: 3,000 behind by the end. Batches stay within a few turns.
    assert.ok(mostBehind <= 16 * 4, `at most 4 turns of calls waiting, saw ${mostBehind}`);
    await usage.flush();
    assert.equal(written(), 3200);
    assert.ok(writes() < 3200 / 4, `${writes()} writes for 3,200 calls`);
    const stored = await real.listUsage(GATEWAY_USAGE);
    assert.deepEqual(stored.map((event) => event.tools[0]), Array.from({ length: 3200 }, (_, i) => `srv__tool${i}`));
  } finally {
    await real.close();
  }
});

test("reports a failed write and goes on with the next events", async () => {
  const real = await openStore(join(dir, "fail.sqlite"));
  try {
    const lines: string[] = [];
    let fail = true;
    const store = Object.create(real) as Store;
    store.recordUsage = async (events) => {
      if (fail) throw new Error("disk full");
      await real.recordUsage(events);
    };
    const usage = await StoreUsage.open(store, new ToolIndex([]), { log: (line) => lines.push(line) });
    usage.record([call(1)]);
    await usage.flush();
    assert.deepEqual(lines, ["toolsearch mcp: could not record usage: disk full"]);
    fail = false;
    usage.record([call(2)]);
    await usage.flush();
    assert.deepEqual((await real.listUsage(GATEWAY_USAGE)).map((event) => event.tools[0]), ["srv__tool2"]);
  } finally {
    await real.close();
  }
});

test("drops the oldest events past its cap while the store stalls, and says so", async () => {
  const real = await openStore(join(dir, "stall.sqlite"));
  try {
    const lines: string[] = [];
    let release = () => {};
    const stalled = new Promise<void>((resolve) => (release = resolve));
    const store = Object.create(real) as Store;
    store.recordUsage = async (events) => {
      await stalled;
      await real.recordUsage(events);
    };
    const usage = await StoreUsage.open(store, new ToolIndex([]), { log: (line) => lines.push(line) });
    usage.record([call(0)]); // taken by the stalled write
    for (let i = 1; i <= MAX_QUEUED_USAGE + 5; i++) usage.record([call(i)]);
    assert.equal(usage.dropped, 5);
    assert.match(lines.at(-1)!, /5 oldest dropped so far/);
    release();
    await usage.flush();
    const stored = await real.listUsage(GATEWAY_USAGE, 2 * MAX_QUEUED_USAGE);
    assert.equal(stored.length, 1 + MAX_QUEUED_USAGE);
    assert.deepEqual(stored.slice(0, 2).map((event) => event.tools[0]), ["srv__tool0", "srv__tool6"]);
  } finally {
    await real.close();
  }
});
