/**
 * Index snapshots in the store: a restart loads from one and catches up with the change log from its version; one
 * that cannot be brought up to date, or cannot be read, falls back to a rebuild.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Embedder } from "../../src/embeddings/embedder.js";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { Collections, type CollectionsOptions } from "../../src/server/collections.js";
import { readSnapshot, saveSnapshot } from "../../src/server/snapshots.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/types.js";
import { fixture } from "../helpers/files.js";
import { helpCenter, LetterProvider, tempDir, weatherTools } from "./helpers.js";

const QUERIES = ["weather forecast for tomorrow", "stock price", "convert currency", "rain", "exchange rate euro", "forecast|quote"];
const tool = (name: string, description: string) => ({ name, description, input_schema: { type: "object", properties: {} } });
const keyOf = (t: Record<string, unknown>) => String(t.name ?? (t.function as { name: string }).name);

async function withStore(body: (store: Store, path: string) => Promise<void>): Promise<void> {
  const dir = tempDir();
  const path = join(dir, "store.sqlite");
  const store = await openStore(path);
  try {
    await store.putCollection("weather", "tools", {}, weatherTools().map((t) => ({ key: keyOf(t), body: t })));
    await body(store, path);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts a `Collections` over the store, as a restarted process would, collecting its log lines. */
async function boot(store: Store, options: CollectionsOptions = {}): Promise<{ collections: Collections; logs: string[] }> {
  const logs: string[] = [];
  const collections = new Collections(store, { log: (line) => logs.push(line), ...options });
  await collections.start();
  return { collections, logs };
}

async function results(collections: Collections, engine: "bm25" | "regex" | "hybrid" = "bm25"): Promise<unknown[]> {
  const index = collections.get("weather").tools!;
  const all = [];
  for (const query of QUERIES) all.push((await index.search(query, { limit: 5, engine })).map((h) => [h.name, h.score]));
  return all;
}

test("a restart with a snapshot of the current version loads from it and answers exactly as a rebuild", async () => {
  await withStore(async (store) => {
    const embedder = () => new Embedder(new LetterProvider(), { cache: store });
    const first = await boot(store, { embedder: embedder() });
    assert.equal(first.collections.get("weather").source, "rebuild");
    const rebuilt = { bm25: await results(first.collections), regex: await results(first.collections, "regex"), hybrid: await results(first.collections, "hybrid") };
    assert.equal(await first.collections.saveSnapshots(), 1);
    assert.equal((await readSnapshot(store, "weather"))?.version, (await store.getCollection("weather"))!.version);
    await first.collections.close();

    const second = await boot(store, { embedder: embedder() });
    assert.equal(second.collections.get("weather").source, "snapshot");
    assert.deepEqual({ bm25: await results(second.collections), regex: await results(second.collections, "regex"), hybrid: await results(second.collections, "hybrid") }, rebuilt);
    assert.ok((rebuilt.hybrid[0] as unknown[]).length > 0 && (rebuilt.regex as unknown[][]).some((hits) => hits.length > 0));
    assert.deepEqual(second.logs, []);
    await second.collections.close();
  });
});

test("the index really comes from the snapshot's bytes, not from the items", async () => {
  await withStore(async (store) => {
    // A snapshot that differs from the items (one extra tool), tagged with the current version: only a load from the
    // snapshot can know that tool, so finding it proves no rebuild happened.
    const planted = new ToolIndex([]);
    for (const body of [...weatherTools(), tool("planted_probe", "Only in the snapshot.")]) planted.replace(body);
    await saveSnapshot(store, "weather", (await store.getCollection("weather"))!.version, () => planted.snapshot());
    const { collections } = await boot(store);
    assert.equal(collections.get("weather").tools!.searchSync("planted probe", { limit: 1 })[0]?.name, "planted_probe");
    await collections.close();
  });
});

test("an older snapshot is caught up with the change log; one the log cannot bring up to date is rebuilt", async () => {
  await withStore(async (store) => {
    const first = await boot(store);
    await first.collections.saveSnapshots();
    // Nothing changed since the save, so closing saves nothing; then change the collection while no process runs.
    await first.collections.close();
    await store.putItem("weather", { key: "aurora_alert", body: tool("aurora_alert", "Northern lights alert.") });
    await store.deleteItem("weather", keyOf(weatherTools()[0]));
    const saved = await readSnapshot(store, "weather");
    assert.ok(saved && saved.version < (await store.getCollection("weather"))!.version);

    const second = await boot(store, { snapshots: { saveDelayMs: 60_000 } });
    const caughtUp = second.collections.get("weather");
    assert.equal(caughtUp.source, "snapshot");
    assert.equal(caughtUp.version, (await store.getCollection("weather"))!.version);
    assert.equal(caughtUp.tools!.searchSync("northern lights", { limit: 1 })[0]?.name, "aurora_alert");
    assert.equal(caughtUp.tools!.get(keyOf(weatherTools()[0])), undefined, "a deletion after the snapshot is replayed too");
    assert.equal(caughtUp.tools!.size, weatherTools().length);
    assert.deepEqual(second.logs, []);
    await second.collections.close(); // saves the caught-up version

    // Replaced whole after the snapshot: the log cannot be replayed item by item.
    await store.putCollection("weather", "tools", {}, [{ key: "tide_times", body: tool("tide_times", "High and low tide times.") }]);
    const third = await boot(store);
    assert.equal(third.collections.get("weather").source, "rebuild");
    assert.deepEqual(third.collections.get("weather").tools!.names(), ["tide_times"]);
    assert.match(third.logs.join("\n"), /snapshot of weather is of version \d+, the collection is at \d+ and the change log cannot bring it there; rebuilding/);
    await third.collections.close();

    // The log pruned past the snapshot's version: rebuilt too.
    await store.putItem("weather", { key: "aurora_alert", body: tool("aurora_alert", "Northern lights alert.") });
    await store.pruneChanges(await store.latestSeq());
    const fourth = await boot(store);
    assert.equal(fourth.collections.get("weather").source, "rebuild");
    assert.deepEqual(fourth.collections.get("weather").tools!.names().sort(), ["aurora_alert", "tide_times"]);
    await fourth.collections.close();
  });
});

test("a damaged snapshot falls back to a rebuild with a log line", async () => {
  await withStore(async (store) => {
    const { collections: reference } = await boot(store, { snapshots: false });
    const expected = await results(reference);
    const good = reference.get("weather").tools!.snapshot();
    await reference.close();
    const version = (await store.getCollection("weather"))!.version;
    const damaged = Buffer.from(good);
    damaged.fill(0x7a, 8, 64);
    const rows = [damaged, good.subarray(0, good.length >> 1), Buffer.from("not a snapshot")].map((bytes) => ({ encoding: "raw", bytes }));
    rows.push({ encoding: "gzip", bytes: good }, { encoding: "zstd-from-the-future", bytes: good });
    for (const row of rows) {
      await store.deleteSnapshots("weather");
      await store.putSnapshot({ collection: "weather", version, ...row });
      const { collections, logs } = await boot(store);
      assert.equal(collections.get("weather").source, "rebuild");
      assert.deepEqual(await results(collections), expected);
      assert.match(logs.join("\n"), /snapshot of weather cannot be used .*rebuilding it/);
      await collections.close(); // saves a good snapshot again; the next round damages it anew
    }
  });
});

test("changes are saved as a snapshot after a quiet moment, only once the index holds every change, and at close", async () => {
  await withStore(async (writer, path) => {
    const reader = await openStore(path);
    try {
      const { collections } = await boot(reader, { snapshots: { saveDelayMs: 60_000 } });
      assert.equal(await collections.saveSnapshots(), 1);
      // Another process writes; this replica has not applied it yet, so its index is behind the version: no snapshot.
      await writer.putItem("weather", { key: "aurora_alert", body: tool("aurora_alert", "Northern lights alert.") });
      await collections.sync();
      await writer.putItem("weather", { key: "tide_times", body: tool("tide_times", "High and low tide times.") });
      assert.equal(await collections.saveSnapshots(), 0);
      await collections.sync();
      await collections.close(); // saves what is pending
      const version = (await writer.getCollection("weather"))!.version;
      assert.equal((await readSnapshot(writer, "weather"))?.version, version);

      const again = await boot(reader);
      assert.equal(again.collections.get("weather").source, "snapshot");
      assert.equal(again.collections.get("weather").tools!.searchSync("tide", { limit: 1 })[0]?.name, "tide_times");
      // The debounce: a local write is saved by the timer, without an explicit call.
      await again.collections.close();
      const quick = await boot(reader, { snapshots: { saveDelayMs: 10 } });
      await reader.deleteItem("weather", "tide_times");
      await quick.collections.sync();
      const latest = (await reader.getCollection("weather"))!.version;
      for (let i = 0; i < 200 && (await readSnapshot(reader, "weather"))?.version !== latest; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal((await readSnapshot(reader, "weather"))?.version, latest);
      await quick.collections.close();
    } finally {
      await reader.close();
    }
  });
});

test("deleting a collection deletes its snapshot", async () => {
  await withStore(async (store) => {
    const { collections } = await boot(store);
    await collections.saveSnapshots();
    assert.ok(await readSnapshot(store, "weather"));
    await store.deleteCollection("weather");
    await collections.sync();
    assert.equal(await readSnapshot(store, "weather"), undefined);
    await collections.close();
  });
});

test("a docs collection restarts from its snapshot, answering searches and reads exactly as a rebuild", async () => {
  await withStore(async (store) => {
    await store.putCollection("kb", "docs", {}, helpCenter().map((d) => ({ key: String(d.id), body: d })));
    const embedder = () => new Embedder(new LetterProvider(), { cache: store });
    const answers = async (collections: Collections) => {
      const docs = collections.get("kb").docs!;
      const out = [];
      for (const query of ["refund a payment", "reset password", "shipping times", "refnud"]) {
        out.push(await docs.search(query, { limit: 5 }), await docs.search(query, { limit: 5, engine: "hybrid" }));
      }
      return [out, docs.read(docs.ids()[0], { maxChars: 200 }), docs.passageCount];
    };
    const first = await boot(store, { embedder: embedder() });
    assert.equal(first.collections.get("kb").source, "rebuild");
    const rebuilt = await answers(first.collections);
    assert.equal(await first.collections.saveSnapshots(), 2, "weather and kb");
    await first.collections.close();
    const saved = await store.getSnapshot("kb");
    assert.equal(saved?.encoding, "gzip", "compressed: it pays on document text");

    const second = await boot(store, { embedder: embedder() });
    assert.equal(second.collections.get("kb").source, "snapshot");
    assert.deepEqual(await answers(second.collections), rebuilt);
    assert.deepEqual(second.logs, []);
    await second.collections.close();

    // Damaged: rebuilt, with a log line.
    await store.deleteSnapshots("kb");
    await store.putSnapshot({ collection: "kb", version: saved!.version, encoding: "gzip", bytes: saved!.bytes.subarray(0, saved!.bytes.length >> 1) });
    const third = await boot(store, { embedder: embedder() });
    assert.equal(third.collections.get("kb").source, "rebuild");
    assert.deepEqual(await answers(third.collections), rebuilt);
    assert.match(third.logs.join("\n"), /snapshot of kb cannot be used/);
    await third.collections.close();
  });
});

test("a docs snapshot of an earlier release (format 1) is not used: the collection is rebuilt and saved anew", async () => {
  await withStore(async (store) => {
    await store.putCollection("kb", "docs", {}, helpCenter().map((d) => ({ key: String(d.id), body: d })));
    const version = (await store.getCollection("kb"))!.version;
    const old = readFileSync(fixture("snapshots", "help-center-docs.format1.snap"));
    await store.putSnapshot({ collection: "kb", version, encoding: "raw", bytes: old });
    const { collections, logs } = await boot(store);
    assert.equal(collections.get("kb").source, "rebuild");
    assert.match(logs.join("\n"), /snapshot of kb cannot be used \(.*earlier release.*\); rebuilding it/);
    assert.equal(collections.get("kb").docs!.searchSync("refund", { limit: 1 })[0]?.id, "kb-refunds");
    await collections.saveSnapshots();
    await collections.close();
    const again = await boot(store);
    assert.equal(again.collections.get("kb").source, "snapshot", "the rebuilt index was saved in the current format");
    await again.collections.close();
  });
});

test("two replicas saving the same version: exactly one writes it, and the other makes no snapshot at all", async () => {
  await withStore(async (first, path) => {
    const second = await openStore(path);
    try {
      const replicas = [await boot(first, { snapshots: { saveDelayMs: 60_000 } }), await boot(second, { snapshots: { saveDelayMs: 60_000 } })];
      const encoded: number[] = [0, 0];
      replicas.forEach(({ collections }, i) => {
        const index = collections.get("weather").tools!;
        const snapshot = index.snapshot.bind(index);
        index.snapshot = () => (encoded[i]++, snapshot());
      });
      // Both replicas rebuilt the collection and would save it: at once, then one after the other for a new version.
      const writes = await Promise.all(replicas.map(({ collections }) => collections.saveSnapshots()));
      assert.equal(writes[0] + writes[1], 1, `writes ${writes}`);
      await first.putItem("weather", { key: "aurora_alert", body: tool("aurora_alert", "Northern lights alert.") });
      for (const { collections } of replicas) await collections.sync();
      const before = [...encoded];
      assert.equal(await replicas[1].collections.saveSnapshots(), 1);
      assert.equal(await replicas[0].collections.saveSnapshots(), 0);
      assert.equal(encoded[0], before[0], "the second saver saw the version stored and encoded nothing");
      assert.equal((await readSnapshot(first, "weather"))?.version, (await first.getCollection("weather"))!.version);
      for (const { collections } of replicas) await collections.close();
    } finally {
      await second.close();
    }
  });
});
