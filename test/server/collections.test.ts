/** Keeping indexes in step with the store: load, follow the change log, catch up as a second process would. */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Embedder } from "../../src/embeddings/embedder.js";
import { Collections, manifestOwner } from "../../src/server/collections.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/types.js";
import { eventually, FIXTURE_SERVER } from "../mcp/helpers.js";
import { helpCenter, LetterProvider, tempDir, weatherTools } from "./helpers.js";

const tool = (name: string, description: string) => ({ name, description, input_schema: { type: "object", properties: {} } });
const top = (c: Collections, name: string, query: string) => c.get(name).tools!.searchSync(query, { limit: 3 }).map((h) => h.name);

async function withStores(body: (writer: Store, reader: Store) => Promise<void>): Promise<void> {
  const dir = tempDir();
  const path = join(dir, "store.sqlite");
  const writer = await openStore(path);
  const reader = await openStore(path);
  try {
    await body(writer, reader);
  } finally {
    await writer.close();
    await reader.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test("start loads every collection; local writes reach the index through onChange", async () => {
  await withStores(async (store) => {
    await store.putCollection("weather", "tools", {}, weatherTools().map((t) => ({ key: String(t.name ?? (t.function as { name: string }).name), body: t })));
    await store.putCollection("kb", "docs", {}, helpCenter().map((d) => ({ key: String(d.id), body: d })));
    const collections = new Collections(store, { log: () => {} });
    await collections.start();
    assert.equal(collections.ready, true);
    assert.deepEqual(collections.list().map((c) => [c.name, c.kind, collections.sizeOf(c)]), [["kb", "docs", 5], ["weather", "tools", 8]]);
    await store.putItem("weather", { key: "aurora_alert", body: tool("aurora_alert", "Northern lights alert.") });
    await collections.sync();
    assert.equal(top(collections, "weather", "northern lights")[0], "aurora_alert");
    assert.equal(collections.appliedSeq, await store.latestSeq());
    await collections.close();
  });
});

test("a second process catches up from the change log alone (no notifications), and applying twice is harmless", async () => {
  await withStores(async (writer, reader) => {
    await writer.putCollection("weather", "tools", {}, []);
    const replica = new Collections(reader, { log: () => {}, pageSize: 2 });
    await replica.start();
    await writer.batch("weather", [{ key: "a_tool", body: tool("a_tool", "Alpha helper.") }, { key: "b_tool", body: tool("b_tool", "Beta helper.") }], []);
    await writer.putItem("weather", { key: "c_tool", body: tool("c_tool", "Gamma helper.") });
    await writer.deleteItem("weather", "a_tool");
    await writer.putCollection("kb", "docs", {}, [{ key: "d1", body: { id: "d1", title: "Refunds", body: "Money back within 14 days." } }]);
    await writer.putItem("weather", { key: "b_tool", body: tool("b_tool", "Beta helper, renamed to delta.") });
    // The writer's onChange is local to its process: the replica sees nothing until it syncs.
    assert.equal(replica.get("weather").tools!.size, 0);
    await replica.sync();
    assert.deepEqual(replica.get("weather").tools!.names().sort(), ["b_tool", "c_tool"]);
    assert.equal(top(replica, "weather", "delta")[0], "b_tool");
    assert.equal(replica.get("kb").docs!.size, 1);
    await replica.sync();
    assert.deepEqual(replica.get("weather").tools!.names().sort(), ["b_tool", "c_tool"]);
    await writer.deleteCollection("kb");
    await replica.sync();
    assert.throws(() => replica.get("kb"), { code: "unknown_collection" });
    await replica.close();
  });
});

test("changes made while the index loads are not lost", async () => {
  await withStores(async (writer, reader) => {
    await writer.putCollection("weather", "tools", {}, weatherTools().map((t) => ({ key: String(t.name ?? (t.function as { name: string }).name), body: t })));
    const replica = new Collections(reader, { log: () => {} });
    const loading = replica.start();
    await writer.putItem("weather", { key: "late_tool", body: tool("late_tool", "Arrived during loading.") });
    await loading;
    await replica.sync();
    assert.ok(replica.get("weather").tools!.get("late_tool"));
    await replica.close();
  });
});

test("a stored item the index refuses is reported and skipped; the rest of the collection loads", async () => {
  await withStores(async (store) => {
    await store.putCollection("weather", "tools", {}, [{ key: "ok_tool", body: tool("ok_tool", "Fine.") }, { key: "broken", body: { name: "broken", input_schema: "x" } }]);
    const lines: string[] = [];
    const collections = new Collections(store, { log: (l) => lines.push(l) });
    await collections.start();
    assert.deepEqual(collections.get("weather").tools!.names(), ["ok_tool"]);
    assert.match(lines.join("\n"), /weather\/broken/);
    await collections.close();
  });
});

test("semantic search on a restarted service uses the stored vectors: the provider embeds only the query", async () => {
  await withStores(async (store) => {
    await store.putCollection("weather", "tools", {}, weatherTools().map((t) => ({ key: String(t.name ?? (t.function as { name: string }).name), body: t })));
    const first = new LetterProvider();
    const a = new Collections(store, { embedder: new Embedder(first, { cache: store }), log: () => {} });
    await a.start();
    const weather = a.get("weather").tools!;
    await weather.prepareEmbeddings();
    // The 8 tools and their 8 names (embedded alone, for the ranker), then the catalog's pseudo-queries for the fusion
    // fit (kept in the snapshot header).
    assert.equal(first.texts, 16 + (await weather.fusionFit()).fit!.queries);
    await a.close();
    const second = new LetterProvider();
    const b = new Collections(store, { embedder: new Embedder(second, { cache: store }), log: () => {} });
    await b.start();
    const hits = await b.get("weather").tools!.search("mortgage", { engine: "semantic", limit: 1 });
    assert.equal(hits.length, 1);
    assert.equal(second.texts, 1, "only the query was embedded");
    await b.close();
  });
});

test("an mcp collection's manifests: stored per server, dropped for servers a replace removes and, with its launch snapshots, when it is deleted", async () => {
  await withStores(async (store) => {
    const server = { command: process.execPath, args: [FIXTURE_SERVER] };
    const collections = new Collections(store, { log: () => {} });
    await collections.start();
    await store.putCollection("fx", "mcp", { mcpServers: { one: server, two: server } }, []);
    await collections.sync();
    const manifest = (name: string) => store.getManifest(manifestOwner("fx"), name);
    await eventually(async () => Boolean((await manifest("one")) && (await manifest("two"))));
    assert.ok((await manifest("one"))!.tools.length > 0);

    await store.putCollection("fx", "mcp", { mcpServers: { one: server } }, []);
    await collections.sync();
    assert.equal(await manifest("two"), undefined, "a server the replace removed");
    assert.ok(await manifest("one"), "a server the replace kept");
    // The reload indexed "one" from its manifest, and kept that index as a launch snapshot.
    const snapshotList = () => store.getSetting(`gateway-index:${manifestOwner("fx")}`) as Promise<string[] | undefined>;
    await eventually(async () => ((await snapshotList()) ?? []).length > 0);
    const snapshots = (await snapshotList())!;

    await store.deleteCollection("fx");
    await collections.sync();
    assert.equal(await manifest("one"), undefined);
    assert.equal(await snapshotList(), undefined, "the launch snapshots' list is gone");
    for (const setting of snapshots) assert.equal(await store.getSetting(setting), undefined, `${setting} is gone`);
    await collections.close();
  });
});

test("position: applied and head change sequence and when a change was last applied; writes land through collections.writes", async () => {
  await withStores(async (writer, reader) => {
    const replica = new Collections(reader, { log: () => {} });
    await replica.start();
    assert.deepEqual(await replica.position(), { appliedSeq: 0, headSeq: 0, lastAppliedAt: undefined });
    await writer.putCollection("weather", "tools", {}, []);
    await writer.putItem("weather", { key: "a_tool", body: tool("a_tool", "Alpha helper.") });
    assert.deepEqual(await replica.position(), { appliedSeq: 0, headSeq: 2, lastAppliedAt: undefined }, "another process wrote: two behind");
    const before = Date.now();
    await replica.sync();
    const { appliedSeq, headSeq, lastAppliedAt } = await replica.position();
    assert.equal(appliedSeq, 2);
    assert.equal(headSeq, 2);
    assert.ok(lastAppliedAt !== undefined && lastAppliedAt >= before);
    await replica.writes.putItem("weather", { key: "b_tool", body: tool("b_tool", "Beta helper.") });
    assert.ok(replica.get("weather").tools!.get("b_tool"), "the writer reads its own write");
    assert.equal(replica.appliedSeq, await replica.headSeq());
    await replica.idle();
    await replica.close();
  });
});
