/**
 * Replicas in one process: two `Collections` (the service's in-memory side), each on its own PostgresStore, on one
 * real PostgreSQL. What one writes the other applies incrementally; a pruned log makes a replica reload; an item is
 * embedded once for the fleet.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Embedder } from "../../src/embeddings/embedder.js";
import { Collections } from "../../src/server/collections.js";
import { PostgresStore } from "../../src/store/postgres.js";
import type { Store } from "../../src/store/types.js";
import { type PostgresServer, postgresMissing, startPostgres } from "../helpers/postgres.js";
import { waitFor } from "../helpers/replicas.js";
import { LetterProvider } from "./helpers.js";

let server: PostgresServer;
let url: string;
const opened: Array<{ close(): Promise<void> }> = [];

async function store(schema: string): Promise<PostgresStore> {
  const s = new PostgresStore(url, { schema, pollMs: 200 });
  await s.migrate();
  opened.push(s);
  return s;
}

async function replica(s: Store, embedder?: Embedder): Promise<Collections> {
  const c = new Collections(s, { embedder, log: () => {} });
  await c.start();
  opened.unshift(c);
  return c;
}

const tool = (name: string, description: string) => ({ name, description, input_schema: { type: "object", properties: {} } });
const names = async (c: Collections, query: string) => (await c.get("crm").tools!.search(query, { limit: 3 })).map((h) => h.name);

describe("replicas on one PostgreSQL", { skip: postgresMissing }, () => {
  before(async () => {
    server = await startPostgres();
    url = await server.createDatabase();
  });
  after(async () => {
    for (const o of opened) await o.close().catch(() => {});
    await server?.destroy();
  });

  test("a write through one replica is applied by the other, touching only that item's index", async () => {
    const [sa, sb] = [await store("sync"), await store("sync")];
    const a = await replica(sa);
    await sa.putCollection("crm", "tools", {}, [{ key: "get_weather", body: tool("get_weather", "Current weather in a city") }]);
    await a.sync();
    const b = await replica(sb);
    const indexBefore = b.get("crm").tools;
    await sa.putItem("crm", { key: "refund_order", body: tool("refund_order", "Refund a customer's order") });
    await waitFor(async () => (await names(b, "refund order")).includes("refund_order"), "replica b to index the new tool");
    assert.equal(b.get("crm").tools, indexBefore, "the same index was updated in place, not rebuilt");
    await sa.deleteItem("crm", "get_weather");
    await waitFor(async () => !(await names(b, "weather")).includes("get_weather"), "replica b to drop the deleted tool");
    await sa.putCollection("crm", "tools", {}, [{ key: "send_mail", body: tool("send_mail", "Send an email") }]);
    await waitFor(async () => (await names(b, "email")).includes("send_mail"), "the replaced collection");
    assert.notEqual(b.get("crm").tools, indexBefore, "a whole-collection change rebuilds it");
    assert.equal(b.appliedSeq, await sa.latestSeq());
  });

  test("a replica whose position was pruned from the log reloads everything instead of skipping", async () => {
    const [sa, sb] = [await store("pruned"), await store("pruned")];
    await sa.putCollection("crm", "tools", {}, [{ key: "a_tool", body: tool("a_tool", "Original tool") }]);
    // Replica b hears nothing (as if disconnected): it applies changes only when we call sync.
    const deaf: Store = Object.create(sb, { onChange: { value: () => () => {} } });
    const b = await replica(deaf);
    await sa.putItem("crm", { key: "b_tool", body: tool("b_tool", "Archive invoices") });
    await sa.deleteItem("crm", "a_tool");
    await sa.putCollection("gone", "tools", {}, []);
    await b.sync();
    assert.ok(b.list().some((c) => c.name === "gone"));
    await sa.deleteCollection("gone");
    await sa.putItem("crm", { key: "c_tool", body: tool("c_tool", "Translate text") });
    await sa.pruneChanges((await sa.latestSeq()) - 1); // only the last change is left: the deletion of "gone" is not
    await b.sync();
    assert.deepEqual(await names(b, "translate"), ["c_tool"]);
    assert.deepEqual(b.list().map((c) => c.name), ["crm"], "the collection deleted in the pruned part is gone too");
    assert.equal(b.appliedSeq, await sa.latestSeq());
  });

  test("fleet-wide embeddings: a new replica embeds only what no replica embedded before", async () => {
    const [sa, sb] = [await store("vectors"), await store("vectors")];
    await sa.putCollection("crm", "tools", {}, [
      { key: "get_weather", body: tool("get_weather", "Current weather in a city") },
      { key: "refund_order", body: tool("refund_order", "Refund a customer's order") },
      { key: "send_mail", body: tool("send_mail", "Send an email") },
    ]);
    const first = new LetterProvider();
    const a = await replica(sa, new Embedder(first, { cache: sa }));
    await a.get("crm").tools!.search("weather", { engine: "semantic" });
    assert.equal(first.texts, 4, "three tools and the query (names are embedded only for a ranker, which semantic has not)");

    const second = new LetterProvider();
    const b = await replica(sb, new Embedder(second, { cache: sb }));
    const hits = await b.get("crm").tools!.search("send email", { engine: "semantic" });
    assert.ok(hits.length > 0);
    assert.equal(second.texts, 1, "only the new query reached the provider");
  });
});
