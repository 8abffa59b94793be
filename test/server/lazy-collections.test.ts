/**
 * Many collections per replica: a collection loads on its first request (one load for concurrent callers), a warm-up
 * list loads at start, and a memory budget drops the least recently used idle collections, which come back from their
 * snapshots with every change made meanwhile. Real SQLite store, real HTTP routes (inject), real indexes.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Collections, type CollectionEvent, type CollectionsOptions } from "../../src/server/collections.js";
import type { Store } from "../../src/store/types.js";
import { helpCenter, makeService, type TestService, weatherTools } from "./helpers.js";

const tool = (name: string, description: string) => ({ name, description, input_schema: { type: "object", properties: {} } });
const keyOf = (t: Record<string, unknown>) => String(t.name ?? (t.function as { name: string }).name);
const NAMES = ["alpha", "bravo", "charlie", "delta"];

/** Four tools collections (the weather catalog, each with a tool of its own) and one of documents. */
async function fill(store: Store): Promise<void> {
  for (const name of NAMES) {
    const items = [...weatherTools(), tool(`${name}_only`, `Only ${name} has this tool.`)].map((t) => ({ key: keyOf(t), body: t }));
    await store.putCollection(name, "tools", {}, items);
  }
  await store.putCollection("kb", "docs", {}, helpCenter().map((d) => ({ key: String(d.id), body: d })));
}

async function service(collectionOptions: CollectionsOptions): Promise<{ svc: TestService; events: CollectionEvent[] }> {
  const svc = await makeService({ collectionOptions: { preload: {}, ...collectionOptions } });
  await fill(svc.store);
  await svc.collections.sync();
  const events: CollectionEvent[] = [];
  svc.collections.observe((event) => events.push(event));
  return { svc, events };
}

async function search(svc: TestService, collection: string, query: string): Promise<unknown> {
  const res = await svc.app.inject({ method: "POST", url: `/v1/collections/${collection}/search`, headers: svc.auth(svc.keys.read), payload: { query, limit: 5 } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().results;
}

test("a replica knows every collection but loads one only when a request needs it; concurrent first requests share one load", async () => {
  const { svc, events } = await service({});
  try {
    assert.equal(svc.collections.loadedCount, 0);
    const ready = await svc.app.inject({ method: "GET", url: "/readyz" });
    assert.equal(ready.statusCode, 200);
    assert.equal(ready.json().collections, 5, "/readyz counts every collection of the store");
    const listed = (await svc.app.inject({ method: "GET", url: "/v1/collections", headers: svc.auth(svc.keys.read) })).json().collections;
    assert.deepEqual(listed.map((c: { name: string; loaded: boolean; size: number }) => [c.name, c.loaded, c.size]), [
      ["alpha", false, weatherTools().length + 1], ["bravo", false, weatherTools().length + 1], ["charlie", false, weatherTools().length + 1],
      ["delta", false, weatherTools().length + 1], ["kb", false, helpCenter().length],
    ]);

    const answers = await Promise.all(Array.from({ length: 6 }, () => search(svc, "bravo", "bravo only")));
    assert.equal((answers[0] as Array<{ name: string }>)[0].name, "bravo_only");
    for (const answer of answers) assert.deepEqual(answer, answers[0]);
    assert.deepEqual(events.map((e) => [e.type, e.name]), [["load", "bravo"]], "six concurrent first requests, one load");
    assert.equal(svc.collections.loadedCount, 1);
    assert.ok(svc.collections.loadedBytes > 0);

    assert.ok(((await search(svc, "kb", "refund")) as unknown[]).length > 0, "a docs collection loads the same way");
    const metrics = (await svc.app.inject({ method: "GET", url: "/metrics", headers: svc.auth(svc.keys.admin) })).body;
    assert.match(metrics, /^toolsearch_collections_loaded 2$/m);
    assert.match(metrics, /^toolsearch_collection_loads_total\{source="rebuild"\} 2$/m);
    assert.match(metrics, /^toolsearch_collection_load_duration_seconds_count\{source="rebuild"\} 2$/m);
    assert.match(metrics, /^toolsearch_index_bytes [1-9]\d*$/m);
    const unknown = await svc.app.inject({ method: "POST", url: "/v1/collections/nope/search", headers: svc.auth(svc.keys.read), payload: { query: "x" } });
    assert.equal(unknown.json().error.code, "unknown_collection");
  } finally {
    await svc.close();
  }
});

test("--preload and --preload-recent warm collections up at start", async () => {
  const { svc } = await service({});
  try {
    await svc.collections.close();
    const logs: string[] = [];
    const warm = new Collections(svc.store, { preload: { names: ["charlie", "ghost"], recent: 2 }, log: (line) => logs.push(line) });
    await warm.start();
    // The two most recently changed are delta and kb (filled last).
    assert.deepEqual(warm.list().filter((c) => c.loaded).map((c) => c.name), ["charlie", "delta", "kb"]);
    assert.match(logs.join("\n"), /--preload ghost: there is no such collection/);
    await warm.close();
  } finally {
    await svc.close();
  }
});

test("under a memory budget the least recently used idle collection is dropped and comes back, with later changes, answering as before", async () => {
  // The budget: room for two of the tools collections as a rebuild leaves them, not three. One loaded from its
  // snapshot counts about half as much once searched (its tools stay JSON text in the snapshot until asked for).
  const probe = await service({});
  for (const name of NAMES) await search(probe.svc, name, "weather");
  const each = probe.svc.collections.loadedBytes / NAMES.length;
  const unbudgeted = [];
  for (const name of NAMES) unbudgeted.push(await search(probe.svc, name, `${name} only weather forecast`));
  await probe.svc.close();

  const { svc, events } = await service({ memoryBudgetBytes: Math.round(each * 2.3), snapshots: { saveDelayMs: 60_000 } });
  try {
    const answers = [];
    for (const name of NAMES) answers.push(await search(svc, name, `${name} only weather forecast`));
    assert.deepEqual(answers, unbudgeted, "answers are the same with and without a budget");
    assert.ok(svc.collections.loadedBytes <= each * 2.3, `held ${svc.collections.loadedBytes} bytes`);
    assert.deepEqual(events.filter((e) => e.type === "evict").map((e) => e.name), ["alpha", "bravo"], "least recently used first");
    assert.ok(!svc.collections.find("alpha") && svc.collections.find("delta"));

    // A change to an evicted collection, then its next request: it comes back from its snapshot, caught up.
    await svc.store.putItem("alpha", { key: "alpha_new", body: tool("alpha_new", "A zebra crossing counter added while alpha was dropped.") });
    await svc.collections.sync();
    assert.equal(svc.collections.find("alpha"), undefined, "a change does not load an idle collection");
    assert.equal(((await search(svc, "alpha", "zebra crossing")) as Array<{ name: string }>)[0].name, "alpha_new");
    const reload = events.filter((e) => e.type === "load" && e.name === "alpha");
    assert.deepEqual(reload.map((e) => e.type === "load" && e.source), ["rebuild", "snapshot"], "the eviction saved its snapshot; the reload used it");

    // A collection in use by a request is never dropped: pinned, it survives loads that would otherwise drop it.
    assert.deepEqual(svc.collections.list().filter((c) => c.loaded).map((c) => c.name), ["alpha", "delta"]);
    svc.collections.pin("delta"); // the least recently used
    await search(svc, "bravo", "weather");
    await search(svc, "charlie", "weather");
    assert.ok(svc.collections.find("delta"), "pinned delta stayed");
    assert.ok(!svc.collections.find("alpha"), "the least recently used idle collection went instead");
    assert.ok(svc.collections.find("bravo") && svc.collections.find("charlie"));
    svc.collections.release("delta");
    const metrics = (await svc.app.inject({ method: "GET", url: "/metrics", headers: svc.auth(svc.keys.admin) })).body;
    assert.match(metrics, /^toolsearch_collection_evictions_total [1-9]\d*$/m);
  } finally {
    await svc.close();
  }
});

test("a collection larger than the whole budget still loads, with a log line", async () => {
  const logs: string[] = [];
  const { svc } = await service({ memoryBudgetBytes: 1000, log: (line) => logs.push(line) });
  try {
    assert.equal(((await search(svc, "alpha", "alpha only")) as Array<{ name: string }>)[0].name, "alpha_only");
    assert.match(logs.join("\n"), /loading alpha \(\d+\.\d MB\) takes the loaded indexes to .* over the memory budget of 0\.0 MB/);
    await search(svc, "bravo", "weather");
    assert.equal(svc.collections.loadedCount, 1, "the idle one made room");
  } finally {
    await svc.close();
  }
});
